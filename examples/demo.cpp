// Demo: builds a random power-law graph, squares it and counts its triangles with ringblas,
// on the GPU when one is present (backend auto) and on SuiteSparse otherwise.
#include <chrono>
#include <cstdio>
#include <random>
#include <vector>

#include "ringblas/ringblas.hpp"

using namespace ringblas;

namespace {
/// R-MAT edges (a=0.57, b=c=0.19), symmetrized, no self loops, duplicates merged.
Matrix rmat_graph(int scale, int edge_factor, unsigned seed) {
  const Index n = Index(1) << scale;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<Index> rows, cols;
  for (Index e = 0; e < n * edge_factor; ++e) {
    Index i = 0, j = 0;
    for (int bit = 0; bit < scale; ++bit) {
      double r = u(rng);
      int q = r < 0.57 ? 0 : r < 0.76 ? 1 : r < 0.95 ? 2 : 3;
      i = 2 * i + (q >> 1), j = 2 * j + (q & 1);
    }
    if (i == j) continue;
    rows.push_back(i), cols.push_back(j);
    rows.push_back(j), cols.push_back(i);
  }
  std::vector<double> ones(rows.size(), 1.0);
  return Matrix::from_triplets(n, n, rows, cols, ones, Dup::first);
}
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

int main() {
  try {
    Context ctx(Backend::automatic);
    ctx.trace = true;
    std::printf("ringblas demo: %s\n", cuda_available() ? "GPU present, backend auto picks cuda where it has kernels"
                                                         : "no GPU, running on the cpu backend (SuiteSparse)");
    Matrix A = rmat_graph(14, 8, 42);
    std::printf("graph: %lld vertices, %lld edges (both directions)\n", (long long)A.nrows(), (long long)A.nnz());

    auto t0 = std::chrono::steady_clock::now();
    Matrix C(A.nrows(), A.ncols(), Type::fp64);
    mxm(C, nullptr, no_accum, semiring("plus_times"), A, A, {}, ctx);
    std::printf("C = A*A (plus_times): nnz %lld in %.3f s\n", (long long)C.nnz(), seconds_since(t0));

    // Triangles: L = tril(A, -1); T<L> = L plus_pair L'; count = sum(T).
    t0 = std::chrono::steady_clock::now();
    Matrix L(A.nrows(), A.ncols(), Type::int64);
    select(L, nullptr, no_accum, SelectOpCode::tril, Scalar(Index(-1)), A, {}, ctx);
    Matrix T(A.nrows(), A.ncols(), Type::int64);
    Descriptor d;
    d.mask_structure = true;
    d.transpose_b = true;
    mxm(T, &L, no_accum, semiring("plus_pair", Type::int64), L, L, d, ctx);
    long long triangles = reduce(MonoidCode::plus, T, ctx).as<long long>();
    std::printf("triangles: %lld in %.3f s\n", triangles, seconds_since(t0));
    return 0;
  } catch (const Error& e) {
    std::fprintf(stderr, "ringblas demo: %s\n", e.what());
    return 1;
  }
}
