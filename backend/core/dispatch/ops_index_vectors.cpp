// sort_permutation and extract with vector index lists (include/ringblas/index_vectors.hpp):
// validation done once, then the dispatch tables of dispatch_tables_index_vectors.cpp.
#include <string>

#include "backend/core/dispatch/dispatch_tables.hpp"
#include "backend/core/dispatch/validate.hpp"
#include "ringblas/error.hpp"
#include "ringblas/index_vectors.hpp"

namespace ringblas {
namespace {

/// InvalidValue unless an index-list vector holds int32 or int64 values; InvalidIndex when one
/// lies outside 0..n-1 (its min and max by two reductions where the list lives).
void check_index_vector(const char* op, const Vector* v, Index n, const char* what, Context& ctx) {
  if (!v) return;
  if (v->type() != Type::int32 && v->type() != Type::int64)
    throw InvalidValue(std::string(op) + ": the " + what +
                       " index list must be an int32 or int64 vector, it is " +
                       std::string(type_name(v->type())));
  if (v->nnz() == 0) return;
  const Index lo = reduce(MonoidCode::min, *v, ctx).as<Index>();
  const Index hi = reduce(MonoidCode::max, *v, ctx).as<Index>();
  if (lo < 0 || hi >= n)
    throw InvalidIndex(std::string(op) + ": " + what + " index " +
                       std::to_string(lo < 0 ? lo : hi) + " out of range 0.." +
                       std::to_string(n - 1));
}

}  // namespace

void sort_permutation(Vector& p, const Vector& u, SortOrder order, Context& ctx) {
  if (p.size() != u.size())
    throw DimensionMismatch("sort_permutation: p has size " + std::to_string(p.size()) +
                            " but u has size " + std::to_string(u.size()));
  if (p.type() != Type::int64)
    throw InvalidValue("sort_permutation: p must be int64, it is " +
                       std::string(type_name(p.type())));
  detail::execute(detail::sort_permutation_table(),
                  detail::SortPermutationProblem{u, order == SortOrder::descending},
                  Variant::automatic, p, ctx, detail::Tolerance::for_type(Type::int64));
}

void extract(Matrix& C, const Matrix* M, Accum acc, const Matrix& A, const Vector* rows,
             const Vector* cols, const Descriptor& d, Context& ctx) {
  const detail::Dims a = detail::dims(A, d.transpose_a);
  check_index_vector("extract", rows, a.rows, "row", ctx);
  check_index_vector("extract", cols, a.cols, "column", ctx);
  const detail::Dims t{rows ? rows->nnz() : a.rows, cols ? cols->nnz() : a.cols};
  detail::require(
      C.nrows() == t.rows && C.ncols() == t.cols, "extract",
      "C is " + detail::str(detail::dims(C)) + " but A(rows, cols) is " + detail::str(t));
  detail::check_mask("extract", M, detail::dims(C));
  detail::check_accum("extract", acc);
  detail::execute(detail::extract_vectors_table(),
                  detail::IndexVectorsProblem{M, acc, A, rows, cols, d}, d.variant, C, ctx,
                  detail::Tolerance::for_type(C.type()));
}

}  // namespace ringblas
