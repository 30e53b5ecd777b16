#!/bin/sh
# `etwcap report` against `etwcap info` on the same traces, in the same run:
# the issue allows the report at most 1.5x the time of info.  Prints each
# command's mean time (hyperfine, warm page cache) and, when perf is there,
# its CPU time (task-clock: the other jobs of a shared machine do not count),
# the ratios, and the report's peak RSS (bounded memory).  Figures only, no
# thresholds.  Ten runs each, info and report in turn: on a shared virtual
# machine single runs vary by half and even means of ten stray, so the
# fastest run of each (what the work costs when nothing else intrudes) is
# printed beside the mean.  Each report writes a new page, as the report of
# a capture does: replacing the page of the run before costs more than
# writing it (ext4 starts writing a file out when a rename replaces
# another, 0.7 ms for a 300 KB page).
# Usage: bench_report.sh ETWCAP [TRACE...]   (ETWCAP: a release build)
# Without TRACE: two image-heavy cases made with make_trace (beside ETWCAP)
# from 40 copies of diaghub's kernel session (148 MB, 94% kernel Image
# rundown events, whose fields and names report reads and info never
# touches): as copied, each process's images named again and again, and
# with each copy's images in other processes (--image-pids: every
# (process, base) new, only the names repeat); 40 copies of the net.4.5.2
# sample's .etl (927 MB, uncompressed: what PerfView's default collection
# logs, CPU samples, CLR and rundown events); then the net.4.5.2 zip
# itself (ETWCAP_SAMPLES, default ../shared/samples).
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
for trace in "$@"; do
  mb=$(du -m "$trace" | cut -f1)
  echo "== report vs info: $trace ($mb MB)"
  cat "$trace" >/dev/null
  hyperfine -N --warmup 1 --runs 10 --export-json "$work/h.json" --prepare "rm -f $work/page.html" \
    "$etwcap info $trace" "$etwcap report $trace /Out:$work/page.html" >/dev/null
  python3 - "$work/h.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
for k, name in ((0, "info:  "), (1, "report:")):
    print("%s mean %.3f s (+- %.3f), fastest %.3f s" % (name, r[k]["mean"], r[k]["stddev"], r[k]["min"]))
print("ratio report/info: mean %.2f, fastest %.2f" % (r[1]["mean"] / r[0]["mean"],
                                                     r[1]["min"] / r[0]["min"]))
PY
  if command -v perf >/dev/null && perf stat -x, -e task-clock true 2>/dev/null; then
    : >"$work/cpu.txt"
    for run in 1 2 3 4 5 6 7 8 9 10; do
      perf stat -x, -e task-clock "$etwcap" info "$trace" 2>&1 >/dev/null |
        awk -F, '/task-clock/ {print "info", $1}' >>"$work/cpu.txt"
      rm -f "$work/page.html"
      perf stat -x, -e task-clock "$etwcap" report "$trace" "/Out:$work/page.html" 2>&1 \
        >/dev/null | awk -F, '/task-clock/ {print "report", $1}' >>"$work/cpu.txt"
    done
    awk '{sum[$1] += $2; if (!($1 in min) || $2 < min[$1]) min[$1] = $2}
      END {printf "task-clock: info mean %.1f ms, fastest %.1f; report mean %.1f ms, fastest %.1f;" \
        " ratio mean %.2f, fastest %.2f\n", sum["info"] / 10, min["info"], sum["report"] / 10,
        min["report"], sum["report"] / sum["info"], min["report"] / min["info"]}' "$work/cpu.txt"
  fi
  /usr/bin/time -v "$etwcap" report "$trace" "/Out:$work/page.html" 2>"$work/time.txt" >/dev/null
  awk -F: '/Maximum resident/ {printf "report peak RSS: %.0f MB\n", $2 / 1024}' "$work/time.txt"
  echo "page: $(du -k "$work/page.html" | cut -f1) KB"
done
