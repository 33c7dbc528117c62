#!/usr/bin/env bash
# One GPU-machine call for spgemm_hash: build (scripts/gpu_host_build.sh, which also runs
# ctest -L gpu), the SpgemmHash tests alone, compute-sanitizer memcheck and racecheck on a subset
# (bin boundaries, global rows, row chunks, degenerate shapes), bench_spgemm, and per-kernel times
# (ncu) of one call on three matrices. At most 8 files land in $OUT.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$root/gpu-logs}
tmp=/tmp/spgemm-run
mkdir -p "$out" "$tmp"
cd "$root"
OUT=$tmp bash scripts/gpu_host_build.sh --no-cpu-tests --bench >"$tmp/host.log" 2>&1
{ cat "$tmp/gpu.txt"; tail -3 "$tmp/build.log"; grep -E "error" -A3 "$tmp/build.log" | head -40
  grep -E "tests passed|Failed|\*\*\*" "$tmp/ctest_gpu.log"; } >"$out/summary.log" 2>&1
cp "$tmp/ctest_gpu.log" "$out/ctest_gpu.log" 2>/dev/null
export LD_LIBRARY_PATH=/tmp/ringblas-deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
bin=build-gpu/tests/ringblas_gpu_tests
[ -x "$bin" ] || { echo "no test binary"; cat "$tmp/host.log"; exit 1; }
$bin --gtest_filter='SpgemmHash*' >"$out/spgemm_tests.log" 2>&1
echo "SpgemmHash: $(grep -E '^\[  (PASSED|FAILED)  \]' "$out/spgemm_tests.log" | tr '\n' ' ')" | tee -a "$out/summary.log"
run_san() {  # tool, seconds, filter
  timeout "$2" compute-sanitizer --tool "$1" --error-exitcode 7 "$bin" --gtest_filter="$3" \
    >"$tmp/san.log" 2>&1
  local rc=$?
  { echo "== $1 rc=$rc filter=$3"; grep -E "^\[  (PASSED|FAILED)|ERROR SUMMARY|RACECHECK SUMMARY|Invalid|Race|Hazard" "$tmp/san.log" | head -30; } >>"$out/sanitize.log"
}
small='SpgemmHash.Degenerate*:SpgemmHash.GlobalRows*:SpgemmHash.RowChunks*:SpgemmHash.ManifestSemirings*'
run_san memcheck 150 "$small:SpgemmHash.RowsInEveryBin*"
run_san racecheck 90 "$small"
run_san racecheck 120 'SpgemmHash.RowsInEveryBin*'
cat "$out/sanitize.log" >>"$out/summary.log"
bench=build-gpu/tests/bench/bench_spgemm
timeout 300 $bench --json "$out/spgemm.json" --md "$out/spgemm.md" --reps 10 2>"$out/bench.err"
echo "bench rc=$?" >>"$out/summary.log"
for m in rajat01 soc-Epinions er200k; do
  echo "== $m" >>"$out/ncu.log"
  timeout 60 ncu --metrics gpu__time_duration.sum --launch-count 22 --csv --print-units base \
    $bench --only $m --reps 10 --json $tmp/n.json --md $tmp/n.md 2>/dev/null |
    grep -E '^"[0-9]' | awk -F'","' '{print substr($5, 1, 70) "," $9 "," $NF}' | sed 's/"//g' >>"$out/ncu.log"
done
cat "$out/summary.log"
tail -40 "$out/spgemm.md"
