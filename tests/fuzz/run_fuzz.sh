#!/bin/sh
# Runs one libFuzzer target for a fixed time and prints its figures.
# Usage: run_fuzz.sh TARGET SECONDS WORKDIR [SEED_DIR...]
# WORKDIR keeps the growing corpus between runs; seed folders that do not exist
# are left out.  A crash fails the test and leaves the input in WORKDIR.
set -eu
target=$1 seconds=$2 work=$3
shift 3
mkdir -p "$work/corpus"
seeds=""
for d in "$@"; do
  [ -d "$d" ] && seeds="$seeds $d"
done
cd "$work"
# shellcheck disable=SC2086
"$target" -max_total_time="$seconds" -rss_limit_mb=2048 -max_len=1048576 \
  -print_final_stats=1 -artifact_prefix="$work/" corpus $seeds 2>fuzz.log || {
  tail -60 fuzz.log
  exit 1
}
grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|#[0-9]+ *DONE)' fuzz.log || true
echo "fuzz: $(basename "$target") ran ${seconds}s without a crash"
