#!/bin/sh
# The emulator of the Windows tests: runs COMMAND... (env ... wine64 test.exe)
# and passes its output and exit code through.  Under load, Wine's client
# has now and then lost its connection to the wineserver mid-run ("wine
# client error:0: recvmsg: Connection reset by peer", exit 1).  That message
# is Wine's own, never a test's, so such a run is tried once more, saying so.
err=$(mktemp "${TMPDIR:-/tmp}/wine-run.XXXXXX")
trap 'rm -f "$err"' EXIT
"$@" 2>"$err"
rc=$?
if [ "$rc" -ne 0 ] && grep -q '^wine client error:' "$err"; then
  cat "$err" >&2
  echo "note: Wine lost its wineserver (exit $rc); running the test again" >&2
  "$@"
  exit $?
fi
cat "$err" >&2
exit "$rc"
