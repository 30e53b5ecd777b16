#!/bin/sh
# README command (1): installs what is missing, builds both targets
# (packaging/build.sh) and runs the main job on both binaries.
set -eu
cd "$(dirname "$0")/.."
sh packaging/build.sh
echo "== native: build/etwcap version"
build/etwcap version
echo "== Windows: build/windows/etwcap.exe /? under Wine"
export WINEPREFIX="$PWD/build/windows/wineprefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
# Wine's first start creates the prefix and its services; keep them off our output.
WINE=/usr/lib/wine/wine64
"$WINE" wineboot </dev/null >/dev/null 2>&1 || true
"$WINE" build/windows/etwcap.exe /? </dev/null
"$WINE" build/windows/etwcap.exe version </dev/null
