// cuda executor entry points of reduce: w<m, replace> = w accum (⊕ over rows or columns of A),
// and ⊕ of a matrix or vector to a scalar. The monoid runs in w's type (A's values cast first,
// as the cpu executor does); results stay on the device, the write-back reads one size (or, on
// the fused output path, the row kernel's empty-row count).
#include <string>

#include "backend/cuda/common/device_matrix.hpp"
#include "backend/cuda/common/vector_plumbing.hpp"
#include "backend/cuda/cuda_backend.hpp"
#include "backend/cuda/reduce/reduction.hpp"
#include "ringblas/error.hpp"

namespace ringblas::cuda {
void reduce(Vector& w, const Vector* mask, Accum accum, MonoidCode monoid, const Matrix& A,
            ReduceDim dim, const Descriptor& desc, Context& ctx) {
  // Rows of Aᵀ are the columns of A.
  const bool by_rows = (dim == ReduceDim::rows) != desc.transpose_a;
  const Type wt = w.type();
  Matrix hold;
  const Matrix& a = prepare_operand(A, false, A.index_type(), wt, hold, ctx);
  const Index n = by_rows ? a.nrows() : a.ncols();
  Buffer admit = detail::mask_admit(mask, n, desc.mask_structure, desc.mask_complement, ctx);
  const unsigned char* admit_p = admit.size() ? admit.as<unsigned char>() : nullptr;
  const reduction::paths path = reduction::paths_now();
  const auto kernel = path.rows;
  const auto cols_method = path.cols;
  // The fused output only where write_back would copy t (no mask, no accumulator or an empty w).
  const bool fused = by_rows &&
                     path.output == reduction::rows_output::fused &&
                     detail::write_back_copies_t(w, admit_p, accum);
  const bool short_rows = double(a.nnz()) <= reduction::policy::long_row * double(a.nrows());
  const bool ranges = cols_method == reduction::column_method::ranges ||
                      cols_method == reduction::column_method::ranges64;
  // The column path as reduction::cols takes it: monoids whose identity seed is not neutral go
  // through the transpose whatever the method.
  const bool cols_transpose = cols_method == reduction::column_method::transpose ||
                              !reduction::identity_seed_is_neutral(monoid, wt);
  const char* cols_how = cols_transpose ? "columns (transpose, then rows)"
                         : ranges ? "columns (monoid atomics, by column ranges where the vector "
                                    "exceeds half of L2)"
                                  : "columns (monoid atomics)";
  const char* how = !by_rows     ? cols_how
                    : short_rows ? "rows (8 lanes per row"
                                 : "rows (a warp per row";
  const char* schedule = !by_rows ? ""
                         : kernel == reduction::row_kernel::vec
                             ? ", vec: 16-byte loads, grid-stride)"
                             : ")";
  // Where the host waits: the fused path reads the kernel's empty-row count (8 bytes); the
  // write-back counts the present positions and reads that count before compacting.
  const char* output = fused ? "; fused output: the kernel counts empty rows, host wait on that "
                               "count, compaction only if a row is empty"
                             : "; write-back: count, host wait on it, compaction";
  ctx.trace_line(std::string("reduce: cuda ") + how + schedule + ", " + std::to_string(a.nnz()) +
                 " entries, " + std::string(monoid_name(monoid)) + " " +
                 std::string(type_name(wt)) + output);
  if (fused) {
    w = reduction::rows_to_vector(a, monoid, kernel, ctx);
    return;
  }
  const std::size_t n1 = std::size_t(n > 0 ? n : 1);
  Buffer t(n1 * type_size(wt), Location::device, &ctx), present(n1, Location::device, &ctx);
  if (by_rows)
    reduction::rows(a, monoid, t.data(), present.as<unsigned char>(), ctx, {}, kernel);
  else
    reduction::cols(a, monoid, t.data(), present.as<unsigned char>(), cols_method, ctx);
  w = detail::write_back(w, t.data(), wt, present.as<unsigned char>(), admit_p, accum, desc.replace,
                         ctx);
}

Scalar reduce(MonoidCode monoid, const Matrix& A, Context& ctx) {
  Matrix hold;
  const Matrix& a = prepare_operand(A, false, A.index_type(), std::nullopt, hold, ctx);
  ctx.trace_line("reduce: cuda scalar (cub device reduce), " + std::to_string(a.nnz()) +
                 " entries, " + std::string(monoid_name(monoid)) + "; one value to the host");
  return reduction::all(monoid, a.type(), a.values().data(), a.nnz(), ctx);
}

Scalar reduce(MonoidCode monoid, const Vector& u, Context& ctx) {
  Vector hold;
  const Vector& d = u.location() == Location::device ? u : (hold = u.to(Location::device, ctx));
  ctx.trace_line("reduce: cuda scalar (cub device reduce), " + std::to_string(d.nnz()) +
                 " entries, " + std::string(monoid_name(monoid)) + "; one value to the host");
  return reduction::all(monoid, d.type(), d.values().data(), d.nnz(), ctx);
}

}  // namespace ringblas::cuda
