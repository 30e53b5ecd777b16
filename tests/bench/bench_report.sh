#!/bin/sh
# `etwcap report` against `etwcap info` on the same traces, in the same run:
# the issue allows the report at most 1.5x the time of info.  Prints each
# command's mean time (hyperfine, warm page cache) and, when perf is there,
# its CPU time (task-clock: the other jobs of a shared machine do not count),
# the ratios, and the report's peak RSS (bounded memory).  Figures only, no
# thresholds.  Ten runs each: beside other jobs single runs vary by a third,
# the ratio of two means of ten much less.
# Usage: bench_report.sh ETWCAP [TRACE...]   (ETWCAP: a release build)
# Without TRACE: two image-heavy cases made with make_trace (beside ETWCAP)
# from 40 copies of diaghub's kernel session (148 MB, 94% kernel Image
# rundown events, whose fields and names report reads and info never
# touches): as copied, each process's images named again and again, and
# with each copy's images in other processes (--image-pids: every
# (process, base) new, only the names repeat); then the net.4.5.2 sample
# (ETWCAP_SAMPLES, default ../shared/samples).
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
  set -- "$work/images40.etl" "$work/images40-pids.etl" "$samples/ms-perfview__net.4.5.2.x64.etl.zip"
fi
for trace in "$@"; do
  mb=$(du -m "$trace" | cut -f1)
  echo "== report vs info: $trace ($mb MB)"
  cat "$trace" >/dev/null
  hyperfine -N --warmup 1 --runs 10 --export-json "$work/h.json" \
    "$etwcap info $trace" "$etwcap report $trace /Out:$work/page.html" >/dev/null
  python3 - "$work/h.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
info, report = r[0]["mean"], r[1]["mean"]
print("info:   %.3f s (+- %.3f)" % (info, r[0]["stddev"]))
print("report: %.3f s (+- %.3f)" % (report, r[1]["stddev"]))
print("ratio report/info: %.2f" % (report / info))
PY
  if command -v perf >/dev/null && perf stat -x, -e task-clock true 2>/dev/null; then
    perf stat -x, -r 10 -e task-clock "$etwcap" info "$trace" 2>&1 >/dev/null |
      awk -F, '/task-clock/ {print "info", $1}' >"$work/cpu.txt"
    perf stat -x, -r 10 -e task-clock "$etwcap" report "$trace" "/Out:$work/page.html" \
      2>&1 >/dev/null | awk -F, '/task-clock/ {print "report", $1}' >>"$work/cpu.txt"
    awk '{ms[$1] = $2} END {printf "task-clock: info %.1f ms, report %.1f ms, ratio %.2f\n",
      ms["info"], ms["report"], ms["report"] / ms["info"]}' "$work/cpu.txt"
  fi
  /usr/bin/time -v "$etwcap" report "$trace" "/Out:$work/page.html" 2>"$work/time.txt" >/dev/null
  awk -F: '/Maximum resident/ {printf "report peak RSS: %.0f MB\n", $2 / 1024}' "$work/time.txt"
  echo "page: $(du -k "$work/page.html" | cut -f1) KB"
done
