// Smallest program against an installed ringblas: a 2x2 plus_times product on the cpu backend.
#include <ringblas/ringblas.hpp>

#include <cstdio>

int main() {
  using namespace ringblas;
  Matrix A = Matrix::from_triplets<double>(2, 2, {0, 1}, {1, 0}, {2.0, 3.0});
  Matrix C(2, 2);
  Context ctx(Backend::cpu);
  mxm(C, nullptr, no_accum, semiring("plus_times"), A, A, {}, ctx);
  auto v = C.values_vector<double>();
  std::printf("%g %g\n", v[0], v[1]);
  return (C.nnz() == 2 && v[0] == 6.0 && v[1] == 6.0) ? 0 : 1;
}
