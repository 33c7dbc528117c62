#!/usr/bin/env bash
# Builds the libFuzzer target for the Matrix Market reader with clang (separate build folder) and
# runs it for a bounded time over a seed corpus of small shared-data files. Exit status non-zero
# when the fuzzer finds a crash (or the build fails).
# usage: scripts/run_fuzz.sh [SECONDS=60] [BUILD_DIR=<repo>/build-fuzz] [extra libFuzzer flags...]
# Seeds come from $RINGBLAS_DATA_DIR (default <repo>/../shared/data, else <repo>/.data) when present.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${1:-60}"
build="${2:-${repo}/build-fuzz}"
shift $(( $# > 2 ? 2 : $# ))
data="${RINGBLAS_DATA_DIR:-${repo}/../shared/data}"
[ -d "$data" ] || data="${repo}/.data"
jobs="${RINGBLAS_FUZZ_BUILD_JOBS:-2}"

cc="$(command -v clang || command -v clang-14)"
cxx="$(command -v clang++ || command -v clang++-14)"
CC="$cc" CXX="$cxx" cmake -S "$repo" -B "$build" -DRINGBLAS_BUILD_FUZZ=ON \
  -DRINGBLAS_ENABLE_CUDA=OFF -DRINGBLAS_BUILD_TESTS=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" --target fuzz_matrix_market -j "$jobs"

corpus="$build/fuzz_corpus"
seeds="$build/fuzz_seeds"
artifacts="$build/fuzz_artifacts"
mkdir -p "$corpus" "$seeds" "$artifacts"
# Seeds: every Matrix Market file under 8 KB in the shared data, plus hand-made corner cases.
if [ -d "$data" ]; then
  find "$data" -type f \( -name '*.mtx' -o -name '*.mtx.gz' \) -size -8k -print0 |
    while IFS= read -r -d '' f; do cp -f "$f" "$seeds/$(basename "$f")"; done
fi
printf '%%%%MatrixMarket matrix array real general\n2 2\n1\n0\n3\n4\n' > "$seeds/array.mtx"
printf '%%%%MatrixMarket matrix array integer skew-symmetric\n3 3\n1\n2\n3\n' > "$seeds/skew_array.mtx"
printf '%%%%MatrixMarket matrix coordinate integer skew-symmetric\n3 3 2\n2 1 5\n3 2 -1\n' > "$seeds/skew.mtx"
printf '%%%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 4\n2 1 -1.5e-3\n3 2 inf\n' > "$seeds/sym.mtx"
printf '%%%%MatrixMarket matrix coordinate pattern general\r\n%% c\r\n\r\n2 3 2\r\n1 3\r\n2 1\r\n' > "$seeds/crlf.mtx"
gzip -c "$seeds/sym.mtx" > "$seeds/sym.mtx.gz"

echo "fuzzing for ${seconds}s; corpus $corpus, seeds $seeds, crashes go to $artifacts/"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
"$build/tests/fuzz/fuzz_matrix_market" -max_total_time="$seconds" -max_len=65536 \
  -rss_limit_mb=2048 -artifact_prefix="$artifacts/" -print_final_stats=1 "$@" "$corpus" "$seeds"
