// cpu paths of the MaxK-GNN operations: top-k by partial sort, forward by row-wise accumulation
// into a dense row, sampled backward by a dot product per CBSR position (float sums in A's row
// order, so a given input always gives the same bits).
#include "backend/cpu/cpu_maxk.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "backend/core/containers/host_access.hpp"
#include "ringblas/error.hpp"

namespace ringblas::cpu {
namespace {

/// The order the cuda kernel uses (backend/cuda/maxk/agent.cuh, order_key): IEEE totalOrder.
std::uint32_t order_key(float v) {
  const std::uint32_t b = std::bit_cast<std::uint32_t>(v);
  return (b & 0x80000000u) ? ~b : (b | 0x80000000u);
}

void require_plus_times_fp32(const char* op, const Semiring& s) {
  if (s.is_user() || s.add != MonoidCode::plus || s.mul != BinaryOpCode::times ||
      s.type != Type::fp32)
    throw NotImplemented(std::string(op) +
                         ": the cpu path computes plus_times over fp32 only, not " + s.name());
}

/// op(A) as host CSR arrays with fp32 values: row pointers, columns, values.
struct HostCsr {
  Index nrows = 0, ncols = 0;
  std::vector<Index> rp, ci;
  std::vector<float> v;
};
HostCsr host_csr(const Matrix& a, bool transposed) {
  HostCsr m;
  const std::vector<Index> rp = a.row_ptr_vector(), ci = a.col_idx_vector();
  std::vector<float> v(std::size_t(a.nnz()));
  for (Index e = 0; e < a.nnz(); ++e) v[e] = detail::value_at<float>(a.values(), a.type(), e);
  if (!transposed) {
    m.nrows = a.nrows();
    m.ncols = a.ncols();
    m.rp = rp;
    m.ci = ci;
    m.v = std::move(v);
    return m;
  }
  // Counting sort by column: rows of Aᵀ keep increasing column order.
  m.nrows = a.ncols();
  m.ncols = a.nrows();
  m.rp.assign(std::size_t(m.nrows) + 1, 0);
  for (Index e = 0; e < a.nnz(); ++e) ++m.rp[ci[e] + 1];
  std::partial_sum(m.rp.begin(), m.rp.end(), m.rp.begin());
  m.ci.resize(std::size_t(a.nnz()));
  m.v.resize(std::size_t(a.nnz()));
  std::vector<Index> next(m.rp.begin(), m.rp.end() - 1);
  for (Index i = 0; i < a.nrows(); ++i)
    for (Index e = rp[i]; e < rp[i + 1]; ++e) {
      const Index q = next[ci[e]]++;
      m.ci[q] = i;
      m.v[q] = v[e];
    }
  return m;
}

float dense_at(const DenseMatrix& d, Index i, Index j) {
  const Index q = d.layout() == Layout::row_major ? i * d.ncols() + j : j * d.nrows() + i;
  return d.values().as<float>()[q];
}

}  // namespace

void maxk(Cbsr& X, const DenseMatrix& Y, int k, Context&) {
  const Index n = Y.nrows(), h = Y.ncols();
  std::vector<float> vals(std::size_t(n * k));
  std::vector<std::uint8_t> idx(std::size_t(n * k));
  std::vector<int> cols(static_cast<std::size_t>(h));
  std::vector<std::uint32_t> keys(static_cast<std::size_t>(h));
  for (Index i = 0; i < n; ++i) {
    for (Index j = 0; j < h; ++j) keys[j] = order_key(dense_at(Y, i, j));
    std::iota(cols.begin(), cols.end(), 0);
    // Larger key first, then the smaller column: a strict total order, so the k chosen are unique.
    std::partial_sort(cols.begin(), cols.begin() + k, cols.end(),
                      [&](int x, int y) { return keys[x] != keys[y] ? keys[x] > keys[y] : x < y; });
    std::sort(cols.begin(), cols.begin() + k);
    for (int t = 0; t < k; ++t) {
      vals[i * k + t] = dense_at(Y, i, cols[t]);
      idx[i * k + t] = std::uint8_t(cols[t]);
    }
  }
  X = Cbsr::from_buffers(n, h, k, Buffer(vals.size() * sizeof(float), Location::host),
                         Buffer(idx.size(), Location::host));
  if (!vals.empty()) {
    std::memcpy(X.values().data(), vals.data(), vals.size() * sizeof(float));
    std::memcpy(X.indices().data(), idx.data(), idx.size());
  }
}

void densify(DenseMatrix& D, const Cbsr& X, Context&) {
  const Index n = X.nrows(), h = X.ncols();
  const int k = X.k();
  DenseMatrix out(n, h, Type::fp32, D.layout());
  const float* xv = X.values().as<float>();
  const std::uint8_t* xi = X.indices().as<std::uint8_t>();
  for (Index i = 0; i < n; ++i)
    for (int t = 0; t < k; ++t) {
      const Index c = xi[i * k + t];
      out.values().as<float>()[D.layout() == Layout::row_major ? i * h + c : c * n + i] =
          xv[i * k + t];
    }
  D = std::move(out);
}

void mxm(DenseMatrix& C, const Semiring& s, const Matrix& A, const Cbsr& X, const DenseVector* bias,
         const Epilogue* ep, const Descriptor& d, Context&) {
  require_plus_times_fp32("mxm (cbsr)", s);
  const HostCsr a = host_csr(A, d.transpose_a);
  const Index h = X.ncols();
  const int k = X.k();
  const float* xv = X.values().as<float>();
  const std::uint8_t* xi = X.indices().as<std::uint8_t>();
  DenseMatrix out(a.nrows, h, Type::fp32, C.layout());
  std::vector<float> acc(static_cast<std::size_t>(h));
  for (Index i = 0; i < a.nrows; ++i) {
    std::fill(acc.begin(), acc.end(), 0.0f);
    for (Index e = a.rp[i]; e < a.rp[i + 1]; ++e) {
      const Index j = a.ci[e];
      for (int t = 0; t < k; ++t) acc[xi[j * k + t]] += a.v[e] * xv[j * k + t];
    }
    for (Index c = 0; c < h; ++c) {
      const Index q = C.layout() == Layout::row_major ? i * h + c : c * a.nrows + i;
      float x = acc[c];
      if (ep && ep->has_bias()) x += detail::value_at<float>(bias->values(), bias->type(), c);
      if (ep && ep->has_relu()) x = std::max(x, 0.0f);
      if (ep && ep->clamp) x = std::min(x, float(*ep->clamp));
      out.values().as<float>()[q] = x;
    }
  }
  C = std::move(out);
}

void mxm(Cbsr& C, const Semiring& s, const Matrix& A, const DenseMatrix& B, const Descriptor& d,
         Context&) {
  require_plus_times_fp32("mxm (sampled cbsr)", s);
  const HostCsr a = host_csr(A, d.transpose_a);
  const int k = C.k();
  float* cv = C.values().as<float>();
  const std::uint8_t* ci = C.indices().as<std::uint8_t>();
  for (Index i = 0; i < a.nrows; ++i)
    for (int t = 0; t < k; ++t) {
      float sum = 0.0f;
      for (Index e = a.rp[i]; e < a.rp[i + 1]; ++e)
        sum += a.v[e] * dense_at(B, a.ci[e], ci[i * k + t]);
      cv[i * k + t] = sum;
    }
}

}  // namespace ringblas::cpu
