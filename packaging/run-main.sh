#!/bin/sh
# README command (1): installs what is missing, builds both targets
# (packaging/build.sh) and runs the main job: a trigger designed offline on a
# recorded trace.  The trace is the project's own demo collection
# (tests/tools/make_demo_trace: kernel + CLR sessions of a .NET 8 service over
# 60 s whose calls to a dependency start failing at 42 s), merged as a
# capture is merged; `etwcap replay` runs the triggers over it on its own
# clock, writes what a circular capture would have kept, and `info`/`dump`
# read that result.  Then the version natively and the Windows build's help
# under Wine.
set -eu
cd "$(dirname "$0")/.."
sh packaging/build.sh

B=build
DEMO=$B/demo
if [ ! -x "$B/make_demo_trace" ]; then
  echo "run-main: $B/make_demo_trace was not built (tests/tools/tools.cmake must be included" \
       "by CMakeLists.txt)" >&2
  exit 1
fi

echo "== the demo collection: $B/make_demo_trace $DEMO"
rm -rf "$DEMO"
mkdir -p "$DEMO"
"$B/make_demo_trace" "$DEMO"
# Where the script says the symptom starts: the first HttpRequestException.
symptom=$("$B/make_demo_trace" --describe | sed -n 's/^first_http_exception_raw=//p')

echo "== merge the two session files as a capture would: $B/etwcap merge $DEMO/DEMO.etl"
"$B/etwcap" merge "$DEMO/DEMO.etl"

echo "== main job: replay triggers on the recorded trace"
echo "   $B/etwcap replay $DEMO/DEMO.etl.zip /StopOnException:HttpRequestException" \
     "/StopOnGCOverMsec:200 /Out:$DEMO/CAPTURE.etl.zip"
rc=0
"$B/etwcap" replay "$DEMO/DEMO.etl.zip" /StopOnException:HttpRequestException \
  /StopOnGCOverMsec:200 "/Out:$DEMO/CAPTURE.etl.zip" >"$DEMO/replay.out" || rc=$?
echo "-- fire lines (fired, trigger, raw timestamp, UTC, detail):"
cat "$DEMO/replay.out"
if [ "$rc" -ne 0 ]; then
  echo "run-main: replay exited with $rc (9 = nothing fired)" >&2
  exit 1
fi
fired=$(awk -F'\t' '$1 == "fired" { print $2 " " $3; exit }' "$DEMO/replay.out")
if [ "$fired" != "StopOnException $symptom" ]; then
  echo "run-main: expected the first fire to be StopOnException at raw $symptom (the first" \
       "HttpRequestException), got '$fired'" >&2
  exit 1
fi
echo "-- the first fire is the symptom's first HttpRequestException (raw $symptom)"

echo "== $B/etwcap info $DEMO/CAPTURE.etl.zip"
"$B/etwcap" info "$DEMO/CAPTURE.etl.zip"

echo "== $B/etwcap dump $DEMO/CAPTURE.etl.zip (event lines counted)"
"$B/etwcap" dump "$DEMO/CAPTURE.etl.zip" >"$DEMO/CAPTURE.dump"
total=$(grep -cv '^#' "$DEMO/CAPTURE.dump" || true)
clr=$(grep -c 'e13c0d23-ccbc-4e12-931b-d9cc2eee27e4' "$DEMO/CAPTURE.dump" || true)
kernel=$(grep 'kernel:' "$DEMO/CAPTURE.dump" | grep -vc 'kernel:Header' || true)
echo "dump read $total events: $clr CLR, $kernel kernel"
if [ "$total" -eq 0 ] || [ "$clr" -eq 0 ] || [ "$kernel" -eq 0 ]; then
  echo "run-main: dump of $DEMO/CAPTURE.etl.zip lacks the CLR or the kernel events" >&2
  exit 1
fi

echo "== native: build/etwcap version"
build/etwcap version
echo "== Windows: build/windows/etwcap.exe /? under Wine"
export WINEPREFIX="$PWD/build/windows/wineprefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
# Wine's first start creates the prefix and its services; keep them off our output.
WINE=/usr/lib/wine/wine64
"$WINE" wineboot </dev/null >/dev/null 2>&1 || true
"$WINE" build/windows/etwcap.exe /? </dev/null
"$WINE" build/windows/etwcap.exe version </dev/null
