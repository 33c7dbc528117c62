// Benchmark (a program, not a test): the element-wise family (ewise_add, ewise_mult, apply unary
// and bound binary, select by value and by position, row and column top-k, kronecker) through the
// public API on device-resident operands (Backend::cuda, variant elementwise), against the same
// call on the cpu executor (SuiteSparse:GraphBLAS, all cores) in the same run. Inputs: generated
// matrices of 10M-100M entries and the largest shared graphs (as they are, and Kronecker-expanded
// by a full 4x4 block to tens of millions of entries). GPU time: CUDA events around the whole
// call (allocation and the nnz read included), L2 flushed before each repetition, median after
// two warm-ups; achieved GB/s = (bytes of every input CSR read + the output CSR written) / time,
// against the device's copy bandwidth measured here (cudaMemcpy device to device, read + write).
// Writes JSON and a Markdown table (GPU name, date) to the paths given.
// Usage: bench_elementwise --json out.json --md out.md [--data DIR] [--reps N] [--cpu-reps N]
//        [--max-nnz N] [--ops a,b] [--inputs a,b] [--cpu 0|1]
//        [--variants automatic,row_filter]
// --ops / --inputs keep the operations / inputs whose name contains one of the comma-separated
// words (inputs: "d=10", "d=24", "d=96", "Epinions1", "(x)", ...; unselected inputs are not
// even built); --cpu 0 skips the cpu executor (its first call, when it takes over 2 s, is its
// only one); --variants runs each operation once per listed cuda variant that computes it
// (`automatic`, the default: what dispatch picks; `row_filter`: select by value and apply masked
// by A; rows named "op [variant]", the cpu run only with `automatic`). A full run takes several
// minutes, mostly SuiteSparse; one op on the 100M input with the cpu takes about 10 s.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "ringblas/ringblas.hpp"
#include "tests/bench/bench_args.hpp"
#include "tests/bench/bench_cuda.hpp"
#include "tests/bench/profile_range.hpp"

