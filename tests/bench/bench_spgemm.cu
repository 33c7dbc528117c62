// Benchmark (a program, not a test): C = A·A on spgemm_hash against cusparseSpGEMM (generic API,
// ALG1, allocation of C inside the timing) in the same run, fp64 and fp32, plus min_plus and
// plus_pair against our own plus_times. CUDA events around each whole call, L2 flushed before
// each repetition, median of the repetitions after warm-up; peak device memory from the pool's
// high-water mark. Writes JSON and a Markdown table (GPU name, date) to the paths given.
// Usage: bench_spgemm --json out.json --md out.md [--data DIR] [--reps N] [--only NAME]
//        [--max-products N]
// Versus mode (issue 14): bench_spgemm --speck SPECK.txt --json .. --md .. [--dense-windows N]
//        [--dense-min-nnz N] [--real-only 1] [--variants LIST] [--trace 1]: fp64 only; per matrix
//        the pipeline under each named tuning of LIST (default "new,new-alone128,new-bucket-r2,
//        new-bucket-r3,new-bucket-r4,new-both-r3,new-fuse,new-fuse4k,new-split,new-flat,
//        new-alone128-flat,new-wide128-flat": tuning::defaults (or the knobs given) and session 8's
//        and 9's switches, see session8_switch; session 10's new-nosync1, new-nosync1b3,
//        new-onealloc, new-lean10, new-nosync2, new-nosync2g1, new-lean11, see session10_switch;
//        session 11's new-pw64, new-pwg8, new-pwg16, new-bins34, new-lean12, new-lean12g16, see
//        session11_switch;
//        X-split / X-flat: variant X with tuning::pwarp_split 1 / 2; also new-wide64/128: wide
//        pwarp bins whatever the rows;
//        new-lean, new-mink, new-mink4, new-nostreams: session 5's switches; "s4" = session 4's
//        defaults, "old" = tuning::previous, "new-min4" = dense min nnz / 4); every variant's C is
//        checked against cuSPARSE's; cuSPARSE, and spECK's time read from SPECK.txt ("<name> <ms>"
//        lines from shared/peers/run_speck.sh, measured in the same device call); rows printed and
//        appended to the Markdown file as they are measured.
//        --trace 1 adds, per matrix, the phase timeline of one call under "new" (host and GPU
//        microseconds at each mark of spgemm_hash::phase_log, L2 flushed first); --trace-as NAME
//        takes that variant's tuning for it instead.
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "backend/cuda/spgemm_hash/phase_log.hpp"
#include "backend/cuda/spgemm_hash/spgemm_hash.hpp"
#include "ringblas/ringblas.hpp"
#include "tests/bench/bench_args.hpp"
#include "tests/bench/bench_cuda.hpp"
#include "tests/bench/profile_range.hpp"

namespace {

using namespace ringblas;
using bench::splitmix;
using bench::unit;

struct Options {
  std::string json = "spgemm.json", md = "spgemm.md", data = RINGBLAS_DATA_DIR, only;
  int reps = 10;
  double max_products = 4e10;
  std::string speck;  ///< versus mode when set
  int dense_windows = -1, dense_min_nnz = -1;
  bool real_only = false;
  std::string variants =
      "new,new-alone128,new-bucket-r2,new-bucket-r3,new-bucket-r4,new-both-r3,new-fuse,"
      "new-fuse4k,new-split,new-flat,new-alone128-flat,new-wide128-flat";
  bool trace = false;
  std::string trace_as = "new";  ///< the variant --trace runs under
};

struct Input {
  std::string name;
  Matrix a;  // host, fp64, 32-bit indices
};

// ---- inputs ------------------------------------------------------------------------------------

Matrix from_pairs(Index n, std::vector<Index>& r, std::vector<Index>& c, std::vector<double>& v) {
  return Matrix::from_triplets(n, n, r, c, v, Dup::first, IndexType::i32);
}

/// ANCHORS.md: R-MAT, N = 2^18, 16 N samples, a = 0.57, b = c = 0.19, d = 0.05, duplicates
/// removed, not symmetrized, values uniform in (0, 1].
Matrix make_rmat18() {
  const int scale = 18;
  const Index n = Index(1) << scale;
  std::uint64_t s = 18;
  std::vector<Index> r, c;
  std::vector<double> v;
  for (Index e = 0; e < 16 * n; ++e) {
    Index i = 0, j = 0;
    for (int b = 0; b < scale; ++b) {
      const double u = unit(s);
      const int q = u < 0.57 ? 0 : u < 0.76 ? 1 : u < 0.95 ? 2 : 3;
      i = 2 * i + (q >> 1);
      j = 2 * j + (q & 1);
    }
    r.push_back(i);
    c.push_back(j);
    v.push_back(1.0 - unit(s));
  }
  return from_pairs(n, r, c, v);
}

/// 200,000 rows, 16 N uniformly random (row, col) samples, duplicates removed.
Matrix make_er200k() {
  const Index n = 200000;
  std::uint64_t s = 200;
  std::vector<Index> r, c;
  std::vector<double> v;
  for (Index e = 0; e < 16 * n; ++e) {
    r.push_back(Index(splitmix(s) % std::uint64_t(n)));
    c.push_back(Index(splitmix(s) % std::uint64_t(n)));
    v.push_back(1.0 - unit(s));
  }
  return from_pairs(n, r, c, v);
}

/// 300,000 rows, all j with |i - j| <= 13.
Matrix make_band300k() {
  const Index n = 300000;
  std::vector<Index> r, c;
  std::vector<double> v;
  std::uint64_t s = 300;
  for (Index i = 0; i < n; ++i)
    for (Index j = std::max<Index>(0, i - 13); j <= std::min<Index>(n - 1, i + 13); ++j) {
      r.push_back(i);
      c.push_back(j);
      v.push_back(1.0 - unit(s));
    }
  return from_pairs(n, r, c, v);
}

/// 3-D 27-point stencil on a 100^3 grid (1M rows).
Matrix make_stencil27() {
  const Index g = 100, n = g * g * g;
  std::vector<Index> r, c;
  std::vector<double> v;
  r.reserve(std::size_t(n) * 27);
  c.reserve(std::size_t(n) * 27);
  v.reserve(std::size_t(n) * 27);
  for (Index x = 0; x < g; ++x)
    for (Index y = 0; y < g; ++y)
      for (Index z = 0; z < g; ++z)
        for (Index dx = -1; dx <= 1; ++dx)
          for (Index dy = -1; dy <= 1; ++dy)
            for (Index dz = -1; dz <= 1; ++dz) {
              const Index X = x + dx, Y = y + dy, Z = z + dz;
              if (X < 0 || Y < 0 || Z < 0 || X >= g || Y >= g || Z >= g) continue;
              r.push_back((x * g + y) * g + z);
              c.push_back((X * g + Y) * g + Z);
              v.push_back(dx == 0 && dy == 0 && dz == 0 ? 26.0 : -1.0);
            }
  return from_pairs(n, r, c, v);
}

std::vector<Input> load_inputs(const Options& o) {
  namespace fs = std::filesystem;
  std::vector<Input> out;
  auto want = [&](const std::string& name) { return o.only.empty() || name.find(o.only) != std::string::npos; };
  for (const char* sub : {"suitesparse", "snap"}) {
    const fs::path dir = fs::path(o.data) / sub;
    if (!fs::is_directory(dir)) continue;
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir)) {
      const std::string n = e.path().filename().string();
      if (e.is_regular_file() && (n.ends_with(".mtx") || n.ends_with(".mtx.gz") || n.ends_with(".txt.gz")))
        files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      std::string name = f.filename().string();
      name = name.substr(0, name.find('.'));
      if (!want(name)) continue;
      try {
        Matrix a = io::read_graph(f.string());
        if (a.nrows() != a.ncols() || a.nnz() < 10000) continue;
        out.push_back({name, a.cast(Type::fp64).with_index_type(IndexType::i32)});
      } catch (const std::exception& e) {
        std::cerr << "skipping " << f << ": " << e.what() << "\n";
      }
    }
  }
  if (o.real_only) return out;
  const std::pair<const char*, std::function<Matrix()>> gen[] = {
      {"rmat18", make_rmat18}, {"er200k_16", make_er200k}, {"band300k_27", make_band300k},
      {"stencil27_100", make_stencil27}};
  for (const auto& [name, make] : gen)
    if (want(name)) out.push_back({name, make()});
  return out;
}

