// Containers: CSR sparse matrix, COO view, dense matrix, sparse and dense vectors.
//
// Invariants of Matrix (CSR): row_ptr has nrows+1 entries starting at 0 and non-decreasing;
// within each row, column indices are strictly increasing (sorted, no duplicates) and in
// [0, ncols). Every backend relies on these and every backend output satisfies them.
// CooMatrix carries no such invariant: entries may be unsorted and repeated (as TensorFlow's
// SparseTensor); converting it to CSR states how duplicates are combined.
#pragma once
#include <optional>
#include <vector>

#include "ringblas/buffer.hpp"
#include "ringblas/types.hpp"

namespace ringblas {

class Context;

/// How repeated (row, col) entries are combined when building a CSR matrix from triplets.
enum class Dup : std::uint8_t { error, sum, min, max, first, last };

class Matrix {
 public:
  /// 0x0 fp64 matrix.
  Matrix() = default;
  /// An nrows x ncols matrix with no entries, on the host.
  Matrix(Index nrows, Index ncols, Type type = Type::fp64, IndexType itype = IndexType::i64);

  /// From host CSR arrays. Throws InvalidValue/InvalidIndex naming the first broken invariant.
  template <class T, class I>
  static Matrix from_csr(Index nrows, Index ncols, const std::vector<I>& row_ptr,
                         const std::vector<I>& col_idx, const std::vector<T>& values);
  /// From host triplets in any order; duplicates combined by `dup` (Dup::error throws InvalidValue).
  template <class T>
  static Matrix from_triplets(Index nrows, Index ncols, const std::vector<Index>& rows,
                              const std::vector<Index>& cols, const std::vector<T>& values,
                              Dup dup = Dup::error, IndexType itype = IndexType::i64);
  /// Adopts buffers (host or device, all at one location) without validating their contents.
  static Matrix from_buffers(Index nrows, Index ncols, Type type, IndexType itype, Index nnz,
                             Buffer row_ptr, Buffer col_idx, Buffer values);

  Index nrows() const { return nrows_; }
  Index ncols() const { return ncols_; }
  Index nnz() const { return nnz_; }
  Type type() const { return type_; }
  IndexType index_type() const { return itype_; }
  Location location() const { return row_ptr_.location(); }

  Buffer& row_ptr() { return row_ptr_; }
  Buffer& col_idx() { return col_idx_; }
  Buffer& values() { return values_; }
  const Buffer& row_ptr() const { return row_ptr_; }
  const Buffer& col_idx() const { return col_idx_; }
  const Buffer& values() const { return values_; }

  /// Explicit deep copy to `where` (counted in ctx.transfers when it crosses host<->device).
  Matrix to(Location where, const Context& ctx) const;
  /// Host only: the same matrix with values converted to `t` (GraphBLAS typecasting rules).
  Matrix cast(Type t) const;
  /// Host only: the same matrix with 32- or 64-bit row pointers and column indices.
  Matrix with_index_type(IndexType t) const;

  /// Host only: the arrays as 64-bit indices / typed values (copies; for tools and tests).
  std::vector<Index> row_ptr_vector() const;
  std::vector<Index> col_idx_vector() const;
  template <class T> std::vector<T> values_vector() const;
  /// Host only: throws InvalidValue/InvalidIndex naming the first violated CSR invariant.
  void check_invariants() const;

 private:
  Index nrows_ = 0, ncols_ = 0, nnz_ = 0;
  Type type_ = Type::fp64;
  IndexType itype_ = IndexType::i64;
  Buffer row_ptr_, col_idx_, values_;
};

/// Coordinate storage: entries in any order, duplicates allowed. Indices are 64-bit.
class CooMatrix {
 public:
  CooMatrix() = default;
  CooMatrix(Index nrows, Index ncols, Type type) : nrows_(nrows), ncols_(ncols), type_(type) {}
  template <class T>
  static CooMatrix from_triplets(Index nrows, Index ncols, const std::vector<Index>& rows,
                                 const std::vector<Index>& cols, const std::vector<T>& values);
  static CooMatrix from_buffers(Index nrows, Index ncols, Type type, Index nnz, Buffer rows,
                                Buffer cols, Buffer values);
  /// Row-major sorted COO of a CSR matrix (same location as `a`).
  static CooMatrix from_csr(const Matrix& a, const Context& ctx);
  /// Host only: sorts and combines duplicates with `dup`.
  Matrix to_csr(Dup dup = Dup::error, IndexType itype = IndexType::i64) const;

