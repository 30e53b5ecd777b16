#!/bin/sh
# Runs one libFuzzer target for a fixed time and prints its figures.
# Usage: run_fuzz.sh TARGET SECONDS WORKDIR [--timeout S] [--keep] [SEED_DIR...]
# WORKDIR keeps the growing corpus between runs; seed folders that do not exist
# are left out.  A crash fails the test and leaves the input in WORKDIR.
# --keep (the long runs): the inputs that reached new code are merged into the
# first SEED_DIR (tests/fuzz/corpus/<target>, committed), so a campaign goes on
# where the last one stopped; libFuzzer's -merge keeps that folder small.
# ETWCAP_FUZZ_SECONDS overrides SECONDS (to try a long test briefly).
# --timeout S: one input running past S seconds is a hang (default 120):
# libFuzzer saves it and fails, well before ctest's limit would kill the run
# and lose the input.  A target whose every input is bounded by its size
# takes a lower one (fuzz.cmake), so that a slow path is a finding.
# Inputs grow up to 1 MiB and libFuzzer's length control is off
# (-len_control=0): with it on, the inputs stay near the seeds' sizes for
# most of a run, and bugs that need a long name or a large record (a 16-bit
# length field near its limit) are never reached.
set -eu
target=$1 seconds=${ETWCAP_FUZZ_SECONDS:-$2} work=$3
shift 3
timeout=120 keep=""
while :; do
  case "${1:-}" in
    --timeout) timeout=$2; shift 2 ;;
    --keep) keep=$2; shift; mkdir -p "$keep" ;;
    *) break ;;
  esac
done
mkdir -p "$work/corpus"
seeds=""
for d in "$@"; do
  [ -d "$d" ] && seeds="$seeds $d"
done
cd "$work"
# shellcheck disable=SC2086
"$target" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout="$timeout" \
  -max_len=1048576 -len_control=0 -print_final_stats=1 -artifact_prefix="$work/" \
  corpus $seeds 2>fuzz.log || {
  tail -60 fuzz.log
  exit 1
}
grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|#[0-9]+ *DONE)' fuzz.log || true
largest=$(find corpus -type f -printf '%s\n' | sort -n | tail -1)
echo "fuzz: largest input in $work/corpus: ${largest:-0} bytes"
if [ -n "$keep" ]; then
  before=$(ls "$keep" | wc -l)
  # The merge reads at most 256 KiB of each input: enough for a record at a
  # 16-bit length's limit (a 65,535-byte name, extra field and comment
  # together).  A 10-minute run of a target whose inputs grow to the 1 MiB
  # limit (fuzz_report, fuzz_trigger_payloads) added 19-30 MB to its corpus.
  "$target" -merge=1 -max_len=262144 "$keep" corpus 2>merge.log >/dev/null || {
    tail -20 merge.log
    exit 1
  }
  echo "fuzz: corpus $keep: $before -> $(ls "$keep" | wc -l) inputs"
fi
echo "fuzz: $(basename "$target") ran ${seconds}s without a crash"
