/* Threads, mutexes and condition variables.  mingw-w64 has no <threads.h>
 * and pthreads would pull libwinpthread into the static exe, so each OS has
 * its own small file: os_thread_posix.c, os_thread_win32.c.  The structs are
 * opaque storage big enough for either implementation. */
#ifndef ETWCAP_OS_THREAD_H
#define ETWCAP_OS_THREAD_H

#include <stdint.h>

typedef struct os_thread { void *handle; } os_thread;
typedef struct os_mutex { _Alignas(16) unsigned char storage[64]; } os_mutex;
typedef struct os_cond { _Alignas(16) unsigned char storage[64]; } os_cond;

typedef void (*os_thread_fn)(void *arg);

/* Returns 0 or ETWCAP_E_SYSTEM. */
int os_thread_create(os_thread *t, os_thread_fn fn, void *arg);
void os_thread_join(os_thread *t);
/* Lowers the calling thread's priority below normal (nice 10 on Linux,
 * THREAD_PRIORITY_BELOW_NORMAL on Windows): /LowPriority's work yields to
 * the machine's own. */
void os_thread_lower_priority(void);
/* Number of CPUs this process may run on (at least 1). */
unsigned os_cpu_count(void);

void os_mutex_init(os_mutex *m);
void os_mutex_destroy(os_mutex *m);
void os_mutex_lock(os_mutex *m);
void os_mutex_unlock(os_mutex *m);

void os_cond_init(os_cond *c);
void os_cond_destroy(os_cond *c);
void os_cond_wait(os_cond *c, os_mutex *m);
void os_cond_signal(os_cond *c);
void os_cond_broadcast(os_cond *c);

#endif
