"""End-to-end checks of the command-line skeleton: help, version, errors and
exit codes, response files, as a user at a prompt sees them."""
import os

from etwcap_e2e import Etwcap, tmp_dir, to_target_path

t = Etwcap()

rc, out, err = t.run("version")
t.check(rc == 0 and out.startswith("etwcap "), "version prints 'etwcap X' and exits 0: %r" % out)
t.check(("windows" in out) == t.windows, "version names the target: %r" % out)

rc, out, err = t.run("/?")
t.check(rc == 0, "/? exits 0")
for word in ("collect", "merge", "dump", "plan", "version", "/LogFile"):
    t.check(word in out, "tool help lists %s" % word)

rc, out, err = t.run("collect", "/?")
t.check(rc == 0, "collect /? exits 0")
for q in ("/BufferSizeMB:MB", "/CircularMB:MB", "/ThreadTime", "/Providers:",
          "/StopOnException:REGEX", "[default: 256]", "Alias: /BufferSize"):
    t.check(q in out, "collect help shows %s" % q)
t.check("/DotNetAlloc" in out and "EtwClrProfiler" in out,
        "collect help lists refused PerfView switches with the reason")

rc, out, err = t.run("/Nonsense")
t.check(rc == 2, "/Nonsense exits 2 (usage), got %d" % rc)
t.check("unknown qualifier '/Nonsense'" in err and "etwcap /?" in err,
        "/Nonsense explains itself: %r" % err)

rc, out, err = t.run("collect", "/CircularMBB:10")
t.check(rc == 2 and "Did you mean '/CircularMB'" in err, "did-you-mean hint: %r" % err)

rc, out, err = t.run("colect")
t.check(rc == 2 and "Did you mean 'collect'" in err, "command hint: %r" % err)

rc, out, err = t.run("collect", "/DotNetAlloc")
t.check(rc == 2 and "not supported" in err, "refused switch: %r" % err)

rc, out, err = t.run("collect", "/BufferSizeMB:lots")
t.check(rc == 2 and "/BufferSizeMB" in err and "lots" in err, "bad integer: %r" % err)

rc, out, err = t.run("version", "/CircularMB:5")
t.check(rc == 2 and "does not apply" in err, "qualifier of another command: %r" % err)

if not t.windows:
    rc, out, err = t.run("collect")
    t.check(rc == 4 and "Windows" in err, "collect on Linux says it needs Windows: %d %r" % (rc, err))

# A response file holding the qualifiers, with a comment and a quoted value.
rsp = os.path.join(tmp_dir(), "e2e-args.rsp")
with open(rsp, "w") as f:
    f.write("# runbook arguments\ncollect /?\n")
rc, out, err = t.run("@" + to_target_path(t, rsp))
t.check(rc == 0 and "Usage: etwcap collect" in out, "response file expands: %d %r" % (rc, err))
rc, out, err = t.run("@" + to_target_path(t, rsp + ".missing"))
t.check(rc != 0 and "response file" in err, "missing response file is named: %r" % err)
os.remove(rsp)

# /LogFile appends timestamped lines, even for a failing command.
log = os.path.join(tmp_dir(), "e2e-log.txt")
if os.path.exists(log):
    os.remove(log)
rc, out, err = t.run("merge", "nothing.etl", "/LogFile:" + to_target_path(t, log))
t.check(rc != 0, "merge of a missing file fails")
t.check(os.path.exists(log) and os.path.getsize(log) > 0, "/LogFile was written")
if os.path.exists(log):
    os.remove(log)

t.finish()
