#!/usr/bin/env bash
# Builds the libFuzzer targets for the readers (Matrix Market, edge list, abc) with clang in a
# separate build folder and runs each for a bounded time over a seed corpus: small files of the
# shared data (when present), the repository's tests/data, and hand-made corner cases (issue 10's
# crafted inputs among them). Exit status non-zero when a fuzzer finds a crash (or the build fails);
# crashing inputs are left in <build>/fuzz_artifacts/<target>/ and must become regression tests.
# usage: scripts/run_fuzz.sh [SECONDS_PER_TARGET=30] [BUILD_DIR=<repo>/build-fuzz] [libFuzzer flags...]
# Seeds come from $RINGBLAS_DATA_DIR (default <repo>/../shared/data, else <repo>/.data) when present.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${1:-30}"
build="${2:-${repo}/build-fuzz}"
shift $(( $# > 2 ? 2 : $# ))
data="${RINGBLAS_DATA_DIR:-${repo}/../shared/data}"
[ -d "$data" ] || data="${repo}/.data"
jobs="${RINGBLAS_FUZZ_BUILD_JOBS:-2}"
targets=(fuzz_matrix_market fuzz_edge_list fuzz_abc)

cc="$(command -v clang || command -v clang-14)"
cxx="$(command -v clang++ || command -v clang++-14)"
CC="$cc" CXX="$cxx" cmake -S "$repo" -B "$build" -DRINGBLAS_BUILD_FUZZ=ON \
  -DRINGBLAS_ENABLE_CUDA=OFF -DRINGBLAS_BUILD_TESTS=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" --target "${targets[@]}" -j "$jobs"

seeds="$build/fuzz_seeds"
rm -rf "$seeds"
mkdir -p "$seeds"/{fuzz_matrix_market,fuzz_edge_list,fuzz_abc}
mm="$seeds/fuzz_matrix_market"
el="$seeds/fuzz_edge_list"
abc="$seeds/fuzz_abc"

# Matrix Market: every file under 8 KB in the shared data and tests/data, plus corner cases.
for d in "$data" "$repo/tests/data"; do
  [ -d "$d" ] || continue
  find "$d" -type f \( -name '*.mtx' -o -name '*.mtx.gz' \) -size -8k -print0 |
    while IFS= read -r -d '' f; do cp -f "$f" "$mm/$(basename "$f")"; done
done
printf '%%%%MatrixMarket matrix array real general\n2 2\n1\n0\n3\n4\n' > "$mm/array.mtx"
printf '%%%%MatrixMarket matrix array integer skew-symmetric\n3 3\n1\n2\n3\n' > "$mm/skew_array.mtx"
printf '%%%%MatrixMarket matrix coordinate integer skew-symmetric\n3 3 2\n2 1 5\n3 2 -1\n' > "$mm/skew.mtx"
printf '%%%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 4\n2 1 -1.5e-3\n3 2 inf\n' > "$mm/sym.mtx"
printf '%%%%MatrixMarket matrix coordinate pattern general\r\n%% c\r\n\r\n2 3 2\r\n1 3\r\n2 1\r\n' > "$mm/crlf.mtx"
printf '\xef\xbb\xbf%%%%MatrixMarket matrix coordinate real general\n3 3 3\n1 2 -1\n2 3 2\n3 1 4\n' > "$mm/bom.mtx"
printf '\n  %%%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1e-400\n' > "$mm/leading_blank.mtx"
printf '%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 1\n' > "$mm/single_percent.mtx"
printf '%%%%MatrixMarkt matrix coordinate real general\n3 3 1\n1 1 1\n' > "$mm/misspelt.mtx"
printf '%%%%MatrixMarket matrix coordinate real general\n1000000000 1000000000 1\n1 1 1\n' > "$mm/huge_dims.mtx"
printf '%%%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 99999999999999999999\n' > "$mm/int_range.mtx"
: > "$mm/empty.mtx"
gzip -c "$mm/sym.mtx" > "$mm/sym.mtx.gz"

# Edge lists: the first byte chooses the options (bit 0 symmetrize, 1 compact ids, 2 pattern,
# 3 1-based, 4 nvertices = byte >> 5); each seed is given with options 0x00 and 0x03.
el_seed() {  # name, then the text on stdin
  local text; text="$(cat; printf x)"; text="${text%x}"
  printf '\x00%s' "$text" > "$el/$1"
  printf '\x03%s' "$text" > "$el/$1.sym"
}
for f in "$data"/snap/*.txt.gz "$repo"/tests/data/snap/*.txt.gz; do
  [ -f "$f" ] || continue
  # The first 4 KB (whole lines); gzip stops early on the closed pipe, which is expected.
  { gzip -dc "$f" 2>/dev/null || true; } | head -c 4000 | sed '$d' | el_seed "$(basename "$f" .txt.gz).txt"
done
printf '# c\n%% c\n\n1\t2 0.5\n3 1\n  2 2 4e0\n' | el_seed weights.txt
printf 'nd nw\n0 1\n1 2\n' | el_seed word_header.txt
printf '3 2\n0 1\n1 2\n' | el_seed nm_header.txt
printf '0 -1\n1 2\n' | el_seed negative_first.txt
printf '1 2 x\n1 2\n' | el_seed bad_weight_first.txt
printf '10 20 0.5\n20 30 0.25\n20 10 0.5\n' | el_seed asgiven.txt
printf '0 123456789012345678901\n' | el_seed id_range.txt
printf '\xef\xbb\xbf0 1\r\n1 0\r\n' | el_seed bom_crlf.txt
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 1\n' | el_seed banner.txt
printf '' | el_seed empty.txt

# abc: the first byte chooses symmetrize (bit 0) and pattern (bit 1).
abc_seed() {
  local text; text="$(cat; printf x)"; text="${text%x}"
  printf '\x00%s' "$text" > "$abc/$1"
  printf '\x01%s' "$text" > "$abc/$1.sym"
}
for f in "$data"/mcl/ppi_yeast/krogan2006_core.txt.gz "$repo"/tests/data/mcl/krogan2006_core.txt.gz; do
  [ -f "$f" ] || continue
  { gzip -dc "$f" 2>/dev/null || true; } | head -c 4000 | sed '$d' | abc_seed krogan_head.abc
done
printf 'YAL001C\tYBR123C\t0.3\nYBR123C YAL001C 0.99\nYAL001C YZZ 1\nYQQ YQQ\n' | abc_seed yeast.abc
printf 'geneA geneB 0.5\ngeneB geneC 2\n# c\n%%odd geneA 1e-400\n' | abc_seed labels.abc
printf 'a b c\n' | abc_seed bad_weight.abc
printf '\xef\xbb\xbfa b\n' | abc_seed bom.abc
printf '# nothing\n' | abc_seed comment_only.abc

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
status=0
for t in "${targets[@]}"; do
  corpus="$build/fuzz_corpus/$t"
  artifacts="$build/fuzz_artifacts/$t"
  mkdir -p "$corpus" "$artifacts"
  echo "fuzzing $t for ${seconds}s; corpus $corpus, seeds $seeds/$t, crashes go to $artifacts/"
  if ! "$build/tests/fuzz/$t" -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048 \
      -artifact_prefix="$artifacts/" -print_final_stats=1 "$@" "$corpus" "$seeds/$t"; then
    echo "run_fuzz: $t found a crash; inputs in $artifacts/" >&2
    status=1
  fi
done
exit "$status"
