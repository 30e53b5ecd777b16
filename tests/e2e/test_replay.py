"""`etwcap replay` end to end, natively and under Wine: fire lines on the real
samples (checked against the golden listings of the independent parser, not
against etwcap's own output), exit codes 0 / 9 / 2, a typeperf counter log
whose expected fire instant is worked out here from PerfView's arming rule,
/Out (the window's events, merged and zipped, checked against the golden
listings), and the refusals (a bad spec, a counter without a log).
Skips (77) without the samples."""
import gzip
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from etwcap_e2e import SKIP, Etwcap, samples_dir, tmp_dir, to_target_path  # noqa: E402

t = Etwcap()

rc, out, err = t.run("replay", "/?")
t.check(rc == 0, "replay /? exits 0")
for word in ("/CounterLog:FILE.csv", "/StopOnGCEvent", "/StopOnEventCounter",
             "fired<TAB>TRIGGER", "/Out"):
    t.check(word in out, "replay help shows %s" % word)

samples = samples_dir()
if not samples or not os.path.isdir(os.path.join(samples, "golden")):
    print("skipped: the shared samples folder is absent (set ETWCAP_SAMPLES)")
    t.finish() if t.failures else sys.exit(SKIP)

CLR = "e13c0d23-ccbc-4e12-931b-d9cc2eee27e4"
GC = "ms-perfview__gcevents.etl.zip"
NET = "ms-perfview__net.4.5.2.x64.etl.zip"


