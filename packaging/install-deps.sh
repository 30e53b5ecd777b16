#!/bin/sh
# Installs every Debian package the build, the tests and the benchmarks need.
# Idempotent and quiet when everything is present: it asks dpkg first and only
# calls apt-get for what is missing, so the README's commands stay fast on a
# machine that already has them.  With arguments it installs just those
# packages (the benchmarks' own tools, e.g. pigz, are not the product's).
set -eu

DEFAULT_PACKAGES="
  build-essential cmake ninja-build pkg-config python3 git file
  zlib1g-dev libminizip-dev libcmocka-dev libpcre2-dev libdeflate-dev
  clang libclang-rt-14-dev
  gcc-mingw-w64-x86-64 binutils-mingw-w64-x86-64 libz-mingw-w64-dev gcc-mingw-w64-i686
  wine64 nsis
  zip unzip strace hyperfine wimtools bc time dpkg-dev patch xz-utils bzip2
  chromium
"
PACKAGES=${*:-$DEFAULT_PACKAGES}
# npm, for e2e.test_speedscope (below): Debian's, unless the machine has a
# Node.js of its own that brings its npm (NodeSource's nodejs does, and
# conflicts with Debian's npm package).
if [ $# -eq 0 ] && ! command -v npm >/dev/null 2>&1; then
  PACKAGES="$PACKAGES npm"
fi

missing=""
for p in $PACKAGES; do
  if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
    missing="$missing $p"
  fi
done

if [ -n "$missing" ]; then
  echo "install-deps: installing:$missing"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q >/dev/null
  # shellcheck disable=SC2086
  $SUDO apt-get install -y -q --no-install-recommends $missing >/dev/null
fi

# The speedscope web app that e2e.test_speedscope opens, put into npm's
# cache by installing it once into a scratch folder: the test then installs
# it into the build tree from the cache, without the network.  npm reads
# its registry from its own configuration; when it cannot reach it, the
# test skips and says why.
if [ $# -eq 0 ] && command -v npm >/dev/null 2>&1; then
  version=$(cat "$(dirname "$0")/../tests/e2e/speedscope.version")
  scratch=$(mktemp -d)
  if ! npm install --prefer-offline --no-package-lock --no-save --no-audit --no-fund \
         --prefix "$scratch" "speedscope@$version" >/dev/null 2>&1; then
    echo "install-deps: npm could not install speedscope@$version: e2e.test_speedscope will skip" >&2
  fi
  rm -rf "$scratch"
fi
