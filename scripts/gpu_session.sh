#!/usr/bin/env bash
# One GPU-machine call for a whole round of work: build (scripts/gpu_host_build.sh --build-only
# --bench), every gpu test, compute-sanitizer memcheck and racecheck on chosen subsets, then the
# benchmark commands given. Ordered so that the results that matter most come first; each step
# has its own time limit so that one slow step cannot eat the call. Logs land in $OUT (8 files
# at most come back from the device tool: summary.log, gpu_tests.log, sanitize.log, plus what
# the benchmark commands write there).
# GS_BUILD_BENCH=0 skips building the benchmark programs; GS_TARGETS='a b' builds only those.
# Usage: GS_TESTS='*' GS_MEMCHECK='Suite.*' GS_RACECHECK='Suite.*' \
#        GS_BENCH='build-gpu/tests/bench/bench_x --md $RES/x.md' bash scripts/gpu_session.sh
# GS_TESTS=none skips the tests; benchmark tables come back in $OUT/results.tgz.
# GS_CALL_S (default 590) is the device call's own limit: every step's time limit is cut to what
# is left of it (less 20 s for packing), so that a slow build cannot make the call itself time
# out and lose the logs and tables (a cold machine rebuilds everything: about 200 s).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/gpu-logs}
tmp=/tmp/gpu-session
mkdir -p "$out" "$tmp"
cd "$root"
t0=$SECONDS
stamp() { echo "[$((SECONDS - t0)) s] $*" | tee -a "$out/summary.log"; }
# limit WANTED: the smaller of WANTED seconds and what the call has left.
limit() {
  local left=$(( ${GS_CALL_S:-590} - (SECONDS - t0) - 20 ))
  [ "$left" -lt 1 ] && left=1
  echo $(( $1 < left ? $1 : left ))
}

bench_flag=--bench
[ "${GS_BUILD_BENCH:-1}" = 0 ] && bench_flag=
OUT=$tmp bash scripts/gpu_host_build.sh --build-only $bench_flag ${GS_TARGETS:+--target "$GS_TARGETS"} >"$tmp/host.log" 2>&1
build_rc=$?
{ cat "$tmp/gpu.txt"; tail -3 "$tmp/build.log"; } >>"$out/summary.log" 2>&1
if [ $build_rc != 0 ]; then
  grep -E "error|Error" -A3 "$tmp/build.log" "$tmp/host.log" | head -80 | tee -a "$out/summary.log"
  exit 1
fi
stamp "built"
export LD_LIBRARY_PATH=/tmp/ringblas-deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
bin=build-gpu/tests/ringblas_gpu_tests

if [ "${GS_TESTS:-*}" != none ]; then
  timeout "$(limit "${GS_TESTS_S:-300}")" $bin --gtest_filter="${GS_TESTS:-*}" >"$out/gpu_tests.log" 2>&1
  stamp "gpu tests rc=$?: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$out/gpu_tests.log" | tr '\n' ' ')"
  grep -E '^\[  FAILED  \] [A-Za-z]' "$out/gpu_tests.log" | head -40 >>"$out/summary.log"
fi

run_san() {  # tool, seconds, filter
  [ -n "$3" ] || return 0
  timeout "$(limit "$2")" compute-sanitizer --tool "$1" --error-exitcode 7 "$bin" --gtest_filter="$3" \
    >"$tmp/san_$1.log" 2>&1
  local rc=$?
  { echo "== compute-sanitizer --tool $1 (rc=$rc) $bin --gtest_filter='$3'";
    grep -E "^\[  (PASSED|FAILED|SKIPPED)|ERROR SUMMARY|RACECHECK SUMMARY" "$tmp/san_$1.log"
    # Each distinct report: the test that was running, the error and the kernel it came from.
    awk '/^\[ RUN/ {t=$NF} /Invalid|Race|Hazard|Uninitialized|Leak/ {e=$0; getline; k=$0; sub(/\(.*/, "", k); print t ": " e " " k}' \
      "$tmp/san_$1.log" | sort | uniq -c | sort -rn | head -20; } >>"$out/sanitize.log"
  stamp "compute-sanitizer $1 rc=$rc"
}
run_san memcheck "${GS_SAN_S:-200}" "${GS_MEMCHECK:-}"
run_san racecheck "${GS_SAN_S:-200}" "${GS_RACECHECK:-}"

# Benchmarks write their tables under $RES (exported), which comes back as one archive.
if [ -n "${GS_BENCH:-}" ]; then
  export RES=$tmp/results GPU_TAG
  GPU_TAG=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr -c 'A-Za-z0-9\n' '_')
  mkdir -p "$RES"
  timeout "$(limit "${GS_BENCH_S:-400}")" bash -c "$GS_BENCH" >"$tmp/bench.log" 2>&1
  stamp "benchmarks rc=$?"
  cp "$tmp/bench.log" "$RES/bench.log"
  tail -40 "$tmp/bench.log" >>"$out/summary.log"
  tar -czf "$out/results.tgz" -C "$RES" .
fi
cat "$out/sanitize.log" 2>/dev/null
stamp done
