// `ringblas spdnn --gpus G` under mpirun: features partitioned over G ranks (one per GPU), weights
// replicated, optional rebalancing of the active images after a layer, categories gathered with
// MPI_Gatherv. MPI lives only here; the partitioning is algorithms/sparse_dnn_partition.
#include "spdnn_mpi.hpp"

#include <string>

#include "ringblas/error.hpp"

#if defined(RINGBLAS_HAS_MPI)
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <stdexcept>
#include <tuple>
#include <utility>
#include <vector>

#include "algorithms/sparse_dnn_partition.hpp"
#include "spdnn_device.hpp"

namespace ringblas::cli {
namespace {

namespace sd = sparse_dnn;
using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

/// MPI_Init on construction when nobody did, MPI_Finalize on destruction. Errors in MPI calls
/// keep MPI's default handler (MPI_ERRORS_ARE_FATAL): the job aborts, nothing goes on silently.
class MpiSession {
 public:
  MpiSession() {
    int done = 0;
    MPI_Initialized(&done);
    if (!done) {
      MPI_Init(nullptr, nullptr);
      owned_ = true;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    MPI_Comm node;  // ranks sharing this host: the local rank picks the GPU
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local_rank_);
    MPI_Comm_free(&node);
  }
  ~MpiSession() {
    int done = 0;
    MPI_Finalized(&done);
    if (owned_ && !done) MPI_Finalize();
  }
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  int rank() const { return rank_; }
  int size() const { return size_; }
  int local_rank() const { return local_rank_; }

