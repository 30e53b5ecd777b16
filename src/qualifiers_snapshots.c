/* Qualifiers that keep a capture armed after a fire: each fire writes a
 * snapshot of the in-memory rings while the sessions go on
 * (collection_snapshot.h).  etwcap's own; PerfView stops at a fire. */
#include "qualifiers.h"

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

const struct opt_group opt_group_snapshots = OPT_GROUP("Snapshots (stay armed)", defs);
