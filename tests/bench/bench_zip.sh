#!/bin/sh
# The user's wait after a capture: `etwcap merge X.etl` merges, compresses as
# it goes, verifies the zip and renames it.  The references compress the
# same merged bytes (taken back out of etwcap's zip) from a warm cache:
# Info-ZIP `zip -6` and `pigz -6 -p$(nproc)`.  Prints times, sizes, ratios
# and etwcap's peak RSS, from one run; figures only, no thresholds.
# Usage: bench_zip.sh ETWCAP TRACE   (ETWCAP: a release build; TRACE is copied)
set -eu
etwcap=$1
trace=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
command -v pigz >/dev/null || sh "$root/packaging/install-deps.sh" pigz
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-zip.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "== merge + zip + verify of $(du -m "$trace" | cut -f1) MB against zip -6 and pigz -6 -p$(nproc)"
cp "$trace" "$work/X.etl"
cat "$work/X.etl" >/dev/null
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/time -v "$etwcap" merge "$work/X.etl" 2>"$work/time.txt" || { cat "$work/time.txt"; exit 1; }
ours_s=$(awk '/Elapsed \(wall clock\)/ {n=split($NF,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$work/time.txt")
rss=$(awk -F: '/Maximum resident/ {printf "%.0f", $2 / 1024}' "$work/time.txt")
unzip -p "$work/X.etl.zip" X.etl >"$work/merged.etl"
cat "$work/merged.etl" >/dev/null
start=$(date +%s.%N)
(cd "$work" && zip -6 -q "$work/ref.zip" merged.etl)
zip_s=$(echo "$(date +%s.%N) - $start" | bc)
start=$(date +%s.%N)
pigz -6 -p"$(nproc)" -c "$work/merged.etl" >"$work/ref.gz"
pigz_s=$(echo "$(date +%s.%N) - $start" | bc)
ours_b=$(stat -c %s "$work/X.etl.zip")
zip_b=$(stat -c %s "$work/ref.zip")
echo "etwcap merge: $ours_s s, $ours_b bytes (merge, compress, verify, rename), peak RSS $rss MB"
echo "  (the issue's bound: 64 MiB + chunk buffers (2 x $(nproc) + 1) x 8 MiB = $((64 + (2 * $(nproc) + 1) * 8)) MB)"
echo "zip -6:       $zip_s s, $zip_b bytes"
echo "pigz -6 -p$(nproc):  $pigz_s s, $(stat -c %s "$work/ref.gz") bytes"
echo "etwcap / zip -6: time $(echo "scale=3; $ours_s / $zip_s" | bc), size $(echo "scale=4; $ours_b / $zip_b" | bc)"
echo "etwcap / pigz:   time $(echo "scale=3; $ours_s / $pigz_s" | bc)"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
