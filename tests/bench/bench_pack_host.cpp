// Host side of the packed upload (backend/cuda/sparse_layer/packed_pack.hpp), timed without a
// GPU: the slot plan and the packing of the Graph Challenge weights (every layer, as
// prepare_network sends them) and images (as mxm_layers sends them), on 1 thread and on T threads
// (slot s on thread s % T, as upload_packed does; plain host buffers, no copies). The plan "1"
// is the session-7 plan (4 MB slots), "T" the plan cut finer so that every thread gets slots.
// Usage: bench_pack_host [--data DIR] [--only 1024x120,16384x120] [--threads 8] [--repeats 3]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "algorithms/graph_challenge_io.hpp"
#include "algorithms/sparse_dnn.hpp"
#include "backend/cuda/sparse_layer/packed_pack.hpp"
#include "tests/bench/bench_args.hpp"

namespace {

using namespace ringblas;
namespace pk = ringblas::cuda::sparse_layer::packing;
namespace gc = ringblas::graph_challenge;
using clock_type = std::chrono::steady_clock;

double ms_since(clock_type::time_point t0) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Timing {
  std::size_t slots = 0, bytes = 0;
  double plan_ms = 0, pack_ms = 0;
};

/// Plans with `plan_workers`, then packs every slot on `threads` threads; medians of `repeats`.
Timing time_pack(const std::vector<const Matrix*>& mats, unsigned plan_workers, unsigned threads,
                 int repeats) {
  const pk::Sources from = pk::sources_of(mats);
  const unsigned width = pk::width_for(mats);
  std::vector<std::unique_ptr<unsigned char[]>> bufs;
  for (unsigned t = 0; t < 2 * threads; ++t) bufs.emplace_back(new unsigned char[pk::kSlotBytes]);
  std::vector<double> plan_ms, pack_ms;
  Timing out;
  for (int r = 0; r < repeats; ++r) {
    auto t0 = clock_type::now();
    const pk::Plan plan = pk::plan_slots(from.src, width, plan_workers);
    plan_ms.push_back(ms_since(t0));
    const std::size_t slots = plan.slot_first.size() - 1;
    std::vector<std::size_t> bytes(threads, 0);
    t0 = clock_type::now();
    auto work = [&](unsigned t) {
      bool iso = true;
      for (std::size_t s = t, use = 0; s < slots; s += threads, ++use)
        bytes[t] += pk::pack_slot(from, plan, s, width, bufs[2 * t + use % 2].get(), iso);
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work, t);
    work(0);
    for (auto& th : pool) th.join();
    pack_ms.push_back(ms_since(t0));
    out.slots = slots;
    out.bytes = 0;
    for (std::size_t b : bytes) out.bytes += b;
  }
  out.plan_ms = median(plan_ms);
  out.pack_ms = median(pack_ms);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string data = RINGBLAS_DATA_DIR "/graphchallenge_dnn", only = "1024x120,16384x120";
  unsigned threads = 8;
  int repeats = 3;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--data" && i + 1 < argc)
      data = argv[++i];
    else if (a == "--only" && i + 1 < argc)
      only = argv[++i];
    else if (a == "--threads" && i + 1 < argc)
      threads = unsigned(std::stoi(argv[++i]));
    else if (a == "--repeats" && i + 1 < argc)
      repeats = std::stoi(argv[++i]);
    else {
      std::fprintf(stderr,
                   "usage: bench_pack_host [--data DIR] [--only 1024x120,...] [--threads T] "
                   "[--repeats R]\n");
      return 2;
    }
  }
  const Matrix real = gc::read_images(data + "/sparse-images-1024_subset1200.mtx.gz", 1024);
  std::printf("host threads available: %u; packing on 1 and %u threads\n\n",
              std::thread::hardware_concurrency(), threads);
  std::printf(
      "| network | what | entries | plan | slots | MB packed | plan ms | pack ms, 1 thread "
      "| ns/entry | pack ms, %u threads |\n|---|---|---|---|---|---|---|---|---|---|\n",
      threads);
  for (const std::string& name : bench::split_list(only)) {
    const std::size_t x = name.find('x');
    const Index n = std::stoll(name.substr(0, x)), layers = std::stoll(name.substr(x + 1));
    const sparse_dnn::Network net = sparse_dnn::graph_challenge_network(n, layers, data);
    // As bench_spdnn: pixel replication by 2 per side for 4096 neurons, 4 for 16384.
    const Index factor = n == 1024 ? 1 : (n == 4096 ? 2 : (n == 16384 ? 4 : 8));
    const Matrix imgs =
        gc::take_rows(factor == 1 ? real : gc::upsample_images(real, factor), real.nrows() * 50);
    std::vector<const Matrix*> weights;
    for (const Matrix& w : net.weights) weights.push_back(&w);
    for (int what = 0; what < 2; ++what) {
      const std::vector<const Matrix*> mats =
          what == 0 ? weights : std::vector<const Matrix*>{&imgs};
      std::size_t entries = 0;
      for (const Matrix* m : mats) entries += std::size_t(m->nnz());
      for (unsigned plan_workers : {1u, threads}) {
        const Timing one = time_pack(mats, plan_workers, 1, repeats);
        const Timing many = time_pack(mats, plan_workers, threads, repeats);
        std::printf("| %s | %s | %zu | %u | %zu | %.1f | %.3f | %.2f | %.2f | %.2f |\n",
                    name.c_str(), what == 0 ? "weights" : "images", entries, plan_workers,
                    one.slots, double(one.bytes) / 1e6, one.plan_ms, one.pack_ms,
                    one.pack_ms * 1e6 / double(std::max<std::size_t>(entries, 1)), many.pack_ms);
      }
    }
  }
  return 0;
}
