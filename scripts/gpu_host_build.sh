#!/usr/bin/env bash
# On an offline GPU host: unpacks .deps/*.deb into a private prefix, configures and builds
# ringblas, runs the tests (ctest -L gpu, then -L cpu), and with --sanitize runs the gpu test
# binary under compute-sanitizer memcheck and racecheck. Logs go to $OUT (or ./gpu-logs).
# Usage: scripts/gpu_host_build.sh [--sanitize] [--bench] [--no-cpu-tests] [--build-only]
#        [--target T] [--gtest-filter F]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/gpu-logs}
mkdir -p "$out"
sanitize=0 bench=0 cpu_tests=1 build_only=0 target='' filter='*'
while [ $# -gt 0 ]; do
  case "$1" in
    --sanitize) sanitize=1 ;;
    --bench) bench=1 ;;
    --no-cpu-tests) cpu_tests=0 ;;
    --build-only) build_only=1 ;;
    --target) target=$2; shift ;;
    --gtest-filter) filter=$2; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
prefix=/tmp/ringblas-deps
mkdir -p "$prefix"
for deb in "$root"/.deps/*.deb; do dpkg -x "$deb" "$prefix"; done
# Debian's libz.so points at its own libz.so.1.x; on another distribution use the system's.
libdir=$prefix/usr/lib/x86_64-linux-gnu
if [ ! -e "$libdir/libz.so" ]; then
  sysz=$(ls /lib/x86_64-linux-gnu/libz.so.1 /usr/lib/x86_64-linux-gnu/libz.so.1 2>/dev/null | head -1)
  [ -n "$sysz" ] && ln -sf "$sysz" "$libdir/libz.so"
fi
export GRAPHBLAS_ROOT=$prefix/usr
# OpenBLAS from .debs: no alternatives links, so the library and cblas.h are found in their
# openblas-pthread/ directories (cmake/RingblasFindOpenBLAS.cmake searches those first).
export OPENBLAS_ROOT=$prefix/usr
export LD_LIBRARY_PATH=$prefix/usr/lib/x86_64-linux-gnu/openblas-pthread:$prefix/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
data=$root/.data
[ -d "$data" ] || data=$root/../shared/data
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$out/gpu.txt"
build=$root/build-gpu
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DGRAPHBLAS_ROOT="$GRAPHBLAS_ROOT" -DOPENBLAS_ROOT="$OPENBLAS_ROOT" \
  -DZLIB_ROOT="$prefix/usr" -DRINGBLAS_DATA_DIR="$data" -DRINGBLAS_BUILD_BENCH=$([ $bench = 1 ] && echo ON || echo OFF) \
  >"$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
( time cmake --build "$build" -j "$(nproc)" ${target:+--target $target} ) >"$out/build.log" 2>&1 || { grep -E "error" -A3 "$out/build.log" | head -60; exit 1; }
tail -3 "$out/build.log"
[ $build_only = 1 ] && exit 0
rc=0
(cd "$build" && ctest -L gpu --output-on-failure -j 1 >"$out/ctest_gpu.log" 2>&1) || rc=1
tail -5 "$out/ctest_gpu.log"
if [ $cpu_tests = 1 ]; then
  (cd "$build" && ctest -L cpu -j "$(nproc)" >"$out/ctest_cpu.log" 2>&1) || rc=1
  tail -3 "$out/ctest_cpu.log"
fi
if [ $sanitize = 1 ] && [ -x "$build/tests/ringblas_gpu_tests" ]; then
  for tool in memcheck racecheck; do
    compute-sanitizer --tool $tool --error-exitcode 7 "$build/tests/ringblas_gpu_tests" \
      --gtest_filter="$filter" >"$out/sanitize_$tool.log" 2>&1 || rc=1
    echo "compute-sanitizer $tool: $(tail -2 "$out/sanitize_$tool.log" | tr '\n' ' ')"
  done
fi
exit $rc
