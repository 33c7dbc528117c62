// Host CSR / vectors / dense matrices <-> GraphBLAS through pack/unpack of malloc'ed copies.
#include "backend/cpu/grb_convert.hpp"

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "backend/cpu/grb_ops.hpp"
#include "ringblas/error.hpp"

namespace ringblas::cpu::detail {

namespace {

// malloc of at least one element: GraphBLAS rejects null arrays in pack even when empty.
template <class T>
void allocate(malloc_array<T>& a, std::size_t count, std::string_view where) {
  const std::size_t bytes = sizeof(T) * (count ? count : 1);
  a.p = static_cast<T*>(std::malloc(bytes));
  if (!a.p)
    throw OutOfMemory(std::string(where) + ": host allocation of " + std::to_string(bytes) +
                          " bytes for GraphBLAS failed",
                      bytes);
}
std::size_t bytes_for(std::size_t count, std::size_t elem) { return elem * (count ? count : 1); }

void copy_indices_in(GrB_Index* dst, const Buffer& src, IndexType t, std::size_t n) {
  if (t == IndexType::i32) {
    const auto* s = src.as<std::int32_t>();
    for (std::size_t k = 0; k < n; ++k) dst[k] = GrB_Index(s[k]);
  } else {
    const auto* s = src.as<std::int64_t>();
    for (std::size_t k = 0; k < n; ++k) dst[k] = GrB_Index(s[k]);
  }
}

Buffer indices_out(const GrB_Index* src, IndexType t, std::size_t n) {
  Buffer b(index_size(t) * n, Location::host);
  if (t == IndexType::i32) {
    auto* d = b.as<std::int32_t>();
    for (std::size_t k = 0; k < n; ++k) d[k] = static_cast<std::int32_t>(src[k]);
  } else {
    auto* d = b.as<std::int64_t>();
    for (std::size_t k = 0; k < n; ++k) d[k] = static_cast<std::int64_t>(src[k]);
  }
  return b;
}

Buffer values_out(const void* src, Type t, std::size_t n) {
  Buffer b(type_size(t) * n, Location::host);
  if (n) std::memcpy(b.data(), src, type_size(t) * n);
  return b;
}

}  // namespace

void require_host(Location loc, std::string_view where, const char* what) {
  if (loc != Location::host)
    throw InvalidValue(std::string(where) + ": " + what +
                       " is on the device; the cpu backend needs host data");
}

matrix_ptr new_grb_matrix(Index nrows, Index ncols, Type t, std::string_view where) {
  ensure_graphblas();
  matrix_ptr m;
  RINGBLAS_GRB_TRY(where, nullptr,
                   GrB_Matrix_new(m.out(), grb_type(t), GrB_Index(nrows), GrB_Index(ncols)));
  return m;
}

matrix_ptr to_grb(const Matrix& a, std::string_view where) {
  require_host(a.location(), where, "a matrix");
  matrix_ptr m = new_grb_matrix(a.nrows(), a.ncols(), a.type(), where);
  const auto nrows = std::size_t(a.nrows()), nnz = std::size_t(a.nnz());
  const std::size_t vsize = type_size(a.type());
  malloc_array<GrB_Index> ap, aj;
  malloc_array<unsigned char> ax;
  allocate(ap, nrows + 1, where);
  allocate(aj, nnz, where);
  allocate(ax, nnz * vsize, where);
  if (a.row_ptr().size() >= index_size(a.index_type()) * (nrows + 1)) {
    copy_indices_in(ap.p, a.row_ptr(), a.index_type(), nrows + 1);
  } else {
    // A default-constructed (0 x n) matrix may hold no row pointer array.
    for (std::size_t i = 0; i <= nrows; ++i) ap.p[i] = 0;
  }
  copy_indices_in(aj.p, a.col_idx(), a.index_type(), nnz);
  if (nnz) std::memcpy(ax.p, a.values().data(), nnz * vsize);
  void* axv = ax.p;
  const GrB_Info info = GxB_Matrix_pack_CSR(
      m.get(), &ap.p, &aj.p, &axv, bytes_for(nrows + 1, sizeof(GrB_Index)),
      bytes_for(nnz, sizeof(GrB_Index)), bytes_for(nnz * vsize, 1), false, false, nullptr);
  ax.p = static_cast<unsigned char*>(axv);
  grb_check(info, where, "GxB_Matrix_pack_CSR", m.get());
  return m;
}

Matrix from_grb(GrB_Matrix m, Type type, IndexType itype, std::string_view where) {
  GrB_Index nrows = 0, ncols = 0;
  RINGBLAS_GRB_TRY(where, m, GrB_Matrix_nrows(&nrows, m));
  RINGBLAS_GRB_TRY(where, m, GrB_Matrix_ncols(&ncols, m));
  malloc_array<GrB_Index> ap, aj;
  malloc_array<void> ax;
  GrB_Index ap_size = 0, aj_size = 0, ax_size = 0;
  // Null iso/jumbled: GraphBLAS expands iso values and sorts each row before handing them over.
  RINGBLAS_GRB_TRY(where, m,
                   GxB_Matrix_unpack_CSR(m, &ap.p, &aj.p, &ax.p, &ap_size, &aj_size, &ax_size,
                                         nullptr, nullptr, nullptr));
  const std::size_t nnz = ap.p ? std::size_t(ap.p[nrows]) : 0;
  if (itype == IndexType::i32 && (nnz > std::size_t(std::numeric_limits<std::int32_t>::max()) ||
                                  ncols > GrB_Index(std::numeric_limits<std::int32_t>::max())))
    throw InvalidValue(std::string(where) + ": the result has " + std::to_string(nnz) +
                       " entries and " + std::to_string(ncols) +
                       " columns, too many for the output's 32-bit indices");
  Buffer rp(index_size(itype) * (nrows + 1), Location::host);
  if (ap.p) {
    rp = indices_out(ap.p, itype, nrows + 1);
  } else {
    std::memset(rp.data(), 0, rp.size());
  }
  return Matrix::from_buffers(Index(nrows), Index(ncols), type, itype, Index(nnz), std::move(rp),
                              indices_out(aj.p, itype, nnz), values_out(ax.p, type, nnz));
}

vector_ptr new_grb_vector(Index size, Type t, std::string_view where) {
  ensure_graphblas();
  vector_ptr v;
  RINGBLAS_GRB_TRY(where, nullptr, GrB_Vector_new(v.out(), grb_type(t), GrB_Index(size)));
  return v;
}

vector_ptr to_grb(const Vector& u, std::string_view where) {
  require_host(u.location(), where, "a vector");
  vector_ptr v = new_grb_vector(u.size(), u.type(), where);
  const auto nnz = std::size_t(u.nnz());
  const std::size_t vsize = type_size(u.type());
  malloc_array<GrB_Index> vi;
  malloc_array<unsigned char> vx;
  allocate(vi, nnz, where);
  allocate(vx, nnz * vsize, where);
  copy_indices_in(vi.p, u.indices(), IndexType::i64, nnz);
  if (nnz) std::memcpy(vx.p, u.values().data(), nnz * vsize);
  void* vxv = vx.p;
  const GrB_Info info =
      GxB_Vector_pack_CSC(v.get(), &vi.p, &vxv, bytes_for(nnz, sizeof(GrB_Index)),
                          bytes_for(nnz * vsize, 1), false, GrB_Index(nnz), false, nullptr);
  vx.p = static_cast<unsigned char*>(vxv);
  grb_check(info, where, "GxB_Vector_pack_CSC", v.get());
  return v;
}

Vector from_grb(GrB_Vector v, Type type, std::string_view where) {
  GrB_Index size = 0, nvals = 0, vi_size = 0, vx_size = 0;
  RINGBLAS_GRB_TRY(where, v, GrB_Vector_size(&size, v));
  malloc_array<GrB_Index> vi;
  malloc_array<void> vx;
  RINGBLAS_GRB_TRY(where, v,
                   GxB_Vector_unpack_CSC(v, &vi.p, &vx.p, &vi_size, &vx_size, nullptr, &nvals,
                                         nullptr, nullptr));
  const auto nnz = std::size_t(nvals);
  return Vector::from_buffers(Index(size), type, Index(nnz), indices_out(vi.p, IndexType::i64, nnz),
                              values_out(vx.p, type, nnz));
}

matrix_ptr to_grb_full(const DenseMatrix& a, std::string_view where) {
  require_host(a.location(), where, "a dense matrix");
  matrix_ptr m = new_grb_matrix(a.nrows(), a.ncols(), a.type(), where);
  const std::size_t n = std::size_t(a.nrows()) * std::size_t(a.ncols());
  const std::size_t vsize = type_size(a.type());
  malloc_array<unsigned char> ax;
  allocate(ax, n * vsize, where);
  if (n) std::memcpy(ax.p, a.values().data(), n * vsize);
  void* axv = ax.p;
  const GrB_Info info =
      a.layout() == Layout::row_major
          ? GxB_Matrix_pack_FullR(m.get(), &axv, bytes_for(n * vsize, 1), false, nullptr)
          : GxB_Matrix_pack_FullC(m.get(), &axv, bytes_for(n * vsize, 1), false, nullptr);
  ax.p = static_cast<unsigned char*>(axv);
  grb_check(info, where, "GxB_Matrix_pack_Full", m.get());
  return m;
}

DenseMatrix from_grb_full(GrB_Matrix m, Type type, Layout layout, std::string_view where) {
  GrB_Index nrows = 0, ncols = 0, ax_size = 0;
  RINGBLAS_GRB_TRY(where, m, GrB_Matrix_nrows(&nrows, m));
  RINGBLAS_GRB_TRY(where, m, GrB_Matrix_ncols(&ncols, m));
  const std::size_t n = std::size_t(nrows) * std::size_t(ncols);
  Buffer values(type_size(type) * n, Location::host);
  if (n) {
    malloc_array<void> ax;
    RINGBLAS_GRB_TRY(where, m,
                     layout == Layout::row_major
                         ? GxB_Matrix_unpack_FullR(m, &ax.p, &ax_size, nullptr, nullptr)
                         : GxB_Matrix_unpack_FullC(m, &ax.p, &ax_size, nullptr, nullptr));
    std::memcpy(values.data(), ax.p, type_size(type) * n);
  }
  return DenseMatrix::from_buffer(Index(nrows), Index(ncols), type, layout, std::move(values));
}

}  // namespace ringblas::cpu::detail
