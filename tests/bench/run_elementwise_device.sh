#!/usr/bin/env bash
# GPU-machine runs for the element-wise family; each phase fits one 600 s device call:
#   run_elementwise_device.sh tests   build, the Elementwise tests, compute-sanitizer memcheck +
#                                     racecheck on Elementwise.SanitizerSubset
#   run_elementwise_device.sh bench   build (cached), bench_elementwise (Markdown + JSON, GPU name)
# Logs and results land in $OUT (summary.log first).
set -uo pipefail
phase=${1:-tests}
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$root/gpu-logs}
tmp=/tmp/elementwise-run
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
if [ "$phase" = tests ]; then
  timeout "${EW_TEST_S:-240}" $bin --gtest_filter='Elementwise*' >"$out/elementwise_tests.log" 2>&1
  stamp "Elementwise: $(grep -E '^\[  (PASSED|FAILED)  \]|^\[  FAILED  \] [A-Z]' "$out/elementwise_tests.log" | tr '\n' ' ')"
  for tool in memcheck racecheck; do
    timeout "${EW_SAN_S:-120}" compute-sanitizer --tool $tool --error-exitcode 7 "$bin" \
      --gtest_filter='Elementwise.SanitizerSubset' >"$tmp/san.log" 2>&1
    rc=$?
    { echo "== $tool rc=$rc"; grep -E "^\[  (PASSED|FAILED)|ERROR SUMMARY|RACECHECK SUMMARY|Invalid|Race|Hazard" "$tmp/san.log" | head -20; } >>"$out/summary.log"
  done
  stamp sanitized
else
  timeout "${EW_BENCH_S:-480}" build-gpu/tests/bench/bench_elementwise --json "$out/elementwise.json" \
    --md "$out/elementwise.md" --reps 10 --cpu-reps 3 >"$out/bench.log" 2>&1
  stamp "bench rc=$? $(tail -2 "$out/bench.log" | tr '\n' ' ')"
fi
cat "$out/summary.log"
[ "$phase" = tests ] || cat "$out/elementwise.md" 2>/dev/null || tail -30 "$out/bench.log"