// ---- measurement ---------------------------------------------------------------------------------

struct Timing {
  bool ok = false;
  std::string error;
  double ms = 0, peak_mb = 0;
  Index nnz = 0;
};

cudaMemPool_t pool() {
  int dev = 0;
  cudaMemPool_t p;
  BENCH_CUDA(cudaGetDevice(&dev));
  BENCH_CUDA(cudaDeviceGetDefaultMemPool(&p, dev));
  return p;
}

std::size_t pool_used() {
  std::uint64_t v = 0;
  BENCH_CUDA(cudaMemPoolGetAttribute(pool(), cudaMemPoolAttrUsedMemCurrent, &v));
  return std::size_t(v);
}

void reset_pool_high() {
  std::uint64_t zero = 0;
  BENCH_CUDA(cudaMemPoolSetAttribute(pool(), cudaMemPoolAttrUsedMemHigh, &zero));
}

std::size_t pool_high() {
  std::uint64_t v = 0;
  BENCH_CUDA(cudaMemPoolGetAttribute(pool(), cudaMemPoolAttrUsedMemHigh, &v));
  return std::size_t(v);
}

void* flush_buffer = nullptr;
const std::size_t flush_bytes = std::size_t(128) << 20;

void flush_l2() { BENCH_CUDA(cudaMemsetAsync(flush_buffer, int(rand() & 0xff), flush_bytes, 0)); }

/// Runs `once` (which returns the result's nnz) warm-up + reps times; median of CUDA-event times.
/// `label` names the call profiled under ncu (profile_range.hpp; none when empty).
Timing measure(int reps, const std::function<Index()>& once, const std::string& label = {}) {
  Timing t;
  try {
    cudaEvent_t a, b;
    BENCH_CUDA(cudaEventCreate(&a));
    BENCH_CUDA(cudaEventCreate(&b));
    const std::size_t base = pool_used();
    reset_pool_high();
    t.nnz = once();  // warm-up 1 (and peak memory)
    BENCH_CUDA(cudaDeviceSynchronize());
    t.peak_mb = double(pool_high() - std::min(base, pool_high())) / 1048576.0;
    once();  // warm-up 2
    bench::profile_once(label, 0, [&] { once(); });
    std::vector<double> ms;
    for (int r = 0; r < reps; ++r) {
      flush_l2();
      BENCH_CUDA(cudaEventRecord(a, 0));
      once();
      BENCH_CUDA(cudaEventRecord(b, 0));
      BENCH_CUDA(cudaEventSynchronize(b));
      float x = 0;
      BENCH_CUDA(cudaEventElapsedTime(&x, a, b));
      ms.push_back(x);
    }
    std::sort(ms.begin(), ms.end());
    t.ms = ms[ms.size() / 2];
    t.ok = true;
    cudaEventDestroy(a);
    cudaEventDestroy(b);
  } catch (const std::exception& e) {
    t.error = e.what();
    cudaGetLastError();
  }
  return t;
}

template <class T> void* dalloc(std::size_t n) {
  void* p = nullptr;
  if (n) BENCH_CUDA(cudaMallocAsync(&p, n * sizeof(T), 0));
  return p;
}

