// Index maps of extract and assign built on the host: counting sorts of the index lists.
#include "backend/cuda/index_ops/host_maps.hpp"

namespace ringblas::cuda::index_ops {

host_csr positions_of(const Indices& ix, Index n_src) {
  host_csr m;
  m.ptr.assign(std::size_t(n_src) + 1, 0);
  for (Index i : ix.list) ++m.ptr[std::size_t(i) + 1];
  for (std::size_t c = 0; c < std::size_t(n_src); ++c) m.ptr[c + 1] += m.ptr[c];
  m.out.resize(ix.list.size());
  std::vector<std::int64_t> next(m.ptr.begin(), m.ptr.end() - 1);
  for (std::size_t k = 0; k < ix.list.size(); ++k)
    m.out[std::size_t(next[std::size_t(ix.list[k])]++)] = std::int64_t(k);
  return m;
}

bool is_sorted(const Indices& ix, bool strict) {
  for (std::size_t k = 1; k < ix.list.size(); ++k)
    if (strict ? ix.list[k] <= ix.list[k - 1] : ix.list[k] < ix.list[k - 1]) return false;
  return true;
}

bool has_repeats(const Indices& ix, Index n) {
  if (ix.all_) return false;
  std::vector<bool> seen(std::size_t(n), false);
  for (Index i : ix.list) {
    if (seen[std::size_t(i)]) return true;
    seen[std::size_t(i)] = true;
  }
  return false;
}

std::vector<std::int64_t> inverse(const Indices& ix, Index n) {
  std::vector<std::int64_t> pos(std::size_t(n), -1);
  for (std::size_t k = 0; k < ix.list.size(); ++k) pos[std::size_t(ix.list[k])] = std::int64_t(k);
  return pos;
}

}  // namespace ringblas::cuda::index_ops
