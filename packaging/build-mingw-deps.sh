#!/bin/sh
# Builds the static Windows (mingw-w64) libraries etwcap.exe and its tests link:
# minizip (Debian's source package, which carries the CVE-2023-45853 patch),
# cmocka, PCRE2 and libdeflate, all from Debian source packages.  zlib comes from Debian's
# libz-mingw-w64-dev.  Usage: build-mingw-deps.sh PREFIX
# The result is cached: when PREFIX/.stamp names the same versions, nothing is
# done, so a rebuild of etwcap costs nothing here.
set -eu

PREFIX=$(mkdir -p "$1" && cd "$1" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
TOOLCHAIN="$HERE/mingw-w64-x86_64.cmake"
STAMP_WANTED="minizip=1.1-8+deb12u1 cmocka=1.1.5 pcre2=10.42 libdeflate=1.14 v3"

if [ -f "$PREFIX/.stamp" ] && [ "$(cat "$PREFIX/.stamp")" = "$STAMP_WANTED" ]; then
  exit 0
fi

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo

# apt-get source needs a deb-src entry; Debian 12 images ship only deb lines.
# The entries added name the same mirrors, suites and components as the
# machine's own deb entries (no mirror of ours is written anywhere).
if ! grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ &&
   ! grep -qs '^deb-src' /etc/apt/sources.list /etc/apt/sources.list.d/*.list; then
  echo "build-mingw-deps: adding deb-src entries beside the machine's deb entries"
  src_entries=$(mktemp)
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] && sed 's/^Types:.*/Types: deb-src/' "$f" && echo
  done >"$src_entries"
  if [ -s "$src_entries" ]; then
    $SUDO cp "$src_entries" /etc/apt/sources.list.d/etwcap-deb-src.sources
  else
    sed -n 's/^deb /deb-src /p' /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
      2>/dev/null >"$src_entries" || true
    [ -s "$src_entries" ] || { echo "build-mingw-deps: no deb entries in /etc/apt" >&2; exit 1; }
    $SUDO cp "$src_entries" /etc/apt/sources.list.d/etwcap-deb-src.list
  fi
  rm -f "$src_entries"
  $SUDO apt-get update -q >/dev/null
fi

WORK="$PREFIX/src"
rm -rf "$WORK"
mkdir -p "$WORK" "$PREFIX/lib" "$PREFIX/include"
cd "$WORK"
echo "build-mingw-deps: fetching Debian sources (minizip, cmocka, pcre2, libdeflate) into $WORK"
# Each package at the newest version the mirror serves: a security update can
# be listed before its source reaches the mirror, so older listed versions are
# tried next.  dpkg-source applies Debian's patches (CVE-2023-45853 for minizip).
fetch_source() {
  for v in $(apt-cache showsrc "$1" | sed -n 's/^Version: //p' | sort -rV | uniq); do
    if apt-get source -q "$1=$v" >>source.log 2>&1; then
      return 0
    fi
  done
  cat source.log >&2
  echo "build-mingw-deps: apt-get source $1 failed (is the Debian mirror reachable?)" >&2
  exit 1
}
: >source.log
fetch_source minizip
fetch_source cmocka
fetch_source pcre2
fetch_source libdeflate
grep -q 'applying CVE-2023-45853.patch' source.log || {
  echo "build-mingw-deps: minizip's CVE-2023-45853 patch was not applied" >&2
  exit 1
}

CC=x86_64-w64-mingw32-gcc
AR=x86_64-w64-mingw32-ar

echo "build-mingw-deps: minizip"
(
  cd minizip-*/
  for f in ioapi iowin32 zip unzip; do
    $CC -O2 -w -I/usr/x86_64-w64-mingw32/include -c $f.c -o $f.o
  done
  $AR rcs "$PREFIX/lib/libminizip.a" ioapi.o iowin32.o zip.o unzip.o
  mkdir -p "$PREFIX/include/minizip"
  cp ioapi.h iowin32.h zip.h unzip.h crypt.h "$PREFIX/include/minizip/"
)

echo "build-mingw-deps: cmocka"
cmake -S cmocka-*/ -B build-cmocka -DCMAKE_TOOLCHAIN_FILE="$TOOLCHAIN" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$PREFIX" \
  -DWITH_STATIC_LIB=ON -DWITH_EXAMPLES=OFF -DUNIT_TESTING=OFF >cmocka.log 2>&1
cmake --build build-cmocka -j2 >>cmocka.log 2>&1
cmake --install build-cmocka >>cmocka.log 2>&1

echo "build-mingw-deps: pcre2"
cmake -S pcre2-*/ -B build-pcre2 -DCMAKE_TOOLCHAIN_FILE="$TOOLCHAIN" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$PREFIX" \
  -DBUILD_SHARED_LIBS=OFF -DPCRE2_BUILD_PCRE2_8=ON -DPCRE2_BUILD_PCRE2_16=OFF \
  -DPCRE2_BUILD_PCRE2_32=OFF -DPCRE2_BUILD_PCRE2GREP=OFF -DPCRE2_BUILD_TESTS=OFF \
  -DPCRE2_SUPPORT_JIT=OFF >pcre2.log 2>&1
cmake --build build-pcre2 -j2 >>pcre2.log 2>&1
cmake --install build-pcre2 >>pcre2.log 2>&1

echo "build-mingw-deps: libdeflate"
# Its Makefile knows mingw (it names the static library libdeflatestatic.lib
# there); only the library is built, installed under the usual name.
(
  cd libdeflate-*/
  make -j2 CC=$CC AR=$AR DISABLE_SHARED=1 libdeflatestatic.lib >libdeflate.log 2>&1 ||
    { cat libdeflate.log >&2; exit 1; }
  cp libdeflatestatic.lib "$PREFIX/lib/libdeflate.a"
  cp libdeflate.h "$PREFIX/include/"
)

cd "$PREFIX"
rm -rf "$WORK"
echo "$STAMP_WANTED" >"$PREFIX/.stamp"
echo "build-mingw-deps: done ($PREFIX)"
