// The cpu executor: every operation of backend/core/dispatch/operations.def on
// SuiteSparse:GraphBLAS (the dense nn operations on OpenBLAS and plain loops: cpu_nn*.cpp). Inputs
// and outputs are host-resident (the dispatch copies device data first).
#pragma once
#include "ringblas/nn.hpp"
#include "ringblas/ops.hpp"

namespace ringblas::cpu {
#define RINGBLAS_OP(R, name, params) R name params;
#include "backend/core/dispatch/operations.def"
#undef RINGBLAS_OP
}  // namespace ringblas::cpu
