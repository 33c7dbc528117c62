// `ringblas spdnn --gpus G` under mpirun: one rank per GPU (built only with MPI).
#pragma once
#include "spdnn_problem.hpp"

namespace ringblas::cli {

/// Initializes MPI, checks that G ranks were started, runs the rank's block of images (features
/// partitioned statically, weights replicated), optionally rebalances the active images after
/// opt.rebalance_after, gathers the categories on rank 0, which prints per-rank and total
/// throughput and PASS/FAIL; every rank returns rank 0's exit status. NotImplemented in a build
/// without MPI.
int run_spdnn_mpi(const SpdnnOptions& opt);

}  // namespace ringblas::cli