/// C = A·A with cusparseSpGEMM ALG1 (all allocations inside); returns nnz(C). `keep` receives C.
Index cusparse_spgemm(cusparseHandle_t h, const Matrix& A, cudaDataType vt, std::size_t vbytes,
                      std::vector<void*>* keep) {
  const auto m = std::int64_t(A.nrows());
  const double one_d = 1.0, zero_d = 0.0;
  const float one_f = 1.0f, zero_f = 0.0f;
  const void* alpha = vt == CUDA_R_64F ? (const void*)&one_d : (const void*)&one_f;
  const void* beta = vt == CUDA_R_64F ? (const void*)&zero_d : (const void*)&zero_f;
  cusparseSpMatDescr_t a, c;
  BENCH_CUSPARSE(cusparseCreateCsr(&a, m, m, A.nnz(), const_cast<void*>(A.row_ptr().data()),
                                   const_cast<void*>(A.col_idx().data()),
                                   const_cast<void*>(A.values().data()), CUSPARSE_INDEX_32I,
                                   CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, vt));
  void* c_rp = dalloc<int>(std::size_t(m) + 1);
  BENCH_CUSPARSE(cusparseCreateCsr(&c, m, m, 0, c_rp, nullptr, nullptr, CUSPARSE_INDEX_32I,
                                   CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, vt));
  cusparseSpGEMMDescr_t d;
  BENCH_CUSPARSE(cusparseSpGEMM_createDescr(&d));
  const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  const auto alg = CUSPARSE_SPGEMM_ALG1;
  std::size_t b1 = 0, b2 = 0;
  void *buf1 = nullptr, *buf2 = nullptr, *c_ci = nullptr, *c_v = nullptr;
  Index nnz = 0;
  std::string err;
  try {
    BENCH_CUSPARSE(cusparseSpGEMM_workEstimation(h, op, op, alpha, a, a, beta, c, vt, alg, d, &b1, nullptr));
    buf1 = dalloc<char>(b1);
    BENCH_CUSPARSE(cusparseSpGEMM_workEstimation(h, op, op, alpha, a, a, beta, c, vt, alg, d, &b1, buf1));
    BENCH_CUSPARSE(cusparseSpGEMM_compute(h, op, op, alpha, a, a, beta, c, vt, alg, d, &b2, nullptr));
    buf2 = dalloc<char>(b2);
    BENCH_CUSPARSE(cusparseSpGEMM_compute(h, op, op, alpha, a, a, beta, c, vt, alg, d, &b2, buf2));
    std::int64_t r, cc, z;
    BENCH_CUSPARSE(cusparseSpMatGetSize(c, &r, &cc, &z));
    nnz = Index(z);
    c_ci = dalloc<int>(std::size_t(z));
    c_v = dalloc<char>(std::size_t(z) * vbytes);
    BENCH_CUSPARSE(cusparseCsrSetPointers(c, c_rp, c_ci, c_v));
    BENCH_CUSPARSE(cusparseSpGEMM_copy(h, op, op, alpha, a, a, beta, c, vt, alg, d));
  } catch (const std::exception& e) {
    err = e.what();
  }
  cusparseSpGEMM_destroyDescr(d);
  cusparseDestroySpMat(a);
  cusparseDestroySpMat(c);
  if (buf1) cudaFreeAsync(buf1, 0);
  if (buf2) cudaFreeAsync(buf2, 0);
  if (keep && err.empty()) {
    *keep = {c_rp, c_ci, c_v};
  } else {
    for (void* p : {c_rp, c_ci, c_v})
      if (p) cudaFreeAsync(p, 0);
  }
  if (!err.empty()) throw std::runtime_error(err);
  return nnz;
}

/// Compares our C (device) with cuSPARSE's arrays: structure exact, values within 1e-10 (fp64)
/// or 1e-4 (fp32) of `mag` = |A|·|A|, the scale of each entry's terms (stiffness matrices cancel
/// far below it, where only the summation order differs).
std::string check_against(const Matrix& ours, const std::vector<void*>& theirs, Index nnz,
                          bool fp64, const Matrix& mag, const Context& ctx) {
  const Matrix h = ours.to(Location::host, ctx);
  if (h.nnz() != nnz) return "nnz " + std::to_string(h.nnz()) + " vs " + std::to_string(nnz);
  const std::size_t m = std::size_t(h.nrows());
  std::vector<int> rp(m + 1), ci(static_cast<std::size_t>(nnz));
  BENCH_CUDA(cudaMemcpy(rp.data(), theirs[0], rp.size() * 4, cudaMemcpyDeviceToHost));
  BENCH_CUDA(cudaMemcpy(ci.data(), theirs[1], ci.size() * 4, cudaMemcpyDeviceToHost));
  const auto orp = h.row_ptr_vector(), oci = h.col_idx_vector();
  for (std::size_t i = 0; i <= m; ++i)
    if (orp[i] != rp[i]) return "row_ptr differs at row " + std::to_string(i);
  for (std::size_t k = 0; k < ci.size(); ++k)
    if (oci[k] != ci[k]) return "column differs at entry " + std::to_string(k);
  std::vector<double> tv(static_cast<std::size_t>(nnz));
  if (fp64) {
    BENCH_CUDA(cudaMemcpy(tv.data(), theirs[2], tv.size() * 8, cudaMemcpyDeviceToHost));
  } else {
    std::vector<float> f(static_cast<std::size_t>(nnz));
    BENCH_CUDA(cudaMemcpy(f.data(), theirs[2], f.size() * 4, cudaMemcpyDeviceToHost));
    std::copy(f.begin(), f.end(), tv.begin());
  }
  const auto ov = fp64 ? h.values_vector<double>() : h.cast(Type::fp64).values_vector<double>();
  const auto mv = mag.to(Location::host, ctx).cast(Type::fp64).values_vector<double>();
  if (mv.size() != ov.size()) return "magnitude matrix has " + std::to_string(mv.size()) + " entries";
  const double tol = fp64 ? 1e-10 : 1e-4;
  for (std::size_t k = 0; k < tv.size(); ++k)
    if (!(std::fabs(ov[k] - tv[k]) <= tol * mv[k]))
      return "value differs at entry " + std::to_string(k) + ": " + std::to_string(ov[k]) +
             " vs " + std::to_string(tv[k]);
  return "";
}

struct Row {
  std::string name;
  Index n = 0, nnz = 0, products = 0, nnz_c = 0;
  Timing ours[2], cus[2], min_plus, plus_pair;  // [0] fp64, [1] fp32
  std::string check[2];
};

Index count_products(const Matrix& a) {
  const auto rp = a.row_ptr_vector(), ci = a.col_idx_vector();
  Index p = 0;
  for (Index k : ci) p += rp[std::size_t(k) + 1] - rp[std::size_t(k)];
  return p;
}

