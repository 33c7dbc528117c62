#!/usr/bin/env bash
# One GPU-machine call for Markov clustering: build (scripts/gpu_host_build.sh --build-only
# --bench, which also unpacks .deps/mcl_*.deb and libtingea0 into /tmp/ringblas-deps), the Mcl
# gpu tests (plus compute-sanitizer memcheck on the small ones), then bench_mcl against mcl on
# the PPI networks and soc-Epinions1, then the generated 1M-node graph. Results in $OUT:
# summary.log, mcl_tests.log, mcl_<gpu>.md/.json (MCL_GRAPHS, MCL_NODES, MCL_MAX_MEMORY,
# MCL_BENCH_S override the defaults).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$root/gpu-logs}
tmp=/tmp/mcl-run
mkdir -p "$out" "$tmp"
cd "$root"
t0=$SECONDS
stamp() { echo "[$((SECONDS - t0)) s] $*" >>"$out/summary.log"; }
OUT=$tmp bash scripts/gpu_host_build.sh --build-only --bench >"$tmp/host.log" 2>&1
{ cat "$tmp/gpu.txt" 2>/dev/null; tail -3 "$tmp/build.log"; grep -E "error" -A3 "$tmp/build.log" | head -40; } >>"$out/summary.log" 2>&1
stamp built
deps=/tmp/ringblas-deps
export LD_LIBRARY_PATH=$deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
mcl=$deps/usr/bin/mcl
[ -x "$mcl" ] || stamp "no mcl at $mcl (is .deps/mcl_*.deb there?)"
bin=build-gpu/tests/ringblas_gpu_tests
$bin --gtest_filter='Mcl*' >"$out/mcl_tests.log" 2>&1
stamp "Mcl gpu tests: $(grep -E '^\[  (PASSED|FAILED)  \]' "$out/mcl_tests.log" | tr '\n' ' ')"
timeout 300 compute-sanitizer --tool memcheck --error-exitcode 7 "$bin" \
  --gtest_filter='Mcl.SmallAndProteinsMci' >"$tmp/san.log" 2>&1
stamp "memcheck rc=$? $(grep -E 'ERROR SUMMARY|^\[  (PASSED|FAILED)' "$tmp/san.log" | tr '\n' ' ')"
bench=build-gpu/tests/bench/bench_mcl
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr -c 'A-Za-z0-9\n' '_')
mem=()
[ -n "${MCL_MAX_MEMORY:-}" ] && mem=(--max-memory "$MCL_MAX_MEMORY")
timeout "${MCL_BENCH_S:-420}" $bench --mcl "$mcl" --threads 16 --work "$tmp/work" \
  --graphs "${MCL_GRAPHS:-krogan_core,krogan_extended,gavin,soc-Epinions1,planted}" \
  --nodes "${MCL_NODES:-1000000}" "${mem[@]}" --out "$out/mcl_$name" 2>"$tmp/bench.err"
stamp "bench rc=$? $(grep -E '^[a-zA-Z_0-9-]+: ringblas' "$tmp/bench.err" | tr '\n' ' ')"
cp "$tmp/bench.err" "$out/bench_mcl.err"
