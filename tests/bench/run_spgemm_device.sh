#!/usr/bin/env bash
# One GPU-machine call for spgemm_hash, ordered so the numbers that matter come first within one
# 600 s device call: build (scripts/gpu_host_build.sh --build-only), the SpgemmHash tests,
# bench_spgemm, the CLI in cuda and verify mode on real files, the other gpu tests, then
# compute-sanitizer memcheck/racecheck on a subset and (SPGEMM_PROFILE) ncu profiles.
# At most 8 files land in $OUT.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$root/gpu-logs}
tmp=/tmp/spgemm-run
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
$bin --gtest_filter='SpgemmHash*' >"$out/spgemm_tests.log" 2>&1
stamp "SpgemmHash: $(grep -E '^\[  (PASSED|FAILED)  \]' "$out/spgemm_tests.log" | tr '\n' ' ')"
bench=build-gpu/tests/bench/bench_spgemm
timeout "${SPGEMM_BENCH_S:-240}" $bench --json "$out/spgemm.json" --md "$out/spgemm.md" --reps 10 2>"$tmp/bench.err"
stamp "bench rc=$? $(tail -3 "$tmp/bench.err" | tr '\n' ' ')"
cli=build-gpu/ringblas
data=.data/suitesparse
[ -d "$data" ] || data=../shared/data/suitesparse
for args in "mxm $data/bcsstk16.mtx.gz $data/bcsstk16.mtx.gz --backend verify" \
            "mxm $data/bcsstk16.mtx.gz $data/bcsstk16.mtx.gz --backend verify --type fp32" \
            "mxm $data/cage8.mtx.gz $data/cage8.mtx.gz --semiring min_plus --backend cuda" \
            "spmm $data/bcsstk16.mtx.gz --cols 64 --backend verify"; do
  timeout 60 $cli $args >"$tmp/cli.log" 2>&1
  stamp "cli rc=$? ringblas $args: $(tail -2 "$tmp/cli.log" | tr '\n' ' ' | cut -c1-300)"
done
$bin --gtest_filter='-SpgemmHash*' >"$tmp/other.log" 2>&1
stamp "other gpu tests: $(grep -E '^\[  (PASSED|FAILED)  \]|^\[  FAILED  \] [A-Z]' "$tmp/other.log" | tr '\n' ' ')"
grep -E "FAILED|Failure" -A5 "$tmp/other.log" | head -40 >>"$out/spgemm_tests.log"
run_san() {  # tool, seconds, filter
  timeout "$2" compute-sanitizer --tool "$1" --error-exitcode 7 "$bin" --gtest_filter="$3" \
    >"$tmp/san.log" 2>&1
  local rc=$?
  { echo "== $1 rc=$rc filter=$3"; grep -E "^\[  (PASSED|FAILED)|ERROR SUMMARY|RACECHECK SUMMARY|Invalid|Race|Hazard" "$tmp/san.log" | head -30; } >>"$out/sanitize.log"
}
small='SpgemmHash.Degenerate*:SpgemmHash.GlobalRows*:SpgemmHash.RowChunks*:SpgemmHash.ManifestSemirings*'
run_san memcheck "${SPGEMM_SAN_S:-120}" "$small:SpgemmHash.RowsInEveryBin*"
run_san racecheck "${SPGEMM_SAN_S:-120}" "$small"
cat "$out/sanitize.log" >>"$out/summary.log"
stamp sanitized
# SPGEMM_PROFILE="STALL_MATRIX MATRIX..." adds tests/bench/profile_spgemm.sh (ncu) on them.
if [ -n "${SPGEMM_PROFILE:-}" ]; then
  OUT=$out timeout 200 bash tests/bench/profile_spgemm.sh $SPGEMM_PROFILE >/dev/null 2>&1
  stamp profiled
fi
cat "$out/summary.log"
tail -40 "$out/spgemm.md"
