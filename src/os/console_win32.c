/* console.h on Windows: SetConsoleCtrlHandler for Ctrl+C, Ctrl+Break,
 * window close, logoff and shutdown; ReadConsoleInputW for the S and A
 * keys.  The handler runs on a thread Windows creates, so the state is a
 * set of volatile LONGs. */
#include <windows.h>

#include "src/os/console.h"
#include "src/os/console_win32.h"

#include "src/base/error.h"

static volatile LONG pending_signal, signal_count, pushed_key;
static HANDLE stop_done;   /* manual-reset: the stop path stopped the sessions */
static int installed;

/* How long a fatal signal's handler holds the process: Windows ends a
 * console process about 5 s after CTRL_CLOSE_EVENT whatever we do. */
#define FATAL_GRACE_MS 4500

int console_deliver(enum console_signal sig)
{
  if (sig == CONSOLE_LOGOFF) {
    /* Services (session 0, e.g. a capture run by Task Scheduler as
     * SYSTEM) see every user's logoff: not a reason to stop. */
    DWORD session = 0;
    if (ProcessIdToSessionId(GetCurrentProcessId(), &session) && session == 0)
      return 0;
  }
  InterlockedCompareExchange(&pending_signal, (LONG)sig, 0);
  InterlockedIncrement(&signal_count);
  return 1;
}

int console_win32_handler(unsigned long type)
{
  enum console_signal sig;
  switch (type) {
  case CTRL_C_EVENT:
    sig = CONSOLE_CTRL_C;
    break;
  case CTRL_BREAK_EVENT:
    sig = CONSOLE_CTRL_BREAK;
    break;
  case CTRL_CLOSE_EVENT:
    sig = CONSOLE_CLOSE;
    break;
  case CTRL_LOGOFF_EVENT:
    sig = CONSOLE_LOGOFF;
    break;
  case CTRL_SHUTDOWN_EVENT:
    sig = CONSOLE_SHUTDOWN;
    break;
  default:
    return FALSE;
  }
  /* A logoff a service or SYSTEM task ignores must still be answered TRUE:
   * FALSE hands it to the default handler, which calls ExitProcess with
   * every session running (HandlerRoutine: "CTRL_LOGOFF_EVENT ... Note
   * that this signal is received only by services"; docs/win32-contract.md
   * §11.2). */
  if (!console_deliver(sig))
    return TRUE;
  /* Windows ends the process when this returns (close, logoff, shutdown):
   * hold it until the stop path has stopped every session, rundown
   * included (console_stop_done), at most the grace Windows gives. */
  if (console_signal_ends_process(sig) && stop_done)
    WaitForSingleObject(stop_done, FATAL_GRACE_MS);
  return TRUE;
}

static BOOL WINAPI handler(DWORD type)
{
  return console_win32_handler(type) ? TRUE : FALSE;
}

int console_open(void)
{
  pending_signal = 0;
  signal_count = 0;
  pushed_key = 0;
  if (!stop_done)
    stop_done = CreateEventW(NULL, TRUE, FALSE, NULL);
  else
    ResetEvent(stop_done);
  if (!installed) {
    if (!SetConsoleCtrlHandler(handler, TRUE))
      return ETWCAP_E_SYSTEM;
    installed = 1;
  }
  return 0;
}

void console_close(void)
{
  if (installed) {
    SetConsoleCtrlHandler(handler, FALSE);
    installed = 0;
  }
  console_stop_done();
}

void console_stop_done(void)
{
  if (stop_done)
    SetEvent(stop_done);
}

int console_read_key(void)
{
  HANDLE in = GetStdHandle(STD_INPUT_HANDLE);
  DWORD events = 0, mode;
  LONG key = InterlockedExchange(&pushed_key, 0);
  if (key)
    return (int)key;
  if (!GetConsoleMode(in, &mode))
    return 0;
  while (GetNumberOfConsoleInputEvents(in, &events) && events > 0) {
    INPUT_RECORD rec;
    DWORD got = 0;
    if (!ReadConsoleInputW(in, &rec, 1, &got) || got == 0)
      break;
    if (rec.EventType == KEY_EVENT && rec.Event.KeyEvent.bKeyDown &&
        rec.Event.KeyEvent.uChar.UnicodeChar)
      return (int)rec.Event.KeyEvent.uChar.UnicodeChar;
  }
  return 0;
}

void console_push_key(int key)
{
  InterlockedExchange(&pushed_key, (LONG)key);
}

enum console_signal console_signal_pending(void)
{
  return (enum console_signal)InterlockedCompareExchange(&pending_signal, 0, 0);
}

unsigned console_signal_count(void)
{
  return (unsigned)InterlockedCompareExchange(&signal_count, 0, 0);
}
