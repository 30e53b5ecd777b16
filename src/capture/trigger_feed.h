/* What the live threads of a capture deliver to the trigger engine: the
 * real-time trigger session's events (on the consumer's thread) and
 * event-log messages (on the subscription's thread) are copied into one
 * queue; the wait loop's turn (main thread) hands them to the engine in
 * order, then the clock.  Only the main thread touches the engine and
 * the log; the queue is bounded, and what comes faster than the engine
 * looks is dropped and counted. */
#ifndef ETWCAP_TRIGGER_FEED_H
#define ETWCAP_TRIGGER_FEED_H

#include "etw/event/etw_event.h"
#include "src/base/os/os_thread.h"
#include "triggers/trigger_engine.h"
#include "triggers/trigger_eventlog.h"

#include <stdint.h>

#define TRIGGER_FEED_MAX 100000u /* events waiting for the main thread */

struct trigger_feed_item;

struct trigger_feed {
  struct trigger_engine *e;
  os_mutex lock;              /* guards the queue and `dropped` */
  struct trigger_feed_item *head, *tail;
  unsigned queued;
  uint64_t dropped;
  int64_t last;               /* the latest time handed to the engine */
  int engine_failed;
  uint64_t events, messages;  /* handed to the engine */
};

void trigger_feed_init(struct trigger_feed *f, struct trigger_engine *e, int64_t start);
/* Drops what is queued; the feed's threads must be gone. */
void trigger_feed_destroy(struct trigger_feed *f);

/* Other threads (consumer.h and eventlog.h callbacks, ctx = the feed). */
void trigger_feed_event(void *ctx, const struct etw_event *ev, int64_t ft);
void trigger_feed_message(void *ctx, const struct trigger_message *m);

/* Main thread: what was delivered, in order, then the clock at `now`. */
void trigger_feed_run(struct trigger_feed *f, int64_t now);
/* Main thread: drops what is queued (it came after the engine decided) and
 * returns how many were dropped since the last call. */
uint64_t trigger_feed_discard(struct trigger_feed *f);

#endif
