/* Calling a Win32 function that a Windows may have only as a stub.  Wine 8's
 * TraceQueryInformation (sechost "@ stub"), TdhGet* and EnumerateTraceGuidsEx
 * do not return an error when called: they raise an exception, and an
 * unhandled exception ends the process (toolchain.md §2.2).  A robust
 * program treats that like any failing call of an optional query: the
 * answer is "not available" and the capture goes on.  Nothing here looks at
 * which system it runs on.  Only *_win32.c files include this header. */
#ifndef ETWCAP_OPTIONAL_CALL_WIN32_H
#define ETWCAP_OPTIONAL_CALL_WIN32_H

#include "compat_win32.h"

/* Calls fn(ctx) and stores its Win32 result in *result.  Returns 0 when the
 * function returned, -1 when it raised an exception that would have ended
 * the process (a non-continuable one, or an error status 0xC0000000..)
 * instead; *result is then ERROR_CALL_NOT_IMPLEMENTED.  For optional
 * queries only: what the function had done before it raised is not undone.
 * One call at a time per process (etwcap calls it from its main thread). */
int optional_call(ULONG (*fn)(void *ctx), void *ctx, ULONG *result);

#endif
