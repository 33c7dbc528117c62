#!/usr/bin/env bash
# One device call (< 8 min on an H100): builds spECK (shared/peers/build_speck.sh) in the
# background while ringblas's bench_spgemm builds, runs spECK on the shared real matrices, then
# bench_spgemm in versus mode (previous pipeline, new pipeline, each issue-14 path alone,
# cuSPARSE, spECK's time from the same call), then the SpgemmHash gpu tests. Rows print as they
# are measured. Results: $OUT/spgemm_vs_speck.{md,json}, $OUT/speck.txt, $OUT/summary.log.
# Usage: bash tests/bench/run_spgemm_vs_speck.sh   (env: OUT, PEERS_DIR = the peers/ folder;
#        found by default at .peers/, shared/peers/ or ../shared/peers/; SPGEMM_VS_ARGS = extra
#        bench options such as "--dense-windows 4 --dense-min-nnz 2048"; SKIP_BUILD=1;
#        SPGEMM_TESTS / SPGEMM_TESTS_S = the gtest filter and seconds of the final test step)
set -uo pipefail
# shellcheck source=tests/bench/spgemm_run_env.sh
. "$(dirname "$0")/spgemm_run_env.sh" spgemm-vs summary.log
speck_pid=
if [ -n "$peers" ]; then
  JOBS=6 bash "$peers/build_speck.sh" >"$tmp/speck_build.log" 2>&1 &
  speck_pid=$!
else
  stamp "no peers/ folder (set PEERS_DIR): spECK column will be NA"
fi
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  OUT=$tmp bash scripts/gpu_host_build.sh --build-only --bench >"$tmp/host.log" 2>&1
  tail -3 "$tmp/build.log" >>"$out/summary.log" 2>/dev/null
  grep -E "error" -A3 "$tmp/build.log" 2>/dev/null | head -30 >>"$out/summary.log"
fi
stamp "ringblas built"
export LD_LIBRARY_PATH=/tmp/ringblas-deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
: >"$out/speck.txt"
if [ -n "$speck_pid" ]; then
  wait "$speck_pid"
  stamp "spECK build rc=$? $(tail -1 "$tmp/speck_build.log")"
  files=()
  for f in "$data"/suitesparse/*.mtx.gz "$data"/suitesparse/G51.mtx "$data"/snap/*.txt.gz; do
    case $(basename "$f") in facebook_combined*) continue ;; esac  # prep.py fails on it (peers/README.md)
    [ -f "$f" ] && files+=("$f")
  done
  OUT=$tmp STEP_TIMEOUT=60 timeout 200 bash "$peers/run_speck.sh" "${files[@]}" | tee "$out/speck.txt"
  stamp "spECK done: $(grep -vc ' NA$' "$out/speck.txt") matrices"
fi
bench=build-gpu/tests/bench/bench_spgemm
timeout "${SPGEMM_BENCH_S:-200}" $bench --speck "$out/speck.txt" --data "$data" --reps 10 \
  --max-products 1e9 --json "$out/spgemm_vs_speck.json" --md "$out/spgemm_vs_speck.md" \
  ${SPGEMM_VS_ARGS:-} 2>"$tmp/bench.err"
stamp "bench rc=$? $(tail -2 "$tmp/bench.err" | tr '\n' ' ')"
timeout "${SPGEMM_TESTS_S:-120}" build-gpu/tests/ringblas_gpu_tests --gtest_filter="${SPGEMM_TESTS:-SpgemmHash*}" >"$out/spgemm_tests.log" 2>&1
stamp "SpgemmHash rc=$?: $(grep -E '^\[  (PASSED|FAILED)  \]' "$out/spgemm_tests.log" | tr '\n' ' ')"
grep -E "^\[  FAILED  \]|Failure" -A4 "$out/spgemm_tests.log" | head -30 >>"$out/summary.log"