def golden(name):
    """(header fields, event rows) of a sample's golden listing."""
    header, rows = {}, []
    with gzip.open(os.path.join(samples, "golden", name + ".tsv.gz"), "rt",
                   encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#   logger="):
                for m in re.finditer(r"(\S+?)=(\S+)", line):
                    header[m.group(1)] = m.group(2)
            elif line and not line.startswith("#"):
                rows.append(line.split("\t"))
    return header, rows


def sample(name):
    return to_target_path(t, os.path.join(samples, name))


def fire_lines(out):
    return [line.split("\t") for line in out.splitlines() if line.startswith("fired\t")]


# A gen2 GC in gcevents: the fire is one of the trace's CLR GC/Start events.
hdr, rows = golden(GC)
gc_starts = {(r[2], r[3]) for r in rows if r[5] == CLR and r[6].startswith("id=1 ")}
rc, out, err = t.run("replay", sample(GC), "/StopOnGen2GC")
lines = fire_lines(out)
t.check(rc == 0, "a fire exits 0 (got %d: %s)" % (rc, err))
t.check(len(lines) == 1 and lines[0][1] == "StopOnGen2GC", "one StopOnGen2GC line: %r" % out)
if lines:
    t.check((lines[0][2], lines[0][3]) in gc_starts,
            "the fire is at a GC/Start of the trace (raw and UTC as the golden listing has "
            "them): %r" % lines[0])
    t.check("Depth=2" in lines[0][4], "the detail gives the depth: %r" % lines[0][4])
    t.check(len(lines[0]) == 5, "five tab-separated fields")

# The one CLR exception of net.4.5.2: the first (and only) event 80.
hdr_net, rows_net = golden(NET)
exc = [r for r in rows_net if r[5] == CLR and r[6].startswith("id=80 ")]
t.check(len(exc) == 1, "the golden listing has one exception event")
rc, out, err = t.run("replay", sample(NET), "/StopOnException:FileNotFound")
lines = fire_lines(out)
t.check(rc == 0 and len(lines) == 1, "StopOnException fires once: %d %r %r" % (rc, out, err))
if lines and exc:
    t.check(lines[0][2:4] == exc[0][2:4], "at the exception event: %r vs %r" % (lines[0], exc[0]))
    t.check("System.IO.FileNotFoundException: The session PerfViewSessionHeap is not active."
            in lines[0][4], "with its type and message: %r" % lines[0][4])

# Nothing fires: exit code 9 and no lines.
rc, out, err = t.run("replay", sample(NET), "/StopOnGen2GC")
t.check(rc == 9 and not fire_lines(out), "no fire exits 9: %d %r" % (rc, out))
rc, out, err = t.run("replay", sample(NET), "/StopOnException:NoSuchThing")
t.check(rc == 9, "an exception regex that matches nothing exits 9: %d" % rc)

# The trace's start: the header event's raw timestamp and StartTime; on
# this 10 MHz QPC clock the raw timestamp moves by 10^7 per second.
start_raw = int(hdr["hdr-event-raw-ts"])
start_utc = re.match(r"\d+\((.*)\)", hdr["StartTime"]).group(1)

# A typeperf counter log over the gcevents period: one row a second, low
# until 00:46:42, high after.  Polls run every second from the trace's
# start; PerfView's rule needs MinSecForTrigger+1 = 4 samples below to arm,
# then 4 above to fire.
log = os.path.join(tmp_dir(), "e2e-counters.csv")
with open(log, "w", newline="") as f:
    f.write('"(PDH-CSV 4.0) (Coordinated Universal Time)(0)","\\\\WEB01\\Processor(_Total)\\'
            '% Processor Time"\r\n')
    for s in range(36, 51):
        f.write('"03/14/2023 00:46:%02d.000","%s"\r\n' % (s, "10" if s <= 42 else "95.5"))
start_frac = float("0." + start_utc[20:27])
start_sec = int(start_utc[17:19]) + start_frac
count, armed, fire_k = 0, False, None
for k in range(0, 14):
    row_sec = int(start_sec + k)  # the last row at or before the poll
    value = 10 if row_sec <= 42 else 95.5
    past = value > 90
    if not armed:
        count = 0 if past else count + 1
        if count >= 4:
            armed, count = True, 0
    else:
        count = count + 1 if past else 0
        if count >= 4:
            fire_k = k
            break
t.check(fire_k is not None, "the scripted counter fires")
rc, out, err = t.run("replay", sample(GC),
                     "/StopOnPerfCounter:Processor:% Processor Time:_Total>90",
                     "/CounterLog:" + to_target_path(t, log))
lines = fire_lines(out)
t.check(rc == 0 and len(lines) == 1, "StopOnPerfCounter fires once: %d %r %r" % (rc, out, err))
if lines and fire_k is not None:
    t.check(lines[0][2] == str(start_raw + fire_k * 10**7),
            "fires on poll %d: raw %s, want %d" % (fire_k, lines[0][2], start_raw + fire_k * 10**7))
    t.check("= 95.5 > 90" in lines[0][4], "the value that fired it: %r" % lines[0][4])
rc, out, err = t.run("replay", sample(GC), "/StopOnPerfCounter:Processor:% Idle Time:_Total>90",
                     "/CounterLog:" + to_target_path(t, log))
t.check(rc == 2 and "no column for Processor:% Idle Time:_Total" in err,
        "a counter the log lacks is named: %d %r" % (rc, err))
os.remove(log)

# /Out: what the capture would have kept, merged and zipped.  The events of
# the output (dumped by etwcap, which test_dump_golden holds to the golden
# listings) must be exactly the golden listing's events of the window:
# /WindowSec before the fire to DelayAfterTriggerSec after it.
def day_ticks(utc):
    hms, frac = utc[11:-1].split(".")
    h, m, sec = hms.split(":")
    return ((int(h) * 60 + int(m)) * 60 + int(sec)) * 10**7 + int(frac)


def events_of(rows, lo, hi, merged):
    """The data events (not the header buffer's) in [lo, hi], without the
    buffer index, which a rewritten file renumbers.  When several files are
    merged into one, the merge puts their events on one clock and on the
    merged file's CPU numbering, so only what the events are is compared:
    header type, provider, identity, size, process/thread and payload CRC."""
    pick = (lambda r: tuple(r[4:])) if merged else (lambda r: tuple(r[1:]))
    return sorted(pick(r) for r in rows if r[0] != "0" and lo <= day_ticks(r[3]) <= hi)


def check_out(sample, trigger_args, window, delay, name, merged=False):
    _, rows = golden(sample)
    out_path = os.path.join(tmp_dir(), name)
    for leftover in (out_path, out_path[:-4]):
        if os.path.exists(leftover):
            os.remove(leftover)
    rc, out, err = t.run("replay", to_target_path(t, os.path.join(samples, sample)), *trigger_args,
                         "/Out:" + to_target_path(t, out_path), "/WindowSec:%d" % window,
                         "/DelayAfterTriggerSec:%d" % delay)
    lines = fire_lines(out)
    t.check(rc == 0 and len(lines) == 1 and os.path.exists(out_path),
            "/Out writes %s: %d %r" % (name, rc, err))
    if not lines or not os.path.exists(out_path):
        return
    fire = day_ticks(lines[0][3])
    want = events_of(rows, fire - window * 10**7, fire + delay * 10**7, merged)
    rc, dump, err = t.run("dump", to_target_path(t, out_path))
    t.check(rc == 0, "dump reads the /Out zip: %r" % err)
    got_rows = [line.split("\t") for line in dump.splitlines() if line and not line.startswith("#")]
    got = sorted((tuple(r[4:]) if merged else tuple(r[1:])) for r in got_rows if r[0] != "0")
    t.check(len(want) > 0 and got == want,
            "%s holds exactly the window's %d events (got %d)" % (name, len(want), len(got)))
    os.remove(out_path)
    t.check(not os.path.exists(out_path[:-4]), "the session file was removed after zipping")


check_out(GC, ["/StopOnGen2GC"], 2, 5, "e2e-gen2.etl.zip")
# A zip of four unmerged session files (user, kernel, two user helpers): all
# four are cut to the window, then merged.
check_out("ms-perfview__diaghub-dotnetcore3.1-win-x64-diagsession.zip",
          ["/StopOnEtwEvent:*Microsoft-Diagnostics-DiagnosticSource/Activity2Start"], 1, 1,
          "e2e-hub.etl.zip", merged=True)
rc, out, err = t.run("replay", sample(GC), "/StopOnGen2GC", "/WindowSec:2")
t.check(rc == 2 and "/Out" in err, "/WindowSec alone does nothing, so it is refused: %r" % err)
rc, out, err = t.run("replay", sample(GC), "/StopOnGen2GC", "/Out:x.zip")
t.check(rc == 2 and "NAME.etl.zip" in err, "/Out needs an .etl.zip or .etl name: %r" % err)

# Refusals.
rc, out, err = t.run("replay", sample(GC), "/StopOnPerfCounter:A:B:C>1")
t.check(rc == 2 and "/CounterLog" in err, "a counter trigger without a log: %d %r" % (rc, err))
rc, out, err = t.run("replay", sample(GC), "/StopOnException:(")
t.check(rc == 2 and "/StopOnException: '(': position 2:" in err, "bad regex: %r" % err)
rc, out, err = t.run("replay", sample(GC), "/StopOnEtwEvent:Clr/GC/Begin")
t.check(rc == 2 and "position 5" in err and "GC/Start" in err, "bad event name: %r" % err)
rc, out, err = t.run("replay", sample(GC))
t.check(rc == 2 and "at least one trigger" in err, "no trigger: %d %r" % (rc, err))
rc, out, err = t.run("replay", sample(GC), "/StopOnEventLogMessage:disk")
t.check(rc == 4 and "event-log" in err, "event-log messages cannot be replayed: %d %r" % (rc, err))
rc, out, err = t.run("replay", to_target_path(t, os.path.join(samples, "nope.etl")),
                     "/StopOnGen2GC")
t.check(rc == 6 and "nope.etl" in err, "a missing trace is named: %d %r" % (rc, err))

t.finish()
