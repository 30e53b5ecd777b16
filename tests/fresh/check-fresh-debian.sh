#!/bin/sh
# Both README commands on a fresh Debian 12, as a newcomer would run them: a
# debootstrap'd bookworm minbase in a chroot, laid anew for every run (a root
# left by an earlier run hides a missing install step), no LANG/LC_* set, no
# standard input, CI=true, a clean clone of the committed HEAD with the shared
# folder beside it.
#
# Usage (as root): sh tests/fresh/check-fresh-debian.sh [ROOT] [SHARED]
#   ROOT    where the chroot goes (default /var/tmp/etwcap-fresh); the
#           debootstrap result is kept as ROOT.tar and unpacked afresh
#   SHARED  the shared folder to copy beside the clone (default ../shared)
# The Debian mirror is the one this machine's apt uses.  Prints each
# command's exit code, time and log, and exits non-zero when either failed.
# It takes long (about 25 minutes on 2 cores): the chroot installs every
# package and builds all three trees from scratch.
set -eu
repo=$(cd "$(dirname "$0")/../.." && pwd)
root=${1:-/var/tmp/etwcap-fresh}
shared=${2:-$repo/../shared}

[ "$(id -u)" -eq 0 ] || { echo "check-fresh-debian: run as root (debootstrap, chroot)"; exit 2; }
[ -d "$shared/samples" ] || { echo "check-fresh-debian: no samples in $shared"; exit 2; }

# The mirror from apt's own configuration: deb822 sources (Debian 12's
# default) or the one-line format.
mirror=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
[ -n "$mirror" ] ||
  mirror=$(awk '$1 == "deb" { print ($2 ~ /^\[/ ? $3 : $2); exit }' /etc/apt/sources.list \
             /etc/apt/sources.list.d/*.list 2>/dev/null || true)
[ -n "$mirror" ] || { echo "check-fresh-debian: no Debian mirror in /etc/apt"; exit 2; }

command -v debootstrap >/dev/null || {
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends debootstrap >/dev/null
}
if [ ! -f "$root.tar" ]; then
  rm -rf "$root.new"
  debootstrap --variant=minbase bookworm "$root.new" "$mirror" >"$root.debootstrap.log" 2>&1 || {
    echo "check-fresh-debian: debootstrap failed (log: $root.debootstrap.log)"
    exit 2
  }
  tar -C "$root.new" -cf "$root.tar" . && rm -rf "$root.new"
fi

mounted=""
cleanup() {
  for m in $mounted; do umount -l "$m" 2>/dev/null || true; done
}
trap cleanup EXIT INT TERM
rm -rf "$root"
mkdir -p "$root"
tar -C "$root" -xf "$root.tar"
for fs in proc sys dev dev/pts; do
  mkdir -p "$root/$fs"
  case $fs in
    proc) mount -t proc proc "$root/proc" ;;
    sys) mount -t sysfs sys "$root/sys" ;;
    dev) mount --bind /dev "$root/dev" ;;
    dev/pts) mount --bind /dev/pts "$root/dev/pts" ;;
  esac
  mounted="$root/$fs $mounted"
done
cp /etc/resolv.conf "$root/etc/resolv.conf"

# A clean clone of what is committed, and the shared folder beside it.
mkdir -p "$root/src"
git clone -q --no-hardlinks "$repo" "$root/src/etwcap"
git -C "$root/src/etwcap" checkout -q "$(git -C "$repo" rev-parse HEAD)"
cp -a "$shared" "$root/src/shared"
chroot "$root" sh -c 'apt-get update -qq && apt-get install -y -qq git ca-certificates' \
  </dev/null >"$root/src/bootstrap.log" 2>&1

# README commands (1) and (2), with nothing from this environment.
rc=0
for step in "1 packaging/run-main.sh" "2 packaging/run-tests.sh"; do
  n=${step%% *} script=${step#* }
  start=$(date +%s)
  set +e
  chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root CI=true \
    sh -c "cd /src/etwcap && sh $script" </dev/null >"$root/src/command-$n.log" 2>&1
  r=$?
  set -e
  tail -5 "$root/src/command-$n.log"
  echo "check-fresh-debian: README command ($n) exited $r after $(($(date +%s) - start)) s" \
       "(log: $root/src/command-$n.log)"
  [ "$r" -eq 0 ] || rc=1
done
exit $rc
