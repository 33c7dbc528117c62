#!/usr/bin/env bash
# Fast versus run (issue 14, ~2.5 min of device time): spECK on the 23 shared real matrices, then
# bench_spgemm in versus mode on the same matrices (each named tuning of SPGEMM_VARIANTS,
# cuSPARSE, spECK's time from this call) and, with SPGEMM_TRACE=1, the phase timeline of one
# call per matrix. spECK is built (shared/peers/build_speck.sh, ~84 s) unless
# $PEERS_PREFIX/bin/runspECK already exists: start that build next to ringblas's build to hide it.
# ringblas is not built here: build-gpu/tests/bench/bench_spgemm must exist (RINGBLAS_BUILD_BENCH).
# Results: $OUT/spgemm_fast.{md,json}, $OUT/speck.txt, $OUT/spgemm_fast.log (rows + traces).
# Env: OUT, PEERS_DIR (default .peers/, shared/peers/ or ../shared/peers/), PEERS_PREFIX
#      (default /tmp/peers), SPGEMM_REPS (default 5), SPGEMM_VARIANTS, SPGEMM_TRACE (default 1),
#      SPGEMM_ONLY (one matrix name).
set -uo pipefail
# shellcheck source=tests/bench/spgemm_run_env.sh
. "$(dirname "$0")/spgemm_run_env.sh" spgemm-fast spgemm_fast.log
prefix=${PEERS_PREFIX:-/tmp/peers}
: >"$out/speck.txt"
if [ -n "$peers" ]; then
  if [ ! -x "$prefix/bin/runspECK" ]; then
    JOBS=${JOBS:-12} bash "$peers/build_speck.sh" >"$tmp/speck_build.log" 2>&1
    stamp "spECK build rc=$? $(tail -1 "$tmp/speck_build.log")"
  fi
  files=()
  for f in "$data"/suitesparse/*.mtx.gz "$data"/suitesparse/G51.mtx "$data"/snap/*.txt.gz; do
    # prep.py fails on facebook_combined (peers/README.md)
    case $(basename "$f") in facebook_combined*) continue ;; esac
    [ -n "${SPGEMM_ONLY:-}" ] && case $(basename "$f") in ${SPGEMM_ONLY}*) ;; *) continue ;; esac
    [ -f "$f" ] && files+=("$f")
  done
  OUT=$tmp STEP_TIMEOUT=60 timeout 150 bash "$peers/run_speck.sh" "${files[@]}" >"$out/speck.txt"
  stamp "spECK done: $(grep -vc ' NA$' "$out/speck.txt") matrices"
else
  stamp "no peers/ folder (set PEERS_DIR): spECK column will be NA"
fi
export LD_LIBRARY_PATH=/tmp/ringblas-deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
bench=build-gpu/tests/bench/bench_spgemm
timeout "${SPGEMM_BENCH_S:-120}" $bench --speck "$out/speck.txt" --data "$data" \
  --reps "${SPGEMM_REPS:-5}" --real-only 1 --max-products 1e9 --trace "${SPGEMM_TRACE:-1}" \
  ${SPGEMM_VARIANTS:+--variants $SPGEMM_VARIANTS} ${SPGEMM_ONLY:+--only $SPGEMM_ONLY} \
  --json "$out/spgemm_fast.json" --md "$out/spgemm_fast.md" \
  >>"$out/spgemm_fast.log" 2>"$tmp/bench.err"
stamp "bench rc=$? $(tail -2 "$tmp/bench.err" | tr '\n' ' ')"
tail -3 "$out/spgemm_fast.md"