std::string fmt(double x, int prec = 3) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", prec, x);
  return b;
}
std::string with_commas(Index x) {
  std::string s = std::to_string(x), out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i && (s.size() - i) % 3 == 0) out += ',';
    out += s[i];
  }
  return out;
}
std::string cell(const Timing& t, Index products) {
  if (!t.ok) return "fail";
  return fmt(t.ms) + " ms (" + fmt(2.0 * double(products) / (t.ms * 1e6), 1) + ")";
}
std::string json_timing(const Timing& t, Index products) {
  std::ostringstream o;
  o << "{\"ok\": " << (t.ok ? "true" : "false");
  if (t.ok)
    o << ", \"ms\": " << t.ms << ", \"gflops\": " << 2.0 * double(products) / (t.ms * 1e6)
      << ", \"peak_mb\": " << t.peak_mb;
  else {
    std::string e = t.error;
    std::replace(e.begin(), e.end(), '"', '\'');
    o << ", \"error\": \"" << e << "\"";
  }
  o << "}";
  return o.str();
}

// ---- versus mode: previous vs new pipeline vs cuSPARSE vs spECK, fp64 --------------------------

std::string json_safe(std::string s) {
  std::replace(s.begin(), s.end(), '"', '\'');
  std::replace(s.begin(), s.end(), '\\', '/');
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s;
}

std::map<std::string, double> read_speck(const std::string& path) {
  std::map<std::string, double> out;
  std::ifstream in(path);
  std::string name, ms;
  while (in >> name >> ms) {
    try {
      out[name] = std::stod(ms);
    } catch (...) {  // "NA": spECK failed on it
    }
  }
  return out;
}

/// Session 8's and 9's variants of versus mode: new-bucket[512|-l32|-l128|-e4|-r2|-r3|-r4]
/// (bucket rank for hash rows of >= 1 or 512 outputs; bucket limit 32/128; nnz/4 buckets; only
/// rows of at most 2/3/4 products per output, tuning::bucket_max_ratio), new-alone64/128 (wide
/// pwarp bins only without block rows), new-both[-r3] (bucket[-r3] + alone128), new-fuse[4k]
/// (one-block scan + classification up to 16384 [4096] rows), new-all (both + fuse). False for
/// other names.
bool session8_switch(const std::string& name, ringblas::cuda::spgemm_hash::tuning& t) {
  const bool all = name == "new-all";
  const bool bucket = name.rfind("new-bucket", 0) == 0 || name.rfind("new-both", 0) == 0 || all;
  const bool alone = name.rfind("new-alone", 0) == 0 || name.rfind("new-both", 0) == 0 || all;
  if (name == "new-fuse" || all) t.fused_scan_rows = 16384;
  if (name == "new-fuse4k") t.fused_scan_rows = 4096;
  if (bucket) {
    t.bucket_sort_min = name == "new-bucket512" ? 512 : 1;
    if (name == "new-bucket-l32") t.bucket_limit = 32;
    if (name == "new-bucket-l128") t.bucket_limit = 128;
    if (name == "new-bucket-e4") t.bucket_entries = 4;
    const std::size_t r = name.rfind("-r");
    if (r != std::string::npos) t.bucket_max_ratio = std::stod(name.substr(r + 2));
  }
  if (alone) {
    t.wide_pwarp = name == "new-alone64" ? 64 : 128;
    t.wide_pwarp_alone = true;
  }
  const char* known[] = {"new-bucket",    "new-bucket512", "new-bucket-l32", "new-bucket-l128",
                         "new-bucket-e4", "new-bucket-r2", "new-bucket-r3",  "new-bucket-r4",
                         "new-alone64",   "new-alone128",  "new-both",       "new-both-r3",
                         "new-fuse",      "new-fuse4k",    "new-all"};
  return std::find(std::begin(known), std::end(known), name) != std::end(known);
}

/// Session 10's variants of versus mode (small calls' fixed cost, spgemm_notes.md "Round 8"):
/// new-nosync1 (symbolic phase without the host sync up to 16384 rows, tuning::sync_free_rows,
/// block bins 0-4 in k_symbolic_small), new-nosync1b3 (block bins 0-2 in it: calls with rows of
/// more than 2048 products rerun the symbolic phase with the sync), new-onealloc (the plan's
/// arrays in one allocation, tuning::one_workspace), new-lean10 (new-nosync1 + new-onealloc +
/// the one-block scan and classification up to 4096 rows), new-nosync2 / new-lean11 (new-nosync1
/// / new-lean10 with block bins 3-4 in their own grid-stride kernels after k_symbolic_small,
/// tuning::sync_free_bins 3 + sync_free_big_grid: as many blocks per SM as are resident),
/// new-nosync2g1 (new-nosync2 with one block per SM). False for other names.
bool session10_switch(const std::string& name, ringblas::cuda::spgemm_hash::tuning& t) {
  const bool big = name == "new-nosync2" || name == "new-nosync2g1" || name == "new-lean11";
  const bool lean = name == "new-lean10" || name == "new-lean11";
  const bool nosync = name == "new-nosync1" || name == "new-nosync1b3" || lean || big;
  if (!nosync && name != "new-onealloc") return false;
  if (nosync) t.sync_free_rows = 16384;
  if (name == "new-nosync1b3" || big) t.sync_free_bins = 3;
  if (big) t.sync_free_big_grid = name == "new-nosync2g1" ? 1 : 32;
  if (name == "new-onealloc" || lean) t.one_workspace = true;
  if (lean) t.fused_scan_rows = 4096;
  return true;
}

/// Session 11's variants of versus mode (spgemm_notes.md "Round 9"): new-pw64 (partial-warp
/// blocks of 256 / 128 / 64 threads by the grid, tuning::pwarp_threads 0), new-pwg8 / new-pwg16
/// (the pwarp bin in the 8- / 16-thread wide shapes up to 128 rows per SM, tuning::pwarp_spread
/// and pwarp_spread_group), new-bins34 (k_symbolic_small in 512-thread blocks,
/// tuning::sync_free_threads), new-lean12 / new-lean12g16 (pw64 + pwg8 / pwg16 + bins34). False
/// for other names.
bool session11_switch(const std::string& name, ringblas::cuda::spgemm_hash::tuning& t) {
  const char* known[] = {"new-pw64",   "new-pwg8",   "new-pwg16",
                         "new-bins34", "new-lean12", "new-lean12g16"};
  if (std::find(std::begin(known), std::end(known), name) == std::end(known)) return false;
  const bool all = name.rfind("new-lean12", 0) == 0;
  const bool g16 = name == "new-pwg16" || name == "new-lean12g16";
  if (all || name == "new-pw64") t.pwarp_threads = 0;
  if (all || name.rfind("new-pwg", 0) == 0) t.pwarp_spread = 128;
  if (g16) t.pwarp_spread_group = 16;
  if (all || name == "new-bins34") t.sync_free_threads = 512;
  return true;
}

