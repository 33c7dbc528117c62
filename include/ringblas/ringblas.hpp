// The ringblas public API in one include.
#pragma once
#include "ringblas/cbsr.hpp"
#include "ringblas/codes.hpp"
#include "ringblas/context.hpp"
#include "ringblas/descriptor.hpp"
#include "ringblas/error.hpp"
#include "ringblas/io.hpp"
#include "ringblas/kernels.hpp"
#include "ringblas/matrix.hpp"
#include "ringblas/ops.hpp"
#include "ringblas/row_prune.hpp"
#include "ringblas/semiring.hpp"
#include "ringblas/types.hpp"
