#!/bin/sh
# Runs one libFuzzer target for a fixed time and prints its figures.
# Usage: run_fuzz.sh TARGET SECONDS WORKDIR [--keep] [SEED_DIR...]
# WORKDIR keeps the growing corpus between runs; seed folders that do not exist
# are left out.  A crash fails the test and leaves the input in WORKDIR.
# --keep (the long runs): the inputs that reached new code are merged into the
# first SEED_DIR (tests/fuzz/corpus/<target>, committed), so a campaign goes on
# where the last one stopped; libFuzzer's -merge keeps that folder small.
# ETWCAP_FUZZ_SECONDS overrides SECONDS (to try a long test briefly).
# One input running past 120 s is a hang: libFuzzer saves it and fails, well
# before ctest's limit would kill the run and lose the input.
set -eu
target=$1 seconds=${ETWCAP_FUZZ_SECONDS:-$2} work=$3
shift 3
keep=""
if [ "${1:-}" = "--keep" ]; then
  keep=$2
  shift
  mkdir -p "$keep"
fi
mkdir -p "$work/corpus"
seeds=""
for d in "$@"; do
  [ -d "$d" ] && seeds="$seeds $d"
done
cd "$work"
# shellcheck disable=SC2086
"$target" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=120 -max_len=1048576 \
  -print_final_stats=1 -artifact_prefix="$work/" corpus $seeds 2>fuzz.log || {
  tail -60 fuzz.log
  exit 1
}
grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|#[0-9]+ *DONE)' fuzz.log || true
if [ -n "$keep" ]; then
  before=$(ls "$keep" | wc -l)
  # Inputs over 64 KiB are left out: the committed corpus stays small.
  "$target" -merge=1 -max_len=65536 "$keep" corpus 2>merge.log >/dev/null || { tail -20 merge.log; exit 1; }
  echo "fuzz: corpus $keep: $before -> $(ls "$keep" | wc -l) inputs"
fi
echo "fuzz: $(basename "$target") ran ${seconds}s without a crash"
