/* os_thread.h on POSIX (pthreads). */
#define _GNU_SOURCE
#include "src/base/os/os_thread.h"

#include "src/base/alloc.h"
#include "src/base/error.h"

#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

_Static_assert(sizeof(pthread_mutex_t) <= sizeof(((os_mutex *)0)->storage), "os_mutex too small");
_Static_assert(sizeof(pthread_cond_t) <= sizeof(((os_cond *)0)->storage), "os_cond too small");

struct start {
  os_thread_fn fn;
  void *arg;
};

static void *trampoline(void *p)
{
  struct start s = *(struct start *)p;
  etwcap_free(p);
  s.fn(s.arg);
  return NULL;
}

int os_thread_create(os_thread *t, os_thread_fn fn, void *arg)
{
  pthread_t *tid = etwcap_malloc(sizeof(*tid));
  struct start *s = etwcap_malloc(sizeof(*s));
  int rc = tid && s ? 0 : ETWCAP_E_NOMEM;
  if (!rc) {
    s->fn = fn;
    s->arg = arg;
    if (pthread_create(tid, NULL, trampoline, s) != 0)
      rc = ETWCAP_E_SYSTEM;
  }
  if (rc) {
    etwcap_free(tid);
    etwcap_free(s);
    return rc;
  }
  t->handle = tid;
  return 0;
}

void os_thread_join(os_thread *t)
{
  pthread_t *tid = t->handle;
  pthread_join(*tid, NULL);
  etwcap_free(tid);
  t->handle = NULL;
}

void os_thread_lower_priority(void)
{
  /* Linux keeps a nice value per thread: naming this thread's id lowers it
   * alone, not the whole process. */
  (void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 10);
}

unsigned os_cpu_count(void)
{
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
    return (unsigned)CPU_COUNT(&set);
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (unsigned)n : 1;
}

void os_mutex_init(os_mutex *m) { pthread_mutex_init((pthread_mutex_t *)m->storage, NULL); }
void os_mutex_destroy(os_mutex *m) { pthread_mutex_destroy((pthread_mutex_t *)m->storage); }
void os_mutex_lock(os_mutex *m) { pthread_mutex_lock((pthread_mutex_t *)m->storage); }
void os_mutex_unlock(os_mutex *m) { pthread_mutex_unlock((pthread_mutex_t *)m->storage); }

void os_cond_init(os_cond *c) { pthread_cond_init((pthread_cond_t *)c->storage, NULL); }
void os_cond_destroy(os_cond *c) { pthread_cond_destroy((pthread_cond_t *)c->storage); }
void os_cond_wait(os_cond *c, os_mutex *m)
{
  pthread_cond_wait((pthread_cond_t *)c->storage, (pthread_mutex_t *)m->storage);
}
void os_cond_signal(os_cond *c) { pthread_cond_signal((pthread_cond_t *)c->storage); }
void os_cond_broadcast(os_cond *c) { pthread_cond_broadcast((pthread_cond_t *)c->storage); }