namespace {

using namespace ringblas;
using bench::splitmix;

struct Options {
  std::string json = "elementwise.json", md = "elementwise.md", data = RINGBLAS_DATA_DIR;
  std::vector<std::string> ops, inputs, variants = {"automatic"};
  int reps = 10, cpu_reps = 3;
  bool cpu = true;
  double max_nnz = 1.2e8;
};

/// n x n, d entries per row, one in each of d column buckets (so rows are sorted and distinct),
/// fp32 values in (-1, 1), 32-bit indices. `share` of the entries sit at `base`'s positions
/// (base = seed 1), so that A ∩ B is about `share` of each.
Matrix generated(Index n, Index d, std::uint64_t seed, double share) {
  std::vector<std::int32_t> rp(std::size_t(n) + 1), ci(std::size_t(n * d));
  std::vector<float> v(std::size_t(n * d));
  const Index bucket = n / d;
  std::uint64_t s = seed, sb = 1;
  for (Index i = 0; i < n; ++i) {
    rp[std::size_t(i)] = std::int32_t(i * d);
    for (Index k = 0; k < d; ++k) {
      const std::uint64_t own = splitmix(s), base = splitmix(sb);
      const bool shared = double(own >> 11) * 0x1.0p-53 < share;
      const std::uint64_t r = shared ? base : own;
      const std::size_t p = std::size_t(i * d + k);
      ci[p] = std::int32_t(k * bucket + Index(r % std::uint64_t(bucket)));
      v[p] = float(double(own >> 40) * 0x1.0p-24 * 2.0 - 1.0);
    }
  }
  rp[std::size_t(n)] = std::int32_t(n * d);
  return Matrix::from_csr(n, n, rp, ci, v);
}

using bench::selected;
using bench::split_list;

double csr_bytes(const Matrix& m) {
  const double isz = m.index_type() == IndexType::i32 ? 4.0 : 8.0;
  return double(m.nrows() + 1) * isz + double(m.nnz()) * (isz + double(type_size(m.type())));
}

struct Row {
  std::string op, input;
  Index nnz_in = 0, nnz_out = 0;
  double bytes = 0, gpu_ms = 0, cpu_ms = 0;
  std::string error;
};

/// One operation: out = f(inputs, ctx, descriptor); returns the output.
using Op = std::function<Matrix(const std::vector<const Matrix*>&, Context&, const Descriptor&)>;

void* flush_buffer = nullptr;
const std::size_t flush_bytes = std::size_t(256) << 20;
void flush_l2() { BENCH_CUDA(cudaMemsetAsync(flush_buffer, int(rand() & 0xff), flush_bytes, 0)); }

double median(std::vector<double> x) {
  std::sort(x.begin(), x.end());
  return x[x.size() / 2];
}

/// The gpu call under `variant` (forced unless automatic), then, for automatic only, the cpu.
Row run(const Options& o, const std::string& op_name, const std::string& input,
        const std::vector<const Matrix*>& host, const Op& f, Variant variant = Variant::automatic) {
  Row row{op_name, input};
  Descriptor forced;
  forced.variant = variant;
  for (const Matrix* m : host) row.nnz_in += m->nnz();
  try {
    Context gpu(Backend::cuda);
    std::vector<Matrix> dev;
    for (const Matrix* m : host) dev.push_back(m->to(Location::device, gpu));
    std::vector<const Matrix*> dp;
    for (const Matrix& m : dev) dp.push_back(&m);
    cudaEvent_t a, b;
    BENCH_CUDA(cudaEventCreate(&a));
    BENCH_CUDA(cudaEventCreate(&b));
    Matrix out = f(dp, gpu, forced);  // warm-up 1
    out = f(dp, gpu, forced);         // warm-up 2
    row.nnz_out = out.nnz();
    row.bytes = csr_bytes(out);
    for (const Matrix* m : host) row.bytes += csr_bytes(*m);
    out = Matrix();
    // ncu (RINGBLAS_BENCH_PROFILE): one more call, untimed; ncu flushes the caches itself.
    bench::profile_once(op_name + " | " + input, row.bytes, [&] { Matrix t = f(dp, gpu, forced); });
    std::vector<double> ms;
    for (int r = 0; r < o.reps; ++r) {
      flush_l2();
      BENCH_CUDA(cudaEventRecord(a, 0));
      Matrix t = f(dp, gpu, forced);
      BENCH_CUDA(cudaEventRecord(b, 0));
      BENCH_CUDA(cudaEventSynchronize(b));
      float x = 0;
      BENCH_CUDA(cudaEventElapsedTime(&x, a, b));
      ms.push_back(x);
    }
    row.gpu_ms = median(ms);
    cudaEventDestroy(a);
    cudaEventDestroy(b);
  } catch (const std::exception& e) {
    row.error = std::string("gpu: ") + e.what();
    cudaGetLastError();
    return row;
  }
  if (!o.cpu || variant != Variant::automatic) return row;
  try {
    // The first call is the warm-up; when it alone takes over 2 s (SuiteSparse on 100M entries,
    // or the single-threaded host top-k of the cpu executor) it is the measurement.
    Context cpu(Backend::cpu);
    auto timed = [&] {
      const auto t0 = std::chrono::steady_clock::now();
      Matrix t = f(host, cpu, Descriptor{});
      return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
          .count();
    };
    const double first = timed();
    std::vector<double> ms;
    if (first > 2000.0)
      ms.push_back(first);
    else
      for (int r = 0; r < o.cpu_reps; ++r) ms.push_back(timed());
    row.cpu_ms = median(ms);
  } catch (const std::exception& e) {
    row.error = std::string("cpu: ") + e.what();
  }
  return row;
}

double copy_bandwidth_gbs() {
  const std::size_t bytes = std::size_t(2) << 30;
  void *src = nullptr, *dst = nullptr;
  BENCH_CUDA(cudaMalloc(&src, bytes));
  BENCH_CUDA(cudaMalloc(&dst, bytes));
  BENCH_CUDA(cudaMemset(src, 1, bytes));
  cudaEvent_t a, b;
  BENCH_CUDA(cudaEventCreate(&a));
  BENCH_CUDA(cudaEventCreate(&b));
  std::vector<double> ms;
  for (int r = 0; r < 12; ++r) {
    BENCH_CUDA(cudaEventRecord(a, 0));
    BENCH_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, 0));
    BENCH_CUDA(cudaEventRecord(b, 0));
    BENCH_CUDA(cudaEventSynchronize(b));
    float x = 0;
    BENCH_CUDA(cudaEventElapsedTime(&x, a, b));
    if (r >= 2) ms.push_back(x);
  }
  cudaFree(src);
  cudaFree(dst);
  return 2.0 * double(bytes) / (median(ms) * 1e-3) / 1e9;  // read + write
}

