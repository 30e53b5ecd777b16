/* A provider a session must enable, and why: what the trigger engine tells
 * the plan its real-time trigger session needs (trigger_plan.h computes it
 * from the trigger qualifiers; the plan only lays the session out), so the
 * plan gets the triggers' needs as data. */
#ifndef ETWCAP_SESSION_NEED_H
#define ETWCAP_SESSION_NEED_H

#include "etw/event/guid.h"

#include <stdint.h>

#define SESSION_NEEDS_MAX 32

struct session_provider_need {
  struct etw_guid guid;
  char name[128];
  int kernel;        /* keywords are kernel flags (KW_KERNEL_*): a system logger */
  uint64_t keywords; /* MatchAnyKeyword; 0 = events without keywords (EventSource: all) */
  uint8_t level;
  char args[96];     /* EventSource arguments as KEY=VALUE, or "" */
  char why[160];     /* the qualifiers that need it, comma-separated */
};

#endif
