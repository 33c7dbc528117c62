// The launch description of one SpMM C = A B for calling the spmm_subwarp launchers directly
// (bench_spmm, the nnz-split gpu tests): A in CSR with 32-bit indices, B and C row-major, all
// three already on the device in the semiring's type. Header-only (the benchmarks do not link
// the test support library).
#pragma once
#include <cstdint>

#include "backend/cuda/spmm_subwarp/spmm_problem.hpp"
#include "ringblas/matrix.hpp"

namespace ringblas::test {

inline cuda::detail::SpmmProblem spmm_problem_of(const Matrix& a, const DenseMatrix& b,
                                                 DenseMatrix& c) {
  cuda::detail::SpmmProblem p;
  p.m = static_cast<int>(a.nrows());
  p.k = static_cast<int>(a.ncols());
  p.n = static_cast<int>(b.ncols());
  p.nnz = a.nnz();
  p.row_ptr = a.row_ptr().as<std::int32_t>();
  p.col_idx = a.col_idx().as<std::int32_t>();
  p.a_values = a.values().data();
  p.b = b.values().data();
  p.b_rs = b.ncols();
  p.b_cs = 1;
  p.c = c.values().data();
  p.c_rs = c.ncols();
  p.c_cs = 1;
  return p;
}

}  // namespace ringblas::test