 private:
  bool owned_ = false;
  int rank_ = 0, size_ = 1, local_rank_ = 0;
};

/// Runs `step` on every rank, then agrees: if a rank threw, it prints which step failed and
/// rethrows, and every other rank throws too, so no rank waits in a collective for one that left.
void on_all_ranks(const MpiSession& mpi, const char* step, const std::function<void()>& work) {
  std::exception_ptr failure;
  try {
    work();
  } catch (...) {
    failure = std::current_exception();
  }
  int ok = failure ? 0 : 1, all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (all) return;
  if (failure) {
    std::fprintf(stderr, "ringblas spdnn: rank %d failed in %s\n", mpi.rank(), step);
    std::rethrow_exception(failure);
  }
  throw std::runtime_error("spdnn rank " + std::to_string(mpi.rank()) +
                           ": stopped because another rank failed in " + step);
}

/// MPI counts are int: int counts and displacements for `counts`, NotImplemented past INT_MAX.
struct IntCounts {
  std::vector<int> counts, displs;
};
IntCounts int_counts(const std::vector<Index>& counts, const char* what) {
  IntCounts c;
  Index at = 0;
  for (Index n : counts) {
    if (at + n > INT_MAX)
      throw NotImplemented(std::string("spdnn: more than 2^31 ") + what + " in one MPI exchange");
    c.counts.push_back(int(n));
    c.displs.push_back(int(at));
    at += n;
  }
  return c;
}

template <class T>
MPI_Datatype mpi_type();
template <>
MPI_Datatype mpi_type<Index>() {
  return MPI_INT64_T;
}
template <>
MPI_Datatype mpi_type<float>() {
  return MPI_FLOAT;
}

template <class T>
std::vector<T> alltoallv(const std::vector<T>& send, const IntCounts& sc, const IntCounts& rc) {
  std::vector<T> recv(std::size_t(rc.displs.empty() ? 0 : rc.displs.back() + rc.counts.back()));
  MPI_Alltoallv(send.data(), sc.counts.data(), sc.displs.data(), mpi_type<T>(), recv.data(),
                rc.counts.data(), rc.displs.data(), mpi_type<T>(), MPI_COMM_WORLD);
  return recv;
}

/// Moves active rows so that every rank holds an equal contiguous share (transfer_counts).
sd::FeatureSlice exchange_rows(const MpiSession& mpi, const sd::FeatureSlice& mine,
                               const std::vector<Index>& active, Index neurons) {
  const auto counts = sd::transfer_counts(active);
  const std::size_t r = std::size_t(mpi.rank()), ranks = std::size_t(mpi.size());
  std::vector<Index> send_rows = counts[r], recv_rows(ranks), send_entries, recv_entries(ranks);
  for (std::size_t s = 0; s < ranks; ++s) recv_rows[s] = counts[s][r];
  sd::PackedRows packed;
  IntCounts srows, rrows;
  on_all_ranks(mpi, "packing rows for rebalancing", [&] {
    packed = sd::pack(mine);
    send_entries = sd::entries_per_group(packed, send_rows);
    srows = int_counts(send_rows, "rows");
    rrows = int_counts(recv_rows, "rows");
  });
  MPI_Alltoall(send_entries.data(), 1, MPI_INT64_T, recv_entries.data(), 1, MPI_INT64_T,
               MPI_COMM_WORLD);
  IntCounts sent, rent;
  on_all_ranks(mpi, "sizing the rebalancing exchange", [&] {
    sent = int_counts(send_entries, "entries");
    rent = int_counts(recv_entries, "entries");
  });
  sd::PackedRows got;
  got.ids = alltoallv(packed.ids, srows, rrows);
  got.lengths = alltoallv(packed.lengths, srows, rrows);
  got.cols = alltoallv(packed.cols, sent, rent);
  got.values = alltoallv(packed.values, sent, rent);
  sd::FeatureSlice out;
  on_all_ranks(mpi, "unpacking rebalanced rows", [&] { out = sd::unpack(got, neurons); });
  return out;
}

/// What rank 0 prints per rank (gathered as doubles). Layer times are the fused chain's CUDA-event
/// time (weights prepared before, as tests/bench/bench_spdnn) when it ran, else wall clock.
struct RankStats {
  double first = 0, last = 0;  ///< rows [first, last) of the static partition
  double wall_s = 0;           ///< barrier to the rank's last layer: preparation, exchange included
  double head_s = 0, tail_s = 0;               ///< layers 1..cut and cut+1..L
  double exchange_s = 0;                       ///< the rebalancing exchange
  double prepare_s = 0;                        ///< weight preparation and upload (fused chain only)
  double active_before = 0, active_after = 0;  ///< active rows at the cut, before/after moving
  double categories = 0;
  double fused = 0;  ///< 1 when the layers ran as the fused GPU chain
  double transfer_s = 0;  ///< features in and ids out (fused chain only)
};
constexpr int kStatFields = 12;
static_assert(sizeof(RankStats) == kStatFields * sizeof(double));

/// The layers of `net` on `slice`, then its rows still active (their activations are needed
/// only when more layers follow: `last` keeps just their ids, which is all the fused chain sends
/// back); adds the layer time to *layer_s.
sd::FeatureSlice run_layers(const sd::Network& net, const sd::FeatureSlice& slice, Context& ctx,
                            const sd::LayerCallback& progress, RankStats& st, double* layer_s,
                            bool last, const SpdnnOptions& opt) {
  sd::InferStats is;
  const auto t0 = clock_type::now();
  sd::FeatureSlice out;
  if (last) {
    for (Index i : sd::infer_categories(net, slice.rows, ctx, progress, &is, opt.upload, opt.overlap,
                                             opt.tail))
      out.ids.push_back(slice.ids[std::size_t(i)]);
  } else {
    out = sd::active_rows(sd::infer(net, slice.rows, ctx, progress, &is), slice.ids);
  }
  const double wall = seconds_since(t0);
  *layer_s += is.fused ? is.chain.inference_ms / 1e3 : wall;
  st.prepare_s += is.fused ? is.chain.prepare_ms / 1e3 : 0.0;
  st.transfer_s += is.fused ? is.chain.transfer_ms / 1e3 : 0.0;
  st.fused = is.fused ? 1.0 : st.fused;
  return out;
}

constexpr int kDeviceText = 160;

}  // namespace

int run_spdnn_mpi(const SpdnnOptions& opt) {
  MpiSession mpi;
  const int rank = mpi.rank(), ranks = mpi.size();
  const bool root = rank == 0;
  if (ranks != int(opt.gpus))
    throw InvalidValue("spdnn --gpus " + std::to_string(opt.gpus) + ": mpirun started " +
                       std::to_string(ranks) + " rank(s); run `mpirun -np " +
                       std::to_string(opt.gpus) + " ringblas spdnn ...`");
  Context ctx(opt.backend);
  ctx.trace = opt.trace;
  const bool on_gpu = opt.backend == Backend::cuda || opt.backend == Backend::verify ||
                      (opt.backend == Backend::automatic && cuda_available());

  // --- device, problem, this rank's block of images ---
  RankDevice dev;
  SpdnnProblem p;
  std::vector<sd::RowRange> ranges;
  sd::FeatureSlice slice;
  sd::Network head, tail;
  Index edges = 0;
  const Index cut = opt.rebalance_after > 0 ? opt.rebalance_after : opt.layers;
  on_all_ranks(mpi, "device selection and loading", [&] {
    if (on_gpu) {
      dev = select_rank_device(mpi.local_rank(), rank);
      ctx.device = dev.device;
    }
    p = load_spdnn_problem(opt);
    edges = p.net.edges();
    if (root) print_spdnn_header(opt, p, ", " + std::to_string(ranks) + " ranks");
    ranges = sd::partition_rows(p.count, ranks);
    slice = sd::slice_rows(p.images, ranges[std::size_t(rank)]);
    p.images = Matrix();
    std::tie(head, tail) = sd::split_layers(std::move(p.net), cut);
  });
  {
    char text[kDeviceText] = {};
    char host[MPI_MAX_PROCESSOR_NAME] = {};
    int host_len = 0;
    MPI_Get_processor_name(host, &host_len);
    if (dev.device >= 0)
      std::snprintf(text, sizeof text, "GPU %d of %d, %s, bus %s, on %s", dev.device, dev.visible,
                    dev.name.c_str(), dev.pci_bus.c_str(), host);
    else
      std::snprintf(text, sizeof text, "cpu on %s", host);
    std::vector<char> all(root ? std::size_t(ranks) * kDeviceText : 0);
    MPI_Gather(text, kDeviceText, MPI_CHAR, all.data(), kDeviceText, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (root) {
      for (int r = 0; r < ranks; ++r)
        for (int q = 0; q < r; ++q)
          if (on_gpu && std::strcmp(&all[std::size_t(r) * kDeviceText],
                                    &all[std::size_t(q) * kDeviceText]) == 0)
            std::printf("warning: ranks %d and %d share one GPU (more ranks than GPUs on a host)\n",
                        q, r);
      for (int r = 0; r < ranks; ++r)
        std::printf("rank %d: images [%lld, %lld), %s\n", r,
                    (long long)ranges[std::size_t(r)].begin, (long long)ranges[std::size_t(r)].end,
                    &all[std::size_t(r) * kDeviceText]);
      std::fflush(stdout);
    }
  }

  // --- inference on the rank's block; rebalancing at the cut ---
  auto progress = [&](Index offset) {
    return [&, offset](Index k, Index active) {
      if (root && p.progress > 0 && ((k + offset) % p.progress == 0 || k + offset == opt.layers))
        std::printf("  rank 0, layer %lld: %lld images active\n", (long long)(k + offset),
                    (long long)active);
    };
  };
  on_all_ranks(mpi, "reserving device memory", [&] {
    if (on_gpu)
      reserve_start_up(opt, head, Index(slice.ids.size()), ctx, root);  // start-up, not inference
  });
  RankStats st;
  st.first = double(ranges[std::size_t(rank)].begin);
  st.last = double(ranges[std::size_t(rank)].end);
  MPI_Barrier(MPI_COMM_WORLD);
  const auto t0 = clock_type::now();
  on_all_ranks(mpi, "inference", [&] {
    slice = run_layers(head, slice, ctx, progress(0), st, &st.head_s, tail.layers() == 0, opt);
  });
  st.active_before = st.active_after = double(slice.ids.size());
  double imbalance = 0;
  bool moved = false;
  if (tail.layers() > 0) {
    const Index mine = Index(slice.ids.size());
    std::vector<Index> active(static_cast<std::size_t>(ranks));
    MPI_Allgather(&mine, 1, MPI_INT64_T, active.data(), 1, MPI_INT64_T, MPI_COMM_WORLD);
    imbalance = sd::imbalance(active);
    const auto tx = clock_type::now();
    // Policy: move rows only when the busiest rank is over the threshold above the mean; the
    // decision uses the allgathered counts, so every rank takes the same branch. It is off by
    // default (--rebalance-after 0) because on the Challenge inputs it cannot pay: measured with
    // 60,000 images (1200 x 50) on 4 ranks, the active counts differ by 0.1% after layer 2, 0.3%
    // after layer 4 and 1.0% after layer 10 (260/265 rows per rank); with 1200 images on 2 ranks,
    // 6% after layer 5 and 24% only after layer 10, when 8/13 rows are left. Imbalance appears
    // only once a few rows remain, where a GPU layer is launch-bound (~21 us, bench_spdnn),
    // while a cut splits the fused chain in two, with the tail's weight preparation and a host
    // round trip of the surviving features in between.
    if (imbalance > opt.rebalance_threshold) {
      slice = exchange_rows(mpi, slice, active, opt.neurons);
      moved = true;
    }
    st.exchange_s = seconds_since(tx);
    st.active_after = double(slice.ids.size());
    on_all_ranks(mpi, "inference after the cut", [&] {
      slice = run_layers(tail, slice, ctx, progress(cut), st, &st.tail_s, true, opt);
    });
  }
  on_all_ranks(mpi, "device check", [&] {
    if (on_gpu && !current_device_is(dev.device))
      throw CudaError("spdnn rank " + std::to_string(rank) + ": device " +
                      std::to_string(dev.device) + " is no longer current after inference");
  });
  st.wall_s = seconds_since(t0);
  st.categories = double(slice.ids.size());

  // --- categories and timings to rank 0 ---
  const Index mine = Index(slice.ids.size());
  std::vector<Index> per_rank(root ? std::size_t(ranks) : 0);
  MPI_Gather(&mine, 1, MPI_INT64_T, per_rank.data(), 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
  IntCounts rc;
  on_all_ranks(mpi, "sizing the category gather", [&] {
    if (root) rc = int_counts(per_rank, "categories");
  });
  std::vector<Index> gathered(
      root ? std::size_t(rc.displs.empty() ? 0 : rc.displs.back() + rc.counts.back()) : 0);
  MPI_Gatherv(slice.ids.data(), int(mine), MPI_INT64_T, gathered.data(), rc.counts.data(),
              rc.displs.data(), MPI_INT64_T, 0, MPI_COMM_WORLD);
  const double total_s = seconds_since(t0);
  std::vector<RankStats> stats(root ? std::size_t(ranks) : 0);
  MPI_Gather(&st, kStatFields, MPI_DOUBLE, stats.data(), kStatFields, MPI_DOUBLE, 0,
             MPI_COMM_WORLD);

  int status = 0;
  on_all_ranks(mpi, "the report", [&] {
    if (!root) return;
    const double e = double(edges);
    // The ranks' layers run side by side; the exchange waits for every rank, so the parallel
    // layer time is the slowest head + the slowest exchange + the slowest tail.
    double head = 0, exchange = 0, tail_max = 0, sum = 0, slowest = 0;
    bool fused = true;
    for (int r = 0; r < ranks; ++r) {
      const RankStats& s = stats[std::size_t(r)];
      head = std::max(head, s.head_s);
      exchange = std::max(exchange, s.exchange_s);
      tail_max = std::max(tail_max, s.tail_s);
      sum += s.head_s + s.tail_s;
      slowest = std::max(slowest, s.head_s + s.tail_s);
      fused = fused && s.fused != 0;
      std::printf(
          "rank %d: %lld images, layers %.3f ms, %.3f TeraEdges/s, %lld categories (wall %.4f s, "
          "weight preparation %.1f ms, features in and ids out %.1f ms)",
          r, (long long)(s.last - s.first), 1e3 * (s.head_s + s.tail_s),
          (s.last - s.first) * e / (s.head_s + s.tail_s) / 1e12, (long long)s.categories, s.wall_s,
          1e3 * s.prepare_s, 1e3 * s.transfer_s);
      if (tail.layers() > 0)
        std::printf(" | layers 1-%lld %.3f ms, active %lld -> %lld after the exchange (%.3f ms)",
                    (long long)cut, 1e3 * s.head_s, (long long)s.active_before,
                    (long long)s.active_after, 1e3 * s.exchange_s);
      std::printf("\n");
    }
    if (tail.layers() > 0)
      std::printf(
          "rebalance after layer %lld: imbalance %.1f%% (max/mean - 1), threshold %.1f%%: %s\n",
          (long long)cut, 100 * imbalance, 100 * opt.rebalance_threshold,
          moved ? "rows moved" : "not moved");
    const double layers_s = head + exchange + tail_max;
    std::printf(
        "inference: %.4f s on %d ranks (whole: barrier to gathered categories; weight "
        "preparation, features in, layers, categories out), %.3f TeraEdges/s\n",
        total_s, ranks, double(p.count) * e / total_s / 1e12);
    std::printf(
        "layers: %.3f ms, %.3f TeraEdges/s (%s; slowest rank%s); load balance %.1f%% (mean/max)\n",
        1e3 * layers_s, double(p.count) * e / layers_s / 1e12,
        fused ? "fused GPU chain, CUDA events, weights prepared before" : "wall clock",
        tail.layers() > 0 ? " per phase, exchange included" : "",
        100 * sum / ranks / std::max(slowest, 1e-12));
    std::printf("whole / layers: %.2fx\n", total_s / std::max(layers_s, 1e-12));
    if (opt.baseline_ms > 0)
      std::printf("scaling efficiency: %.1f%% (1-rank layers %.3f ms / (%d x %.3f ms))\n",
                  100 * opt.baseline_ms / (1e3 * layers_s * ranks), opt.baseline_ms, ranks,
                  1e3 * layers_s);
    std::vector<std::vector<Index>> lists;
    for (int r = 0; r < ranks; ++r)
      lists.emplace_back(gathered.begin() + rc.displs[std::size_t(r)],
                         gathered.begin() + rc.displs[std::size_t(r)] + rc.counts[std::size_t(r)]);
    status = check_spdnn_truth(opt, p, sd::merge_categories(lists));
    std::fflush(stdout);
  });
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return status;
}

}  // namespace ringblas::cli

#else

namespace ringblas::cli {

int run_spdnn_mpi(const SpdnnOptions& opt) {
  throw NotImplemented(
      "spdnn --gpus " + std::to_string(opt.gpus) +
      ": multi-GPU inference needs the MPI build (CMake found no MPI when this ringblas "
      "was configured)");
}

}  // namespace ringblas::cli

#endif
