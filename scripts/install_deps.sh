#!/usr/bin/env bash
# Installs what ringblas needs to build and test on Debian/Ubuntu: a C++20 compiler, CMake,
# SuiteSparse:GraphBLAS, GoogleTest, zlib, OpenBLAS (the cpu gemm of include/ringblas/nn.hpp) (and clang's libFuzzer for the fuzz target). The CUDA
# toolkit is optional: when nvcc is on PATH the cuda backend is built too.
set -euo pipefail
pkgs="g++ cmake make libgraphblas-dev libgtest-dev zlib1g-dev libopenblas-dev"
[ "${RINGBLAS_FUZZ:-0}" = 1 ] && pkgs="$pkgs clang-14 libclang-rt-14-dev"
missing=""
for p in $pkgs; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -n "$missing" ]; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing
fi
echo "dependencies present:$pkgs"
