// Benchmark (a program, not a test): reduce to a vector by rows and by columns, reduce to a
// scalar, and transpose, on generated matrices of 10M-100M entries (uniform rows of 16 and of 512
// entries, and power-law columns that make hot columns for the column atomics), fp64 values,
// 32-bit indices. For each:
// the kernel-level path (backend/cuda/reduce launchers, cuda::transpose by each TransposeMethod,
// column top-k 8 on fp32 as select runs it) and the public API on
// device-resident operands (write-back and its size read included), CUDA events, median of the
// repetitions after warm-up (the inputs are larger than L2, so no flush); achieved GB/s of the
// minimum traffic (bytes read + written once) against the device-to-device copy bandwidth
// measured in the same run; the cpu executor (SuiteSparse:GraphBLAS, all cores, conversion to
// GrB objects included as the executor does it) in the same run. Columns are reduced both by
// monoid atomics (the default) and through the shared transpose, to say which wins; rows by the
// default row kernel and its 16-byte schedule ("kernel vec"), and the public call also with the
// fused output ("api fused", "api fused vec": cuda::reduction::paths_now() set
// around those rows only); columns also by column ranges ("kernel ranges", "api ranges").
// Usage: bench_reduce_transpose --json out.json --md out.md [--reps N] [--cpu-reps N]
//        [--sizes 10,50,100] (millions of entries) [--kinds uniform,powerlaw,longrows,d96]
//        [--ops a,b] [--cpu 0|1]
// --ops keeps the rows whose "operation [path]" contains one of the words ("rows", "cols",
// "scalar", "transpose", "api", "kernel", ...); --cpu 0 skips the cpu executor, whose first
// call is its only one when it takes over 2 s (SuiteSparse on 50M+ entries). About 10 s per
// input of 50M entries with the cpu, 2 s without (generation included).
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "backend/cuda/common/device_matrix.hpp"
#include "backend/cuda/elementwise/elementwise.hpp"
#include "backend/cuda/reduce/reduction.hpp"
#include "ringblas/ringblas.hpp"
#include "tests/bench/bench_args.hpp"
#include "tests/bench/bench_cuda.hpp"
#include "tests/bench/profile_range.hpp"

