/* optional_call (see optional_call_win32.h).  How: a vectored exception
 * handler, installed only for the duration of the call, sees the exception
 * first (before any frame handler) and, when it is one that would end the
 * process and it was raised on the guarded thread, jumps back to the point
 * before the call (__builtin_setjmp / __builtin_longjmp: GCC's own pair,
 * which restores the stack and frame pointers without unwinding through the
 * exception dispatcher).  Benign first-chance exceptions (debug output,
 * C++ exceptions a function catches itself) are continuable and of
 * informational or warning severity, so they pass through untouched. */
#include "optional_call_win32.h"

static void *jump_buffer[5];
static volatile DWORD guarded_thread;

static LONG CALLBACK on_exception(PEXCEPTION_POINTERS info)
{
  const EXCEPTION_RECORD *r = info->ExceptionRecord;
  int fatal = (r->ExceptionFlags & EXCEPTION_NONCONTINUABLE) ||
              (r->ExceptionCode & 0xC0000000u) == 0xC0000000u;
  if (!fatal || guarded_thread != GetCurrentThreadId())
    return EXCEPTION_CONTINUE_SEARCH;
  guarded_thread = 0;
  __builtin_longjmp(jump_buffer, 1);
}

int optional_call(ULONG (*fn)(void *ctx), void *ctx, ULONG *result)
{
  PVOID handler = AddVectoredExceptionHandler(1, on_exception);
  volatile int returned = 0;
  *result = ERROR_CALL_NOT_IMPLEMENTED;
  if (!handler)
    return -1;
  if (__builtin_setjmp(jump_buffer) == 0) {
    guarded_thread = GetCurrentThreadId();
    *result = fn(ctx);
    guarded_thread = 0;
    returned = 1;
  }
  RemoveVectoredExceptionHandler(handler);
  if (!returned)
    *result = ERROR_CALL_NOT_IMPLEMENTED;
  return returned ? 0 : -1;
}
