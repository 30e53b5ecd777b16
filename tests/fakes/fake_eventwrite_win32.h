/* A model of advapi32's event-provider calls (EventRegister, EventEnabled,
 * EventWriteTransfer, EventUnregister, EventSetInformation) for the Windows unit tests, as an
 * own_provider_api table: it keeps what a session would record and checks
 * every call against the documented contract (rules and sources in
 * tests/fakes/README.md, "fake_eventwrite").  A breach is counted as a
 * violation (tests assert none); a documented error is returned. */
#ifndef ETWCAP_FAKE_EVENTWRITE_WIN32_H
#define ETWCAP_FAKE_EVENTWRITE_WIN32_H

#include "src/os/own_provider_win32.h"

#include <stddef.h>
#include <stdint.h>

#define FAKE_EW_EVENTS_MAX 16
#define FAKE_EW_BYTES_MAX 8192

struct fake_ew_event {
  EVENT_DESCRIPTOR desc;
  uint8_t traits[256], meta[1024], data[FAKE_EW_BYTES_MAX];
  size_t traits_len, meta_len, data_len;
};

struct fake_ew {
  /* Scripted: a session has the provider enabled at this level (0: none
   * enabled it); the next EventRegister fails with this code (0: succeeds). */
  int session_level;
  ULONG register_error;
  /* Seen. */
  GUID provider;
  int registered, unregistered, writes;
  int traits_set;                  /* EventSetInformation(EventProviderSetTraits) taken */
  ULONG set_information_error;     /* scripted: EventSetInformation fails with it */
  unsigned violations;
  char last_violation[160];
  struct fake_ew_event events[FAKE_EW_EVENTS_MAX]; /* what the session recorded */
  unsigned event_count;
};

/* Resets the model (no session, no registration) and returns it; the table
 * to hand to own_provider_win32_set_api. */
struct fake_ew *fake_ew_reset(void);
extern const struct own_provider_api fake_ew_api;

#endif
