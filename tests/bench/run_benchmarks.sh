#!/bin/sh
# The benchmarks of the ETL and merge issues, on a release build, printing
# figures and ratios measured in the same run (no thresholds: figures only).
#   - reading a >= 1 GB trace: MB/s, events/s, ratio to zlib crc32 over the
#     same bytes; peak RSS at 100 MB and at 1 GB;
#   - merging >= 2 GB of session files: MB/s, ratio to `cat` of the same
#     inputs, peak RSS;
#   - merge + zip + verify in one pass (`etwcap merge X.etl`) on the 1.4 GB
#     trace against Info-ZIP `zip -6` and `pigz -6 -p$(nproc)` of the same
#     merged bytes: times, sizes, ratios, peak RSS;
#   - `etwcap report` against `etwcap info` on the same traces (bench_report.sh).
# Usage: run_benchmarks.sh [WORKDIR]   (default build/bench-work; needs ~12 GB)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
work=${1:-$root/build/bench-work}
tree=$root/build/bench
samples=${ETWCAP_SAMPLES:-$root/../shared/samples}
hub=$samples/ms-perfview__diaghub-dotnetcore3.1-win-x64-diagsession.zip

[ -f "$hub" ] || { echo "bench: $hub is absent: the benchmarks need ../shared/samples"; exit 77; }
command -v pigz >/dev/null || sh "$root/packaging/install-deps.sh" pigz
mkdir -p "$work"
free_kb=$(df -Pk "$work" | awk 'NR==2 {print $4}')
if [ "$free_kb" -lt $((12 * 1024 * 1024)) ]; then
  echo "bench: only $((free_kb / 1024)) MB free in $work; the benchmarks need 12 GB: skipped"
  exit 77
fi

cmake -S "$root" -B "$tree" -G Ninja -DETWCAP_SUPERBUILD=OFF -DETWCAP_SANITIZE=OFF \
  -DETWCAP_TESTS=OFF -DETWCAP_BENCH=ON -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$tree" -j"$(nproc)" >/dev/null

peak_rss_mb() { # command... -> prints "peak RSS N MB" from /usr/bin/time -v
  /usr/bin/time -v "$@" 2>"$work/time.txt" >"$work/out.txt" || { cat "$work/time.txt"; exit 1; }
  awk -F: '/Maximum resident/ {printf "%.0f", $2 / 1024}' "$work/time.txt"
}
seconds() { awk '/Elapsed \(wall clock\)/ {n=split($NF,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$work/time.txt"; }

# 20 s of diaghub per copy; the same shift keeps the sessions on one clock.
shift=200000000
echo "== building benchmark traces from diaghub (kernel 3.8 MB + user 9.1 MB per copy)"
"$tree/make_trace" "$work/small.etl" 11 $shift "$hub" diaghub.user_paged.1.etl
"$tree/make_trace" "$work/big.user.etl" 165 $shift "$hub" diaghub.user_paged.1.etl
"$tree/make_trace" "$work/big.kernel.etl" 165 $shift "$hub" diaghub.kernel.1.etl
"$tree/make_trace" "$work/big.etl" 1 $shift "$hub" diaghub.user_injected.1.etl
ls -l "$work"/*.etl | awk '{printf "  %s %.0f MB\n", $NF, $5 / 1048576}'

echo "== reading (file order and time order), warm page cache"
cat "$work/big.user.etl" >/dev/null
"$tree/bench_read" "$work/big.user.etl"
rss_small=$(peak_rss_mb "$tree/bench_read" "$work/small.etl")
rss_big=$(peak_rss_mb "$tree/bench_read" "$work/big.user.etl")
echo "peak RSS: $rss_small MB for $(du -m "$work/small.etl" | cut -f1) MB, $rss_big MB for $(du -m "$work/big.user.etl" | cut -f1) MB"

# big.user.etl is CLR-heavy (99% DotNETRuntime events); big.kernel.etl is
# the image-heavy case: 95% of its events are kernel Image rundowns, whose
# file names report reads and compares and info never touches.
sh "$root/tests/bench/bench_report.sh" "$root/build/bench/etwcap" "$work/big.user.etl" \
  "$work/big.kernel.etl" "$samples/ms-perfview__net.4.5.2.x64.etl.zip"

echo "== merging $(du -cm "$work"/big*.etl | tail -1 | cut -f1) MB of session files"
mkdir -p "$work/m"
for f in big.etl big.kernel.etl big.user.etl; do cp "$work/$f" "$work/m/$f"; done
cat "$work"/m/*.etl >/dev/null
start=$(date +%s.%N)
cat "$work/m/big.etl" "$work/m/big.kernel.etl" "$work/m/big.user.etl" >"$work/cat.out"
cat_s=$(echo "$(date +%s.%N) - $start" | bc)
rm -f "$work/cat.out"
rss_merge=$(peak_rss_mb "$root/build/bench/etwcap" merge "$work/m/big.etl" /Zip:false)
merge_s=$(seconds)
in_mb=$(du -cm "$work"/big*.etl | tail -1 | cut -f1)
echo "cat:   $cat_s s"
echo "merge: $merge_s s, $(echo "$in_mb / $merge_s" | bc) MB/s, ratio to cat $(echo "scale=2; $cat_s / $merge_s" | bc), peak RSS $rss_merge MB"

sh "$root/tests/bench/bench_zip.sh" "$root/build/bench/etwcap" "$work/big.user.etl"
rm -rf "$work"
