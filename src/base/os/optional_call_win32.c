/* optional_call (see optional_call_win32.h for how and why). */
#include "src/base/os/optional_call_win32.h"

#include <string.h>

/* MSVC's C++ exception: 0xE0000000 | 'msc'. */
#define MSVC_CPP_EXCEPTION 0xE06D7363u

struct guard {
  void *jump[5]; /* __builtin_setjmp's buffer */
  DWORD thread;  /* the thread inside fn */
  DWORD code;
  void *address;
};

/* One optional_call at a time in the process; `active` is its guard while
 * fn runs, NULL otherwise (read by the handler on any thread). */
static SRWLOCK call_lock = SRWLOCK_INIT;
static struct guard *volatile active;

int optional_call_catches(DWORD code, DWORD flags)
{
  return (flags & EXCEPTION_NONCONTINUABLE) && code != MSVC_CPP_EXCEPTION;
}

static LONG CALLBACK on_exception(PEXCEPTION_POINTERS info)
{
  const EXCEPTION_RECORD *r = info->ExceptionRecord;
  struct guard *g = active;
  if (!g || g->thread != GetCurrentThreadId() ||
      !optional_call_catches(r->ExceptionCode, r->ExceptionFlags))
    return EXCEPTION_CONTINUE_SEARCH;
  g->code = r->ExceptionCode;
  g->address = r->ExceptionAddress;
  active = NULL;
  __builtin_longjmp(g->jump, 1);
}

int optional_call(ULONG (*fn)(void *ctx), void *ctx, ULONG *result,
                  struct optional_call_fault *fault)
{
  struct guard g;
  PVOID handler;
  volatile int returned = 0;
  memset(&g, 0, sizeof(g));
  memset(fault, 0, sizeof(*fault));
  *result = ERROR_CALL_NOT_IMPLEMENTED;
  g.thread = GetCurrentThreadId();
  AcquireSRWLockExclusive(&call_lock);
  if (!(handler = AddVectoredExceptionHandler(1, on_exception))) {
    ReleaseSRWLockExclusive(&call_lock);
    return -1;
  }
  if (__builtin_setjmp(g.jump) == 0) {
    active = &g;
    *result = fn(ctx);
    active = NULL;
    returned = 1;
  }
  RemoveVectoredExceptionHandler(handler);
  ReleaseSRWLockExclusive(&call_lock);
  if (returned)
    return 0;
  *result = ERROR_CALL_NOT_IMPLEMENTED;
  fault->code = g.code;
  fault->address = g.address;
  return -1;
}
