#!/bin/sh
# `etwcap report` and `etwcap convert /Format:Speedscope` against `etwcap
# info` on the same traces, in the same run: the report issue allows the
# report at most 1.5x the time of info on PerfView-style captures (2.5x on
# traces made mostly of image events), and the CPU stacks issue allows the
# report with its CPU section and convert at most 2.5x on the net.4.5.2
# x40 trace.  Prints each command's CPU time (user + sys: the other jobs of
# a shared machine do not count) and wall time, the fastest of
# ETWCAP_BENCH_RUNS runs (default 7) taken in turn (on a shared virtual
# machine single runs vary by half), the ratios, and the peak RSS (bounded
# memory).  Figures only, no thresholds.  Each run writes a new file, as
# the report of a capture does: replacing the file of the run before costs
# more than writing it (ext4 starts writing a file out when a rename
# replaces another).
# Usage: bench_report.sh ETWCAP [TRACE...]   (ETWCAP: a release build)
# Without TRACE: two image-heavy cases made with make_trace (beside ETWCAP)
# from 40 copies of diaghub's kernel session (148 MB, 94% kernel Image
# rundown events, whose fields and names report reads and info never
# touches): as copied, each process's images named again and again, and
# with each copy's images in other processes (--image-pids: every
# (process, base) new, only the names repeat); 40 copies of the net.4.5.2
# sample's .etl (927 MB, uncompressed: what PerfView's default collection
# logs, CPU samples with stack keys, CLR and rundown events); then the
# net.4.5.2 zip itself (ETWCAP_SAMPLES, default ../shared/samples).
set -eu
etwcap=$1
shift
root=$(cd "$(dirname "$0")/../.." && pwd)
samples=${ETWCAP_SAMPLES:-$root/../shared/samples}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ $# -eq 0 ]; then
  hub=$samples/ms-perfview__diaghub-dotnetcore3.1-win-x64-diagsession.zip
  [ -f "$hub" ] || { echo "bench: $hub is absent: give traces or set ETWCAP_SAMPLES"; exit 77; }
  "$(dirname "$etwcap")/make_trace" "$work/images40.etl" 40 200000000 "$hub" diaghub.kernel.1.etl
  "$(dirname "$etwcap")/make_trace" --image-pids "$work/images40-pids.etl" 40 200000000 "$hub" \
    diaghub.kernel.1.etl
  net=$samples/ms-perfview__net.4.5.2.x64.etl.zip
  "$(dirname "$etwcap")/make_trace" "$work/net40.etl" 40 200000000 "$net" net.4.5.2.x64.etl
  set -- "$work/images40.etl" "$work/images40-pids.etl" "$work/net40.etl" "$net"
fi
runs=${ETWCAP_BENCH_RUNS:-7}
for trace in "$@"; do
  mb=$(du -m "$trace" | cut -f1)
  echo "== report and convert vs info: $trace ($mb MB)"
  cat "$trace" >/dev/null
  : >"$work/runs.txt"
  run=0
  while [ "$run" -lt "$runs" ]; do
    run=$((run + 1))
    for what in info report convert; do
      rm -f "$work/page.html" "$work/profile.json"
      case $what in
      info) set -- info "$trace" ;;
      report) set -- report "$trace" "/Out:$work/page.html" ;;
      convert) set -- convert "$trace" /Format:Speedscope "/Out:$work/profile.json" ;;
      esac
      /usr/bin/time -f "$what %U %S %e" -o "$work/one.txt" "$etwcap" "$@" >/dev/null 2>&1
      cat "$work/one.txt" >>"$work/runs.txt"
    done
  done
  # CPU is user + sys (the other jobs of a shared machine do not count);
  # wall is elapsed time.  The fastest run of each is what the work costs
  # when nothing else intrudes.
  awk -v runs="$runs" '
    { cpu = $2 + $3; wall = $4
      if (!($1 in c) || cpu < c[$1]) c[$1] = cpu
      if (!($1 in w) || wall < w[$1]) w[$1] = wall }
    END {
      for (k = 1; k <= 3; k++) {
        name = k == 1 ? "info" : k == 2 ? "report" : "convert"
        printf "%-8s cpu %.3f s, wall %.3f s (fastest of %d)\n", name ":", c[name], w[name], runs
      }
      printf "report/info:  cpu %.2f, wall %.2f\n", c["report"] / c["info"], w["report"] / w["info"]
      printf "convert/info: cpu %.2f, wall %.2f\n", c["convert"] / c["info"], w["convert"] / w["info"]
    }' "$work/runs.txt"
  /usr/bin/time -v "$etwcap" report "$trace" "/Out:$work/page.html" 2>"$work/time.txt" >/dev/null
  awk -F: '/Maximum resident/ {printf "report peak RSS: %.0f MB\n", $2 / 1024}' "$work/time.txt"
  /usr/bin/time -v "$etwcap" convert "$trace" "/Out:$work/profile.json" 2>"$work/time.txt" \
    >/dev/null
  awk -F: '/Maximum resident/ {printf "convert peak RSS: %.0f MB\n", $2 / 1024}' "$work/time.txt"
  echo "page: $(du -k "$work/page.html" | cut -f1) KB, speedscope file: $(du -k "$work/profile.json" | cut -f1) KB"
done
