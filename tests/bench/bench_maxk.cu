// MaxK-GNN kernels (backend/cuda/maxk) against cuSPARSE SpMM in the same run, on the paper's
// kernel benchmark: a random graph of N nodes (default 100,000) where each node has exactly D
// (default 64) distinct out-neighbours drawn uniformly at random (splitmix64, seed 42; values
// 1/D, fp32, int32 CSR), hidden size H = 256, k = 16 / 32 / 64. Rows:
//   cusparse_spmm   cusparseSpMM (CSR ALG2 and ALG_DEFAULT; the faster is the reference) of A
//                   times a dense N x H fp32 row-major matrix: the aggregation MaxK replaces;
//   maxk_topk       maxk(Y, k): the MaxK nonlinearity, N x H dense -> CBSR;
//   maxk_densify    densify(D, X): CBSR -> N x H dense (the gradient of maxk w.r.t. its input);
//   maxk_forward    mxm(C, plus_times, A, X) with X = maxk(Y, k) in CBSR (variant maxk);
//   maxk_backward   mxm(dX, plus_times, A, dY, transpose_a) sampled at X's pattern (variant maxk).
// Every call goes through the public API on device-resident operands. CUDA events around each
// call, after 3 warm-up calls, median of --reps runs; two tables: before every timed run a 256 MB
// buffer written so that L2 (50 MB on an H100) holds none of the inputs, then L2 warm (repeated
// calls, as a training loop issues them); --no-flush gives only the second. The
// forward result is checked against cuSPARSE on the densified CBSR, the backward against a host
// computation on 200 rows.
// Usage: bench_maxk --out PREFIX [--nodes N] [--degree D] [--reps R] [--no-flush] [--k LIST]
//                   [--shapes] [--grids] [--rmat S] [--backward-vector V]
//   writes PREFIX.md and PREFIX.json (GPU name and date inside); rows are printed as measured.
//   --k 16,64 measures only those k (of 16, 32, 64; default all three). --shapes adds a row for
//   every shape of the forward and backward kernels (entries per lane V, forward edge slots and
//   unroll; cuda::maxk::Shape), called through the launchers, each checked against the default's
//   result.
//   --grids adds the forward and backward on the other grid (cuda::maxk::Shape::one_wave: one
//   wave of warps striding over the row segments, the forward's default, or one warp per
//   segment, the backward's) and with rows split into segments of 256 and 128 edges
//   (Shape::segment), each checked against the default.
//   --rmat S replaces the random graph by the R-MAT graph of scale S that bench_gcn trains on
//   (S = 20: 1M nodes, 33M entries; about 20 s to generate on the host); no targets then.
//   --backward-vector V times the backward rows with V entries per lane (1, 2 or 4) instead of
//   the default shape (to profile one shape with ncu).
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend/cuda/maxk/maxk.hpp"
#include "ringblas/ringblas.hpp"
#include "tests/bench/bench_args.hpp"
#include "tests/bench/bench_cuda.hpp"
#include "tests/bench/profile_range.hpp"
#include "tests/support/rmat.hpp"

using namespace ringblas;
using bench::splitmix;

