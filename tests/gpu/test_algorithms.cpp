// The graph algorithms (algorithms/) on the GPU against the same algorithm on the cpu backend,
// on the shared graphs: Backend::cuda (every operation on a cuda kernel, operands on the device
// throughout; NotImplemented names an operation still missing there) and Backend::automatic
// with the graph on the device (cuda where a kernel exists, else the cpu fallback); the device
// graph with 64-bit and with 32-bit indices.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <string>

#include "algorithms/betweenness.hpp"
#include "algorithms/bfs.hpp"
#include "algorithms/connected_components.hpp"
#include "algorithms/graph_vectors.hpp"
#include "algorithms/kcore.hpp"
#include "algorithms/pagerank.hpp"
#include "algorithms/sssp.hpp"
#include "algorithms/triangle_count.hpp"
#include "support/gpu_fixture.hpp"
#include "support/graph_cases.hpp"
#include "support/random_matrix.hpp"

namespace ringblas::test {
namespace {

const std::vector<std::string> kGraphs = {"suitesparse/karate.mtx", "suitesparse/Erdos971.mtx",
                                          "snap/facebook_combined.txt.gz", "snap/CA-HepTh.txt.gz",
                                          "snap/soc-Epinions1_lwcc_undirected.txt.gz"};

/// The graphs a run covers: all of kGraphs, or only the two small suitesparse ones when
/// RINGBLAS_TEST_SMALL_GRAPHS is set (the compute-sanitizer run: the SNAP graphs take minutes
/// under memcheck; the plain run covers them). The run prints which set it used.
std::vector<std::string> graphs_under_test() {
  const char* small = std::getenv("RINGBLAS_TEST_SMALL_GRAPHS");
  if (small == nullptr || *small == '\0') return kGraphs;
  std::printf("RINGBLAS_TEST_SMALL_GRAPHS set: karate and Erdos971 only\n");
  return {kGraphs[0], kGraphs[1]};
}

class AlgorithmsGpu : public GpuTest, public ::testing::WithParamInterface<Backend> {
 protected:
  Context cpu{Backend::cpu};
  Context gpu{GetParam()};

