"""/LogFile never names one of the command's own files: etwcap appends its
log lines to it, so `dump X.etl /LogFile:X.etl` once wrote them into the
user's trace.  Refused with exit 2 (usage) before anything is written,
whatever the spelling (the same name, ./X.etl, a hard link): the trace
stays byte for byte what it was, and a log the refusal created is gone.
A log file of its own still works.  Skips (77) without the samples."""
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from etwcap_e2e import Etwcap, samples_and_work, to_target_path  # noqa: E402

t = Etwcap()
samples, work = samples_and_work("log-file")
trace = os.path.join(work, "X.etl")
shutil.copyfile(os.path.join(samples, "rbeesley+hw3d__trace.etl"), trace)
with open(trace, "rb") as f:
    original = f.read()
os.link(trace, os.path.join(work, "hard.etl"))


def target(name):
    return to_target_path(t, os.path.join(work, name))


def unchanged(what):
    with open(trace, "rb") as f:
        t.check(f.read() == original, "%s: X.etl is byte for byte what it was" % what)


def refused(what, rc, err):
    t.check(rc == 2, "%s: exit 2 (usage), got %r: %r" % (what, rc, err))
    t.check("/LogFile:" in err and "same file as" in err and "file of its own" in err,
            "%s: the message says why and what to do: %r" % (what, err))


# dump logs nothing while it reads; report logs "wrote o.html", which
# went to the end of the trace.
for log, what in ((target("X.etl"), "the same name"),
                  ("./X.etl", "./X.etl from the trace's folder"),
                  (target("hard.etl"), "a hard link to the trace")):
    for command in (["dump", target("X.etl")], ["report", target("X.etl"), "/Out:o.html"]):
        rc, out, err = t.run(*command, "/LogFile:" + log, cwd=work)
        refused("%s X.etl /LogFile:%s" % (command[0], what), rc, err)
        unchanged("%s /LogFile:%s" % (command[0], what))
    t.check(not os.path.exists(os.path.join(work, "o.html")), "no report was written")

# An output that does not exist yet, under another spelling: refused, and
# the log file the check created is removed again.
rc, out, err = t.run("report", "X.etl", "/Out:r.html", "/LogFile:./r.html", cwd=work)
refused("report /Out:r.html /LogFile:./r.html", rc, err)
t.check(not os.path.exists(os.path.join(work, "r.html")), "no r.html is left behind")
unchanged("report /LogFile:./r.html")

rc, out, err = t.run("dump", target("X.etl"), "/LogFile:" + target("dump.log"))
t.check(rc == 0, "dump with a log file of its own exits 0: %r %r" % (rc, err))
t.check(os.path.isfile(os.path.join(work, "dump.log")), "the log file of its own is written")
unchanged("dump /LogFile:dump.log")
t.finish()