  Index nrows() const { return nrows_; }
  Index ncols() const { return ncols_; }
  Index nnz() const { return nnz_; }
  Type type() const { return type_; }
  Location location() const { return rows_.location(); }
  const Buffer& rows() const { return rows_; }
  const Buffer& cols() const { return cols_; }
  const Buffer& values() const { return values_; }
  CooMatrix to(Location where, const Context& ctx) const;

 private:
  Index nrows_ = 0, ncols_ = 0, nnz_ = 0;
  Type type_ = Type::fp64;
  Buffer rows_, cols_, values_;
};

enum class Layout : std::uint8_t { row_major, col_major };

/// Dense matrix; element (i, j) is at i*ncols+j (row_major) or j*nrows+i (col_major).
class DenseMatrix {
 public:
  DenseMatrix() = default;
  /// Zero-filled, on the host.
  DenseMatrix(Index nrows, Index ncols, Type type = Type::fp64, Layout layout = Layout::row_major);
  template <class T>
  static DenseMatrix from_values(Index nrows, Index ncols, const std::vector<T>& values,
                                 Layout layout = Layout::row_major);
  static DenseMatrix from_buffer(Index nrows, Index ncols, Type type, Layout layout, Buffer values);

  Index nrows() const { return nrows_; }
  Index ncols() const { return ncols_; }
  Type type() const { return type_; }
  Layout layout() const { return layout_; }
  Location location() const { return values_.location(); }
  Buffer& values() { return values_; }
  const Buffer& values() const { return values_; }
  DenseMatrix to(Location where, const Context& ctx) const;
  /// Host only: element (i, j) converted to T.
  template <class T> T at(Index i, Index j) const;
  /// Host only: every element as a sparse matrix entry (dense -> full CSR).
  Matrix to_sparse() const;

 private:
  Index nrows_ = 0, ncols_ = 0;
  Type type_ = Type::fp64;
  Layout layout_ = Layout::row_major;
  Buffer values_;
};

/// Sparse vector: strictly increasing 64-bit indices in [0, size) and their values.
class Vector {
 public:
  Vector() = default;
  Vector(Index size, Type type = Type::fp64);
  template <class T>
  static Vector from_entries(Index size, const std::vector<Index>& indices,
                             const std::vector<T>& values, Dup dup = Dup::error);
  /// Every position present.
  template <class T> static Vector dense(const std::vector<T>& values);
  static Vector from_buffers(Index size, Type type, Index nnz, Buffer indices, Buffer values);

  Index size() const { return size_; }
  Index nnz() const { return nnz_; }
  Type type() const { return type_; }
  Location location() const { return indices_.location(); }
  Buffer& indices() { return indices_; }
  Buffer& values() { return values_; }
  const Buffer& indices() const { return indices_; }
  const Buffer& values() const { return values_; }
  Vector to(Location where, const Context& ctx) const;
  Vector cast(Type t) const;
  std::vector<Index> indices_vector() const;
  template <class T> std::vector<T> values_vector() const;
  void check_invariants() const;

 private:
  Index size_ = 0, nnz_ = 0;
  Type type_ = Type::fp64;
  Buffer indices_, values_;
};

/// Dense vector of `size` values.
class DenseVector {
 public:
  DenseVector() = default;
  DenseVector(Index size, Type type = Type::fp64);
  template <class T> static DenseVector from_values(const std::vector<T>& values);
  Index size() const { return size_; }
  Type type() const { return type_; }
  Location location() const { return values_.location(); }
  Buffer& values() { return values_; }
  const Buffer& values() const { return values_; }
  DenseVector to(Location where, const Context& ctx) const;
  Vector to_sparse() const;  ///< host only; every position present

 private:
  Index size_ = 0;
  Type type_ = Type::fp64;
  Buffer values_;
};

}  // namespace ringblas