namespace {

int g_reps = 20;
bool g_flush = true;
bool g_shapes = false;
bool g_grids = false;
void* g_flush_buf = nullptr;
constexpr std::size_t kFlushBytes = std::size_t(256) << 20;

/// N x N, exactly `degree` distinct uniform random columns per row, values 1/degree.
Matrix random_regular_graph(Index n, int degree) {
  std::uint64_t s = 42;
  std::vector<std::int32_t> rp(std::size_t(n) + 1), ci;
  ci.reserve(std::size_t(n) * degree);
  std::vector<std::int32_t> row;
  for (Index i = 0; i < n; ++i) {
    row.clear();
    while (int(row.size()) < degree) {
      const auto c = std::int32_t(splitmix(s) % std::uint64_t(n));
      if (std::find(row.begin(), row.end(), c) == row.end()) row.push_back(c);
    }
    std::sort(row.begin(), row.end());
    ci.insert(ci.end(), row.begin(), row.end());
    rp[i + 1] = std::int32_t(ci.size());
  }
  std::vector<float> v(ci.size(), 1.0f / float(degree));
  return Matrix::from_csr(n, n, rp, ci, v);
}

/// Median time in milliseconds of f() (CUDA events on the legacy stream, L2 flushed first);
/// `label` names the call profiled under ncu (profile_range.hpp; none when empty).
double time_ms(const std::function<void()>& f, const std::string& label = {}) {
  cudaEvent_t a, b;
  BENCH_CUDA(cudaEventCreate(&a));
  BENCH_CUDA(cudaEventCreate(&b));
  for (int w = 0; w < 3; ++w) f();
  BENCH_CUDA(cudaDeviceSynchronize());
  bench::profile_once(label, 0, f);
  std::vector<double> t;
  for (int r = 0; r < g_reps; ++r) {
    if (g_flush) BENCH_CUDA(cudaMemsetAsync(g_flush_buf, r & 0xff, kFlushBytes));
    BENCH_CUDA(cudaEventRecord(a));
    f();
    BENCH_CUDA(cudaEventRecord(b));
    BENCH_CUDA(cudaEventSynchronize(b));
    float ms = 0;
    BENCH_CUDA(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

struct Row {
  std::string mode;  // "L2 flushed" or "L2 warm"
  std::string kernel;
  int k;
  double ms;
  double speedup;  // cuSPARSE SpMM time / this time (0 for the cuSPARSE row itself)
  double target;   // the issue's target speedup (0: none)
  std::string check;
};

std::string fmt(double x, int prec = 3) {
  std::ostringstream o;
  o.setf(std::ios::fixed);
  o.precision(prec);
  o << x;
  return o.str();
}

void print_row(const Row& r) {
  std::cout << "[" << r.mode << "] " << r.kernel << " k=" << r.k << ": " << fmt(r.ms, 4) << " ms";
  if (r.speedup > 0) std::cout << ", " << fmt(r.speedup, 2) << "x cuSPARSE";
  if (r.target > 0)
    std::cout << " (target " << fmt(r.target, 1)
              << "x: " << (r.speedup >= r.target ? "met" : "NOT met") << ")";
  if (!r.check.empty()) std::cout << ", check " << r.check;
  std::cout << std::endl;
}

/// cusparseSpMM C = A B (B dense n x h row-major); returns the faster algorithm's median time.
double cusparse_spmm_ms(cusparseHandle_t sp, const Matrix& a, const DenseMatrix& b, DenseMatrix& c,
                        std::string& which) {
  cusparseSpMatDescr_t ma;
  cusparseDnMatDescr_t mb, mc;
  BENCH_CUSPARSE(cusparseCreateCsr(
      &ma, a.nrows(), a.ncols(), a.nnz(), const_cast<void*>(a.row_ptr().data()),
      const_cast<void*>(a.col_idx().data()), const_cast<void*>(a.values().data()),
      CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  BENCH_CUSPARSE(cusparseCreateDnMat(&mb, b.nrows(), b.ncols(), b.ncols(),
                                     const_cast<void*>(b.values().data()), CUDA_R_32F,
                                     CUSPARSE_ORDER_ROW));
  BENCH_CUSPARSE(cusparseCreateDnMat(&mc, c.nrows(), c.ncols(), c.ncols(), c.values().data(),
                                     CUDA_R_32F, CUSPARSE_ORDER_ROW));
  const float one = 1, zero = 0;
  double best = 1e30;
  for (auto [alg, name] : {std::pair{CUSPARSE_SPMM_CSR_ALG2, "CSR_ALG2"},
                           std::pair{CUSPARSE_SPMM_ALG_DEFAULT, "ALG_DEFAULT"}}) {
    std::size_t bytes = 0;
    BENCH_CUSPARSE(cusparseSpMM_bufferSize(sp, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                           CUSPARSE_OPERATION_NON_TRANSPOSE, &one, ma, mb, &zero,
                                           mc, CUDA_R_32F, alg, &bytes));
    void* ws = nullptr;
    BENCH_CUDA(cudaMalloc(&ws, std::max<std::size_t>(bytes, 16)));
    const double ms = time_ms(
        [&] {
          BENCH_CUSPARSE(cusparseSpMM(sp, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                      CUSPARSE_OPERATION_NON_TRANSPOSE, &one, ma, mb, &zero, mc,
                                      CUDA_R_32F, alg, ws));
        },
        std::string("cusparse_spmm ") + name);
    BENCH_CUDA(cudaFree(ws));
    std::cout << "cusparse_spmm " << name << ": " << fmt(ms, 4) << " ms" << std::endl;
    if (ms < best) best = ms, which = name;
  }
  cusparseDestroySpMat(ma);
  cusparseDestroyDnMat(mb);
  cusparseDestroyDnMat(mc);
  return best;
}

double max_rel_diff(const std::vector<float>& a, const std::vector<float>& b) {
  double worst = 0;
  for (std::size_t e = 0; e < a.size(); ++e)
    worst = std::max(worst, std::abs(double(a[e]) - b[e]) / (1e-3 + std::abs(double(b[e]))));
  return worst;
}

std::vector<float> host_floats(const DenseMatrix& d, const Context& ctx) {
  const DenseMatrix h = d.to(Location::host, ctx);
  return std::vector<float>(h.values().as<float>(), h.values().as<float>() + h.nrows() * h.ncols());
}

}  // namespace

int main(int argc, char** argv) {
  std::string out = "maxk";
  Index n = 100000;
  int degree = 64;
  std::vector<int> only_k = {16, 32, 64};
  int rmat_scale = 0, bwd_vector = 0;
  std::string command = "bench_maxk";
  for (int i = 1; i < argc; ++i) command += std::string(" ") + argv[i];
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--out" && i + 1 < argc)
      out = argv[++i];
    else if (a == "--nodes" && i + 1 < argc)
      n = std::stoll(argv[++i]);
    else if (a == "--degree" && i + 1 < argc)
      degree = std::stoi(argv[++i]);
    else if (a == "--reps" && i + 1 < argc)
      g_reps = std::stoi(argv[++i]);
    else if (a == "--no-flush")
      g_flush = false;
    else if (a == "--backward-vector" && i + 1 < argc)
      bwd_vector = std::stoi(argv[++i]);
    else if (a == "--rmat" && i + 1 < argc)
      rmat_scale = std::stoi(argv[++i]);
    else if (a == "--shapes")
      g_shapes = true;
    else if (a == "--grids")
      g_grids = true;
    else if (a == "--k" && i + 1 < argc) {
      only_k.clear();
      std::stringstream list(argv[++i]);
      for (std::string item; std::getline(list, item, ',');) only_k.push_back(std::stoi(item));
    } else {
      std::cerr << "usage: bench_maxk --out PREFIX [--nodes N] [--degree D] [--reps R] "
                   "[--no-flush] [--k LIST] [--shapes] [--grids] [--rmat SCALE] "
                   "[--backward-vector V]\n";
      return 2;
    }
  }
  try {
    const Index h = 256;
    cudaDeviceProp prop;
    BENCH_CUDA(cudaGetDeviceProperties(&prop, 0));
    const std::string date = bench::utc_date();
    const bool flush_too = g_flush;  // default: both tables, L2 flushed and L2 warm
    if (flush_too) BENCH_CUDA(cudaMalloc(&g_flush_buf, kFlushBytes));

    Context ctx(Backend::cuda);
    // The graph: the paper's random regular graph, or with --rmat the symmetric R-MAT graph of
    // GCN training (bench_gcn's power-law graph: edge factor 16, unit-less weights as fp32).
    std::string graph;
    Matrix A;
    if (rmat_scale > 0) {
      A = test::rmat(rmat_scale, 16).adjacency.cast(Type::fp32).with_index_type(IndexType::i32);
      n = A.nrows();
      graph = "R-MAT graph (scale " + std::to_string(rmat_scale) + ", edge factor 16, symmetric, " +
              "Graph500 parameters, tests/support/rmat.hpp): " + std::to_string(n) + " nodes, " +
              std::to_string(A.nnz()) + " entries, weights in (0, 1] as fp32, int32 CSR";
    } else {
      A = random_regular_graph(n, degree);
      graph = "Random graph: " + std::to_string(n) + " nodes, exactly " + std::to_string(degree) +
              " distinct uniform random neighbours per node (splitmix64 seed 42), values 1/" +
              std::to_string(degree) + ", fp32, int32 CSR";
    }
    A = A.to(Location::device, ctx);
    std::cout << prop.name << ", " << date << "; " << graph << "; H " << h << std::endl;
    std::vector<float> yh(std::size_t(n * h));
    std::uint64_t s = 7;
    for (float& v : yh) v = float(splitmix(s) >> 40) / float(1 << 24) - 0.5f;
    const DenseMatrix Y = DenseMatrix::from_values(n, h, yh).to(Location::device, ctx);
    const DenseMatrix dY = Y;  // any dense gradient; its values do not change the kernels' work

    cusparseHandle_t sp;
    BENCH_CUSPARSE(cusparseCreate(&sp));
    DenseMatrix c_sp = DenseMatrix(n, h, Type::fp32).to(Location::device, ctx);
    std::vector<Row> rows;

    const Semiring pt = semiring("plus_times", Type::fp32);
    Descriptor d;
    d.variant = Variant::maxk;
    Descriptor dt = d;
    dt.transpose_a = true;
    const std::vector<int> ks = {16, 32, 64};
    const double fwd_target[] = {5.5, 3.8, 2.2}, bwd_target[] = {7.6, 4.0, 2.3};
    for (const bool flush : {true, false}) {
      if (flush && !flush_too) continue;
      g_flush = flush;
      const std::string mode = flush ? "L2 flushed" : "L2 warm";
      const bool checks = flush || !flush_too;  // the results are checked once
      std::string alg;
      const double sp_ms = cusparse_spmm_ms(sp, A, Y, c_sp, alg);
      rows.push_back({mode, "cusparse_spmm (" + alg + ")", 0, sp_ms, 0, 0, ""});
      print_row(rows.back());
      for (std::size_t q = 0; q < ks.size(); ++q) {
        const int k = ks[q];
        if (std::find(only_k.begin(), only_k.end(), k) == only_k.end()) continue;
        Cbsr X(n, h, k, Location::device, &ctx);
        const std::string at = " k=" + std::to_string(k);
        const double topk_ms = time_ms([&] { maxk(X, Y, k, d, ctx); }, "maxk_topk" + at);
        rows.push_back({mode, "maxk_topk", k, topk_ms, sp_ms / topk_ms, 0, ""});
        print_row(rows.back());
        {
          DenseMatrix D = DenseMatrix(n, h, Type::fp32).to(Location::device, ctx);
          const double ms = time_ms([&] { densify(D, X, d, ctx); }, "maxk_densify" + at);
          std::string check;
          if (checks) {
            const auto got = host_floats(D, ctx);
            const DenseMatrix want = X.to(Location::host, ctx).to_dense();
            const bool same = std::equal(got.begin(), got.end(), want.values().as<float>());
            check = same ? "equal to the host densify" : "DIFFERS from the host densify";
          }
          rows.push_back({mode, "maxk_densify", k, ms, sp_ms / ms, 0, check});
          print_row(rows.back());
        }

        DenseMatrix C = DenseMatrix(n, h, Type::fp32).to(Location::device, ctx);
        const double fwd_ms = time_ms([&] { mxm(C, pt, A, X, d, ctx); }, "maxk_forward" + at);
        std::string fwd_check;
        if (checks) {
          // Check: cuSPARSE on the densified CBSR.
          const DenseMatrix Xd = X.to(Location::host, ctx).to_dense().to(Location::device, ctx);
          std::string unused;
          DenseMatrix C_ref = DenseMatrix(n, h, Type::fp32).to(Location::device, ctx);
          {
            const bool f = g_flush;
            const int reps = g_reps;
            g_flush = false;
            g_reps = 1;
            std::streambuf* old = std::cout.rdbuf(nullptr);
            cusparse_spmm_ms(sp, A, Xd, C_ref, unused);
            std::cout.rdbuf(old);
            g_flush = f;
            g_reps = reps;
          }
          const double fwd_err = max_rel_diff(host_floats(C, ctx), host_floats(C_ref, ctx));
          fwd_check = "max rel diff vs cuSPARSE " + fmt(fwd_err * 1e6, 2) + "e-6";
        }
        rows.push_back({mode, "maxk_forward", k, fwd_ms, sp_ms / fwd_ms,
                        rmat_scale > 0 ? 0.0 : fwd_target[q], fwd_check});
        print_row(rows.back());

        Cbsr dX = X;
        // --backward-vector V: the launcher with that shape instead of mxm's default (for ncu).
        const double bwd_ms = time_ms(
            [&] {
              if (bwd_vector > 0)
                cuda::maxk::backward(dX, A, dY, dt, ctx, cuda::maxk::Shape{bwd_vector, 1, 4});
              else
                mxm(dX, pt, A, dY, dt, ctx);
            },
            "maxk_backward" + at);
        std::string bwd_check;
        if (checks) {
          // Check 200 rows on the host: dX(i, t) = Σ_j A(j, i) dY(j, idx_i[t]).
          const Matrix Ah = A.to(Location::host, ctx);
          const Cbsr dXh = dX.to(Location::host, ctx);
          const auto rp = Ah.row_ptr_vector(), ci = Ah.col_idx_vector();
          const auto av = Ah.values_vector<float>();
          const auto idx = dXh.indices_vector();
          const auto got = dXh.values_vector();
          std::vector<double> want(std::size_t(200) * k, 0.0);
          for (Index j = 0; j < n; ++j)
            for (Index e = rp[j]; e < rp[j + 1]; ++e)
              if (ci[e] < 200)
                for (int t = 0; t < k; ++t)
                  want[ci[e] * k + t] += double(av[e]) * yh[j * h + idx[ci[e] * k + t]];
          double bwd_err = 0;
          for (std::size_t e = 0; e < want.size(); ++e)
            bwd_err = std::max(bwd_err, std::abs(got[e] - want[e]) / (1e-3 + std::abs(want[e])));
          bwd_check = "max rel diff on 200 rows " + fmt(bwd_err * 1e6, 2) + "e-6";
        }
        rows.push_back(
            {mode,
             bwd_vector > 0 ? "maxk_backward V=" + std::to_string(bwd_vector) : "maxk_backward", k,
             bwd_ms, sp_ms / bwd_ms, rmat_scale > 0 ? 0.0 : bwd_target[q], bwd_check});
        print_row(rows.back());
        if (g_grids) {
          // The default shapes with the other grid (one wave of warps striding over the row
          // segments against one warp per segment: the forward's default is the first, the
          // backward's the second), and with shorter segments (rows split more finely) on the
          // default grid, each checked against the default's result.
          const auto fwd_default = host_floats(C, ctx);
          const auto bwd_default = dX.to(Location::host, ctx).values_vector();
          for (int variant = 0; variant < 3; ++variant) {
            cuda::maxk::Shape fs = cuda::maxk::forward_shape(k), bs = cuda::maxk::backward_shape(k);
            if (variant == 0) {
              fs.one_wave = !fs.one_wave;
              bs.one_wave = !bs.one_wave;
            } else {
              fs.segment = bs.segment = variant == 1 ? 256 : 128;
            }
            auto name = [&](const cuda::maxk::Shape& sh) {
              return variant == 0 ? std::string(sh.one_wave ? "one wave" : "warp per segment")
                                  : "segment " + std::to_string(sh.segment);
            };
            DenseMatrix Cs = DenseMatrix(n, h, Type::fp32).to(Location::device, ctx);
            const double fms = time_ms([&] { cuda::maxk::forward(Cs, A, X, nullptr, d, ctx, fs); });
            rows.push_back({mode, "maxk_forward " + name(fs), k, fms, sp_ms / fms, 0,
                            "max rel diff vs default " +
                                fmt(max_rel_diff(host_floats(Cs, ctx), fwd_default) * 1e6, 2) +
                                "e-6"});
            print_row(rows.back());
            Cbsr dXs = X;
            const double bms = time_ms([&] { cuda::maxk::backward(dXs, A, dY, dt, ctx, bs); });
            const auto got = dXs.to(Location::host, ctx).values_vector();
            double err = 0;
            for (std::size_t e = 0; e < got.size(); ++e)
              err = std::max(err, std::abs(double(got[e]) - bwd_default[e]) /
                                      (1e-3 + std::abs(double(bwd_default[e]))));
            rows.push_back({mode, "maxk_backward " + name(bs), k, bms, sp_ms / bms, 0,
                            "max rel diff vs default " + fmt(err * 1e6, 2) + "e-6"});
            print_row(rows.back());
          }
        }
        if (g_shapes) {
          // The launchers with every shape (entries per lane, forward edge slots), each checked
          // against the default shape's result above.
          const auto fwd_default = host_floats(C, ctx);
          const auto bwd_default = dX.to(Location::host, ctx).values_vector();
          for (int v : {1, 2, 4}) {
            if (k % v != 0) continue;
            int last = 0;
            for (int cap : {1, 2, 4, 8}) {
              const int kv = k / v, slots = kv > 32 ? 1 : std::min(32 / kv, cap);
              if (slots == last) continue;
              last = slots;
              for (int unroll : {1, 2, 4, 8}) {
                if (v == 1 ? unroll < 4 : v == 2 ? unroll != 2 && unroll != 4 : unroll > 4)
                  continue;                            // not compiled (cuda::maxk::Shape)
                if (kv > 32 && unroll != 4) continue;  // one edge per step: unroll unused
                const cuda::maxk::Shape shape{v, slots, unroll};
                DenseMatrix Cs = DenseMatrix(n, h, Type::fp32).to(Location::device, ctx);
                const double ms =
                    time_ms([&] { cuda::maxk::forward(Cs, A, X, nullptr, d, ctx, shape); });
                const double err = max_rel_diff(host_floats(Cs, ctx), fwd_default);
                rows.push_back({mode,
                                "maxk_forward V=" + std::to_string(v) + " slots=" +
                                    std::to_string(slots) + " unroll=" + std::to_string(unroll),
                                k, ms, sp_ms / ms, 0,
                                "max rel diff vs default shape " + fmt(err * 1e6, 2) + "e-6"});
                print_row(rows.back());
              }
            }
            Cbsr dXs = X;
            const double ms = time_ms([&] {
              cuda::maxk::backward(dXs, A, dY, dt, ctx, cuda::maxk::Shape{v, 1, 4});
            });
            const auto got = dXs.to(Location::host, ctx).values_vector();
            double err = 0;
            for (std::size_t e = 0; e < got.size(); ++e)
              err = std::max(err, std::abs(double(got[e]) - bwd_default[e]) /
                                      (1e-3 + std::abs(double(bwd_default[e]))));
            rows.push_back({mode, "maxk_backward V=" + std::to_string(v), k, ms, sp_ms / ms, 0,
                            "max rel diff vs default shape " + fmt(err * 1e6, 2) + "e-6"});
            print_row(rows.back());
          }
        }
      }
    }
    cusparseDestroy(sp);

    std::ofstream md(out + ".md");
    md << "# MaxK-GNN kernels vs cuSPARSE SpMM: " << prop.name << ", " << date << "\n\n"
       << graph << "; hidden " << h << "; "
       << (flush_too ? "L2 flushed before every run (a 256 MB write), then L2 warm"
                     : "L2 warm only (--no-flush)")
       << "; median of " << g_reps << " runs after 3 warm-up calls (CUDA events); "
       << "speedup = cuSPARSE SpMM time / kernel time. Command: `" << command
       << "`.\n\n| L2 | kernel | k | ms | speedup vs cuSPARSE | target | check "
          "|\n|---|---|---|---|---|---|---|\n";
    for (const Row& r : rows)
      md << "| " << r.mode << " | " << r.kernel << " | " << (r.k ? std::to_string(r.k) : "-")
         << " | " << fmt(r.ms, 4) << " | " << (r.speedup > 0 ? fmt(r.speedup, 2) + "x" : "-")
         << " | "
         << (r.target > 0 ? fmt(r.target, 1) + "x " + (r.speedup >= r.target ? "met" : "NOT met")
                          : "-")
         << " | " << r.check << " |\n";
    std::ofstream js(out + ".json");
    js << "{\"gpu\": \"" << prop.name << "\", \"date\": \"" << date << "\", \"nodes\": " << n
       << ", \"degree\": " << (rmat_scale > 0 ? 0 : degree) << ", \"rmat_scale\": " << rmat_scale
       << ", \"hidden\": " << h << ", \"reps\": " << g_reps << ", \"rows\": [";
    for (std::size_t e = 0; e < rows.size(); ++e)
      js << (e ? ", " : "") << "{\"l2\": \"" << rows[e].mode << "\", \"kernel\": \""
         << rows[e].kernel << "\", \"k\": " << rows[e].k << ", \"ms\": " << rows[e].ms
         << ", \"speedup_vs_cusparse\": " << rows[e].speedup << ", \"target\": " << rows[e].target
         << ", \"check\": \"" << rows[e].check << "\"}";
    js << "]}\n";
    std::cout << "wrote " << out << ".md and " << out << ".json" << std::endl;
    if (g_flush_buf) cudaFree(g_flush_buf);
  } catch (const std::exception& e) {
    std::cerr << "bench_maxk: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