namespace {

using namespace ringblas;

struct Options {
  std::string json = "reduce_transpose.json", md = "reduce_transpose.md";
  int reps = 10, cpu_reps = 3;
  bool cpu = true;
  std::vector<double> sizes_m = {10, 50, 100};
  std::vector<std::string> kinds = {"uniform", "powerlaw", "longrows"}, ops;
};

using bench::selected;
using bench::split_list;
using bench::splitmix;
using bench::unit;

/// n x n, `deg` entries per row on average. uniform: one column in each of deg equal strides
/// (sorted, distinct). powerlaw: columns n·u³ (hot low columns), rows of 1..2·deg entries.
Matrix generate(std::int64_t nnz_target, int deg, bool powerlaw, std::uint64_t seed) {
  const std::int64_t n = nnz_target / deg;
  std::vector<std::int32_t> rp(std::size_t(n) + 1, 0);
  std::vector<std::int32_t> ci;
  std::vector<double> v;
  ci.reserve(std::size_t(nnz_target) * 11 / 10);
  v.reserve(ci.capacity());
  std::uint64_t s = seed;
  std::vector<std::int32_t> row;
  for (std::int64_t r = 0; r < n; ++r) {
    row.clear();
    if (!powerlaw) {
      const double stride = double(n) / deg;
      for (int k = 0; k < deg; ++k)
        row.push_back(std::int32_t(std::min<double>(double(n - 1), (k + unit(s)) * stride)));
    } else {
      const int len = 1 + int(unit(s) * (2 * deg - 1));
      for (int k = 0; k < len; ++k) {
        const double u = unit(s);
        row.push_back(std::int32_t(std::min<double>(double(n - 1), double(n) * u * u * u)));
      }
      std::sort(row.begin(), row.end());
      row.erase(std::unique(row.begin(), row.end()), row.end());
    }
    for (std::int32_t c : row) {
      ci.push_back(c);
      v.push_back(double(splitmix(s) % 1000) / 7.0);
    }
    rp[std::size_t(r) + 1] = std::int32_t(ci.size());
  }
  Buffer brp(rp.size() * 4, Location::host), bci(ci.size() * 4, Location::host),
      bv(v.size() * 8, Location::host);
  std::copy(rp.begin(), rp.end(), brp.as<std::int32_t>());
  std::copy(ci.begin(), ci.end(), bci.as<std::int32_t>());
  std::copy(v.begin(), v.end(), bv.as<double>());
  return Matrix::from_buffers(n, n, Type::fp64, IndexType::i32, Index(ci.size()), std::move(brp),
                              std::move(bci), std::move(bv));
}

double median(std::vector<double> x) {
  std::sort(x.begin(), x.end());
  return x.empty() ? 0.0 : x[x.size() / 2];
}

/// The row being measured, "matrix | operation [path]", and its minimum traffic: the label and
/// bytes of the call profiled under ncu (profile_range.hpp); empty outside add().
std::string g_label;
double g_bytes = 0;

/// Median milliseconds of fn() over reps runs after two warm-ups, by CUDA events.
double gpu_ms(const std::function<void()>& fn, int reps) {
  cudaEvent_t a, b;
  BENCH_CUDA(cudaEventCreate(&a));
  BENCH_CUDA(cudaEventCreate(&b));
  fn();
  fn();
  bench::profile_once(g_label, g_bytes, fn);
  std::vector<double> t;
  for (int k = 0; k < reps; ++k) {
    BENCH_CUDA(cudaEventRecord(a));
    fn();
    BENCH_CUDA(cudaEventRecord(b));
    BENCH_CUDA(cudaEventSynchronize(b));
    float ms = 0;
    BENCH_CUDA(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  BENCH_CUDA(cudaEventDestroy(a));
  BENCH_CUDA(cudaEventDestroy(b));
  return median(t);
}

/// The peer of the transpose rows: cuSPARSE's csr2csc (cusparseCsr2cscEx2, ALG1: sorted rows,
/// the same result as ours) of a device CSR with 32-bit indices and `vt` values, timed like ours
/// but with its output arrays and work buffer allocated before the timing (ours allocates T in
/// the call).
double cusparse_csr2csc_ms(cusparseHandle_t sp, const Matrix& A, cudaDataType vt, int reps) {
  const int m = int(A.nrows()), n = int(A.ncols()), nnz = int(A.nnz());
  const std::size_t vsz = vt == CUDA_R_64F ? 8 : 4;
  void *cp = nullptr, *ri = nullptr, *cv = nullptr, *work = nullptr;
  BENCH_CUDA(cudaMalloc(&cp, (std::size_t(n) + 1) * 4));
  BENCH_CUDA(cudaMalloc(&ri, std::size_t(nnz) * 4 + 4));
  BENCH_CUDA(cudaMalloc(&cv, std::size_t(nnz) * vsz + vsz));
  std::size_t work_bytes = 0;
  auto call = [&](void* buffer) {
    return cusparseCsr2cscEx2(sp, m, n, nnz, A.values().data(), A.row_ptr().as<std::int32_t>(),
                              A.col_idx().as<std::int32_t>(), cv, static_cast<int*>(cp),
                              static_cast<int*>(ri), vt, CUSPARSE_ACTION_NUMERIC,
                              CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, buffer);
  };
  BENCH_CUSPARSE(cusparseCsr2cscEx2_bufferSize(
      sp, m, n, nnz, A.values().data(), A.row_ptr().as<std::int32_t>(),
      A.col_idx().as<std::int32_t>(), cv, static_cast<int*>(cp), static_cast<int*>(ri), vt,
      CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, &work_bytes));
  BENCH_CUDA(cudaMalloc(&work, work_bytes + 1));
  const double ms = gpu_ms([&] { BENCH_CUSPARSE(call(work)); }, reps);
  for (void* x : {cp, ri, cv, work}) BENCH_CUDA(cudaFree(x));
  return ms;
}

/// Median wall milliseconds of fn() over reps runs after one warm-up; the warm-up alone when it
/// takes over 2 s (SuiteSparse on 50M+ entries: repeating it would not fit a device session).
double cpu_ms(const std::function<void()>& fn, int reps) {
  auto timed = [&] {
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  };
  const double first = timed();
  if (first > 2000.0) return first;
  std::vector<double> t;
  for (int k = 0; k < reps; ++k) t.push_back(timed());
  return median(t);
}

/// Device-to-device copy bandwidth (bytes read + written per second) of a 2 GiB copy.
double copy_gbs(int reps) {
  const std::size_t bytes = std::size_t(1) << 31;
  void *x = nullptr, *y = nullptr;
  BENCH_CUDA(cudaMalloc(&x, bytes));
  BENCH_CUDA(cudaMalloc(&y, bytes));
  BENCH_CUDA(cudaMemset(x, 1, bytes));
  const double ms =
      gpu_ms([&] { BENCH_CUDA(cudaMemcpyAsync(y, x, bytes, cudaMemcpyDeviceToDevice)); }, reps);
  BENCH_CUDA(cudaFree(x));
  BENCH_CUDA(cudaFree(y));
  return 2.0 * double(bytes) / (ms * 1e-3) / 1e9;
}

struct Row {
  std::string matrix, op, path;
  Index nnz = 0;
  double bytes = 0, gpu_ms = 0, gbs = 0, frac_copy = 0, cpu_ms = 0, speedup = 0;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--json")
      o.json = v;
    else if (k == "--md")
      o.md = v;
    else if (k == "--reps")
      o.reps = std::stoi(v);
    else if (k == "--cpu-reps")
      o.cpu_reps = std::stoi(v);
    else if (k == "--cpu")
      o.cpu = v != "0";
    else if (k == "--kinds")
      o.kinds = split_list(v);
    else if (k == "--ops")
      o.ops = split_list(v);
    else if (k == "--sizes") {
      o.sizes_m.clear();
      std::stringstream ss(v);
      for (std::string t; std::getline(ss, t, ',');) o.sizes_m.push_back(std::stod(t));
    } else
      throw std::runtime_error("unknown option " + k);
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) try {
  const Options o = parse(argc, argv);
  cudaDeviceProp prop{};
  BENCH_CUDA(cudaGetDeviceProperties(&prop, 0));
  const double copy = copy_gbs(o.reps);
  std::cerr << prop.name << ": device-to-device copy " << copy << " GB/s, "
            << std::thread::hardware_concurrency() << " host threads\n";
  Context gpu(Backend::cuda), cpu(Backend::cpu);
  std::vector<Row> rows;
  for (double size_m : o.sizes_m)
    for (int kind = 0; kind < 4; ++kind) {
      // uniform and power-law rows of 16 entries on average (the sub-warp row kernel), and
      // uniform rows of 512 (CUB's segmented reduce).
      const bool powerlaw = kind == 1;
      // kind 3 ("d96", only when --kinds names it): uniform rows of 96, the shape of
      // bench_elementwise's n = 1M table.
      const int deg = kind == 2 ? 512 : kind == 3 ? 96 : 16;
      const char* kind_name = powerlaw    ? "powerlaw"
                              : kind == 2 ? "longrows"
                              : kind == 3 ? "d96"
                                          : "uniform";
      if (!selected(o.kinds, kind_name)) continue;
      const std::int64_t target = std::int64_t(size_m * 1e6);
      const Matrix H = generate(target, deg, powerlaw, 42 + std::uint64_t(size_m) + kind);
      const Matrix D = H.to(Location::device, gpu);
      const std::string name = std::string(kind_name) + "_" + std::to_string(H.nrows()) + "x" +
                               std::to_string(H.ncols());
      const double n = double(H.nrows()), nnz = double(H.nnz());
      std::cerr << name << ": " << H.nnz() << " entries\n";
      Buffer t(std::size_t(H.nrows()) * 8, Location::device, &gpu);
      Buffer present(std::size_t(H.nrows()), Location::device, &gpu);
      auto want = [&](const std::string& op, const std::string& path) {
        return selected(o.ops, op + " [" + path + "]");
      };
      auto add = [&](const std::string& op, const std::string& path, double bytes,
                     const std::function<double()>& g_ms, double c) {
        if (!want(op, path)) return;
        g_label = name + " | " + op + " [" + path + "]";
        g_bytes = bytes;
        const double g = g_ms();
        g_label.clear();
        Row r{name, op, path, H.nnz(), bytes, g, bytes / (g * 1e-3) / 1e9, 0, c, c > 0 ? c / g : 0};
        r.frac_copy = r.gbs / copy;
        rows.push_back(r);
        std::cerr << "  " << op << " [" << path << "] " << g << " ms, " << r.gbs << " GB/s ("
                  << 100 * r.frac_copy << "% of copy)"
                  << (c > 0 ? ", cpu " + std::to_string(c) + " ms" : "") << "\n";
      };
      // Minimum traffic: rows read row pointers and values, write t and the presence flags;
      // columns read column indices and values; scalar reads values; transpose reads and
      // writes the whole CSR.
      const double b_rows = (n + 1) * 4 + nnz * 8 + n * 9, b_cols = nnz * 12 + n * 9,
                   b_all = nnz * 8, b_tr = 2 * ((n + 1) * 4 + nnz * 12);
      Vector wh(H.nrows(), Type::fp64);
      Vector wd = wh.to(Location::device, gpu);
      // The cpu executor runs each operation once per input, only when some row of it is kept.
      auto cpu_for = [&](const std::string& op, const std::function<void()>& fn) {
        bool any = false;
        for (const char* path : {"kernel", "api", "kernel atomic", "kernel transpose", "kernel vec",
                                 "api fused", "api fused vec", "kernel ranges", "api ranges"})
          any = any || want(op, path);
        return o.cpu && any ? cpu_ms(fn, o.cpu_reps) : 0.0;
      };
      const double c_rows = cpu_for("reduce rows plus", [&] {
        reduce(wh, nullptr, no_accum, MonoidCode::plus, H, ReduceDim::rows, {}, cpu);
      });
      const double c_cols = cpu_for("reduce cols plus", [&] {
        reduce(wh, nullptr, no_accum, MonoidCode::plus, H, ReduceDim::cols, {}, cpu);
      });
      const double c_all =
          cpu_for("reduce scalar plus", [&] { (void)reduce(MonoidCode::plus, H, cpu); });
      Matrix Ch(H.ncols(), H.nrows(), Type::fp64);
      const double c_tr =
          cpu_for("transpose", [&] { transpose(Ch, nullptr, no_accum, H, {}, cpu); });
      using cuda::reduction::column_method;
      using cuda::reduction::row_kernel;
      auto rows_kernel = [&](MonoidCode m, row_kernel k) {
        return [&, m, k] {
          return gpu_ms(
              [&] {
                cuda::reduction::rows(D, m, t.data(), present.as<unsigned char>(), gpu, {}, k);
              },
              o.reps);
        };
      };
      // The public call (plus, by rows or columns) on the reduce family's paths `how`
      // (reduction.hpp's paths_now()), the defaults again afterwards.
      using cuda::reduction::paths;
      using cuda::reduction::rows_output;
      auto api = [&](ReduceDim dim, paths how) {
        return [&, dim, how] {
          cuda::reduction::paths_now() = how;
          const double ms = gpu_ms(
              [&] { reduce(wd, nullptr, no_accum, MonoidCode::plus, D, dim, {}, gpu); }, o.reps);
          cuda::reduction::paths_now() = {};
          return ms;
        };
      };
      paths fused, fused_vec, ranges;
      fused.output = fused_vec.output = rows_output::fused;
      fused_vec.rows = row_kernel::vec;
      ranges.cols = column_method::ranges;
      auto cols_kernel = [&](MonoidCode m, column_method how) {
        return [&, m, how] {
          return gpu_ms(
              [&] { cuda::reduction::cols(D, m, t.data(), present.as<unsigned char>(), how, gpu); },
              o.reps);
        };
      };
      // Paths "kernel vec" and "api ... vec": the row kernel's 16-byte schedule; "api fused":
      // the output from the kernel's empty-row count (policy.hpp's row_kernel, rows_output).
      // The api rows write 8 bytes of index per row more than b_rows counts (a Vector's
      // indices, by the compaction or, fused, by the kernel).
      add("reduce rows plus", "kernel", b_rows, rows_kernel(MonoidCode::plus, row_kernel::subwarp),
          c_rows);
      add("reduce rows plus", "kernel vec", b_rows, rows_kernel(MonoidCode::plus, row_kernel::vec),
          c_rows);
      add("reduce rows plus", "api", b_rows, api(ReduceDim::rows, paths{}), c_rows);
      add("reduce rows plus", "api fused", b_rows,
          api(ReduceDim::rows, fused), c_rows);
      add("reduce rows plus", "api fused vec", b_rows,
          api(ReduceDim::rows, fused_vec),
          c_rows);
      add("reduce rows max", "kernel", b_rows, rows_kernel(MonoidCode::max, row_kernel::subwarp),
          0);
      add("reduce rows max", "kernel vec", b_rows, rows_kernel(MonoidCode::max, row_kernel::vec),
          0);
      add("reduce cols plus", "kernel atomic", b_cols,
          cols_kernel(MonoidCode::plus, column_method::atomic), c_cols);
      add("reduce cols plus", "kernel transpose", b_cols,
          cols_kernel(MonoidCode::plus, column_method::transpose), c_cols);
      // "kernel ranges", "api ranges": the atomics by column ranges that fit half of L2 (one
      // pass, the plain atomics, where the whole vector does: d96).
      add("reduce cols plus", "kernel ranges", b_cols,
          cols_kernel(MonoidCode::plus, column_method::ranges), c_cols);
      add("reduce cols plus", "api", b_cols, api(ReduceDim::cols, paths{}), c_cols);
      add("reduce cols plus", "api ranges", b_cols,
          api(ReduceDim::cols, ranges), c_cols);
      add("reduce cols max", "kernel atomic", b_cols,
          cols_kernel(MonoidCode::max, column_method::atomic), 0);
      add("reduce cols max", "kernel ranges", b_cols,
          cols_kernel(MonoidCode::max, column_method::ranges), 0);
      add(
          "reduce scalar plus", "api", b_all,
          [&] { return gpu_ms([&] { (void)reduce(MonoidCode::plus, D, gpu); }, o.reps); }, c_all);
      // The transpose's method: path "kernel" is TransposeMethod::radix8 (the default), "kernel
      // radix10" the 10-bit digits, "kernel partition" the two counting passes
      // (transpose_topk_notes.md).
      using cuda::TransposeMethod;
      const std::pair<const char*, TransposeMethod> methods[] = {
          {"kernel", TransposeMethod::radix8},
          {"kernel radix10", TransposeMethod::radix10},
          {"kernel partition", TransposeMethod::partition}};
      for (const auto& [path, m] : methods)
        add(
            "transpose", path, b_tr,
            [&, m = m] { return gpu_ms([&] { (void)cuda::transpose(D, gpu, m); }, o.reps); }, c_tr);
      // cuSPARSE needs 32-bit indices; the inputs here have them (the default stream: gpu's).
      cusparseHandle_t sp = nullptr;
      BENCH_CUSPARSE(cusparseCreate(&sp));
      add(
          "transpose", "cusparse csr2csc", b_tr,
          [&] { return cusparse_csr2csc_ms(sp, D, CUDA_R_64F, o.reps); }, 0);
      // fp32 values: the transpose carries row and value in the sort's payload (no gathers).
      // Column top-k 8 as select runs it (elementwise/entry.cpp: transpose, row top-k, transpose
      // back), on fp32 like bench_elementwise's col_topk rows; bytes: input and output CSRs.
      bool any32 = false;
      for (const auto& [path, m] : methods)
        any32 = any32 || want("transpose fp32", path) || want("col_topk 8 fp32", path);
      if (any32) {
        const Matrix D32 = H.cast(Type::fp32).to(Location::device, gpu);
        auto col_topk = [&](TransposeMethod m) {
          return cuda::transpose(cuda::elementwise::row_topk(cuda::transpose(D32, gpu, m), 8, gpu),
                                 gpu, m);
        };
        const double b_in32 = (n + 1) * 4 + nnz * 8;
        for (const auto& [path, m] : methods) {
          add(
              "transpose fp32", path, 2 * b_in32,
              [&, m = m] { return gpu_ms([&] { (void)cuda::transpose(D32, gpu, m); }, o.reps); },
              0);
          if (want("col_topk 8 fp32", path))
            add(
                "col_topk 8 fp32", path, b_in32 + (n + 1) * 4 + double(col_topk(m).nnz()) * 8,
                [&, m = m] { return gpu_ms([&] { (void)col_topk(m); }, o.reps); }, 0);
        }
        add(
            "transpose fp32", "cusparse csr2csc", 2 * b_in32,
            [&] { return cusparse_csr2csc_ms(sp, D32, CUDA_R_32F, o.reps); }, 0);
      }
      BENCH_CUSPARSE(cusparseDestroy(sp));
      Matrix Cd = Matrix(H.ncols(), H.nrows(), Type::fp64).to(Location::device, gpu);
      add(
          "transpose", "api", b_tr,
          [&] { return gpu_ms([&] { transpose(Cd, nullptr, no_accum, D, {}, gpu); }, o.reps); },
          c_tr);
    }
  const std::string date = bench::utc_date();
  std::ofstream md(o.md), js(o.json);
  md << "# reduce and transpose on " << prop.name << " (" << date << ")\n\n"
     << "Device-to-device copy bandwidth: " << copy << " GB/s (read + write). GB/s below count the "
     << "minimum traffic (bytes read + written once). cpu: SuiteSparse:GraphBLAS through the cpu "
     << "executor, " << std::thread::hardware_concurrency() << " host threads. GPU: median of "
     << o.reps << " after warm-up; cpu: median of " << o.cpu_reps << ".\n\n"
     << "| matrix | nnz | operation | path | GPU ms | GB/s | % of copy | cpu ms | speed-up |\n"
     << "|---|---|---|---|---|---|---|---|---|\n";
  js << "{\n  \"gpu\": \"" << prop.name << "\",\n  \"date\": \"" << date
     << "\",\n  \"copy_gbs\": " << copy
     << ",\n  \"host_threads\": " << std::thread::hardware_concurrency() << ",\n  \"rows\": [\n";
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const Row& r = rows[k];
    char line[512];
    std::snprintf(line, sizeof line, "| %s | %lld | %s | %s | %.3f | %.0f | %.0f%% | %s | %s |\n",
                  r.matrix.c_str(), (long long)r.nnz, r.op.c_str(), r.path.c_str(), r.gpu_ms, r.gbs,
                  100 * r.frac_copy, r.cpu_ms > 0 ? std::to_string(r.cpu_ms).c_str() : "-",
                  r.cpu_ms > 0 ? (std::to_string(int(r.speedup)) + "x").c_str() : "-");
    md << line;
    js << "    {\"matrix\": \"" << r.matrix << "\", \"nnz\": " << r.nnz << ", \"op\": \"" << r.op
       << "\", \"path\": \"" << r.path << "\", \"bytes\": " << r.bytes
       << ", \"gpu_ms\": " << r.gpu_ms << ", \"gbs\": " << r.gbs
       << ", \"fraction_of_copy\": " << r.frac_copy << ", \"cpu_ms\": " << r.cpu_ms
       << ", \"speedup\": " << r.speedup << "}" << (k + 1 < rows.size() ? ",\n" : "\n");
  }
  js << "  ]\n}\n";
  std::cerr << "wrote " << o.md << " and " << o.json << "\n";
  return 0;
} catch (const std::exception& e) {
  std::cerr << "bench_reduce_transpose: " << e.what() << "\n";
  return 1;
}
