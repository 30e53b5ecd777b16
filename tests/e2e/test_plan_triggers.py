"""End-to-end checks of the triggers in `etwcap plan` (docs/plan-json.md,
"triggers"): a command line with /StopOnPerfCounter and /StopOnException
shows both with their parsed fields in the JSON and in the table, and a
malformed counter spec exits 2 with a message naming the position and
what to write instead."""
import json

from etwcap_e2e import Etwcap

t = Etwcap()
SERVER = "/TargetOS:10.0.20348"
COUNTER = "Processor:% Processor Time:_Total > 90"


def trigger(doc, qualifier):
    for x in doc["triggers"]:
        if x["qualifier"] == qualifier:
            return x
    return None


rc, out, err = t.run("plan", SERVER, "collect", "/StopOnPerfCounter:" + COUNTER,
                     "/StopOnException:Timeout", "/DelayAfterTriggerSec:10", "/Json")
t.check(rc == 0, "plan with two triggers exits 0 (got %d: %s)" % (rc, err))
try:
    doc = json.loads(out)
except ValueError as e:
    doc = None
    t.check(False, "plan /Json prints JSON: %s\n%s" % (e, out[:500]))
if doc:
    t.check(doc["schema"] == "etwcap-plan/1" and len(doc["triggers"]) == 2,
            "a top-level triggers array with both triggers: %r" % doc.get("triggers"))
    c = trigger(doc, "StopOnPerfCounter")
    t.check(c is not None and c["role"] == "stop" and c["kind"] == "perfCounter" and
            c["spec"] == COUNTER, "the counter trigger as given: %r" % c)
    t.check(c is not None and c["category"] == "Processor" and
            c["counter"] == "% Processor Time" and c["instance"] == "_Total" and
            c["operator"] == ">" and c["threshold"] == 90,
            "the counter spec's parsed fields: %r" % c)
    t.check(c is not None and c["minSecForTrigger"] == 3 and c["decayToZeroHours"] == 0 and
            c["delayAfterTriggerSec"] == 10 and c["collectMultiple"] == 0,
            "PerfView's defaults and /DelayAfterTriggerSec: %r" % c)
    x = trigger(doc, "StopOnException")
    t.check(x is not None and x["kind"] == "etwEvent" and
            x["provider"] == "Microsoft-Windows-DotNETRuntime" and
            x["event"] == "Exception/Start" and x["eventId"] == 80 and
            x["keywords"] == "0x8000" and x["regex"] == "Timeout" and
            x["regexIgnoresCase"] is False and x["process"] == "",
            "the exception trigger's parsed fields: %r" % x)

# The table shows the same fields under the same names.
rc, out, err = t.run("plan", SERVER, "collect", "/StopOnPerfCounter:" + COUNTER,
                     "/StopOnException:Timeout")
out = out.replace("\r\n", "\n")  # the Windows build's console text mode
t.check(rc == 0 and "Triggers (2):" in out and
        "/StopOnPerfCounter:" + COUNTER + " (stop)" in out and
        "    instance               _Total\n" in out and
        "    regex                  Timeout\n" in out, "the table lists the triggers:\n" + out)

# No trigger: an empty array, so scripts can always read it.
rc, out, err = t.run("plan", SERVER, "collect", "/Json")
t.check(rc == 0 and json.loads(out)["triggers"] == [], "no trigger, an empty array")

# Malformed specs: exit 2, the spec, the position, what to write.
for spec, pos, words in (
        ("Processor:% Processor Time:_Total >> 90", 35, "'>>' is not an operator: write one"),
        ("Processor:% Processor Time:_Total <>90", 35, "'<>' is not an operator"),
        ("Processor:% Processor Time:_Total >", 36, "expected a number after '>'")):
    rc, out, err = t.run("plan", SERVER, "collect", "/StopOnPerfCounter:" + spec, "/Json")
    t.check(rc == 2 and out == "" and "/StopOnPerfCounter: '%s': position %d: " % (spec, pos)
            in err and words in err, "%r exits 2 with its position (got %d: %s)" %
            (spec, rc, err))

t.finish()
