/* console.h elsewhere: captures only run on Windows, so this side exists for
 * the portable lifecycle tests and keeps the same rules: SIGINT is Ctrl+C,
 * SIGHUP the console closing, SIGTERM a shutdown; keys come only from
 * console_push_key (no terminal is put in raw mode). */
#define _POSIX_C_SOURCE 200809L

#include "src/os/console.h"

#include "src/base/error.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t pending_signal, signal_count, pushed_key;
static struct sigaction old_int, old_hup, old_term;
static int installed;

int console_deliver(enum console_signal sig)
{
  if (!pending_signal)
    pending_signal = (sig_atomic_t)sig;
  signal_count++;
  return 1;
}

static void on_signal(int signo)
{
  console_deliver(signo == SIGINT    ? CONSOLE_CTRL_C
                  : signo == SIGHUP  ? CONSOLE_CLOSE
                                     : CONSOLE_SHUTDOWN);
}

int console_open(void)
{
  struct sigaction sa;
  pending_signal = 0;
  signal_count = 0;
  pushed_key = 0;
  if (installed)
    return 0;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGINT, &sa, &old_int) != 0 || sigaction(SIGHUP, &sa, &old_hup) != 0 ||
      sigaction(SIGTERM, &sa, &old_term) != 0)
    return ETWCAP_E_SYSTEM;
  installed = 1;
  return 0;
}

void console_close(void)
{
  if (!installed)
    return;
  sigaction(SIGINT, &old_int, NULL);
  sigaction(SIGHUP, &old_hup, NULL);
  sigaction(SIGTERM, &old_term, NULL);
  installed = 0;
}

void console_stop_done(void)
{
}

int console_read_key(void)
{
  int key = (int)pushed_key;
  pushed_key = 0;
  return key;
}

void console_push_key(int key)
{
  pushed_key = (sig_atomic_t)key;
}

enum console_signal console_signal_pending(void)
{
  return (enum console_signal)pending_signal;
}

unsigned console_signal_count(void)
{
  return (unsigned)signal_count;
}
