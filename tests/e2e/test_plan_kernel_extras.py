"""End-to-end checks of /CpuCounters and /LbrSources, /LbrFilters in
`etwcap plan` (docs/plan-json.md, kernel session): where the machine's profile
sources cannot be read (off Windows; Wine's TraceQueryInformation is a stub)
the counters are shown as asked, unresolved, with a note; LBR settings carry
TraceEvent's values (LbrSource.PmcInterrupt 0x0F2F, LbrFilterFlags
CallstackEnable 0x200 | FilterUser 0x2) and are dropped before build 18362."""
import json

from etwcap_e2e import Etwcap

t = Etwcap()


def kernel(doc):
    for s in doc["sessions"]:
        if s["role"] == "kernel":
            return s["kernel"]
    return None


rc, out, err = t.run("plan", "/TargetOS:10.0.19041", "collect",
                     "/CpuCounters:TotalCycles:20000", "/LbrSources:PmcInterrupt",
                     "/LbrFilters:StackMode,User", "/Json")
t.check(rc == 0, "plan with /CpuCounters and /LbrSources exits 0 (got %d: %s)" % (rc, err))
doc = json.loads(out) if rc == 0 else None
if doc:
    k = kernel(doc)
    t.check(k["pmcProfile"] is True and k["profileSources"] ==
            [{"name": "TotalCycles", "interval": 20000, "id": None}],
            "the counter as asked, unresolved: %r" % k["profileSources"])
    t.check(int(k["groupMask"][1], 16) & 0x400 == 0x400,
            "PERF_PMC_PROFILE (Masks[1] 0x400) in the group mask: %r" % k["groupMask"])
    t.check(int(k["enableFlags"], 16) & 0x80000000 == 0,
            "PMCProfile is no EnableFlags bit: %s" % k["enableFlags"])
    t.check(k["lbrSources"] == ["0x0F2F"] and k["lbrFilters"] == "0x202",
            "LBR sources and filters: %r %r" % (k["lbrSources"], k["lbrFilters"]))
    t.check(any("/CpuCounters" in n and "not resolved" in n for n in doc["notes"]),
            "a note says the names are unresolved: %r" % doc["notes"])

rc, out, err = t.run("plan", "/TargetOS:10.0.20348", "collect", "/CpuCounters:TotalCycles:20000")
t.check(rc == 0 and "TotalCycles (unresolved) every 20000" in out,
        "the table shows the counter unresolved: %d %r" % (rc, out[-800:]))

rc, out, err = t.run("plan", "collect", "/CpuCounters:TotalCycles")
t.check(rc == 2 and "NAME:COUNT" in err, "a spec without COUNT exits 2: %d %r" % (rc, err))
rc, out, err = t.run("plan", "collect", "/KernelEvents:Default,PMCProfile")
t.check(rc == 2 and "/CpuCounters" in err, "PMCProfile by name exits 2: %d %r" % (rc, err))
rc, out, err = t.run("plan", "collect", "/LbrSources:1,2,3,4,5")
t.check(rc == 2 and "at most 4" in err, "five LBR sources exit 2: %d %r" % (rc, err))
rc, out, err = t.run("plan", "collect", "/LbrSources:PmcInterrupt", "/LbrFilters:Kernel,User")
t.check(rc == 2 and "not both" in err, "Kernel with User exits 2: %d %r" % (rc, err))

rc, out, err = t.run("plan", "/TargetOS:10.0.17763", "collect", "/LbrSources:PmcInterrupt",
                     "/Json")
doc = json.loads(out) if rc == 0 else None
t.check(doc is not None and kernel(doc)["lbrSources"] == [] and
        any("18362" in n for n in doc["notes"]),
        "before 19H1 LBR is dropped with a note: %d %r" % (rc, err))

t.finish()
