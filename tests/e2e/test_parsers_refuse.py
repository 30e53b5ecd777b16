"""Every parser says no clearly: values that used to pass without a word,
response files that are not what they seem, and typeperf CSV counter logs
that cannot mean what they say.  A bad command line or response file is
exit 2 (README's exit-code table); a counter log that cannot be read is
exit 5; a log that does not overlap the trace is a warning.  Sources of the
rules: RFC 9110 §15 (HTTP status codes are 100-599), PDH's CSV header
"(PDH-CSV 4.0) (Zone)(BIAS)" with BIAS in minutes (typeperf's output; the
bias of a time zone is within a day).  Skips (77) without the samples."""
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from etwcap_e2e import SKIP, Etwcap, samples_dir, tmp_dir, to_target_path  # noqa: E402

t = Etwcap()
samples = samples_dir()
if not samples:
    print("skipped: the shared samples folder is absent (set ETWCAP_SAMPLES)")
    sys.exit(SKIP)
trace = to_target_path(t, os.path.join(samples, "ms-Tx__Process.etl"))
work = os.path.join(tmp_dir(), "parsers-refuse")
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)

# Values accepted before without a word.
for args, word in ((["/DecayToZeroHours:-1"], "DecayToZeroHours"),
                   (["/Process:"], "Process"),
                   (["/StopOnHttpStatus:9xx"], "100-599"),
                   (["/StopOnHttpStatus:600"], "100-599"),
                   (["/StopOnGCEvent:;"], "empty item"),
                   (["/StopOnGCEvent:;Gen2"], "empty item")):
    rc, out, err = t.run("replay", trace, *args)
    t.check(rc == 2 and word in err, "replay %s: exit 2 naming %s, got %d %r"
            % (" ".join(args), word, rc, err))
for args, word in ((["/FocusProcess:-5"], "not a process id"),
                   (["/MinRundownTime:200", "/RundownTimeout:100"], "RundownTimeout")):
    rc, out, err = t.run("plan", "collect", "X.etl", *args)
    t.check(rc == 2 and word in err, "plan %s: exit 2 naming %s, got %d %r"
            % (" ".join(args), word, rc, err))


# Response files.
def response(name, data):
    path = os.path.join(work, name)
    with open(path, "wb") as f:
        f.write(data)
    return "@" + to_target_path(t, path)


for label, data, word in (("unclosed quote", b'/StopOnGen2GC\n"/Process:my app\n', "not closed"),
                          ("NUL byte", b"/StopOnGen2GC\x00 /Process:x\n", "NUL"),
                          ("UTF-16", "/StopOnGen2GC\n".encode("utf-16"), "NUL")):
    rc, out, err = t.run("replay", trace, response("r.rsp", data))
    t.check(rc == 2 and word in err, "response file with %s: exit 2 saying %s, got %d %r"
            % (label, word, rc, err))

# typeperf CSV counter logs.
HEADER = '"(PDH-CSV 4.0) (Pacific Standard Time)(480)","\\\\HOST\\Processor(_Total)\\% Processor Time"\r\n'
ROW = '"08/27/2017 23:00:00.000","%s"\r\n'
COUNTER = "/StopOnPerfCounter:Processor:% Processor Time:_Total > 90"


def replay_csv(data):
    path = os.path.join(work, "log.csv")
    with open(path, "wb") as f:
        f.write(data)
    return t.run("replay", trace, COUNTER, "/CounterLog:" + to_target_path(t, path))


for label, data, word in (
        ("a NUL byte", (HEADER + ROW % "5").encode() + b"\x00\r\n", "NUL"),
        ("a number too long for a double", (HEADER + ROW % ("9" * 80)).encode(), "too long"),
        ("an infinite number", (HEADER + ROW % "1e999").encode(), "not a number"),
        ("a bias that is not minutes", HEADER.replace("(480)", "(abc)").encode() +
         (ROW % "5").encode(), "bias"),
        ("a bias beyond a day", HEADER.replace("(480)", "(99999)").encode() +
         (ROW % "5").encode(), "bias"),
        ("only its header", HEADER.encode(), "no samples")):
    rc, out, err = replay_csv(data)
    t.check(rc == 5 and word in err, "counter log with %s: exit 5 saying %s, got %d %r"
            % (label, word, rc, err))

# A log that covers another day than the trace: said, not a silent "no fire".
rc, out, err = replay_csv((HEADER + '"01/01/2001 00:00:00.000","5"\r\n'
                           '"01/01/2001 00:00:01.000","6"\r\n').encode())
t.check("do not overlap" in err, "a counter log that does not overlap the trace is a warning: "
        "%d %r" % (rc, err))

shutil.rmtree(work, ignore_errors=True)
t.finish()
