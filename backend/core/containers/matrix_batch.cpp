// MatrixBatch and the host build of a block-diagonal matrix (block_diagonal.hpp).
#include "ringblas/matrix_batch.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "backend/core/containers/block_diagonal.hpp"
#include "backend/core/containers/host_access.hpp"
#include "backend/cuda/block_diagonal/block_diagonal.hpp"
#include "ringblas/error.hpp"

namespace ringblas {
namespace detail {

BlockLayout block_layout(const std::vector<Matrix>& items) {
  BlockLayout l;
  l.row0.assign(1, 0);
  l.col0.assign(1, 0);
  l.nnz0.assign(1, 0);
  for (const Matrix& a : items) {
    l.row0.push_back(l.row0.back() + a.nrows());
    l.col0.push_back(l.col0.back() + a.ncols());
    l.nnz0.push_back(l.nnz0.back() + a.nnz());
  }
  if (!items.empty()) l.type = items[0].type();
  // The rule of Matrix::with_index_type: every index and every row pointer below 2^31.
  constexpr Index limit = Index(1) << 31;
  l.itype =
      l.rows() < limit && l.cols() < limit && l.nnz() < limit ? IndexType::i32 : IndexType::i64;
  return l;
}

Matrix block_diagonal_host(const std::vector<Matrix>& items, const BlockLayout& l) {
  const std::size_t tsz = type_size(l.type), isz = index_size(l.itype);
  Buffer rp(static_cast<std::size_t>(l.rows() + 1) * isz, Location::host);
  Buffer ci(static_cast<std::size_t>(l.nnz()) * isz, Location::host);
  Buffer val(static_cast<std::size_t>(l.nnz()) * tsz, Location::host);
  set_index(rp, l.itype, l.rows(), l.nnz());
  for (std::size_t b = 0; b < items.size(); ++b) {
    const Matrix& item = items[b];
    const Matrix cast = item.type() == l.type ? Matrix() : item.cast(l.type);
    const Matrix& a = item.type() == l.type ? item : cast;
    for (Index i = 0; i < a.nrows(); ++i)
      set_index(rp, l.itype, l.row0[b] + i, l.nnz0[b] + index_at(a.row_ptr(), a.index_type(), i));
    for (Index p = 0; p < a.nnz(); ++p)
      set_index(ci, l.itype, l.nnz0[b] + p, l.col0[b] + index_at(a.col_idx(), a.index_type(), p));
    if (a.nnz())
      std::memcpy(
          static_cast<unsigned char*>(val.data()) + static_cast<std::size_t>(l.nnz0[b]) * tsz,
          a.values().data(), static_cast<std::size_t>(a.nnz()) * tsz);
  }
  return Matrix::from_buffers(l.rows(), l.cols(), l.type, l.itype, l.nnz(), std::move(rp),
                              std::move(ci), std::move(val));
}

}  // namespace detail

MatrixBatch::MatrixBatch() : row0_(1, 0), col0_(1, 0), diag_(0, 0, Type::fp64, IndexType::i32) {}

MatrixBatch::MatrixBatch(const std::vector<Matrix>& items, Context& ctx) : MatrixBatch() {
  if (items.empty()) return;
  const Location where = items[0].location();
  auto name = [](Location l) { return l == Location::host ? "host" : "device"; };
  for (std::size_t b = 1; b < items.size(); ++b)
    if (items[b].location() != where)
      throw InvalidValue("MatrixBatch: item " + std::to_string(b) + " is on the " +
                         name(items[b].location()) + " but item 0 on the " + name(where) +
                         " (a batch lives at one location)");
  detail::BlockLayout l = detail::block_layout(items);
  diag_ = where == Location::host ? detail::block_diagonal_host(items, l)
                                  : cuda::block_diagonal(items, l, ctx);
  row0_ = std::move(l.row0);
  col0_ = std::move(l.col0);
  for (const Matrix& a : items) {
    max_rows_ = std::max(max_rows_, a.nrows());
    max_cols_ = std::max(max_cols_, a.ncols());
  }
}

}  // namespace ringblas
