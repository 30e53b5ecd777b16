#!/bin/sh
# `etwcap report` against `etwcap info` on the same traces, in the same run:
# the issue allows the report at most 1.5x the time of info.  Prints each
# command's mean time (hyperfine, warm page cache), the ratio, and the
# report's peak RSS (bounded memory).  Figures only, no thresholds.  Ten
# runs each: beside other jobs single runs vary by a third, the ratio of
# two means of ten much less.
# Usage: bench_report.sh ETWCAP TRACE...   (ETWCAP: a release build)
set -eu
etwcap=$1
shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
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
  /usr/bin/time -v "$etwcap" report "$trace" "/Out:$work/page.html" 2>"$work/time.txt" >/dev/null
  awk -F: '/Maximum resident/ {printf "report peak RSS: %.0f MB\n", $2 / 1024}' "$work/time.txt"
  echo "page: $(du -k "$work/page.html" | cut -f1) KB"
done