  /// Runs `body(A_host, A_device)` for every shared graph present, the device copy once with
  /// 64-bit and once with 32-bit indices (the benchmark's device graph; the kernels' width).
  template <class F>
  void for_each_graph(F&& body) {
    for (const std::string& file : graphs_under_test()) {
      if (!data_present(file)) continue;
      SCOPED_TRACE(file);
      const Matrix host = load_shared_graph(file);
      for (IndexType it : {IndexType::i64, IndexType::i32}) {
        SCOPED_TRACE(it == IndexType::i32 ? "32-bit device indices" : "64-bit device indices");
        poison_device_pool(std::size_t(host.nnz()) * 16 + 4096, gpu);
        body(host, host.with_index_type(it).to(Location::device, gpu));
      }
    }
  }
  template <class T>
  std::vector<T> on_host(const Vector& v, T missing, Context& ctx) {
    // A strict cuda run must have left its result on the device.
    if (&ctx == &gpu && GetParam() == Backend::cuda)
      EXPECT_EQ(v.location(), Location::device) << "the result left the device";
    return dense_of<T>(v, missing, ctx);
  }
  void expect_near(const std::vector<double>& got, const std::vector<double>& want, double rel) {
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i)
      ASSERT_NEAR(got[i], want[i], rel * (1 + std::fabs(want[i]))) << "vertex " << i;
  }
};

TEST_P(AlgorithmsGpu, Bfs) {
  for_each_graph([&](const Matrix& h, const Matrix& d) {
    algorithms::BfsOptions opt;
    opt.parents = true;
    opt.symmetric = true;
    const auto want = algorithms::bfs(h, 1, opt, cpu);
    const auto got = algorithms::bfs(d, 1, opt, gpu);
    const auto level = on_host<Index>(got.level, -1, gpu);
    EXPECT_EQ(level, on_host<Index>(want.level, -1, cpu));
    // Parents may differ (any_secondi): each must sit one level up, joined by an edge.
    const auto parent = on_host<Index>(*got.parent, -1, gpu);
    const Adjacency adj = adjacency_of(h);
    for (Index v = 0; v < adj.n(); ++v) {
      if (level[v] <= 0) continue;
      const Index p = parent[v];
      ASSERT_GE(p, 0) << "vertex " << v;
      ASSERT_EQ(level[p], level[v] - 1) << "vertex " << v;
      bool edge = false;
      for (auto [w, x] : adj.out[p]) edge |= w == v;
      ASSERT_TRUE(edge) << "vertex " << v << " parent " << p;
    }
    // The vertex-count switch (the default is Beamer's edge counts): other directions, the
    // same levels.
    opt.parents = false;
    opt.edge_counts = false;
    EXPECT_EQ(on_host<Index>(algorithms::bfs(d, 1, opt, gpu).level, -1, gpu), level);
    opt.edge_counts = true;
    // ... with the out-degrees given (the graph property kept on the device, as the benchmark).
    const std::vector<Index> rp = h.row_ptr_vector();
    std::vector<Index> degree(rp.size() - 1);
    for (std::size_t i = 0; i + 1 < rp.size(); ++i) degree[i] = rp[i + 1] - rp[i];
    const Vector deg = Vector::dense<Index>(degree).to(Location::device, gpu);
    opt.out_degree = &deg;
    EXPECT_EQ(on_host<Index>(algorithms::bfs(d, 1, opt, gpu).level, -1, gpu), level);
  });
}

TEST_P(AlgorithmsGpu, PageRank) {
  for_each_graph([&](const Matrix& h, const Matrix& d) {
    algorithms::PageRankOptions opt;
    opt.tol = 1e-12;
    const auto want = algorithms::pagerank(h, opt, cpu);
    const auto got = algorithms::pagerank(d, opt, gpu);
    EXPECT_TRUE(got.converged);
    const auto want_rank = on_host<double>(want.rank, -1, cpu);
    expect_near(on_host<double>(got.rank, -1, gpu), want_rank, 1e-9);
    // The pull form y = Aᵀ +.× (x .* w) with Aᵀ given (the benchmark's: A itself, symmetric).
    Matrix at(d.ncols(), d.nrows(), d.type());
    at = at.to(Location::device, gpu);
    transpose(at, nullptr, no_accum, d, {}, gpu);
    opt.transposed = &at;
    const auto pulled = algorithms::pagerank(d, opt, gpu);
    EXPECT_TRUE(pulled.converged);
    expect_near(on_host<double>(pulled.rank, -1, gpu), want_rank, 1e-9);
  });
}

TEST_P(AlgorithmsGpu, TriangleCount) {
  for_each_graph([&](const Matrix& h, const Matrix& d) {
    for (auto m : {algorithms::TriangleMethod::automatic, algorithms::TriangleMethod::forward,
                   algorithms::TriangleMethod::sandia_llt, algorithms::TriangleMethod::sandia_ll,
                   algorithms::TriangleMethod::sandia_lut, algorithms::TriangleMethod::cohen})
      for (bool presort : {true, false}) {
        algorithms::TriangleOptions opt;
        opt.method = m;
        opt.presort = presort;
        EXPECT_EQ(algorithms::triangle_count(d, opt, gpu), algorithms::triangle_count(h, opt, cpu))
            << "method " << int(m) << " presort " << presort;
      }
  });
}

TEST_P(AlgorithmsGpu, ConnectedComponents) {
  for_each_graph([&](const Matrix& h, const Matrix& d) {
    EXPECT_EQ(on_host<Index>(algorithms::connected_components(d, gpu).label, -1, gpu),
              on_host<Index>(algorithms::connected_components(h, cpu).label, -1, cpu));
  });
}

TEST_P(AlgorithmsGpu, Sssp) {
  for_each_graph([&](const Matrix& h, const Matrix& d) {
    const auto want = on_host<double>(algorithms::sssp_bellman_ford(h, 0, cpu).distance, -1, cpu);
    expect_near(on_host<double>(algorithms::sssp_bellman_ford(d, 0, gpu).distance, -1, gpu), want,
                0);
    expect_near(on_host<double>(algorithms::sssp_delta_stepping(d, 0, 0.5, gpu).distance, -1, gpu),
                want, 0);
  });
}

TEST_P(AlgorithmsGpu, KCore) {
  // Both round updates on the device (in_place: the product accumulated into the full degree
  // vector, the cuda write-back's in-place path) against the default on the cpu.
  for_each_graph([&](const Matrix& h, const Matrix& d) {
    const std::vector<Index> want = on_host<Index>(algorithms::core_numbers(h, cpu), -1, cpu);
    for (auto update : {algorithms::KCoreUpdate::sparse_loss, algorithms::KCoreUpdate::in_place})
      EXPECT_EQ(on_host<Index>(algorithms::core_numbers(d, update, gpu), -1, gpu), want)
          << (update == algorithms::KCoreUpdate::in_place ? "in_place" : "sparse_loss");
  });
}

TEST_P(AlgorithmsGpu, Betweenness) {
  for_each_graph([&](const Matrix& h, const Matrix& d) {
    std::vector<Index> sources(static_cast<std::size_t>(std::min<Index>(h.nrows(), 48)));
    std::iota(sources.begin(), sources.end(), Index{0});
    expect_near(on_host<double>(algorithms::betweenness(d, sources, 16, gpu), -1, gpu),
                on_host<double>(algorithms::betweenness(h, sources, 16, cpu), -1, cpu), 1e-9);
  });
}

// Constant and index vectors made on the device by a kernel (Vector::full / iota, no host
// array) equal the host ones, over a poisoned pool, for every type and sizes 0, 1 and one that
// is not a multiple of the block.
class GraphVectorsGpu : public GpuTest {};

TEST_F(GraphVectorsGpu, FullAndIotaOnTheDeviceMatchTheHost) {
  Context gpu(Backend::cuda);
  poison_device_pool(std::size_t(1) << 20, gpu);
  for (Index n : {Index{0}, Index{1}, Index{1000}}) {
    for (const Scalar& s : {Scalar(true), Scalar(std::int32_t(-3)), Scalar(Index{1} << 40),
                            Scalar(2.5f), Scalar(-0.125)}) {
      const Vector d = algorithms::constant_vector(n, s, Location::device, gpu);
      ASSERT_EQ(d.location(), Location::device);
      const Vector h = d.to(Location::host, gpu);
      h.check_invariants();
      const Vector want = algorithms::constant_vector(n, s, Location::host, gpu);
      EXPECT_EQ(h.nnz(), n);
      EXPECT_EQ(h.indices_vector(), want.indices_vector());
      EXPECT_EQ(h.cast(Type::fp64).values_vector<double>(),
                want.cast(Type::fp64).values_vector<double>());
    }
    const Vector id = algorithms::index_vector(n, Location::device, gpu).to(Location::host, gpu);
    EXPECT_EQ(id.values_vector<std::int64_t>(),
              algorithms::index_vector(n, Location::host, gpu).values_vector<std::int64_t>());
    EXPECT_EQ(id.indices_vector(),
              algorithms::index_vector(n, Location::host, gpu).indices_vector());
  }
}

TEST_F(GraphVectorsGpu, RowViewsOnTheDeviceUploadNothing) {
  // A device vector's row view has its row pointers made on the device ({0, nnz}, no host
  // upload) and holds the vector's entries; select and the bound apply through it agree with the
  // host, with no host-to-device copy counted.
  Context gpu(Backend::cuda);
  poison_device_pool(std::size_t(1) << 20, gpu);
  for (const std::vector<Index>& idx : {std::vector<Index>{}, std::vector<Index>{3, 7, 8, 999}}) {
    std::vector<std::int64_t> vals;
    for (Index i : idx) vals.push_back(i % 5 - 2);
    const Vector h = Vector::from_entries<std::int64_t>(1000, idx, vals);
    const Vector d = h.to(Location::device, gpu);
    const TransferCounters before = gpu.transfers;
    const Matrix row = algorithms::row_view(d, gpu);
    const Vector sel = algorithms::select_vector(SelectOpCode::value_gt, d, Index{-1}, gpu);
    const Vector app = algorithms::apply_bound(BinaryOpCode::times, d, Index{3}, gpu);
    EXPECT_EQ(gpu.transfers.host_to_device, before.host_to_device);
    ASSERT_EQ(row.location(), Location::device);
    const Matrix rh = row.to(Location::host, gpu);
    rh.check_invariants();
    EXPECT_EQ(rh.row_ptr_vector(), (std::vector<Index>{0, Index(idx.size())}));
    EXPECT_EQ(rh.col_idx_vector(), idx);
    Context cpu(Backend::cpu);
    const Vector sel_h = algorithms::select_vector(SelectOpCode::value_gt, h, Index{-1}, cpu);
    const Vector app_h = algorithms::apply_bound(BinaryOpCode::times, h, Index{3}, cpu);
    EXPECT_EQ(sel.to(Location::host, gpu).indices_vector(), sel_h.indices_vector());
    EXPECT_EQ(app.to(Location::host, gpu).values_vector<std::int64_t>(),
              app_h.values_vector<std::int64_t>());
  }
}

TEST_F(GraphVectorsGpu, AssignScalarStaysOnTheDevice) {
  // w<q, struct> = s into a full device w (BFS's depth: assign's in-place scatter) and into a
  // sparse one (the row-view composition): the host's result, w left on the device, nothing
  // copied from the host.
  Context gpu(Backend::cuda), cpu(Backend::cpu);
  const Index n = 1000;
  const Vector q = Vector::from_entries<bool>(n, {0, 3, 500, 999}, {true, false, true, true});
  for (double density : {1.0, 0.3}) {
    const Vector w = random_vector(n, density, Type::int64, 7, ValueKind::integral);
    Vector dw = w.to(Location::device, gpu), hw = w;
    const Vector dq = q.to(Location::device, gpu);
    const TransferCounters before = gpu.transfers;
    algorithms::assign_scalar(dw, dq, Index{42}, gpu);
    EXPECT_EQ(gpu.transfers.host_to_device, before.host_to_device) << "density " << density;
    ASSERT_EQ(dw.location(), Location::device);
    algorithms::assign_scalar(hw, q, Index{42}, cpu);
    const Vector got = dw.to(Location::host, gpu);
    EXPECT_EQ(got.indices_vector(), hw.indices_vector()) << "density " << density;
    EXPECT_EQ(got.values_vector<std::int64_t>(), hw.values_vector<std::int64_t>());
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, AlgorithmsGpu,
                         ::testing::Values(Backend::cuda, Backend::automatic),
                         [](const auto& info) {
                           return std::string(info.param == Backend::cuda ? "Cuda" : "Auto");
                         });

}  // namespace
}  // namespace ringblas::test
