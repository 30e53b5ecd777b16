/* Progress display (see progress.h). */
#include "src/base/progress.h"

#include "src/base/log.h"
#include "src/base/os/os_time.h"

void progress_start(struct progress *p, const char *what, FILE *console)
{
  p->what = what;
  p->console = console;
  p->start_ns = p->last_ns = os_time_monotonic_ns();
  p->printed = 0;
}

void progress_update(struct progress *p, uint64_t done, uint64_t total)
{
  uint64_t now = os_time_monotonic_ns();
  double secs = (double)(now - p->start_ns) / 1e9;
  double mbps = secs > 0 ? (double)done / 1048576.0 / secs : 0;
  double pct = total ? 100.0 * (double)done / (double)total : 0;
  double left = total && done && secs > 0 ? secs * (double)(total - done) / (double)done : 0;
  if (p->console) {
    if (now - p->last_ns < 200000000u && done < total)
      return; /* five updates a second are plenty */
    fprintf(p->console, "\r%s: %5.1f%%  %7.1f MB/s  %4.0f s left ", p->what, pct, mbps, left);
    fflush(p->console);
    p->printed = 1;
  } else {
    if (now - p->last_ns < (uint64_t)PROGRESS_LOG_SECONDS * 1000000000u)
      return;
    log_info("%s: %.1f%% (%.0f of %.0f MB, %.1f MB/s, about %.0f s left)", p->what, pct,
             (double)done / 1048576.0, (double)total / 1048576.0, mbps, left);
  }
  p->last_ns = now;
}

void progress_end(struct progress *p)
{
  if (p->console && p->printed) {
    fputc('\n', p->console);
    fflush(p->console);
  }
}
