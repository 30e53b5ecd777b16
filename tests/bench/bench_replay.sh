#!/bin/sh
# The triggers benchmark: builds a release tree, makes a >= 1 GB trace from
# the net.4.5.2 sample with make_trace (its GCs and exception repeated), and
# runs bench_replay on it: plain iteration vs replay with a GC and an
# exception trigger, figures and ratio from the same run.
# Usage: bench_replay.sh [WORKDIR] [COPIES]   (default build/bench-work, 220 copies ~ 1 GB)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
work=${1:-$root/build/bench-work}
copies=${2:-220}
tree=$root/build/bench
samples=${ETWCAP_SAMPLES:-$root/../shared/samples}
net=$samples/ms-perfview__net.4.5.2.x64.etl.zip

[ -f "$net" ] || { echo "bench: $net is absent: the benchmark needs ../shared/samples"; exit 77; }
mkdir -p "$work"
cmake -S "$root" -B "$tree" -G Ninja -DETWCAP_SUPERBUILD=OFF -DETWCAP_SANITIZE=OFF \
  -DETWCAP_TESTS=OFF -DETWCAP_BENCH=ON -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$tree" -j"$(nproc)" --target make_trace bench_replay >/dev/null
trace=$work/replay-bench.etl
if [ ! -f "$trace" ]; then
  # 10^8 raw ticks (10 s on this trace's 10 MHz clock) between copies keeps them in order.
  "$tree/make_trace" "$trace" "$copies" 100000000 "$net" net.4.5.2.x64.etl
fi
"$tree/bench_replay" "$trace"
