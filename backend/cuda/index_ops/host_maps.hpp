// Index maps of extract and assign built on the host from the index lists (plain C++).
#pragma once
#include <cstdint>
#include <vector>

#include "ringblas/descriptor.hpp"

namespace ringblas::cuda::index_ops {

/// CSR from source index to the output positions that take it: positions k with ix(k) = c,
/// ascending (extract's column map; repeated indices give several positions).
struct host_csr {
  std::vector<std::int64_t> ptr, out;
};
host_csr positions_of(const Indices& ix, Index n_src);

/// Is ix(0), ix(1), ... non-decreasing (strictly increasing when `strict`)?
bool is_sorted(const Indices& ix, bool strict);

/// Does ix name some index twice?
bool has_repeats(const Indices& ix, Index n);

/// pos[c] = k where ix(k) = c, or -1 (ix without repeats); the inverse of an assign index list.
std::vector<std::int64_t> inverse(const Indices& ix, Index n);

}  // namespace ringblas::cuda::index_ops
