#!/bin/sh
# README command (2): builds everything (packaging/build.sh) and runs every test
# except the `long` ones: native unit tests, the same tests under Wine, the
# end-to-end tests of both binaries, the static-import and installer tests,
# short fuzz runs.  Long tests: cd build && ctest -L long.
set -eu
cd "$(dirname "$0")/.."
start=$(date +%s)
sh packaging/build.sh
cd build
ctest -LE long -j"$(nproc)" --output-on-failure "$@"
echo "run-tests: $(($(date +%s) - start)) s in all"
