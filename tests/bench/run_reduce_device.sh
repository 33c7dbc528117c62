#!/usr/bin/env bash
# One GPU-machine call for the reduce / transpose / extract / assign cuda paths and the shared
# monoid atomics, ordered so the numbers that matter come first within one 600 s device call:
# build (scripts/gpu_host_build.sh --build-only --bench), MonoidAtomics and ReduceIndexOps tests,
# bench_reduce_transpose, the other gpu tests (the atomics and transpose refactors touch
# spgemm_hash, spmm_subwarp, spmm_batched, spmv), then compute-sanitizer memcheck/racecheck on
# a subset (REDUCE_SKIP_BENCH=1 / REDUCE_SKIP_SAN=1 split it over two calls; REDUCE_BENCH_SIZES
# picks the sizes in millions of entries). Files in $OUT: summary.log, reduce_tests.log, sanitize.log, reduce_transpose.{md,json}.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$root/gpu-logs}
tmp=/tmp/reduce-run
mkdir -p "$out" "$tmp"
cd "$root"
t0=$SECONDS
stamp() { echo "[$((SECONDS - t0)) s] $*" >>"$out/summary.log"; }
OUT=$tmp bash scripts/gpu_host_build.sh --build-only --bench >"$tmp/host.log" 2>&1
{ cat "$tmp/gpu.txt"; tail -3 "$tmp/build.log"; grep -E "error" -A3 "$tmp/build.log" | head -40; } >>"$out/summary.log" 2>&1
stamp built
export LD_LIBRARY_PATH=/tmp/ringblas-deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
bin=build-gpu/tests/ringblas_gpu_tests
[ -x "$bin" ] || { echo "no test binary"; cat "$tmp/host.log"; exit 1; }
$bin --gtest_filter='MonoidAtomics*:ReduceIndexOps*' >"$out/reduce_tests.log" 2>&1
stamp "reduce/index ops: $(grep -E '^\[  (PASSED|FAILED)  \]' "$out/reduce_tests.log" | tr '\n' ' ')"
bench=build-gpu/tests/bench/bench_reduce_transpose
[ -n "${REDUCE_SKIP_BENCH:-}" ] || timeout "${REDUCE_BENCH_S:-300}" $bench --json "$out/reduce_transpose.json" --md "$out/reduce_transpose.md" \
  --reps 10 --cpu-reps 3 --sizes "${REDUCE_BENCH_SIZES:-10,50,100}" 2>"$tmp/bench.err"
stamp "bench rc=$? $(tail -3 "$tmp/bench.err" | tr '\n' ' ')"
$bin --gtest_filter='-MonoidAtomics*:ReduceIndexOps*' >"$tmp/other.log" 2>&1
stamp "other gpu tests: $(grep -E '^\[  (PASSED|FAILED)  \]|^\[  FAILED  \] [A-Z]' "$tmp/other.log" | tr '\n' ' ')"
grep -E "FAILED|Failure" -A5 "$tmp/other.log" | head -40 >>"$out/reduce_tests.log"
run_san() {  # tool, seconds, filter
  timeout "$2" compute-sanitizer --tool "$1" --error-exitcode 7 "$bin" --gtest_filter="$3" \
    >"$tmp/san.log" 2>&1
  local rc=$?
  { echo "== $1 rc=$rc filter=$3"; grep -E "^\[  (PASSED|FAILED)|ERROR SUMMARY|RACECHECK SUMMARY|Invalid|Race|Hazard" "$tmp/san.log" | head -30; } >>"$out/sanitize.log"
}
[ -n "${REDUCE_SKIP_SAN:-}" ] && { cat "$out/summary.log"; tail -40 "$out/reduce_transpose.md"; exit 0; }
small='MonoidAtomics*:ReduceIndexOps.SanitizerSubset:ReduceIndexOps.AnyMonoid*:ReduceIndexOps.ReduceAllMaskedOut*:ReduceIndexOps.DeviceResidentChain*'
run_san memcheck "${REDUCE_SAN_S:-120}" "$small"
run_san racecheck "${REDUCE_SAN_S:-120}" "$small"
cat "$out/sanitize.log" >>"$out/summary.log"
stamp sanitized
cat "$out/summary.log"
tail -40 "$out/reduce_transpose.md"
