#!/usr/bin/env bash
# Downloads, on a machine with package access, the Debian packages an offline GPU host needs to
# build ringblas (SuiteSparse:GraphBLAS and zlib headers) and compare with mcl into .deps/ (git-ignored), and copies
# the shared test data into .data/ so both can travel with the checkout.
# Usage: scripts/fetch_offline_deps.sh [--no-data]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$root/.deps"
cd "$root/.deps"
if ! ls libgraphblas7_*.deb mcl_*.deb >/dev/null 2>&1; then
  apt-get update -qq
  # mcl and libtingea0: van Dongen's Markov clustering, the peer of `ringblas mcl`.
  apt-get download libgraphblas7 libgraphblas-dev zlib1g-dev libgomp1 mcl libtingea0
fi
if ! ls libopenblas0-pthread_*.deb >/dev/null 2>&1; then
  apt-get update -qq
  # OpenBLAS (cblas) for the cpu gemm of include/ringblas/nn.hpp; gfortran's runtime is its
  # dependency. dpkg -x makes no /etc/alternatives links: gpu_host_build.sh points CMake at
  # the openblas-pthread/ directories.
  apt-get download libopenblas0-pthread libopenblas-pthread-dev libopenblas-dev libgfortran5 libquadmath0
fi
ls -1 "$root/.deps"
if [ "${1:-}" != "--no-data" ] && [ -d "$root/../shared/data" ]; then
  mkdir -p "$root/.data"
  cp -ru "$root/../shared/data/." "$root/.data/"
  chmod -R u+w "$root/.data"
  echo "test data copied to .data/ ($(du -sh "$root/.data" | cut -f1))"
fi