/// The named tunings of versus mode (Options::variants); throws on an unknown name.
ringblas::cuda::spgemm_hash::tuning named_tuning(const std::string& name, const Options& o) {
  using tuning = ringblas::cuda::spgemm_hash::tuning;
  tuning fresh = tuning::defaults();
  if (o.dense_windows >= 0) fresh.dense_windows = o.dense_windows;
  if (o.dense_min_nnz >= 0) fresh.dense_min_nnz = o.dense_min_nnz;
  tuning t = fresh;
  // "<variant>-split" / "-flat": that variant with tuning::pwarp_split 1 / 2 (session 9).
  for (const auto& [suffix, mode] : {std::pair<std::string, int>{"-split", 1}, {"-flat", 2}})
    if (name.size() > suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      t = named_tuning(name.substr(0, name.size() - suffix.size()), o);
      t.pwarp_split = mode;
      return t;
    }
  if (name == "old") return tuning::previous();
  if (name == "s4") return tuning::session4();
  if (name == "new") return fresh;
  if (name == "new-lean") t.lean_host = false;
  else if (name == "new-wide") t.wide_pwarp = 0;
  else if (name == "new-wide64") t.wide_pwarp = 64;
  else if (name == "new-wide128") t.wide_pwarp = 128;
  else if (name == "new-mink") t.concurrent_min_kernels = 0;
  else if (name == "new-mink4") t.concurrent_min_kernels = 4;
  else if (name == "new-nostreams") t.concurrent_bins = false;
  else if (name == "new-min4") t.dense_min_nnz = std::max(1, fresh.dense_min_nnz / 4);
  else if (!session8_switch(name, t) && !session10_switch(name, t) && !session11_switch(name, t))
    throw std::runtime_error("unknown variant " + name);
  return t;
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string x;
  while (std::getline(in, x, ','))
    if (!x.empty()) out.push_back(x);
  return out;
}

/// One call of C = A·A under the current tuning with spgemm_hash's phase log on; prints each
/// mark's host and GPU time (microseconds since the first mark, the bench's own "bench: call").
void print_trace(const std::string& name, const Matrix& A, const Semiring& s,
                 const Descriptor& desc, Context& ctx) {
  namespace pl = ringblas::cuda::spgemm_hash::phase_log;
  const auto stream = static_cast<cudaStream_t>(ctx.stream);
  for (int warm = 0; warm < 2; ++warm) {
    Matrix C(A.nrows(), A.ncols(), Type::fp64);
    mxm(C, nullptr, no_accum, s, A, A, desc, ctx);
  }
  BENCH_CUDA(cudaDeviceSynchronize());
  flush_l2();
  BENCH_CUDA(cudaDeviceSynchronize());
  pl::enable(true);
  pl::mark("bench: call", stream);
  {
    Matrix C(A.nrows(), A.ncols(), Type::fp64);
    mxm(C, nullptr, no_accum, s, A, A, desc, ctx);
    pl::mark("bench: mxm returned", stream);
  }
  pl::mark("bench: C destroyed", stream);
  const auto marks = pl::take();
  const auto notes = pl::take_notes();
  pl::enable(false);
  std::ostringstream o;
  o << "trace " << name << " (us since the call; host = when the host passed the mark, gpu = when"
    << " the stream reached it)\n";
  double prev_h = 0, prev_g = 0;
  for (const auto& m : marks) {
    char b[160];
    std::snprintf(b, sizeof b, "  %-32s host %8.1f (+%7.1f)  gpu %8.1f (+%7.1f)\n", m.what.c_str(),
                  m.host_us, m.host_us - prev_h, m.gpu_us, m.gpu_us - prev_g);
    o << b;
    prev_h = m.host_us;
    prev_g = m.gpu_us;
  }
  for (const auto& n : notes) o << "  " << n << "\n";
  std::cout << o.str() << std::flush;
}

