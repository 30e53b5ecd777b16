"""A path of the user's too long for what a command writes beside it is
said to be too long (exit 6, ETWCAP_E_NAMETOOLONG), not reported as
something else: once replay called it "not a usable NAME.etl(.zip)", merge
/ImageIDsOnly cut it short and then could not open the shorter name, and
merge and report gave exit 2 (report also for an /Out too long for
the temporary name beside it).  The paths are "./" repeated before a real
file, so only their length is wrong.  Skips (77) without the samples."""
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from etwcap_e2e import Etwcap, samples_and_work, to_target_path  # noqa: E402

t = Etwcap()
samples, work = samples_and_work("long-paths")
shutil.copyfile(os.path.join(samples, "rbeesley+hw3d__trace.etl"), os.path.join(work, "X.etl"))
shutil.copyfile(os.path.join(samples, "ms-perfview__gcevents.etl.zip"),
                os.path.join(work, "gc.etl.zip"))


def too_long(what, args, must_not_say):
    rc, out, err = t.run(*args, cwd=work)
    t.check(rc == 6, "%s: exit 6 (name too long), got %r: %r" % (what, rc, err[-300:]))
    t.check("too long" in err and must_not_say not in err,
            "%s: says the path is too long: %r" % (what, err[-300:]))


# merge keeps DataFile in 1,024 bytes; report's page name in 4,096.
too_long("merge", ["merge", "./" * 560 + "X.etl"], "cannot open")
too_long("merge /ImageIDsOnly", ["merge", "./" * 560 + "gc.etl.zip", "/ImageIDsOnly"],
         "cannot open")
too_long("report", ["report", "./" * 2100 + "X.etl"], "cannot open")
# /Out fits, its temporary name beside it (4,200 bytes) does not.
too_long("report /Out", ["report", "X.etl", "/Out:" + "./" * 2090 + "r.html"], "cannot")
# replay /Out: the name fits, the session files beside it (1,100 bytes) do not.
too_long("replay /Out", ["replay", "gc.etl.zip", "/StopOnGen2GC", "/Out:" + "./" * 570 + "o.etl.zip"],
         "not a usable")
t.check(sorted(os.listdir(work)) == ["X.etl", "gc.etl.zip"], "nothing is written: %r"
        % sorted(os.listdir(work)))
t.finish()
