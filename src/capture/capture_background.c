/* See capture_background.h. */
#include "src/capture/capture_background.h"

#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/log.h"
#include "src/os/os_proc.h"

#include <stdio.h>
#include <string.h>

static void release(struct background_job *job)
{
  log_memory_release(&job->log);
  etwcap_free(job->command_line);
  job->command_line = NULL;
}

/* The job's thread: X.etl.zip from X's files, with image identity read as
 * at a capture's end (its containers' images through the volume map,
 * docs/containers.md).  No HCS inventory here: the capture's own start and
 * stop take it, on the main thread. */
static void merge_and_zip(void *arg)
{
  struct background_job *job = arg;
  struct capture_finish_params p;
  struct container_capture cc;
  struct identity_options io;
  memset(&io, 0, sizeof(io));
  io.use_os_mapping = os_is_windows();
  container_capture_init(&cc, NULL);
  if (container_capture_at_stop(&cc, &io, 0, 0) != 0)
    log_warn("%s: no image identity: out of memory for its cache", job->data_file);
  memset(&p, 0, sizeof(p));
  p.data_file = job->data_file;
  p.zip = 1;
  p.low_priority = 1; /* the capture goes on beside it, on a busy machine */
  p.command_line = job->command_line;
  p.trigger = job->has_trigger ? &job->trigger.t : NULL;
  p.log = &job->log;
  p.identity = cc.identity;
  p.containers = &cc;
  job->why[0] = '\0';
  job->rc = capture_finish(&p, &job->result, job->why, sizeof(job->why));
  container_capture_release(&cc);
}

int background_wait(struct background_job *job)
{
  int rc;
  if (!job->running)
    return 0;
  os_thread_join(&job->thread);
  job->running = 0;
  rc = job->rc;
  if (rc) {
    log_error("%s: %s. Its files are kept: 'etwcap merge %s' tries again.", job->data_file,
              job->why[0] ? job->why : etwcap_strerror(rc), job->data_file);
  } else {
    log_info("written: %s (%llu events, %.1f s to merge)", job->result.output,
             (unsigned long long)job->result.events, job->result.merge_seconds);
    if (job->written)
      job->written(job->written_ctx, job->result.output);
  }
  release(job);
  return rc;
}

/* What the thread needs, copied: the collection goes on logging. */
static int copy_inputs(struct background_job *job, const char *data_file,
                       const struct manifest_trigger *fired, const struct log_memory *log,
                       const char *command_line)
{
  snprintf(job->data_file, sizeof(job->data_file), "%s", data_file);
  job->has_trigger = fired != NULL;
  if (fired)
    manifest_trigger_keep(&job->trigger, fired);
  memset(&job->log, 0, sizeof(job->log));
  if (log && log->len) {
    if (!(job->log.text = etwcap_malloc(log->len + 1)))
      return ETWCAP_E_NOMEM;
    memcpy(job->log.text, log->text, log->len);
    job->log.text[log->len] = '\0';
    job->log.len = log->len;
    job->log.cap = log->len + 1;
    job->log.dropped = log->dropped;
  }
  if (!(job->command_line = etwcap_strdup(command_line ? command_line : "etwcap")))
    return ETWCAP_E_NOMEM;
  return 0;
}

int background_finish(struct background_job *job, const char *data_file,
                      const struct manifest_trigger *fired, const struct log_memory *log,
                      const char *command_line)
{
  int rc;
  background_wait(job);
  rc = copy_inputs(job, data_file, fired, log, command_line);
  if (!rc)
    rc = os_thread_create(&job->thread, merge_and_zip, job);
  if (rc) {
    log_error("%s: cannot start its merge (%s). 'etwcap merge %s' writes it.", data_file,
              etwcap_strerror(rc), data_file);
    release(job);
    return rc;
  }
  job->running = 1;
  return 0;
}
