#!/bin/sh
# README command (2) on a fresh Debian 12, as a newcomer would run it: a
# debootstrap'd bookworm minbase in a chroot, no LANG/LC_* set, no standard
# input, a clean clone of the committed HEAD with ../shared beside it.
#
# Usage (as root): sh tests/fresh/check-fresh-debian.sh [ROOT] [SHARED]
#   ROOT    where the chroot goes (default /var/tmp/etwcap-fresh; reused if it
#           already holds a bookworm minbase, the clone is always fresh)
#   SHARED  the shared folder to copy beside the clone (default ../shared)
# Prints the run's last lines and exits with its exit code.  It takes long:
# the chroot installs every package and builds all three trees from scratch.
set -eu
repo=$(cd "$(dirname "$0")/../.." && pwd)
root=${1:-/var/tmp/etwcap-fresh}
shared=${2:-$repo/../shared}
mirror=http://deb.debian.org/debian

[ "$(id -u)" -eq 0 ] || { echo "check-fresh-debian: run as root (debootstrap, chroot)"; exit 2; }
[ -d "$shared/samples" ] || { echo "check-fresh-debian: no samples in $shared"; exit 2; }
command -v debootstrap >/dev/null || {
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends debootstrap >/dev/null
}
if [ ! -x "$root/usr/bin/apt-get" ]; then
  debootstrap --variant=minbase bookworm "$root" "$mirror"
fi

mounted=""
cleanup() {
  for m in $mounted; do umount -l "$m" 2>/dev/null || true; done
}
trap cleanup EXIT INT TERM
for fs in proc sys dev dev/pts; do
  mkdir -p "$root/$fs"
  case $fs in
    proc) mount -t proc proc "$root/proc" ;;
    sys) mount -t sysfs sys "$root/sys" ;;
    dev) mount --bind /dev "$root/dev" ;;
    dev/pts) mount -t devpts devpts "$root/dev/pts" ;;
  esac
  mounted="$root/$fs $mounted"
done
cp /etc/resolv.conf "$root/etc/resolv.conf"

# A clean clone of what is committed, and the shared folder beside it.
rm -rf "$root/src"
mkdir -p "$root/src"
git clone -q --no-hardlinks "$repo" "$root/src/etwcap"
git -C "$root/src/etwcap" checkout -q "$(git -C "$repo" rev-parse HEAD)"
cp -a "$shared" "$root/src/shared"

# README command (2), with nothing from this environment.
set +e
chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
  sh -c 'cd /src/etwcap && sh packaging/run-tests.sh' </dev/null >"$root/src/run-tests.log" 2>&1
rc=$?
set -e
tail -25 "$root/src/run-tests.log"
echo "check-fresh-debian: README command (2) exited $rc (log: $root/src/run-tests.log)"
exit $rc
