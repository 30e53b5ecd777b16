/* Calling a Win32 function that a Windows may have only as a stub.  Wine 8's
 * TraceQueryInformation (sechost "@ stub"), TdhGet* and EnumerateTraceGuidsEx
 * do not return an error when called: they raise an exception, and an
 * unhandled exception ends the process (docs/building.md §2.2).  A robust
 * program treats that like any failing call of an optional query: the
 * answer is "not available" and the capture goes on.  Nothing here looks at
 * which system it runs on.  Only *_win32.c files include this header.
 *
 * How: a vectored exception handler, added for the call and removed after
 * it, sees an exception before any frame handler.  It acts only on the
 * thread that is inside optional_call, only while fn runs (calls take a
 * lock, so calls on several threads run one at a time and never share the
 * guard; a thread-local guard would pull in the runtime's TLS emulation and
 * its imports), and only on exceptions
 * nothing can continue from (EXCEPTION_NONCONTINUABLE) other than MSVC's C++
 * exception 0xE06D7363, which a callee may catch itself; everything else
 * goes on to the callee's own handlers.  It then jumps back to the point
 * before the call (__builtin_setjmp / __builtin_longjmp, which restore the
 * stack and frame pointers without unwinding).  Such a jump skips no
 * cleanup of ours, but it leaves the callee's frames as they were: fine for
 * a stub that raised at once, and why this is for optional queries only.
 *
 * The handler's entry is not freed after a jump out of it: ntdll holds a
 * reference on the entry while the handler runs and drops it when the
 * handler returns (RtlpCallVectoredHandlers, as public decompilations show
 * it); the jump skips that drop, so RemoveVectoredExceptionHandler takes
 * away only the list's reference and the entry stays linked.  Harmless: the
 * handler does nothing on a thread without a guard, and the cost is one
 * small entry per raising call (a few per capture).  The jump also assumes
 * no CET shadow stack: etwcap.exe is not marked CETCOMPAT. */
#ifndef ETWCAP_OPTIONAL_CALL_WIN32_H
#define ETWCAP_OPTIONAL_CALL_WIN32_H

#include "src/base/os/compat_win32.h"

/* What a call raised instead of returning, for the log line. */
struct optional_call_fault {
  DWORD code;    /* ExceptionCode, e.g. 0x80000100 for Wine's stubs */
  void *address; /* ExceptionAddress */
};

/* Calls fn(ctx) and stores its Win32 result in *result.  Returns 0 when the
 * function returned, -1 when it raised an exception optional_call_catches
 * (*fault says which and where; *result is ERROR_CALL_NOT_IMPLEMENTED) or
 * the handler could not be added (fault->code 0). */
int optional_call(ULONG (*fn)(void *ctx), void *ctx, ULONG *result,
                  struct optional_call_fault *fault);

/* 1 for the exceptions optional_call turns into -1: non-continuable, and not
 * MSVC's C++ exception (0xE06D7363, raised non-continuable and often caught
 * by the code that threw it). */
int optional_call_catches(DWORD code, DWORD flags);

#endif
