#!/bin/sh
# The emulator of the Windows tests: runs COMMAND... (env ... wine64 test.exe)
# and passes its output and exit code through.  Under load, Wine has now and
# then failed a run that is not the test's to fail: it lost its wineserver
# mid-run ("wine client error:0: recvmsg: Connection reset by peer"), or it
# ended the process at start-up with an exit code and no output at all (a
# cmocka test always prints its "[==========]" banner first).  Such a run is
# tried once more, saying so; any other failure is the test's.
out=$(mktemp "${TMPDIR:-/tmp}/wine-run.XXXXXX")
err=$(mktemp "${TMPDIR:-/tmp}/wine-run.XXXXXX")
trap 'rm -f "$out" "$err"' EXIT
"$@" >"$out" 2>"$err"
rc=$?
cat "$out"
cat "$err" >&2
if [ "$rc" -ne 0 ] && { grep -q '^wine client error:' "$err" || { [ ! -s "$out" ] && [ ! -s "$err" ]; }; }; then
  echo "note: Wine failed the run (exit $rc) before the test could; running it again" >&2
  "$@"
  exit $?
fi
exit "$rc"