Matrix full_block(Index k) {
  std::vector<Index> r, c;
  std::vector<float> v;
  for (Index i = 0; i < k; ++i)
    for (Index j = 0; j < k; ++j) {
      r.push_back(i);
      c.push_back(j);
      v.push_back(float(1 + i + j));
    }
  return Matrix::from_triplets(k, k, r, c, v, Dup::error, IndexType::i32);
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--json")
      o.json = v;
    else if (k == "--md")
      o.md = v;
    else if (k == "--data")
      o.data = v;
    else if (k == "--reps")
      o.reps = std::stoi(v);
    else if (k == "--cpu-reps")
      o.cpu_reps = std::stoi(v);
    else if (k == "--max-nnz")
      o.max_nnz = std::stod(v);
    else if (k == "--only" || k == "--ops")
      o.ops = split_list(v);
    else if (k == "--inputs")
      o.inputs = split_list(v);
    else if (k == "--cpu")
      o.cpu = v != "0";
    else if (k == "--variants")
      o.variants = split_list(v);
    else {
      std::cerr << "unknown option " << k << "\n";
      return 2;
    }
  }
  cudaDeviceProp prop{};
  BENCH_CUDA(cudaGetDeviceProperties(&prop, 0));
  BENCH_CUDA(cudaMalloc(&flush_buffer, flush_bytes));
  const double copy_gbs = copy_bandwidth_gbs();
  std::cout << prop.name << ": copy bandwidth " << copy_gbs << " GB/s (read + write)\n";

  // Inputs: (name, A, B) with B of A's shape for the binary operations.
  struct Input {
    std::string name;
    Matrix a, b;
  };
  std::vector<Input> inputs;
  for (auto [n, d] : {std::pair<Index, Index>{1 << 20, 10}, {1 << 21, 24}, {1 << 20, 96}}) {
    if (double(n * d) > o.max_nnz) continue;
    const std::string name = "gen n=" + std::to_string(n) + " d=" + std::to_string(d);
    if (!selected(o.inputs, name)) continue;
    std::cout << "generating " << name << "\n" << std::flush;
    inputs.push_back({name, generated(n, d, 7, 0.5), generated(n, d, 9, 0.5)});
  }
  const Matrix block = full_block(4);
  for (const char* f :
       {"snap/soc-Epinions1_lwcc_undirected.txt.gz", "suitesparse/bcsstk16.mtx.gz"}) {
    const std::string path = o.data + "/" + f;
    const std::string name = std::filesystem::path(f).filename().string();
    const bool plain = selected(o.inputs, name), expanded = selected(o.inputs, name + " (x) 4x4");
    if (!std::filesystem::is_regular_file(path) || !(plain || expanded)) continue;
    Matrix g = io::read_graph(path).cast(Type::fp32).with_index_type(IndexType::i32);
    Context cpu(Backend::cpu);
    Matrix gt(g.nrows(), g.ncols(), Type::fp32, IndexType::i32);
    // B = A with values shifted: same structure, so add and mult both touch every entry.
    apply(gt, nullptr, no_accum, BinaryOpCode::plus, BindSide::second, Scalar(1.0f), g, {}, cpu);
    gt = gt.with_index_type(IndexType::i32);
    if (plain) inputs.push_back({name, g, gt});
    if (!expanded) continue;
    // Kronecker-expanded by a full 4x4 block: 16x the entries, the graph's row structure.
    Matrix k1(g.nrows() * 4, g.ncols() * 4, Type::fp32, IndexType::i32);
    kronecker(k1, nullptr, no_accum, BinaryOpCode::times, g, block, {}, cpu);
    Matrix k2(g.nrows() * 4, g.ncols() * 4, Type::fp32, IndexType::i32);
    kronecker(k2, nullptr, no_accum, BinaryOpCode::times, gt, block, {}, cpu);
    inputs.push_back({name + " (x) 4x4", k1.with_index_type(IndexType::i32),
                      k2.with_index_type(IndexType::i32)});
  }

  auto out_like = [](const Matrix& a) {
    return Matrix(a.nrows(), a.ncols(), a.type(), IndexType::i32);
  };
  struct Case {
    std::string name;
    int arity;
    Op f;
    /// The cuda variant besides `elementwise` that computes it (row_filter).
    Variant own = Variant::automatic;
  };
  const std::vector<Case> cases = {
      {"ewise_add plus", 2,
       [&](const std::vector<const Matrix*>& in, Context& c, const Descriptor& d) {
         Matrix C = out_like(*in[0]);
         ewise_add(C, nullptr, no_accum, BinaryOpCode::plus, *in[0], *in[1], d, c);
         return C;
       }},
      {"ewise_mult times", 2,
       [&](const std::vector<const Matrix*>& in, Context& c, const Descriptor& d) {
         Matrix C = out_like(*in[0]);
         ewise_mult(C, nullptr, no_accum, BinaryOpCode::times, *in[0], *in[1], d, c);
         return C;
       }},
      {"apply abs", 1,
       [&](const std::vector<const Matrix*>& in, Context& c, const Descriptor& d) {
         Matrix C = out_like(*in[0]);
         apply(C, nullptr, no_accum, UnaryOpCode::abs, *in[0], d, c);
         return C;
       }},
      {"apply times 2 (bound)", 1,
       [&](const std::vector<const Matrix*>& in, Context& c, const Descriptor& d) {
         Matrix C = out_like(*in[0]);
         apply(C, nullptr, no_accum, BinaryOpCode::times, BindSide::second, Scalar(2.0f), *in[0], d,
               c);
         return C;
       }},
      // A masked copy (Markov clustering's pruning): A under a value mask of its own pattern.
      {"apply identity masked by A", 1,
       [&](const std::vector<const Matrix*>& in, Context& c, const Descriptor& d) {
         Matrix C = out_like(*in[0]);
         apply(C, in[0], no_accum, UnaryOpCode::identity, *in[0], d, c);
         return C;
       },
       Variant::row_filter},
      {"select value_gt 0", 1,
       [&](const std::vector<const Matrix*>& in, Context& c, const Descriptor& d) {
         Matrix C = out_like(*in[0]);
         select(C, nullptr, no_accum, SelectOpCode::value_gt, Scalar(0.0f), *in[0], d, c);
         return C;
       },
       Variant::row_filter},
      {"select tril", 1,
       [&](const std::vector<const Matrix*>& in, Context& c, const Descriptor& d) {
         Matrix C = out_like(*in[0]);
         select(C, nullptr, no_accum, SelectOpCode::tril, Scalar(std::int64_t(0)), *in[0], d, c);
         return C;
       }},
      {"select row_topk 8", 1,
       [&](const std::vector<const Matrix*>& in, Context& c, const Descriptor& d) {
         Matrix C = out_like(*in[0]);
         select(C, nullptr, no_accum, SelectOpCode::row_topk, Scalar(std::int64_t(8)), *in[0], d,
                c);
         return C;
       }},
      {"select col_topk 8", 1,
       [&](const std::vector<const Matrix*>& in, Context& c, const Descriptor& d) {
         Matrix C = out_like(*in[0]);
         select(C, nullptr, no_accum, SelectOpCode::col_topk, Scalar(std::int64_t(8)), *in[0], d,
                c);
         return C;
       }},
  };

  std::vector<Row> rows;
  for (const Input& in : inputs)
    for (const Case& c : cases) {
      if (!selected(o.ops, c.name)) continue;
      std::vector<const Matrix*> args = {&in.a};
      if (c.arity == 2) args.push_back(&in.b);
      for (const std::string& vname : o.variants) {
        const Variant v = parse_variant(vname);
        if (v != Variant::automatic && v != Variant::elementwise && v != c.own) continue;
        const std::string name = v == Variant::automatic ? c.name : c.name + " [" + vname + "]";
        rows.push_back(run(o, name, in.name, args, c.f, v));
        const Row& r = rows.back();
        const double gbs = r.gpu_ms > 0 ? r.bytes / (r.gpu_ms * 1e6) : 0.0;
        std::cout << r.op << " | " << r.input << " | gpu " << r.gpu_ms << " ms, " << gbs
                  << " GB/s (" << 100.0 * gbs / copy_gbs << "% of copy) | cpu " << r.cpu_ms << " ms"
                  << (r.error.empty() ? "" : " | " + r.error) << "\n"
                  << std::flush;
      }
    }
  // kronecker: a generated X (x) a full k x k block (nnz(X) * k^2 entries).
  if (selected(o.ops, "kronecker times")) {
    for (auto [n, k] : {std::pair<Index, Index>{1 << 18, 4}, {1 << 17, 8}}) {
      const Matrix X = generated(n, 10, 3, 0.0), B = full_block(k);
      const std::string name =
          "gen n=" + std::to_string(n) + " d=10 (x) " + std::to_string(k) + "x" + std::to_string(k);
      if (!selected(o.inputs, name)) continue;
      rows.push_back(
          run(o, "kronecker times", name, {&X, &B},
              [&](const std::vector<const Matrix*>& in, Context& c, const Descriptor& d) {
                Matrix C(in[0]->nrows() * in[1]->nrows(), in[0]->ncols() * in[1]->ncols(),
                         Type::fp32, IndexType::i32);
                kronecker(C, nullptr, no_accum, BinaryOpCode::times, *in[0], *in[1], d, c);
                return C;
              }));
      const Row& r = rows.back();
      std::cout << r.op << " | " << r.input << " | gpu " << r.gpu_ms << " ms | cpu " << r.cpu_ms
                << " ms" << (r.error.empty() ? "" : " | " + r.error) << "\n";
    }
  }

  const std::string date = bench::utc_date();
  std::ofstream md(o.md);
  md << "# bench_elementwise on " << prop.name << " (" << date << ")\n\n"
     << "Device copy bandwidth (cudaMemcpy D2D, read + write): " << copy_gbs << " GB/s. "
     << "GB/s counts every input CSR read and the output CSR written once. cpu: SuiteSparse, all "
     << "cores of this machine. Median of " << o.reps << " (gpu) / " << o.cpu_reps
     << " (cpu) repetitions after warm-up; gpu times are whole public-API calls on "
     << "device-resident operands.\n\n"
     << "| operation | input | nnz in | nnz out | gpu ms | GB/s | % copy BW | cpu ms | speed-up |\n"
     << "|---|---|---:|---:|---:|---:|---:|---:|---:|\n";
  std::ofstream js(o.json);
  js << "{\n  \"gpu\": \"" << prop.name << "\",\n  \"date\": \"" << date
     << "\",\n  \"copy_bandwidth_gbs\": " << copy_gbs << ",\n  \"results\": [";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    const double gbs = r.gpu_ms > 0 ? r.bytes / (r.gpu_ms * 1e6) : 0.0;
    md << "| " << r.op << " | " << r.input << " | " << r.nnz_in << " | " << r.nnz_out << " | "
       << r.gpu_ms << " | " << gbs << " | " << 100.0 * gbs / copy_gbs << " | " << r.cpu_ms << " | "
       << (r.gpu_ms > 0 ? r.cpu_ms / r.gpu_ms : 0.0)
       << (r.error.empty() ? "" : " (" + r.error + ")") << " |\n";
    js << (i ? "," : "") << "\n    {\"op\": \"" << r.op << "\", \"input\": \"" << r.input
       << "\", \"nnz_in\": " << r.nnz_in << ", \"nnz_out\": " << r.nnz_out
       << ", \"bytes\": " << r.bytes << ", \"gpu_ms\": " << r.gpu_ms << ", \"gbs\": " << gbs
       << ", \"fraction_of_copy\": " << gbs / copy_gbs << ", \"cpu_ms\": " << r.cpu_ms
       << ", \"error\": \"" << r.error << "\"}";
  }
  js << "\n  ]\n}\n";
  std::cout << "wrote " << o.json << " and " << o.md << "\n";
  cudaFree(flush_buffer);
  return 0;
}
