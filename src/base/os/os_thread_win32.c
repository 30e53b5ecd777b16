/* os_thread.h on Windows: native threads, SRW locks, condition variables. */
#include <windows.h>
#include <process.h>

#include "src/base/os/os_thread.h"

#include "src/base/alloc.h"
#include "src/base/error.h"

_Static_assert(sizeof(SRWLOCK) <= sizeof(((os_mutex *)0)->storage), "os_mutex too small");
_Static_assert(sizeof(CONDITION_VARIABLE) <= sizeof(((os_cond *)0)->storage), "os_cond too small");

struct start {
  os_thread_fn fn;
  void *arg;
};

static unsigned __stdcall trampoline(void *p)
{
  struct start s = *(struct start *)p;
  etwcap_free(p);
  s.fn(s.arg);
  return 0;
}

int os_thread_create(os_thread *t, os_thread_fn fn, void *arg)
{
  struct start *s = etwcap_malloc(sizeof(*s));
  uintptr_t h;
  if (!s)
    return ETWCAP_E_NOMEM;
  s->fn = fn;
  s->arg = arg;
  /* _beginthreadex, not CreateThread, so the C runtime's per-thread state is set up. */
  h = _beginthreadex(NULL, 0, trampoline, s, 0, NULL);
  if (!h) {
    etwcap_free(s);
    return ETWCAP_E_SYSTEM;
  }
  t->handle = (void *)h;
  return 0;
}

void os_thread_join(os_thread *t)
{
  WaitForSingleObject((HANDLE)t->handle, INFINITE);
  CloseHandle((HANDLE)t->handle);
  t->handle = NULL;
}

void os_thread_lower_priority(void)
{
  SetThreadPriority(GetCurrentThread(), THREAD_PRIORITY_BELOW_NORMAL);
}

unsigned os_cpu_count(void)
{
  DWORD_PTR process_mask, system_mask;
  unsigned n = 0;
  if (GetProcessAffinityMask(GetCurrentProcess(), &process_mask, &system_mask)) {
    for (; process_mask; process_mask &= process_mask - 1)
      n++;
  }
  return n ? n : 1;
}

void os_mutex_init(os_mutex *m) { InitializeSRWLock((SRWLOCK *)m->storage); }
void os_mutex_destroy(os_mutex *m) { (void)m; }
void os_mutex_lock(os_mutex *m) { AcquireSRWLockExclusive((SRWLOCK *)m->storage); }
void os_mutex_unlock(os_mutex *m) { ReleaseSRWLockExclusive((SRWLOCK *)m->storage); }

void os_cond_init(os_cond *c) { InitializeConditionVariable((CONDITION_VARIABLE *)c->storage); }
void os_cond_destroy(os_cond *c) { (void)c; }
void os_cond_wait(os_cond *c, os_mutex *m)
{
  SleepConditionVariableSRW((CONDITION_VARIABLE *)c->storage, (SRWLOCK *)m->storage, INFINITE, 0);
}
void os_cond_signal(os_cond *c) { WakeConditionVariable((CONDITION_VARIABLE *)c->storage); }
void os_cond_broadcast(os_cond *c) { WakeAllConditionVariable((CONDITION_VARIABLE *)c->storage); }
