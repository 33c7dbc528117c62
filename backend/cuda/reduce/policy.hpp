// Tuning constants of the reduce family (bench: tests/bench/bench_reduce_transpose.cu).
#pragma once
#include <cstdint>

namespace ringblas::cuda::reduction {

struct policy {
  /// Threads per block of the element-wise kernels (identity fill, presence, column atomics).
  static constexpr int block = 256;
  /// Entries each thread of the column-atomic kernel visits (grid-stride loop).
  static constexpr int items_per_thread = 4;
  /// Lanes per row in the row kernel when rows average at most long_row entries; a warp per row
  /// above (bench_reduce_transpose's longrows input: rows of 512).
  static constexpr int row_subwarp = 8;
  static constexpr double long_row = 64.0;
};

/// The row kernel's schedule: `subwarp` (k_rows_subwarp, the default: a group of lanes per row,
/// one row per group, 8-byte loads) or `vec` (k_rows_vec: the same groups in a grid-stride loop,
/// 16-byte loads of the row's aligned middle, the next row's bounds loaded ahead). The default
/// is path_defaults::rows_kernel; benchmarks set paths_now().rows (reduction.hpp).
enum class row_kernel { subwarp, vec };

/// How reduce to a vector by rows makes its sparse result: `compact` (the default: write_back's
/// count of present rows, a host read, and a CUB DeviceSelect compaction) or `fused` (the row
/// kernel counts the empty rows and writes each row's index; one 8-byte read decides: no empty
/// row and a write-back that would copy t (no mask, no accumulator or an empty w) -> t is the
/// result as it stands, else compaction with the count known). Default path_defaults::rows_output_path.
enum class rows_output { compact, fused };

/// What the row kernels write besides t and present, each part skipped when null:
/// empty_rows += the number of empty rows (the caller zeroes it), index[r] = r.
struct row_tally {
  unsigned long long* empty_rows = nullptr;
  std::int64_t* index = nullptr;
};

/// How reduce to a vector by columns runs: monoid atomics into a dense vector (one pass over
/// A), the shared cuda::transpose followed by the row reduction (a radix sort first), or
/// `ranges`: the atomics in passes over column ranges whose partial sums fit half of L2, a
/// cursor per row keeping where its next pass starts (rows' columns are sorted), so that each
/// entry is read once (and a row's first entry past a range once more) and the
/// read-modify-writes stay in L2 when the whole vector would not (power-law 6.25M columns:
/// 3.76x the compulsory DRAM bytes with one pass). `ranges64`: ranges of 64 columns whatever L2
/// holds (many passes on small matrices: for the tests). Default path_defaults::cols_method.
enum class column_method { atomic, transpose, ranges, ranges64 };

/// The paths reduce takes unless paths_now() says otherwise: session 11's, measured on the H100
/// (reduce_s11_h100.md, 100M entries, fp64 plus): rows kernel vec 0.297 ms (91% of copy) against
/// subwarp 0.352 on d96, 0.372 against 0.502 on power-law rows; the public call fused + vec 0.332
/// against 0.421 (d96) and 0.416 against 0.664 (power-law); columns by ranges 5.82 ms against
/// 7.60 on power-law (6.25M columns), equal on d96 (one range).
struct path_defaults {
  static constexpr row_kernel rows_kernel = row_kernel::vec;
  static constexpr rows_output rows_output_path = rows_output::fused;
  static constexpr column_method cols_method = column_method::ranges;
};

}  // namespace ringblas::cuda::reduction
