/* Qualifiers that keep a capture armed after a fire (capture_armed.h):
 * snapshots of the in-memory rings, or segments with retention.  etwcap's
 * own; PerfView stops at a fire. */
#include "src/cli/qualifiers.h"

static const struct opt_def defs[] = {
  { "SnapshotOnTrigger", NULL, BIND_BOOL(snapshot_on_trigger), NULL, NULL,
    "With /InMemoryCircularBuffer and a stop trigger: each fire writes NAME.N.etl.zip from "
    "the rings' content (after DelayAfterTriggerSec, with its own rundown; merged and zipped "
    "in the background at low priority) and the sessions keep running, armed for the next "
    "fire. /CollectMultiple:N ends the capture after N snapshots (the rings are then written "
    "once more as NAME.etl.zip, as a plain collect ends); S, /MaxCollectSec and 'etwcap "
    "stop' end it at any time the same way. 'etwcap snapshot' asks for one on demand.",
    0, 0, NULL },
  { "SnapshotCooldownSec", NULL, BIND_INT(snapshot_cooldown_sec), "SEC",
    "/DelayAfterTriggerSec",
    "Fires less than SEC after the last snapshot write none: a burst of incidents costs one "
    "snapshot.",
    0, 604800, NULL },
};

static const struct opt_def segment_defs[] = {
  { "SegmentSec", NULL, BIND_INT(segment_sec), "SEC", NULL,
    "Rotate: every SEC seconds the sessions go on in new files and the closed segment, with "
    "its own rundown, becomes NAME.YYYYMMDDTHHMMSSZ.etl.zip (UTC start) in the background. "
    "Files grow rather than wrap (no /CircularMB, no /InMemoryCircularBuffer). A fire marks "
    "its segment (its manifest names it) and the capture goes on; S, 'etwcap stop' and "
    "/MaxCollectSec end it. Does not combine with /SnapshotOnTrigger, nor with /OSHeapProcess "
    "or /OSHeapExe (the heap session's file cannot be switched by any documented means).",
    1, 31536000, NULL },
  { "SegmentMB", NULL, BIND_INT(segment_mb), "MB", NULL,
    "Rotate when the user session's file reaches MB (checked each turn, about every 200 ms); "
    "with /SegmentSec, whichever comes first.",
    1, 1048576, NULL },
  { "KeepSegments", NULL, BIND_INT(keep_segments), "K", NULL,
    "Keep the newest K segments in the folder (this capture's and earlier ones'); delete the "
    "older ones after each rotation. A segment that holds a fire is never deleted.",
    1, 1000000, NULL },
  { "KeepDays", NULL, BIND_INT(keep_days), "D", NULL,
    "Delete segments that began more than D days ago (never one that holds a fire).", 1,
    36500, NULL },
  { "MaxDiskMB", NULL, BIND_INT(max_disk_mb), "MB", NULL,
    "Delete the oldest segments until the rest hold at most MB (never one that holds a fire, "
    "nor the newest); the free-disk guard still stops the capture on a full volume.",
    1, 1073741824, NULL },
};

static const struct opt_def rundown_defs[] = {
  { "RundownPeriodSec", NULL, BIND_INT(rundown_period_sec), "SEC", NULL,
    "Every SEC seconds record a rundown into the capture itself, so that whatever window a "
    "ring or a segment keeps names what ran in it: the CLR's (its rundown provider enabled "
    "and asked for its state in the user session: modules, JIT and NGEN methods) and the "
    "kernel's (processes, images: a kernel rundown session into its own file, merged with "
    "the capture, the newest 32 such files kept; on /KernelRoute:systemProviders a capture-state request to each System "
    "Provider, which Microsoft does not document for them). Any route; on Windows 7 the CLR "
    "part only. Checked against the fake controller only.",
    10, 86400, NULL },
};

static const struct opt_def operator_defs[] = {
  { "EventLog", NULL, BIND_BOOL(event_log), NULL, NULL,
    "Write an entry to the Windows Application log (source etwcap) when the capture starts "
    "(id 1000) and ends (1006), a trigger fires (1001, warning), a snapshot or segment is "
    "written (1002, 1003), retention deletes a segment (1004) and a session shows a problem "
    "(1005, warning), so the monitoring a fleet already has sees an unattended capture. "
    "When elevated, and the source has no message file yet (or names one that is gone), it "
    "registers this etwcap.exe's message table (HKLM\\SYSTEM\\CurrentControlSet\\Services\\"
    "EventLog\\Application\\etwcap; 'schedule create' registers the copy its task runs), so "
    "Event Viewer shows each entry's text cleanly; without that key the entry is still "
    "written and the log says why it has no description.",
    0, 0, NULL },
};

const struct opt_group opt_group_snapshots = OPT_GROUP("Snapshots (stay armed)", defs);
const struct opt_group opt_group_operators = OPT_GROUP("Unattended capture", operator_defs);
const struct opt_group opt_group_rundown_period = OPT_GROUP("Rundown while collecting",
                                                            rundown_defs);
const struct opt_group opt_group_segments = OPT_GROUP("Segments (rotation and retention)",
                                                      segment_defs);