int run_versus(const Options& o, const cudaDeviceProp& prop, const std::string& date) {
  using spgemm_hash_tuning = ringblas::cuda::spgemm_hash::tuning;
  namespace sh = ringblas::cuda::spgemm_hash;
  const auto speck = read_speck(o.speck);
  const std::vector<std::string> names = split_list(o.variants);
  std::vector<spgemm_hash_tuning> tunings;
  for (const auto& n : names) tunings.push_back(named_tuning(n, o));
  const int nv = int(names.size());
  const auto at = std::find(names.begin(), names.end(), "new");
  const int vnew = at == names.end() ? nv - 1 : int(at - names.begin());
  const spgemm_hash_tuning fresh = named_tuning("new", o);

  cusparseHandle_t h;
  BENCH_CUSPARSE(cusparseCreate(&h));
  Context ctx(Backend::cuda);
  Descriptor desc;
  desc.variant = Variant::spgemm_hash;
  std::ofstream md(o.md);
  std::ostringstream head;
  head << "# spgemm_hash tunings vs cuSPARSE vs spECK, C = A·A, fp64 (" << prop.name << ", " << date
       << ")\n\n"
       << "ours: whole call incl. allocating C, median of " << o.reps
       << " after 2 warm-ups, L2 flushed. s4 = last session's defaults (tuning::session4), new = "
          "tuning::defaults() (dense windows "
       << fresh.dense_windows << ", min nnz " << fresh.dense_min_nnz << ", streams from "
       << fresh.concurrent_min_kernels << " kernels, lean host, partial warps up to "
       << fresh.wide_pwarp
       << " products); new-X = new with switch X off (lean: lean host path; "
          "wide: no wide pwarp bins; wide64/wide128: wide pwarp bins up to 64/128 products; mink: "
          "streams whatever the "
          "kernel "
          "count; mink4: streams from 4 kernels; nostreams: no side "
          "streams; bucket/bucket512: bucket rank sort of hash rows with >= 1/512 outputs, "
          "-l32/-l128: at most 32/128 entries per bucket (else 64), -e4: nnz/4 buckets (else nnz), "
          "-r2/-r3/-r4: only rows of at most 2/3/4 products per output, bins where half the "
          "rows are; "
          "alone64/alone128: wide pwarp bins up to 64/128 products only when no row needs a "
          "block (session 9: no list copies); both[-r3]: bucket[-r3] + alone128; fuse/fuse4k: "
          "one-block scan + classification up to 16384/4096 "
          "rows (session 9: warp-aggregated bin counters); all: both + fuse; X-split: X with "
          "partial-warp rows of few A entries sharing B rows over lanes, X-flat: and rows of "
          "<= a group of entries walking their products flat); old = "
          "tuning::previous(). Check: every variant "
          "against cuSPARSE (ok = all). cuSPARSE ALG1 in this run. spECK: run_speck.sh in "
          "the same device call (mean of 10, C's buffers reused). Ratios: time / spECK (below 1 = "
          "faster than spECK).\n\n| matrix | products | nnz(C) |";
  for (const auto& n : names) head << " " << n << " ms |";
  head << " cuSPARSE ms | spECK ms |";
  for (const auto& n : names) head << " " << n << "/spECK |";
  head << " check |\n|---|---|---|";
  for (int v = 0; v < 2 * nv + 3; ++v) head << "---|";
  head << "\n";
  md << head.str() << std::flush;
  std::cout << head.str() << std::flush;
  std::ostringstream js;
  js << "{\n  \"gpu\": \"" << prop.name << "\",\n  \"date\": \"" << date
     << "\",\n  \"dense_windows\": " << fresh.dense_windows
     << ", \"dense_min_nnz\": " << fresh.dense_min_nnz << ",\n  \"matrices\": [\n";
  std::vector<double> log_sum(names.size(), 0.0);
  std::vector<int> n_speck(names.size(), 0), worse(names.size(), 0);
  bool first = true;
  for (Input& in : load_inputs(o)) {
    const Index products = count_products(in.a);
    if (double(products) > o.max_products) continue;
    const Matrix A = in.a.to(Location::device, ctx);
    const Semiring s = semiring("plus_times", Type::fp64);
    const std::size_t nvs = names.size();
    std::vector<Timing> t(nvs);
    std::vector<std::string> check(nvs);
    std::vector<void*> theirs;
    Index cz = 0;
    Timing cus;
    cus = measure(o.reps, [&] { return cusparse_spgemm(h, A, CUDA_R_64F, 8, nullptr); });
    if (cus.ok) {
      try {
        cz = cusparse_spgemm(h, A, CUDA_R_64F, 8, &theirs);
      } catch (const std::exception&) {
        theirs.clear();
      }
    }
    std::vector<double> av = in.a.values_vector<double>();
    for (double& x : av) x = std::fabs(x);
    const Matrix absA = Matrix::from_csr(in.a.nrows(), in.a.ncols(), in.a.row_ptr_vector(),
                                         in.a.col_idx_vector(), av)
                            .to(Location::device, ctx);
    Matrix mag;
    for (int v = 0; v < nv; ++v) {
      sh::set_tuning(tunings[std::size_t(v)]);
      Matrix last;
      t[std::size_t(v)] = measure(o.reps, [&] {
        Matrix C(A.nrows(), A.ncols(), Type::fp64);
        mxm(C, nullptr, no_accum, s, A, A, desc, ctx);
        Index z = C.nnz();
        last = std::move(C);
        return z;
      });
      std::string& c = check[std::size_t(v)];
      if (!t[std::size_t(v)].ok) c = "failed: " + t[std::size_t(v)].error;
      else if (theirs.empty()) c = "no peer";
      else {
        try {
          if (mag.nrows() != A.nrows() || mag.nnz() == 0) {
            mag = Matrix(A.nrows(), A.ncols(), Type::fp64);
            mxm(mag, nullptr, no_accum, s, absA, absA, desc, ctx);
          }
          const std::string diff = check_against(last, theirs, cz, true, mag, ctx);
          c = diff.empty() ? "ok" : "WRONG: " + diff;
        } catch (const std::exception& e) {
          c = std::string("check failed: ") + e.what();
        }
      }
    }
    if (o.trace) {
      sh::set_tuning(named_tuning(o.trace_as, o));
      print_trace(in.name, A, s, desc, ctx);
    }
    sh::set_tuning(spgemm_hash_tuning::defaults());
    for (void* p : theirs) cudaFreeAsync(p, 0);
    const auto sp = speck.find(in.name);
    const bool has_speck = sp != speck.end();
    auto ms = [](const Timing& x) { return x.ok ? fmt(x.ms) : std::string("fail"); };
    auto ratio = [](const Timing& x, double ref) {
      return x.ok && ref > 0 ? fmt(x.ms / ref, 2) : std::string("—");
    };
    std::ostringstream row;
    row << "| " << in.name << " | " << with_commas(products) << " | "
        << with_commas(t[std::size_t(vnew)].ok ? t[std::size_t(vnew)].nnz : t[0].nnz) << " |";
    for (int v = 0; v < nv; ++v) row << " " << ms(t[std::size_t(v)]) << " |";
    row << " " << ms(cus) << " | " << (has_speck ? fmt(sp->second) : "NA") << " |";
    for (int v = 0; v < nv; ++v) {
      const Timing& x = t[std::size_t(v)];
      row << " " << ratio(x, has_speck ? sp->second : 0) << " |";
      if (has_speck && x.ok) {
        log_sum[std::size_t(v)] += std::log(x.ms / sp->second);
        ++n_speck[std::size_t(v)];
        worse[std::size_t(v)] += x.ms > sp->second;
      }
    }
    std::string all = "ok";  // "ok" when every variant matched, else the first other outcome
    for (int v = 0; v < nv && all == "ok"; ++v)
      if (check[std::size_t(v)] != "ok") all = names[std::size_t(v)] + ": " + check[std::size_t(v)];
    row << " " << all << " |\n";
    md << row.str() << std::flush;
    std::cout << row.str() << std::flush;
    js << (first ? "" : ",\n") << "    {\"name\": \"" << in.name
       << "\", \"products\": " << products;
    first = false;
    for (int v = 0; v < nv; ++v)
      js << ", \"" << names[std::size_t(v)] << "\": " << json_timing(t[std::size_t(v)], products);
    js << ", \"cusparse\": " << json_timing(cus, products)
       << ", \"speck_ms\": " << (has_speck ? std::to_string(sp->second) : std::string("null"))
       << ", \"check_new\": \"" << json_safe(check[std::size_t(vnew)]) << "\", \"check_first\": \""
       << json_safe(check[0]) << "\", \"check_all\": \"" << json_safe(all) << "\"}";
  }
  std::ostringstream tail;
  auto geomean = [&](int v) {
    const std::size_t i = std::size_t(v);
    return n_speck[i] ? std::exp(log_sum[i] / n_speck[i]) : 0.0;
  };
  tail << "\ngeomean time / spECK (slower than spECK on):";
  for (int v = 0; v < nv; ++v)
    tail << " " << names[std::size_t(v)] << " " << fmt(geomean(v), 3) << " ("
         << worse[std::size_t(v)] << " of " << n_speck[std::size_t(v)] << ")"
         << (v + 1 < nv ? "," : "\n");
  md << tail.str() << std::flush;
  std::cout << tail.str() << std::flush;
  js << "\n  ],\n  \"geomean_over_speck\": {";
  for (int v = 0; v < nv; ++v)
    js << (v ? ", " : "") << "\"" << names[std::size_t(v)] << "\": " << geomean(v);
  js << "},\n  \"n_speck\": " << n_speck[std::size_t(vnew)] << "\n}\n";
  std::ofstream(o.json) << js.str();
  cusparseDestroy(h);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--json") o.json = v;
    else if (k == "--md") o.md = v;
    else if (k == "--data") o.data = v;
    else if (k == "--reps") o.reps = std::max(3, std::stoi(v));
    else if (k == "--only") o.only = v;
    else if (k == "--max-products") o.max_products = std::stod(v);
    else if (k == "--speck") o.speck = v;
    else if (k == "--dense-windows") o.dense_windows = std::stoi(v);
    else if (k == "--dense-min-nnz") o.dense_min_nnz = std::stoi(v);
    else if (k == "--real-only") o.real_only = v != "0";
    else if (k == "--variants") o.variants = v;
    else if (k == "--trace") o.trace = v != "0";
    else if (k == "--trace-as") o.trace_as = v;
    else {
      std::cerr << "unknown option " << k << "\n";
      return 2;
    }
  }
  cudaDeviceProp prop{};
  BENCH_CUDA(cudaGetDeviceProperties(&prop, 0));
  BENCH_CUDA(cudaMalloc(&flush_buffer, flush_bytes));
  const std::string date = bench::utc_date("%Y-%m-%d %H:%M UTC");
  if (!o.speck.empty()) return run_versus(o, prop, date);
  cusparseHandle_t h;
  BENCH_CUSPARSE(cusparseCreate(&h));
  Context ctx(Backend::cuda);
  Descriptor desc;
  desc.variant = Variant::spgemm_hash;

  std::vector<Row> rows;
  for (Input& in : load_inputs(o)) {
    Row r;
    r.name = in.name;
    r.n = in.a.nrows();
    r.nnz = in.a.nnz();
    r.products = count_products(in.a);
    if (double(r.products) > o.max_products) continue;
    std::cerr << in.name << ": " << r.products << " products\n";
    for (int prec = 0; prec < 2; ++prec) {
      const Type t = prec == 0 ? Type::fp64 : Type::fp32;
      const Matrix A = in.a.cast(t).to(Location::device, ctx);
      const Semiring s = semiring("plus_times", t);
      Matrix last;
      const std::string at = in.name + " | plus_times " + (prec == 0 ? "fp64" : "fp32");
      r.ours[prec] = measure(
          o.reps,
          [&] {
            Matrix C(A.nrows(), A.ncols(), t);
            mxm(C, nullptr, no_accum, s, A, A, desc, ctx);
            Index z = C.nnz();
            last = std::move(C);
            return z;
          },
          at + " | ours");
      std::vector<void*> theirs;
      r.cus[prec] = measure(
          o.reps,
          [&] {
            return cusparse_spgemm(h, A, prec == 0 ? CUDA_R_64F : CUDA_R_32F, prec == 0 ? 8 : 4,
                                   nullptr);
          },
          at + " | cusparse");
      if (r.ours[prec].ok) r.nnz_c = r.ours[prec].nnz;
      if (r.ours[prec].ok && r.cus[prec].ok) {
        try {
          const Index z = cusparse_spgemm(h, A, prec == 0 ? CUDA_R_64F : CUDA_R_32F,
                                          prec == 0 ? 8 : 4, &theirs);
          std::vector<double> av = in.a.values_vector<double>();
          for (double& x : av) x = std::fabs(x);
          const Matrix absA = Matrix::from_csr(in.a.nrows(), in.a.ncols(), in.a.row_ptr_vector(),
                                               in.a.col_idx_vector(), av)
                                  .cast(t).to(Location::device, ctx);
          Matrix mag(A.nrows(), A.ncols(), t);
          mxm(mag, nullptr, no_accum, s, absA, absA, desc, ctx);
          const std::string diff = check_against(last, theirs, z, prec == 0, mag, ctx);
          r.check[prec] = diff.empty() ? "ok" : "WRONG: " + diff;
        } catch (const std::exception& e) {
          r.check[prec] = std::string("check failed: ") + e.what();
        }
        for (void* p : theirs) cudaFreeAsync(p, 0);
      } else {
        r.check[prec] = r.ours[prec].ok ? "no peer" : "ours failed: " + r.ours[prec].error;
      }
      last = Matrix();
      if (prec == 0) {
        for (auto [name, slot] : {std::pair{"min_plus", &r.min_plus}, {"plus_pair", &r.plus_pair}}) {
          const Semiring s2 = semiring(name, t);
          *slot = measure(o.reps, [&] {
            Matrix C(A.nrows(), A.ncols(), t);
            mxm(C, nullptr, no_accum, s2, A, A, desc, ctx);
            return C.nnz();
          });
        }
      }
    }
    std::cerr << "  ours f64 " << r.ours[0].ms << " ms, cusparse f64 " << r.cus[0].ms
              << " ms, check " << r.check[0] << (r.ours[0].ok ? "" : " " + r.ours[0].error)
              << (r.cus[0].ok ? "" : " cusparse: " + r.cus[0].error) << "\n";
    rows.push_back(r);
  }

  // Geomean speedup over cuSPARSE f64 on matrices with more than 5M products.
  double log_sum = 0;
  int count = 0;
  for (const Row& r : rows)
    if (r.products > 5000000 && r.ours[0].ok && r.cus[0].ok) {
      log_sum += std::log(r.cus[0].ms / r.ours[0].ms);
      ++count;
    }
  const double geomean = count ? std::exp(log_sum / count) : 0.0;
  // The same over the anchor matrices of shared/ANCHORS.md (the issue's target), fp64 and fp32.
  const char* anchors[] = {"rajat01", "bcsstk16", "wiki-Vote", "er200k_16",
                           "soc-Epinions1_lwcc_undirected", "band300k_27"};
  double anchor_geo[2] = {0, 0};
  int anchor_n[2] = {0, 0};
  for (int p = 0; p < 2; ++p) {
    double ls = 0;
    for (const Row& r : rows)
      if (std::find(std::begin(anchors), std::end(anchors), r.name) != std::end(anchors) &&
          r.ours[p].ok && r.cus[p].ok) {
        ls += std::log(r.cus[p].ms / r.ours[p].ms);
        ++anchor_n[p];
      }
    anchor_geo[p] = anchor_n[p] ? std::exp(ls / anchor_n[p]) : 0.0;
  }

  std::ofstream md(o.md);
  md << "# spgemm_hash vs cuSPARSE, C = A·A (" << prop.name << ", " << date << ")\n\n"
     << "Time per whole call (analysis, symbolic, allocation of C, numeric), median of " << o.reps
     << " after 2 warm-ups, L2 flushed; (GFLOP/s = 2·products/time). Peak = pool high-water mark "
        "above the inputs, fp64. min_plus / plus_pair: fp64, ratio to our plus_times fp64.\n\n"
     << "| matrix | rows | nnz | products | nnz(C) | ours f64 | cuSPARSE f64 | speedup f64 | ours "
        "f32 | cuSPARSE f32 | speedup f32 | peak MB ours / cuSPARSE | min_plus (ratio) | "
        "plus_pair (ratio) | check f64 / f32 |\n"
     << "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const Row& r : rows) {
    auto speed = [&](int p) {
      return r.ours[p].ok && r.cus[p].ok ? fmt(r.cus[p].ms / r.ours[p].ms, 2) + "x" : "—";
    };
    auto ratio = [&](const Timing& t) {
      return t.ok && r.ours[0].ok ? fmt(t.ms) + " ms (" + fmt(t.ms / r.ours[0].ms, 2) + ")" : "fail";
    };
    md << "| " << r.name << " | " << with_commas(r.n) << " | " << with_commas(r.nnz) << " | "
       << with_commas(r.products) << " | " << with_commas(r.nnz_c) << " | "
       << cell(r.ours[0], r.products) << " | " << cell(r.cus[0], r.products) << " | " << speed(0)
       << " | " << cell(r.ours[1], r.products) << " | " << cell(r.cus[1], r.products) << " | "
       << speed(1) << " | " << (r.ours[0].ok ? fmt(r.ours[0].peak_mb, 1) : "—") << " / "
       << (r.cus[0].ok ? fmt(r.cus[0].peak_mb, 1) : "—") << " | " << ratio(r.min_plus) << " | "
       << ratio(r.plus_pair) << " | " << r.check[0] << " / " << r.check[1] << " |\n";
  }
  md << "\ngeomean speedup over cuSPARSE f64 (matrices with > 5M products): " << fmt(geomean, 2)
     << "x (n=" << count << ")\n"
     << "geomean speedup over cuSPARSE on the ANCHORS.md matrices: f64 " << fmt(anchor_geo[0], 2)
     << "x (n=" << anchor_n[0] << "), f32 " << fmt(anchor_geo[1], 2) << "x (n=" << anchor_n[1]
     << ")\n";

  std::ofstream js(o.json);
  js << "{\n  \"gpu\": \"" << prop.name << "\",\n  \"date\": \"" << date
     << "\",\n  \"geomean_speedup_f64_over_5M\": " << geomean
     << ",\n  \"anchor_geomean_f64\": " << anchor_geo[0] << ", \"anchor_n_f64\": " << anchor_n[0]
     << ",\n  \"anchor_geomean_f32\": " << anchor_geo[1] << ", \"anchor_n_f32\": " << anchor_n[1]
     << ",\n  \"matrices\": [\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    js << "    {\"name\": \"" << r.name << "\", \"rows\": " << r.n << ", \"nnz\": " << r.nnz
       << ", \"products\": " << r.products << ", \"nnz_c\": " << r.nnz_c
       << ",\n     \"ours_f64\": " << json_timing(r.ours[0], r.products)
       << ",\n     \"cusparse_f64\": " << json_timing(r.cus[0], r.products)
       << ",\n     \"ours_f32\": " << json_timing(r.ours[1], r.products)
       << ",\n     \"cusparse_f32\": " << json_timing(r.cus[1], r.products)
       << ",\n     \"min_plus_f64\": " << json_timing(r.min_plus, r.products)
       << ",\n     \"plus_pair_f64\": " << json_timing(r.plus_pair, r.products)
       << ",\n     \"check_f64\": \"" << r.check[0] << "\", \"check_f32\": \"" << r.check[1]
       << "\"}" << (i + 1 < rows.size() ? "," : "") << "\n";
  }
  js << "  ]\n}\n";
  cusparseDestroy(h);
  std::cout << "wrote " << o.json << " and " << o.md << "\n";
  return 0;
}
