#!/bin/sh
# Installs what is missing, then configures and builds every tree of the
# superbuild in build/: native etwcap + tests (ASan/UBSan), etwcap.exe + tests
# (mingw-w64, run under Wine), and the libFuzzer targets (clang).
set -eu
cd "$(dirname "$0")/.."
sh packaging/install-deps.sh
if [ ! -f build/CMakeCache.txt ]; then
  mkdir -p build
  cmake -S . -B build -G Ninja >build/configure.log 2>&1 || { cat build/configure.log; exit 1; }
fi
cmake --build build -j"$(nproc)"
