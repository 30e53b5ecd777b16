"""`etwcap selftest`: its /? lists every check as "  NAME  what it checks";
natively it exits 4 like collect; under Wine, whose ETW functions are stubs
that start sessions and deliver nothing, it must fail at the checks that
cannot hold (FAIL NAME lines naming listed checks), close with
"selftest: N passed, M failed" and exit non-zero — never claim success."""
import os
import re
import shutil

from etwcap_e2e import Etwcap, tmp_dir

t = Etwcap()

rc, out, err = t.run("selftest", "/?")
t.check(rc == 0, "selftest /? exits 0: %d %r" % (rc, err))
checks = re.findall(r"^  ([A-Z_]+)  (\S.*)$", out, re.M)
names = [n for n, _ in checks]
t.check(len(names) >= 10, "selftest /? lists the checks: %r" % names)
for must in ("CAPTURE", "PROCESS", "IMAGE_LOAD", "CSWITCH", "READY_THREAD", "CPU_SAMPLES",
             "OWN_EVENTS", "TRIGGER", "CLR_RUNDOWN", "NOTHING_LOST", "NO_SESSIONS_LEFT",
             "START_RUNDOWN", "SAMPLE_RATE", "DOTNET_CHILD", "SNAPSHOT", "SEGMENTS", "ROUTES"):
    t.check(must in names, "selftest /? lists %s" % must)

rc, out, err = t.run("/?")
t.check(rc == 0 and "selftest" in out, "etwcap /? lists selftest")
t.check("selftestChild" not in out, "the hidden child command is not listed")

if not t.windows:
    rc, out, err = t.run("selftest")
    t.check(rc == 4 and "Windows" in err, "selftest off Windows exits 4: %d %r" % (rc, err))
else:
    work = os.path.join(tmp_dir(), "e2e-selftest")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    rc, out, err = t.run("selftest", cwd=work)
    lines = [l.rstrip("\r") for l in out.splitlines() if l.strip()]
    verdicts = [re.match(r"^(PASS|FAIL|SKIP) ([A-Z_]+)( .*)?$", l) for l in lines]
    verdicts = [v for v in verdicts if v]
    failed = [v.group(2) for v in verdicts if v.group(1) == "FAIL"]
    t.check(rc != 0, "selftest under Wine exits non-zero: %d" % rc)
    t.check(len(failed) >= 1, "selftest under Wine has FAIL lines: %r\n%s" % (out, err[-2000:]))
    t.check(all(f in names for f in failed), "each FAIL names a listed check: %r" % failed)
    t.check(len(verdicts) == len(names), "one line per check: %d of %d" % (len(verdicts), len(names)))
    t.check(bool(lines) and re.match(r"^selftest: \d+ passed, [1-9]\d* failed$", lines[-1]),
            "the closing line: %r" % (lines[-1:] if lines else None))
    t.check(os.path.isfile(os.path.join(work, "etwcap-selftest.txt")),
            "etwcap-selftest.txt is left for a bug report")
    shutil.rmtree(work, ignore_errors=True)

t.finish()
