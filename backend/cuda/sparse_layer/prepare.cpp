// Host preprocessing of a sparse layer into the sparse_layer kernel's blob (see prepare.hpp).
#include "backend/cuda/sparse_layer/prepare.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

#include "backend/cuda/sparse_layer/policy.hpp"
#include "ringblas/error.hpp"

namespace ringblas::cuda::sparse_layer {
namespace {

std::size_t words_for_u16(std::size_t n) { return (n + 1) / 2; }

}  // namespace

Matrix transpose_host(const Matrix& w) {
  if (w.location() != Location::host)
    throw InvalidValue("sparse_layer::transpose_host: the matrix must be on the host");
  const Index m = w.nrows(), n = w.ncols();
  const std::vector<Index> rp = w.row_ptr_vector(), ci = w.col_idx_vector();
  const std::vector<float> v = w.type() == Type::fp32 ? w.values_vector<float>()
                                                       : w.cast(Type::fp32).values_vector<float>();
  std::vector<Index> tp(std::size_t(n + 1), 0);
  for (Index c : ci) ++tp[std::size_t(c + 1)];
  for (Index j = 0; j < n; ++j) tp[std::size_t(j + 1)] += tp[std::size_t(j)];
  std::vector<Index> next(tp.begin(), tp.end() - 1), tc(ci.size());
  std::vector<float> tv(ci.size());
  for (Index i = 0; i < m; ++i)  // rows in order, so each transposed row comes out sorted
    for (Index p = rp[std::size_t(i)]; p < rp[std::size_t(i + 1)]; ++p) {
      const Index q = next[std::size_t(ci[std::size_t(p)])]++;
      tc[std::size_t(q)] = i;
      tv[std::size_t(q)] = v[std::size_t(p)];
    }
  return Matrix::from_csr(n, m, tp, tc, tv);
}

PreparedLayer prepare_layer(const Matrix& a, EllFill fill) {
  using P = Policy;
  if (a.location() != Location::host)
    throw InvalidValue("sparse_layer::prepare_layer: the matrix must be on the host");
  if (a.nrows() >= (Index{1} << 31) || a.ncols() >= (Index{1} << 31))
    throw NotImplemented("sparse_layer: matrices with 2^31 or more rows or columns");
  const std::int32_t outputs = std::int32_t(a.nrows()), inputs = std::int32_t(a.ncols());
  const std::vector<Index> rp = a.row_ptr_vector(), ci = a.col_idx_vector();
  const std::vector<float> v = a.type() == Type::fp32 ? a.values_vector<float>()
                                                       : a.cast(Type::fp32).values_vector<float>();
  const std::int32_t blocks = (outputs + P::block - 1) / P::block;

  std::vector<std::int32_t> stage_displ{0}, map_displ{0}, map, warp_displ{0};
  std::vector<std::uint16_t> index;
  std::vector<float> value;
  std::vector<std::int32_t> slot(std::size_t(std::max(inputs, 1)), -1);  // input row -> buffer slot
  std::vector<std::int32_t> rows;
  std::vector<Index> by_bank[32][32];  // per lane, per bank: the lane's entries in this stage
  std::uint32_t bank_mask[32];
  std::uint16_t row_index[32];
  float row_value[32];
  for (std::int32_t b = 0; b < blocks; ++b) {
    const Index j0 = Index(b) * P::block, j1 = std::min<Index>(j0 + P::block, outputs);
    rows.clear();
    for (Index p = rp[std::size_t(j0)]; p < rp[std::size_t(j1)]; ++p) rows.push_back(std::int32_t(ci[std::size_t(p)]));
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    // Stages of at most P::buffer consecutive (sorted) input rows; a block without entries has none.
    for (std::size_t s0 = 0; s0 < rows.size(); s0 += P::buffer) {
      const std::size_t s1 = std::min(rows.size(), s0 + std::size_t(P::buffer));
      const std::int32_t lo = rows[s0], hi = rows[s1 - 1];
      for (std::size_t k = s0; k < s1; ++k) {
        slot[std::size_t(rows[k])] = std::int32_t(k - s0);
        map.push_back(rows[k]);
      }
      map_displ.push_back(std::int32_t(map.size()));
      for (int w = 0; w < P::warps; ++w) {
        // Sliced ELL of this warp's 32 rows restricted to the stage, padded to the longest row.
        std::int32_t width = 0;
        Index first[32], last[32];
        for (int lane = 0; lane < 32; ++lane) {
          const Index j = j0 + Index(w) * 32 + lane;
          first[lane] = last[lane] = 0;
          if (j >= j1) continue;
          const Index* b0 = ci.data() + rp[std::size_t(j)];
          const Index* b1 = ci.data() + rp[std::size_t(j + 1)];
          first[lane] = std::lower_bound(b0, b1, Index(lo)) - ci.data();
          last[lane] = std::upper_bound(b0, b1, Index(hi)) - ci.data();
          width = std::max<std::int32_t>(width, std::int32_t(last[lane] - first[lane]));
        }
        // Order each lane's entries so that an ELL row's 32 reads hit distinct shared-memory
        // banks where possible (bank = slot mod 32): greedily, each lane takes an entry whose
        // bank no earlier lane of the row took. Row lengths, and so the width, do not change.
        int demand[32] = {};  // entries of the warp left per bank
        for (int lane = 0; lane < 32; ++lane) {
          bank_mask[lane] = 0;
          for (int b = 0; b < 32; ++b) by_bank[lane][b].clear();
          for (Index p = first[lane]; p < last[lane]; ++p) {
            const int b = slot[std::size_t(ci[std::size_t(p)])] & 31;
            by_bank[lane][b].push_back(p);
            bank_mask[lane] |= 1u << b;
            ++demand[b];
          }
        }
        for (std::int32_t e = 0; e < width; ++e) {
          std::uint32_t used = 0;
          std::int32_t reads[32];  // per used bank: the slot its first reader in the row took
          for (int k = 0; k < 32; ++k) {
            const int lane = (k + e) & 31;  // rotate who picks first
            if (!bank_mask[lane]) {
              row_index[lane] = 0;
              row_value[lane] = 0.0f;
              continue;
            }
            int b = -1;
            std::size_t at = 0;
            // EllFill::broadcast: a slot an earlier lane of the row reads costs no wavefront
            // (outputs that share inputs, 16 per input set in RadiX-Net, then read in lockstep).
            if (fill == EllFill::broadcast)
              for (std::uint32_t o = bank_mask[lane] & used; o && b < 0; o &= o - 1) {
                const int c = __builtin_ctz(o);
                const std::vector<Index>& list = by_bank[lane][c];
                for (std::size_t i = 0; i < list.size() && b < 0; ++i)
                  if (slot[std::size_t(ci[std::size_t(list[i])])] == reads[c]) b = c, at = i;
              }
            if (b < 0) {
              // Among the free banks, drain the one this warp still needs most.
              std::uint32_t options = bank_mask[lane] & ~used;
              if (!options) options = bank_mask[lane];
              b = __builtin_ctz(options);
              for (std::uint32_t o = options & (options - 1); o; o &= o - 1) {
                const int c = __builtin_ctz(o);
                if (demand[c] > demand[b]) b = c;
              }
              at = by_bank[lane][b].size() - 1;
            }
            --demand[b];
            const Index p = by_bank[lane][b][at];
            by_bank[lane][b].erase(by_bank[lane][b].begin() + std::ptrdiff_t(at));
            if (by_bank[lane][b].empty()) bank_mask[lane] &= ~(1u << b);
            if (!(used >> b & 1u)) reads[b] = slot[std::size_t(ci[std::size_t(p)])];
            used |= 1u << b;
            row_index[lane] = std::uint16_t(slot[std::size_t(ci[std::size_t(p)])]);
            row_value[lane] = v[std::size_t(p)];
          }
          index.insert(index.end(), row_index, row_index + 32);
          value.insert(value.end(), row_value, row_value + 32);
        }
        warp_displ.push_back(warp_displ.back() + width);
      }
    }
    stage_displ.push_back(std::int32_t(map_displ.size() - 1));
  }

  PreparedLayer out;
  BlobLayout& L = out.layout;
  L.outputs = outputs;
  L.inputs = inputs;
  L.blocks = blocks;
  L.stages = std::int32_t(map_displ.size() - 1);
  L.entries = std::int64_t(value.size());
  for (std::size_t st = 0; st + 1 < map_displ.size(); ++st)
    L.max_stage = std::max(L.max_stage, map_displ[st + 1] - map_displ[st]);
  std::size_t w = 0;
  auto place = [&](std::size_t words) {
    const std::size_t at = w;
    w += (words + 3) / 4 * 4;  // 16-byte aligned arrays
    return at;
  };
  L.stage_displ = place(stage_displ.size());
  L.map_displ = place(map_displ.size());
  L.map = place(map.size());
  L.warp_displ = place(warp_displ.size());
  L.index = place(words_for_u16(index.size()));
  L.value = place(value.size());
  L.words = w;
  out.blob.assign(w, 0);
  auto put = [&](std::size_t at, const void* src, std::size_t bytes) {
    if (bytes) std::memcpy(out.blob.data() + at, src, bytes);
  };
  put(L.stage_displ, stage_displ.data(), stage_displ.size() * 4);
  put(L.map_displ, map_displ.data(), map_displ.size() * 4);
  put(L.map, map.data(), map.size() * 4);
  put(L.warp_displ, warp_displ.data(), warp_displ.size() * 4);
  put(L.index, index.data(), index.size() * 2);
  put(L.value, value.data(), value.size() * 4);
  return out;
}

namespace {

/// out[k] = make(k) for k < count, spread over `threads` host threads (0: all cores); the first
/// exception is rethrown after every thread has stopped.
template <class Make>
std::vector<PreparedLayer> in_parallel(std::size_t count, unsigned threads, const Make& make) {
  std::vector<PreparedLayer> out(count);
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads = unsigned(std::min<std::size_t>(threads, count));
  std::atomic<std::size_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_lock;
  auto work = [&] {
    for (std::size_t k; (k = next++) < count;) {
      try {
        out[k] = make(k);
      } catch (...) {
        const std::lock_guard<std::mutex> hold(failure_lock);
        if (!failure) failure = std::current_exception();
        next = count;
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
  return out;
}

}  // namespace

std::vector<PreparedLayer> prepare_layers(const std::vector<Matrix>& weights, unsigned threads) {
  return in_parallel(weights.size(), threads,
                     [&](std::size_t k) { return prepare_layer(transpose_host(weights[k])); });
}

std::vector<std::int32_t> output_order(const Matrix& a) {
  const Index m = a.nrows();
  const std::vector<Index> rp = a.row_ptr_vector(), ci = a.col_idx_vector();
  std::vector<std::int64_t> key(static_cast<std::size_t>(m));
  for (Index j = 0; j < m; ++j)
    key[std::size_t(j)] = rp[std::size_t(j + 1)] > rp[std::size_t(j)] ? ci[std::size_t(rp[std::size_t(j)])] : a.ncols();
  std::vector<std::int32_t> order(static_cast<std::size_t>(m));
  for (Index j = 0; j < m; ++j) order[std::size_t(j)] = std::int32_t(j);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::int32_t x, std::int32_t y) { return key[std::size_t(x)] < key[std::size_t(y)]; });
  return order;
}

Matrix permute_layer(const Matrix& a, const std::vector<std::int32_t>& order,
                     const std::vector<std::int32_t>& label) {
  const std::vector<Index> rp = a.row_ptr_vector(), ci = a.col_idx_vector();
  const std::vector<float> v = a.values_vector<float>();
  std::vector<Index> tp{0}, tc;
  std::vector<float> tv;
  std::vector<std::pair<Index, float>> row;
  for (std::int32_t j : order) {
    row.clear();
    for (Index p = rp[std::size_t(j)]; p < rp[std::size_t(j + 1)]; ++p)
      row.emplace_back(label.empty() ? ci[std::size_t(p)] : label[std::size_t(ci[std::size_t(p)])], v[std::size_t(p)]);
    std::sort(row.begin(), row.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    for (const auto& [c, x] : row) {
      tc.push_back(c);
      tv.push_back(x);
    }
    tp.push_back(Index(tc.size()));
  }
  return Matrix::from_csr(a.nrows(), a.ncols(), tp, tc, tv);
}

PreparedChain prepare_chain(const std::vector<Matrix>& weights, unsigned threads, EllFill fill) {
  PreparedChain out;
  std::vector<Matrix> relabeled;
  std::vector<std::int32_t> label;  // the previous layer's inverse order (empty: layer 1)
  for (const Matrix& w : weights) {
    const Matrix a = transpose_host(w);
    out.order.push_back(output_order(a));
    relabeled.push_back(permute_layer(a, out.order.back(), label));
    label.assign(out.order.back().size(), 0);
    for (std::size_t t = 0; t < label.size(); ++t) label[std::size_t(out.order.back()[t])] = std::int32_t(t);
  }
  out.layers = in_parallel(relabeled.size(), threads,
                           [&](std::size_t k) { return prepare_layer(relabeled[k], fill); });
  return out;
}

}  // namespace ringblas::cuda::sparse_layer
