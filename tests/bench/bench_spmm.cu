// Benchmark (a program, not a test) of batched and single SpMM, f32 row-major, reproducing the
// experiments of Nagasaka et al. (CCGrid'19) with their peers in the same run:
// - batched: ringblas mxm_batched through the public API (device-resident items; includes its
//   host-side packing and one metadata upload), the spmm_batched / spmm_batched_coo kernels
//   alone, cusparseSpMM once per matrix (loop), cusparseSpMM with cusparseCsrSetStridedBatch
//   (items padded to the largest dim and nnz where sizes differ), cublasSgemmBatched on the
//   densified (padded) matrices, and a TensorFlow-style kernel (one thread per product, global
//   atomics, block-diagonal COO, C zeroed by a memset inside the timing);
// - single SpMM (issue 14): Cora, PubMed and SNAP graphs x n_B through the public API (automatic
//   and each variant forced), the spmm_rowsplit / spmm_subwarp launchers alone with their tuning
//   knobs, cusparseSpMM (default, CSR ALG1/ALG2/ALG3) in the same run, and the host time per call
//   of ringblas and cuSPARSE. `--single` runs only this part (about 2 minutes on an H100).
// CUDA events around each call, warm-up, median of repeats; GFLOP/s = 2 nnz(A) n_B / time;
// bandwidth against the measured device-to-device copy bandwidth. JSON + Markdown with the GPU.
// - `--rmat S`: the GCN's power-law graph (R-MAT scale S plus self-loops, as bench_gcn trains
//   on) as one more single-SpMM configuration at `--rmat-widths` (default 16,256, the widths of
//   a GCN epoch with hidden 256 and 16 classes).
// `--knobs` adds spmm_rowsplit's tuning rows, `--sweep` the nnz-split kernel's. The md file
// ends with the trace of one public call per configuration (what automatic ran). `--settle MS`
// (default 50) runs each configuration's api call that long before its first row;
// `ringblas_api_last` is the api row again after the cuSPARSE rows.
// Usage: bench_spmm --json out.json --md out.md [--data DIR] [--reps N] [--quick] [--single]
//        [--graphs cora,pubmed,wiki-Vote,p2p-Gnutella31,soc-Epinions1|none] [--widths 16,64,128,256,512]
//        [--rmat 20 [--rmat-widths 16,256]] [--knobs] [--sweep] [--impls ringblas_api,cusparse]
//        [--configs "tox21 graphs=10000 n_B=64"] (batched configurations containing one of the
//        comma-separated words; the others are not even generated)
// RINGBLAS_BENCH_PROFILE (profile_range.hpp) adds one untimed call per selected row, for ncu.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "backend/cuda/spmm_subwarp/spmm_problem.hpp"
#include "backend/cuda/spmm_subwarp/spmm_rowsplit_impl.cuh"  // tuned instantiations, bench only
#include "backend/cuda/spmm_subwarp/spmm_subwarp_impl.cuh"   // tuned nnz-split instantiations
#include "ringblas/ringblas.hpp"
#include "semirings/semiring.hpp"
#include "tests/bench/bench_args.hpp"
#include "tests/bench/bench_cuda.hpp"
#include "tests/bench/profile_range.hpp"
#include "tests/support/rmat.hpp"
#include "tests/support/spmm_problem_of.hpp"

namespace {

using namespace ringblas;
using PlusTimes = sr::semiring<sr::plus_monoid<float>, sr::times_op<float>>;

int g_reps = 15;
/// --settle MS: before a single-SpMM configuration's first row, its api call back to back for
/// this long, so that the first row (ringblas_api) does not pay for the GPU idling while the
/// host loaded the graph and built B (s8: the api row was 1.5-4 us above the same launch forced
/// one row later on PubMed n_B = 64 in both H100 tables). 0: off (the tables before s8).
int g_settle_ms = 50;
bool g_knobs = false;   ///< --knobs: spmm_rowsplit's tuning rows (long-row threshold, blocks, ...)
bool g_sweep = false;   ///< --sweep: the nnz-split kernel's run lengths and code knobs
std::vector<std::string> g_impls;  ///< --impls p1,p2: only rows whose name starts with one of these
/// (config, what automatic chose: the dispatch's trace of one public call), for the md file.
std::vector<std::pair<std::string, std::string>> g_choices;
std::vector<std::string>
    g_configs;  ///< --configs w1,w2: only batched configs containing one of these
double g_bytes = 0;
/// The row being timed, "group | config | impl": the label of the call profiled under ncu
/// (profile_range.hpp), g_bytes its compulsory traffic; empty outside record().
std::string g_label;

/// Median time in microseconds of one f() over g_reps runs after warm-up. Each run times a burst
/// of back-to-back calls between two CUDA events (as a training loop issues them) and divides by
/// the burst length, chosen so that a burst lasts about 100 us (1 for slow calls).
double time_us(const std::function<void()>& f) {
  cudaEvent_t a, b;
  BENCH_CUDA(cudaEventCreate(&a));
  BENCH_CUDA(cudaEventCreate(&b));
  for (int w = 0; w < 3; ++w) f();
  BENCH_CUDA(cudaDeviceSynchronize());
  bench::profile_once(g_label, g_bytes, f);
  auto burst = [&](int inner) {
    BENCH_CUDA(cudaEventRecord(a));
    for (int i = 0; i < inner; ++i) f();
    BENCH_CUDA(cudaEventRecord(b));
    BENCH_CUDA(cudaEventSynchronize(b));
    float ms = 0;
    BENCH_CUDA(cudaEventElapsedTime(&ms, a, b));
    return ms * 1000.0 / inner;
  };
  const int inner = std::max(1, std::min(20, int(100.0 / std::max(burst(1), 1.0))));
  std::vector<double> t;
  for (int r = 0; r < g_reps; ++r) t.push_back(burst(inner));
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

double copy_bandwidth_gbs() {
  const std::size_t bytes = std::size_t(1) << 30;
  void *x, *y;
  BENCH_CUDA(cudaMalloc(&x, bytes));
  BENCH_CUDA(cudaMalloc(&y, bytes));
  const double us = time_us([&] { BENCH_CUDA(cudaMemcpyAsync(y, x, bytes, cudaMemcpyDeviceToDevice)); });
  cudaFree(x);
  cudaFree(y);
  return 2.0 * double(bytes) / (us * 1e3);  // read + write, GB/s
}

std::uint64_t g_state = 12345;
std::uint64_t next_rand() {
  std::uint64_t z = (g_state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// A dim x dim matrix with exactly `per_row` entries per row at distinct random columns.
Matrix random_fixed_rows(int dim, int per_row) {
  std::vector<std::int32_t> rp(dim + 1, 0), ci;
  std::vector<float> v;
  for (int i = 0; i < dim; ++i) {
    std::vector<int> cols;
    while (int(cols.size()) < std::min(per_row, dim)) {
      int c = int(next_rand() % dim);
      if (std::find(cols.begin(), cols.end(), c) == cols.end()) cols.push_back(c);
    }
    std::sort(cols.begin(), cols.end());
    for (int c : cols) ci.push_back(c), v.push_back(float(next_rand() % 1000) / 1000.0f + 0.1f);
    rp[i + 1] = int(ci.size());
  }
  return Matrix::from_csr(dim, dim, rp, ci, v);
}

DenseMatrix random_dense_f(Index r, Index c) {
  std::vector<float> v(static_cast<std::size_t>(r * c));
  for (auto& x : v) x = float(next_rand() % 1000) / 1000.0f;
  return DenseMatrix::from_values(r, c, v);
}

struct Record {
  std::string group, config, impl;
  long long nnz = 0;
  int n = 0;
  double us = -1;
  std::string note;
  double bytes = 0;  ///< compulsory traffic: A's arrays, B and C once
};
std::vector<Record> g_records;

bool wanted(const std::string& impl) {
  if (g_impls.empty()) return true;
  for (const auto& prefix : g_impls)
    if (impl.rfind(prefix, 0) == 0) return true;
  return false;
}

void record(const std::string& group, const std::string& config, const std::string& impl, long long nnz, int n,
            const std::function<void()>& f) {
  if (!wanted(impl)) return;
  Record r{group, config, impl, nnz, n};
  r.bytes = g_bytes;
  g_label = group + " | " + config + " | " + impl;
  try {
    r.us = time_us(f);
  } catch (const std::exception& e) {
    r.note = e.what();
    cudaGetLastError();
  }
  g_label.clear();
  std::cerr << group << " " << config << " " << impl << ": " << (r.us >= 0 ? std::to_string(r.us) + " us" : r.note) << "\n";
  g_records.push_back(r);
}

__global__ void tf_coo_kernel(const int* rows, const int* cols, const float* vals, long long nnz, const float* b,
                              float* c, int n) {
  const long long t = blockIdx.x * 256ll + threadIdx.x;
  if (t >= nnz * n) return;
  const long long e = t / n;
  const int j = int(t % n);
  atomicAdd(c + (long long)rows[e] * n + j, vals[e] * b[(long long)cols[e] * n + j]);
}

/// One batched configuration: device-resident items and every implementation.
void run_batch(const std::string& group, const std::string& config, std::vector<Matrix> hostA, int n,
               cusparseHandle_t sp, cublasHandle_t bl) {
  Context ctx(Backend::cuda);
  const std::size_t batch = hostA.size();
  std::vector<Matrix> A;
  std::vector<DenseMatrix> B, C;
  long long nnz = 0;
  int max_dim = 0, max_nnz = 0;
  for (auto& a : hostA) {
    A.push_back(a.to(Location::device, ctx));
    B.push_back(random_dense_f(a.nrows(), n).to(Location::device, ctx));
    C.push_back(DenseMatrix(a.nrows(), n, Type::fp32).to(Location::device, ctx));
    nnz += a.nnz();
    max_dim = std::max<int>(max_dim, int(a.nrows()));
    max_nnz = std::max<int>(max_nnz, int(a.nnz()));
  }
  g_bytes = 0;
  for (auto& a : hostA) g_bytes += 4.0 * (a.nrows() + 1) + 8.0 * a.nnz() + 4.0 * (a.ncols() + a.nrows()) * n;
  const Semiring s = semiring("plus_times", Type::fp32);
  record(group, config, "ringblas_api", nnz, n, [&] { mxm_batched(C, s, A, B, {}, ctx); });

  // The batch as one object (MatrixBatch, built once outside the timing, as a GNN mini-batch
  // is) over B and C stacked by rows: the single-SpMM dispatch on its block-diagonal matrix.
  // Its peer: cuSPARSE SpMM (default algorithm, buffer sized once) on the same block-diagonal
  // CSR, PyTorch Geometric's layout of a mini-batch.
  {
    const MatrixBatch AB(A, ctx);
    const Matrix& D = AB.block_diagonal();
    const DenseMatrix Bs = random_dense_f(D.ncols(), n).to(Location::device, ctx);
    DenseMatrix Cs = DenseMatrix(D.nrows(), n, Type::fp32).to(Location::device, ctx);
    record(group, config, "ringblas_api_batch", nnz, n,
           [&] { mxm_batched(Cs, s, AB, Bs, Epilogue::none(), {}, ctx); });
    if (D.index_type() == IndexType::i32) {
      const float one = 1.0f, zero = 0.0f;
      cusparseSpMatDescr_t md;
      cusparseDnMatDescr_t mbs, mcs;
      BENCH_CUSPARSE(cusparseCreateCsr(&md, D.nrows(), D.ncols(), D.nnz(), const_cast<void*>(D.row_ptr().data()),
                                       const_cast<void*>(D.col_idx().data()), const_cast<void*>(D.values().data()),
                                       CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
      BENCH_CUSPARSE(cusparseCreateDnMat(&mbs, Bs.nrows(), n, n, const_cast<void*>(Bs.values().data()), CUDA_R_32F,
                                         CUSPARSE_ORDER_ROW));
      BENCH_CUSPARSE(cusparseCreateDnMat(&mcs, Cs.nrows(), n, n, Cs.values().data(), CUDA_R_32F, CUSPARSE_ORDER_ROW));
      std::size_t bytes = 0;
      BENCH_CUSPARSE(cusparseSpMM_bufferSize(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
                                             md, mbs, &zero, mcs, CUDA_R_32F, CUSPARSE_SPMM_ALG_DEFAULT, &bytes));
      void* work = nullptr;
      BENCH_CUDA(cudaMalloc(&work, std::max<std::size_t>(bytes, 1)));
      record(group, config, "cusparse_blockdiag", nnz, n, [&] {
        BENCH_CUSPARSE(cusparseSpMM(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, md,
                                    mbs, &zero, mcs, CUDA_R_32F, CUSPARSE_SPMM_ALG_DEFAULT, work));
      });
      cusparseDestroySpMat(md), cusparseDestroyDnMat(mbs), cusparseDestroyDnMat(mcs);
      BENCH_CUDA(cudaFree(work));
    }
  }

  // The kernels alone, with the batch metadata uploaded once.
  using namespace ringblas::cuda::detail;
  std::vector<BatchItem> items(batch);
  for (std::size_t k = 0; k < batch; ++k)
    items[k] = BatchItem{A[k].row_ptr().as<std::int32_t>(), A[k].col_idx().as<std::int32_t>(), A[k].values().data(),
                         B[k].values().data(), C[k].values().data(), int(A[k].nrows()), int(A[k].ncols()),
                         int(A[k].nnz()), n, 1, n, 1};
  const SubwarpShape shape = subwarp_shape(n, n % 4 == 0 ? 4 : 1);
  std::vector<int> offsets(batch + 1, 0);
  for (std::size_t k = 0; k < batch; ++k)
    offsets[k + 1] = offsets[k] + int(((long long)items[k].m << shape.log_sw) + 255) / 256;
  BatchItem* d_items;
  int* d_off;
  BENCH_CUDA(cudaMalloc(&d_items, batch * sizeof(BatchItem)));
  BENCH_CUDA(cudaMalloc(&d_off, (batch + 1) * sizeof(int)));
  BENCH_CUDA(cudaMemcpy(d_items, items.data(), batch * sizeof(BatchItem), cudaMemcpyHostToDevice));
  BENCH_CUDA(cudaMemcpy(d_off, offsets.data(), (batch + 1) * sizeof(int), cudaMemcpyHostToDevice));
  BatchedProblem p;
  p.batch = int(batch);
  p.n = n;
  p.max_m = max_dim;
  p.items = d_items;
  p.block_offsets = d_off;
  p.total_blocks = offsets[batch];
  record(group, config, "ringblas_csr_kernel", nnz, n, [&] { spmm_batched_csr_launch<PlusTimes>(p, shape, nullptr, false); });
  const long long fit = SpmmPolicy::coo_shared_bytes / (4ll * std::max(max_dim, 1));
  const int col_block = int(std::min<long long>(fit >= n ? n : (fit >= 32 ? fit / 32 * 32 : fit), n));
  if (col_block >= 1)
    record(group, config, "ringblas_coo_kernel", nnz, n, [&] { spmm_batched_coo_launch<PlusTimes>(p, col_block, nullptr, false); });

  // cuSPARSE once per matrix.
  const float one = 1.0f, zero = 0.0f;
  std::vector<cusparseSpMatDescr_t> ma(batch);
  std::vector<cusparseDnMatDescr_t> mb(batch), mc(batch);
  std::size_t buf_bytes = 0;
  for (std::size_t k = 0; k < batch; ++k) {
    BENCH_CUSPARSE(cusparseCreateCsr(&ma[k], A[k].nrows(), A[k].ncols(), A[k].nnz(), A[k].row_ptr().data(),
                                     A[k].col_idx().data(), A[k].values().data(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                     CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    BENCH_CUSPARSE(cusparseCreateDnMat(&mb[k], B[k].nrows(), n, n, B[k].values().data(), CUDA_R_32F, CUSPARSE_ORDER_ROW));
    BENCH_CUSPARSE(cusparseCreateDnMat(&mc[k], C[k].nrows(), n, n, C[k].values().data(), CUDA_R_32F, CUSPARSE_ORDER_ROW));
    std::size_t b = 0;
    BENCH_CUSPARSE(cusparseSpMM_bufferSize(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
                                           ma[k], mb[k], &zero, mc[k], CUDA_R_32F, CUSPARSE_SPMM_ALG_DEFAULT, &b));
    buf_bytes = std::max(buf_bytes, b);
  }
  void* buf;
  BENCH_CUDA(cudaMalloc(&buf, std::max<std::size_t>(buf_bytes, 1)));
  record(group, config, "cusparse_loop", nnz, n, [&] {
    for (std::size_t k = 0; k < batch; ++k)
      BENCH_CUSPARSE(cusparseSpMM(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, ma[k],
                                  mb[k], &zero, mc[k], CUDA_R_32F, CUSPARSE_SPMM_ALG_DEFAULT, buf));
  });
  for (std::size_t k = 0; k < batch; ++k) cusparseDestroySpMat(ma[k]), cusparseDestroyDnMat(mb[k]), cusparseDestroyDnMat(mc[k]);
  cudaFree(buf);

  // Padded, strided copies: every item max_dim x max_dim with max_nnz slots (cuSPARSE strided
  // batch, cuBLAS batched GEMM on the densified items), and a block-diagonal COO (TF-style).
  const std::size_t D = max_dim;
  std::vector<int> prp(batch * (D + 1)), pci(batch * max_nnz, 0), coo_r, coo_c;
  std::vector<float> pv(batch * max_nnz, 0.0f), dense(batch * D * D, 0.0f), coo_v;
  int row_base = 0;
  for (std::size_t k = 0; k < batch; ++k) {
    const auto rp = hostA[k].row_ptr_vector(), ci = hostA[k].col_idx_vector();
    const auto v = hostA[k].values_vector<float>();
    for (std::size_t i = 0; i <= D; ++i) prp[k * (D + 1) + i] = int(rp[std::min<std::size_t>(i, hostA[k].nrows())]);
    for (std::size_t e = 0; e < v.size(); ++e) pci[k * max_nnz + e] = int(ci[e]), pv[k * max_nnz + e] = v[e];
    // Padding: explicit zeros at the last column of the last row, so that row_ptr[D] = nnz.
    prp[k * (D + 1) + D] = max_nnz;
    for (std::size_t e = v.size(); e < std::size_t(max_nnz); ++e) pci[k * max_nnz + e] = int(D) - 1;
    for (Index i = 0; i < hostA[k].nrows(); ++i)
      for (Index e = rp[i]; e < rp[i + 1]; ++e) {
        dense[k * D * D + i * D + ci[e]] = v[e];
        coo_r.push_back(row_base + int(i)), coo_c.push_back(row_base + int(ci[e])), coo_v.push_back(v[e]);
      }
    row_base += int(hostA[k].nrows());
  }
  int *d_rp, *d_ci, *d_cr, *d_cc;
  float *d_v, *d_dense, *d_B, *d_C, *d_cv;
  BENCH_CUDA(cudaMalloc(&d_rp, prp.size() * 4));
  BENCH_CUDA(cudaMalloc(&d_ci, std::max<std::size_t>(pci.size(), 1) * 4));
  BENCH_CUDA(cudaMalloc(&d_v, std::max<std::size_t>(pv.size(), 1) * 4));
  BENCH_CUDA(cudaMalloc(&d_dense, dense.size() * 4));
  BENCH_CUDA(cudaMalloc(&d_B, batch * D * n * 4));
  BENCH_CUDA(cudaMalloc(&d_C, batch * D * n * 4));
  BENCH_CUDA(cudaMemset(d_B, 0, batch * D * n * 4));
  BENCH_CUDA(cudaMemcpy(d_rp, prp.data(), prp.size() * 4, cudaMemcpyHostToDevice));
  BENCH_CUDA(cudaMemcpy(d_ci, pci.data(), pci.size() * 4, cudaMemcpyHostToDevice));
  BENCH_CUDA(cudaMemcpy(d_v, pv.data(), pv.size() * 4, cudaMemcpyHostToDevice));
  BENCH_CUDA(cudaMemcpy(d_dense, dense.data(), dense.size() * 4, cudaMemcpyHostToDevice));
  const std::string pad = std::all_of(hostA.begin(), hostA.end(), [&](const Matrix& a) {
                            return a.nrows() == max_dim && a.nnz() == max_nnz;
                          }) ? "" : "_padded";
  {
    cusparseSpMatDescr_t a;
    cusparseDnMatDescr_t b, c;
    BENCH_CUSPARSE(cusparseCreateCsr(&a, D, D, max_nnz, d_rp, d_ci, d_v, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                     CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    BENCH_CUSPARSE(cusparseCsrSetStridedBatch(a, int(batch), D + 1, max_nnz));
    BENCH_CUSPARSE(cusparseCreateDnMat(&b, D, n, n, d_B, CUDA_R_32F, CUSPARSE_ORDER_ROW));
    BENCH_CUSPARSE(cusparseDnMatSetStridedBatch(b, int(batch), (long long)D * n));
    BENCH_CUSPARSE(cusparseCreateDnMat(&c, D, n, n, d_C, CUDA_R_32F, CUSPARSE_ORDER_ROW));
    BENCH_CUSPARSE(cusparseDnMatSetStridedBatch(c, int(batch), (long long)D * n));
    std::size_t bytes = 0;
    BENCH_CUSPARSE(cusparseSpMM_bufferSize(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, a,
                                           b, &zero, c, CUDA_R_32F, CUSPARSE_SPMM_ALG_DEFAULT, &bytes));
    void* sbuf;
    BENCH_CUDA(cudaMalloc(&sbuf, std::max<std::size_t>(bytes, 1)));
    record(group, config, "cusparse_strided" + pad, nnz, n, [&] {
      BENCH_CUSPARSE(cusparseSpMM(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, a, b, &zero,
                                  c, CUDA_R_32F, CUSPARSE_SPMM_ALG_DEFAULT, sbuf));
    });
    cudaFree(sbuf);
    cusparseDestroySpMat(a), cusparseDestroyDnMat(b), cusparseDestroyDnMat(c);
  }
  {
    std::vector<const float*> pa(batch), pb(batch);
    std::vector<float*> pc(batch);
    for (std::size_t k = 0; k < batch; ++k) pa[k] = d_dense + k * D * D, pb[k] = d_B + k * D * n, pc[k] = d_C + k * D * n;
    const float **dpa, **dpb;
    float** dpc;
    BENCH_CUDA(cudaMalloc(&dpa, batch * sizeof(void*)));
    BENCH_CUDA(cudaMalloc(&dpb, batch * sizeof(void*)));
    BENCH_CUDA(cudaMalloc(&dpc, batch * sizeof(void*)));
    BENCH_CUDA(cudaMemcpy(dpa, pa.data(), batch * sizeof(void*), cudaMemcpyHostToDevice));
    BENCH_CUDA(cudaMemcpy(dpb, pb.data(), batch * sizeof(void*), cudaMemcpyHostToDevice));
    BENCH_CUDA(cudaMemcpy(dpc, pc.data(), batch * sizeof(void*), cudaMemcpyHostToDevice));
    // Row-major C = A B is column-major Cᵀ = Bᵀ Aᵀ.
    record(group, config, "cublas_gemm_batched" + pad, nnz, n, [&] {
      BENCH_CUBLAS(cublasSgemmBatched(bl, CUBLAS_OP_N, CUBLAS_OP_N, n, int(D), int(D), &one, dpb, n, dpa, int(D), &zero, dpc,
                                      n, int(batch)));
    });
    cudaFree(dpa), cudaFree(dpb), cudaFree(dpc);
  }
  {
    const long long cnnz = (long long)coo_v.size();
    BENCH_CUDA(cudaMalloc(&d_cr, std::max<long long>(cnnz, 1) * 4));
    BENCH_CUDA(cudaMalloc(&d_cc, std::max<long long>(cnnz, 1) * 4));
    BENCH_CUDA(cudaMalloc(&d_cv, std::max<long long>(cnnz, 1) * 4));
    BENCH_CUDA(cudaMemcpy(d_cr, coo_r.data(), cnnz * 4, cudaMemcpyHostToDevice));
    BENCH_CUDA(cudaMemcpy(d_cc, coo_c.data(), cnnz * 4, cudaMemcpyHostToDevice));
    BENCH_CUDA(cudaMemcpy(d_cv, coo_v.data(), cnnz * 4, cudaMemcpyHostToDevice));
    record(group, config, "tf_coo_per_product", nnz, n, [&] {
      BENCH_CUDA(cudaMemsetAsync(d_C, 0, (std::size_t)row_base * n * 4));
      if (cnnz) tf_coo_kernel<<<unsigned((cnnz * n + 255) / 256), 256>>>(d_cr, d_cc, d_cv, cnnz, d_B, d_C, n);
      BENCH_CUDA(cudaGetLastError());
    });
    cudaFree(d_cr), cudaFree(d_cc), cudaFree(d_cv);
  }
  cudaFree(d_rp), cudaFree(d_ci), cudaFree(d_v), cudaFree(d_dense), cudaFree(d_B), cudaFree(d_C), cudaFree(d_items), cudaFree(d_off);
}

std::vector<Matrix> tox21(const std::string& dir, std::size_t count) {
  std::istringstream ind(io::read_file_text(dir + "tox21_graph_indicator.txt.gz"));
  std::vector<long long> graph_of;
  for (long long g; ind >> g;) graph_of.push_back(g - 1);
  const long long ng = graph_of.empty() ? 0 : graph_of.back() + 1;
  std::vector<long long> first(ng + 1, 0);
  for (long long v = 0; v < (long long)graph_of.size(); ++v) first[graph_of[v] + 1] = v + 1;
  std::vector<std::vector<Index>> r(ng), c(ng);
  std::string text = io::read_file_text(dir + "tox21_A.txt.gz");
  std::replace(text.begin(), text.end(), ',', ' ');
  std::istringstream edges(text);
  for (long long i, j; edges >> i >> j;) {
    const long long g = graph_of[i - 1];
    r[g].push_back(i - 1 - first[g]), c[g].push_back(j - 1 - first[g]);
  }
  std::vector<Matrix> out;
  for (std::size_t k = 0; k < count && ng > 0; ++k) {
    const long long g = (long long)(k % ng), nn = first[g + 1] - first[g];
    out.push_back(Matrix::from_triplets(nn, nn, r[g], c[g], std::vector<float>(r[g].size(), 1.0f), Dup::first,
                                        IndexType::i32));
  }
  return out;
}

/// The GCN's propagation matrix pattern on the power-law graph of bench_gcn: R-MAT (scale,
/// edge factor 16, tests/support/rmat.hpp) plus self-loops, fp32 values in (0, 1] (the same
/// sparsity as D^-1/2 (A + I) D^-1/2, which only rescales values), 32-bit indices.
Matrix rmat_with_self_loops(int scale) {
  const Matrix g = ringblas::test::rmat(scale, 16).adjacency;
  const auto rp = g.row_ptr_vector(), ci = g.col_idx_vector();
  const auto w = g.cast(Type::fp32).values_vector<float>();
  const Index n = g.nrows();
  std::vector<std::int32_t> rp2(std::size_t(n) + 1, 0), ci2;
  std::vector<float> v2;
  ci2.reserve(ci.size() + std::size_t(n));
  v2.reserve(ci.size() + std::size_t(n));
  for (Index i = 0; i < n; ++i) {
    bool diag = false;
    for (Index e = rp[i]; e < rp[i + 1]; ++e) {
      if (!diag && ci[e] > i) ci2.push_back(std::int32_t(i)), v2.push_back(1.0f), diag = true;
      ci2.push_back(std::int32_t(ci[e])), v2.push_back(w[std::size_t(e)]);
    }
    if (!diag) ci2.push_back(std::int32_t(i)), v2.push_back(1.0f);
    rp2[std::size_t(i) + 1] = std::int32_t(ci2.size());
  }
  return Matrix::from_csr(n, n, rp2, ci2, v2);
}

/// Host time per call in us of f() issued `calls` times back to back without waiting for the GPU
/// (what a training loop pays on the CPU per call; the GPU queue is deep enough not to block).
/// f() back to back for at least ms milliseconds of wall time, then a synchronisation.
void settle(const std::function<void()>& f, int ms) {
  const auto t0 = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(ms)) {
    for (int i = 0; i < 20; ++i) f();
    BENCH_CUDA(cudaDeviceSynchronize());
  }
}

double host_us(const std::function<void()>& f, int calls = 200) {
  for (int w = 0; w < 5; ++w) f();
  BENCH_CUDA(cudaDeviceSynchronize());
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) f();
  const auto t1 = std::chrono::steady_clock::now();
  BENCH_CUDA(cudaDeviceSynchronize());
  return std::chrono::duration<double, std::micro>(t1 - t0).count() / calls;
}

void record_host(const std::string& cfg, const std::string& impl, long long nnz, int n,
                 const std::function<void()>& f) {
  if (!wanted(impl)) return;
  Record r{"single_host", cfg, impl, nnz, n};
  try {
    r.us = host_us(f);
  } catch (const std::exception& e) {
    r.note = e.what();
    cudaGetLastError();
  }
  std::cerr << "single_host " << cfg << " " << impl << ": " << r.us << " us host\n";
  g_records.push_back(r);
}

/// Single SpMM C = A B (fp32, row-major B and C, all on the device): the public API (automatic
/// and each variant forced), the kernels alone through their launchers (spmm_rowsplit with
/// several long-row thresholds and vector widths, spmm_subwarp's row and nnz-split mappings),
/// cuSPARSE (default, CSR ALG1/ALG2/ALG3) in the same run, and the host time per call.
void run_single(const std::string& name, const Matrix& host, int n, cusparseHandle_t sp) {
  Context ctx(Backend::cuda);
  const Matrix a = host.cast(Type::fp32).with_index_type(IndexType::i32).to(Location::device, ctx);
  const DenseMatrix b = random_dense_f(a.ncols(), n).to(Location::device, ctx);
  DenseMatrix c = DenseMatrix(a.nrows(), n, Type::fp32).to(Location::device, ctx);
  const Semiring s = semiring("plus_times", Type::fp32);
  const std::string cfg = name + " n_B=" + std::to_string(n);
  g_bytes = 4.0 * (a.nrows() + 1) + 8.0 * a.nnz() + 4.0 * (a.ncols() + a.nrows()) * n;
  if (g_settle_ms > 0) settle([&] { mxm(c, s, a, b, {}, ctx); }, g_settle_ms);
  record("single", cfg, "ringblas_api", a.nnz(), n, [&] { mxm(c, s, a, b, {}, ctx); });
  for (Variant v : {Variant::spmm_rowsplit, Variant::spmm_subwarp}) {
    Descriptor own;
    own.variant = v;
    record("single", cfg, "ringblas_api_" + std::string(variant_name(v)), a.nnz(), n,
           [&] { mxm(c, s, a, b, own, ctx); });
  }
  record_host(cfg, "ringblas_api", a.nnz(), n, [&] { mxm(c, s, a, b, {}, ctx); });
  {  // what `ringblas_api` ran: the trace of one call (kernel, run length, shape)
    std::ostringstream lines;
    Context traced(Backend::cuda);
    traced.trace = true;
    traced.trace_out = &lines;
    mxm(c, s, a, b, {}, traced);
    std::string text = lines.str();
    std::replace(text.begin(), text.end(), '\n', ';');
    g_choices.emplace_back(cfg, text);
  }

  // The kernels alone, on the same device arrays.
  using namespace ringblas::cuda::detail;
  SpmmProblem p = ringblas::test::spmm_problem_of(a, b, c);
  int l2 = 0, sms = 0;
  BENCH_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  BENCH_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int vw = n % 4 == 0 ? 4 : 1;
  const SubwarpShape vec = subwarp_shape(n, vw), scalar = subwarp_shape(n, 1);
  // As the API launches it (SpmmPolicy's knobs), then one knob changed at a time.
  const int threads = rowsplit_block_threads(p.m, vec.log_sw, sms);
  const bool stream_c = double(p.m) * n * 4 > double(l2);
  record("single", cfg, "kernel_rowsplit_L64", a.nnz(), n,
         [&] { spmm_rowsplit_launch<PlusTimes>(p, vec, 64, threads, stream_c, nullptr, false); });
  if (g_knobs) {
  for (int L : {32, 128, 1 << 30})
    record("single", cfg, "kernel_rowsplit_L" + (L > 1000000 ? std::string("off") : std::to_string(L)), a.nnz(), n,
           [&] { spmm_rowsplit_launch<PlusTimes>(p, vec, L, threads, stream_c, nullptr, false); });
  record("single", cfg, std::string("kernel_rowsplit_stream_c_") + (stream_c ? "off" : "on"), a.nnz(), n,
         [&] { spmm_rowsplit_launch<PlusTimes>(p, vec, 64, threads, !stream_c, nullptr, false); });
  // Code-changing knobs (registers via minimum blocks per SM, B loads in flight per thread).
  record("single", cfg, "kernel_rowsplit_minblocks2_unroll4", a.nnz(), n,
         [&] { spmm_rowsplit_launch_tuned<PlusTimes, 2, 4>(p, vec, 64, threads, stream_c, nullptr, false); });
  record("single", cfg, "kernel_rowsplit_minblocks6_unroll4", a.nnz(), n,
         [&] { spmm_rowsplit_launch_tuned<PlusTimes, 6, 4>(p, vec, 64, threads, stream_c, nullptr, false); });
  record("single", cfg, "kernel_rowsplit_minblocks4_unroll8", a.nnz(), n,
         [&] { spmm_rowsplit_launch_tuned<PlusTimes, 4, 8>(p, vec, 64, threads, stream_c, nullptr, false); });
  for (int t : {64, 128, 256})
    if (t != threads)
      record("single", cfg, "kernel_rowsplit_block" + std::to_string(t), a.nnz(), n,
             [&] { spmm_rowsplit_launch<PlusTimes>(p, vec, 64, t, stream_c, nullptr, false); });
  if (vec.vec > 1)
    record("single", cfg, "kernel_rowsplit_scalar", a.nnz(), n, [&] {
      spmm_rowsplit_launch<PlusTimes>(p, scalar, 64, rowsplit_block_threads(p.m, scalar.log_sw, sms), stream_c,
                                      nullptr, false);
    });
  }  // g_knobs
  record("single", cfg, "kernel_subwarp_rows", a.nnz(), n,
         [&] { spmm_csr_launch<PlusTimes>(p, vec, nullptr, false); });
  // spmm_subwarp's nnz-split kernel at the library's run length (evict-first C) without the
  // options the library sets since s9 (_overlap_runrows below is the library's launch) and, with
  // --sweep, its knobs.
  const SubwarpShape ns = nnzsplit_shape(n, vw);
  const int L = nnzsplit_run_length(a.nnz(), ns, sms);
  record("single", cfg, "kernel_nnzsplit_L" + std::to_string(L), a.nnz(), n,
         [&] { spmm_nnzsplit_launch<PlusTimes>(p, ns, L, true, nullptr, false); });
  // The run length of SpmmPolicy::nnzsplit_one_wave_small's rule (the same as above where the
  // shortest run fills the GPU).
  const int Lw = nnzsplit_run_length(a.nnz(), ns, sms, true);
  record("single", cfg, "kernel_nnzsplit_wave_L" + std::to_string(Lw), a.nnz(), n,
         [&] { spmm_nnzsplit_launch<PlusTimes>(p, ns, Lw, true, nullptr, false); });
  // How it meets its row pass (NnzsplitOptions), on a stream of its own (a dependent launch
  // may be ignored on the legacy default stream): `_stream` is the row above on that stream,
  // `_overlap` the dependent launch, `_runrows` run rows from the row pass instead of searches.
  if (a.nnz() > 0) {
    cudaStream_t own;
    BENCH_CUDA(cudaStreamCreate(&own));
    std::int32_t* runs = nullptr;
    const int shortest = std::min(L, Lw);
    BENCH_CUDA(cudaMalloc(&runs, std::size_t((a.nnz() + shortest - 1) / shortest) * 4));
    struct Option {
      const char* suffix;
      bool overlap, run_rows;
    };
    for (const Option o :
         {Option{"_stream", false, false}, Option{"_overlap", true, false},
          Option{"_runrows", false, true}, Option{"_overlap_runrows", true, true}}) {
      NnzsplitOptions opt;
      opt.overlap = o.overlap;
      opt.run_rows = o.run_rows ? runs : nullptr;
      record("single", cfg, "kernel_nnzsplit_L" + std::to_string(L) + o.suffix, a.nnz(), n,
             [&] { spmm_nnzsplit_launch<PlusTimes>(p, ns, L, true, own, false, opt); });
    }
    // SpmmPolicy::nnzsplit_lean forced on the library's launch (both options): fewer
    // instructions per nonzero (FFMA from -0, 32-bit offsets). The library's default since s11,
    // so the same kernel as `_overlap_runrows` above: the two rows' gap is the timing noise.
    {
      NnzsplitOptions opt;
      opt.overlap = true;
      opt.run_rows = runs;
      record("single", cfg, "kernel_nnzsplit_L" + std::to_string(L) + "_overlap_runrows_lean",
             a.nnz(), n, [&] {
               spmm_nnzsplit_launch_tuned<PlusTimes, SpmmPolicy::nnzsplit_max_vectors, 4, 4, true>(
                   p, ns, L, true, own, false, opt);
             });
    }
    if (g_sweep) {  // every latency knob at once: the one-wave run, both options, unroll 8
      NnzsplitOptions opt;
      opt.overlap = true;
      opt.run_rows = runs;
      record("single", cfg, "kernel_nnzsplit_wave_L" + std::to_string(Lw) + "_overlap_runrows_unroll8_minblocks3",
             a.nnz(), n, [&] {
               spmm_nnzsplit_launch_tuned<PlusTimes, SpmmPolicy::nnzsplit_max_vectors, 8, 3>(p, ns, Lw, true, own,
                                                                                            false, opt);
             });
    }
    BENCH_CUDA(cudaStreamSynchronize(own));
    cudaFree(runs);
    cudaStreamDestroy(own);
  }
  if (g_sweep) {
    for (int x : {L / 2, L * 2, L * 4})
      if (x >= 4)
        record("single", cfg, "kernel_nnzsplit_L" + std::to_string(x), a.nnz(), n,
               [&] { spmm_nnzsplit_launch<PlusTimes>(p, ns, x, true, nullptr, false); });
    const SubwarpShape two = nnzsplit_shape(n, vw, 2);
    if (two.nv > ns.nv) {  // two vectors per lane: half the column chunks, A read half as often
      const int L2 = nnzsplit_run_length(a.nnz(), two, sms);
      record("single", cfg, "kernel_nnzsplit_nv2_L" + std::to_string(L2), a.nnz(), n,
             [&] { spmm_nnzsplit_launch_tuned<PlusTimes, 2>(p, two, L2, true, nullptr, false); });
    }
    if (vw == 4 && n >= 128) {  // 64-column chunks (16 lanes): a B row slice of 256 bytes, more of them in L1
      const SubwarpShape narrow = nnzsplit_shape(n, 4, 1, 16);
      const int Ln = nnzsplit_run_length(a.nnz(), narrow, sms);
      record("single", cfg, "kernel_nnzsplit_cols64_L" + std::to_string(Ln), a.nnz(), n,
             [&] { spmm_nnzsplit_launch<PlusTimes>(p, narrow, Ln, true, nullptr, false); });
    }
    constexpr int nv = SpmmPolicy::nnzsplit_max_vectors;
    record("single", cfg, "kernel_nnzsplit_unroll2", a.nnz(), n,
           [&] { spmm_nnzsplit_launch_tuned<PlusTimes, nv, 2>(p, ns, L, true, nullptr, false); });
    // More B rows in flight per lane for the latency-bound calls: 8 x 16 bytes, minimum blocks 3
    // (80 registers; with 4, i.e. 64 registers, ptxas spills 92 bytes).
    record("single", cfg, "kernel_nnzsplit_unroll8_minblocks3", a.nnz(), n, [&] {
      spmm_nnzsplit_launch_tuned<PlusTimes, nv, 8, 3>(p, ns, L, true, nullptr, false);
    });
    // A run of 16 in one round of loads (small products launch under a wave: registers are free).
    record("single", cfg, "kernel_nnzsplit_unroll16_minblocks2", a.nnz(), n, [&] {
      spmm_nnzsplit_launch_tuned<PlusTimes, nv, 16, 2>(p, ns, L, true, nullptr, false);
    });
    record("single", cfg, "kernel_nnzsplit_minblocks5", a.nnz(), n,
           [&] { spmm_nnzsplit_launch_tuned<PlusTimes, nv, 4, 5>(p, ns, L, true, nullptr, false); });
    record("single", cfg, "kernel_nnzsplit_minblocks6_unroll2", a.nnz(), n,
           [&] { spmm_nnzsplit_launch_tuned<PlusTimes, nv, 2, 6>(p, ns, L, true, nullptr, false); });
    record("single", cfg, "kernel_nnzsplit_stream_c_off", a.nnz(), n,
           [&] { spmm_nnzsplit_launch<PlusTimes>(p, ns, L, false, nullptr, false); });
  }

  const float one = 1.0f, zero = 0.0f;
  cusparseSpMatDescr_t ma;
  cusparseDnMatDescr_t mb, mc;
  BENCH_CUSPARSE(cusparseCreateCsr(&ma, a.nrows(), a.ncols(), a.nnz(), const_cast<void*>(a.row_ptr().data()),
                                   const_cast<void*>(a.col_idx().data()), const_cast<void*>(a.values().data()),
                                   CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  BENCH_CUSPARSE(cusparseCreateDnMat(&mb, b.nrows(), n, n, const_cast<void*>(b.values().data()), CUDA_R_32F, CUSPARSE_ORDER_ROW));
  BENCH_CUSPARSE(cusparseCreateDnMat(&mc, c.nrows(), n, n, c.values().data(), CUDA_R_32F, CUSPARSE_ORDER_ROW));
  for (const auto& alg_label : {std::pair{CUSPARSE_SPMM_ALG_DEFAULT, "cusparse_default"},
                                std::pair{CUSPARSE_SPMM_CSR_ALG1, "cusparse_alg1"},
                                std::pair{CUSPARSE_SPMM_CSR_ALG2, "cusparse_alg2"},
                                std::pair{CUSPARSE_SPMM_CSR_ALG3, "cusparse_alg3"}}) {
    const cusparseSpMMAlg_t alg = alg_label.first;
    const std::string label = alg_label.second;
    if (!wanted(label)) continue;
    std::size_t bytes = 0;
    void* buf = nullptr;
    try {
      BENCH_CUSPARSE(cusparseSpMM_bufferSize(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, ma,
                                             mb, &zero, mc, CUDA_R_32F, alg, &bytes));
      BENCH_CUDA(cudaMalloc(&buf, std::max<std::size_t>(bytes, 1)));
      // ALG3 needs its preprocessing once per matrix (not timed: the analysis is reused).
      if (alg == CUSPARSE_SPMM_CSR_ALG3)
        BENCH_CUSPARSE(cusparseSpMM_preprocess(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
                                               ma, mb, &zero, mc, CUDA_R_32F, alg, buf));
      auto call = [&] {
        BENCH_CUSPARSE(cusparseSpMM(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, ma, mb,
                                    &zero, mc, CUDA_R_32F, alg, buf));
      };
      record("single", cfg, label, a.nnz(), n, call);
      if (alg == CUSPARSE_SPMM_ALG_DEFAULT) record_host(cfg, label, a.nnz(), n, call);
    } catch (const std::exception& e) {
      std::cerr << "single " << cfg << " " << label << ": " << e.what() << "\n";
      g_records.push_back(Record{"single", cfg, label, a.nnz(), n, -1, e.what()});
    }
    cudaFree(buf);
  }
  cusparseDestroySpMat(ma), cusparseDestroyDnMat(mb), cusparseDestroyDnMat(mc);
  // The first row again, last: how much the order of the rows moves it.
  record("single", cfg, "ringblas_api_last", a.nnz(), n, [&] { mxm(c, s, a, b, {}, ctx); });
}

std::string fmt(double x, int prec = 1) {
  char b[64];
  std::snprintf(b, sizeof(b), "%.*f", prec, x);
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  std::string json = "spmm.json", md = "spmm.md", data = RINGBLAS_DATA_DIR;
  bool quick = false, single_only = false;
  std::string graphs = "cora,pubmed,wiki-Vote,p2p-Gnutella31,soc-Epinions1";
  std::vector<int> single_widths = {16, 64, 128, 256, 512}, rmat_widths = {16, 256};
  int rmat_scale = 0;
  auto parse_widths = [](const std::string& text) {
    std::vector<int> out;
    std::stringstream list(text);
    for (std::string w; std::getline(list, w, ',');) out.push_back(std::stoi(w));
    return out;
  };
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--json" && i + 1 < argc) json = argv[++i];
    else if (a == "--md" && i + 1 < argc) md = argv[++i];
    else if (a == "--data" && i + 1 < argc) data = argv[++i];
    else if (a == "--reps" && i + 1 < argc) g_reps = std::stoi(argv[++i]);
    else if (a == "--quick") quick = true;
    else if (a == "--single") single_only = true;
    else if (a == "--graphs" && i + 1 < argc) graphs = argv[++i];
    else if (a == "--widths" && i + 1 < argc) single_widths = parse_widths(argv[++i]);
    else if (a == "--rmat" && i + 1 < argc) rmat_scale = std::stoi(argv[++i]);
    else if (a == "--rmat-widths" && i + 1 < argc) rmat_widths = parse_widths(argv[++i]);
    else if (a == "--knobs") g_knobs = true;
    else if (a == "--sweep") g_sweep = true;
    else if (a == "--settle" && i + 1 < argc) g_settle_ms = std::stoi(argv[++i]);
    else if (a == "--configs" && i + 1 < argc)
      g_configs = bench::split_list(argv[++i]);
    else if (a == "--impls" && i + 1 < argc) {
      std::stringstream list(argv[++i]);
      for (std::string w; std::getline(list, w, ',');) g_impls.push_back(w);
    }
    else {
      std::cerr
          << "usage: bench_spmm --json out.json --md out.md [--data DIR] [--reps N] [--quick]\n"
             "                  [--single] [--graphs cora,pubmed,...|none] [--widths 16,64,...]\n"
             "                  [--rmat SCALE [--rmat-widths 16,256]] [--knobs] [--sweep] [--settle MS]\n"
             "                  [--impls prefix1,prefix2 (only these rows)]\n"
             "                  [--configs w1,w2 (only batched configs containing one)]\n";
      return 2;
    }
  }
  try {
    cudaDeviceProp prop;
    BENCH_CUDA(cudaGetDeviceProperties(&prop, 0));
    const double copy_bw = copy_bandwidth_gbs();
    std::cerr << prop.name << ", device copy bandwidth " << copy_bw << " GB/s\n";
    cusparseHandle_t sp;
    cublasHandle_t bl;
    BENCH_CUSPARSE(cusparseCreate(&sp));
    BENCH_CUBLAS(cublasCreate(&bl));

    struct Cfg { int batch, dim, per_row; };
    std::vector<Cfg> table = {{50, 50, 2}, {100, 50, 3}, {100, 32, 3}, {100, 64, 3}, {100, 128, 3}, {100, 64, 1}, {100, 64, 5}};
    const std::vector<int> widths = quick ? std::vector<int>{16, 64, 512} : std::vector<int>{16, 32, 64, 128, 256, 512};
    if (single_only) table.clear();
    for (const Cfg& c : table)
      for (int n : widths) {
        const std::string config =
            "batch=" + std::to_string(c.batch) + " dim=" + std::to_string(c.dim) +
            " nnz/row=" + std::to_string(c.per_row) + " n_B=" + std::to_string(n);
        if (!bench::selected(g_configs, config)) continue;
        std::vector<Matrix> A;
        for (int k = 0; k < c.batch; ++k) A.push_back(random_fixed_rows(c.dim, c.per_row));
        run_batch("batched", config, A, n, sp, bl);
      }
    if (!quick && !single_only)
      for (int batch : {50, 100})
        for (int dim : {32, 64, 128})
          for (int per_row : {1, 3, 5}) {
            const std::string config = "batch=" + std::to_string(batch) +
                                       " dim=" + std::to_string(dim) +
                                       " nnz/row=" + std::to_string(per_row) + " n_B=64";
            if (!bench::selected(g_configs, config)) continue;
            std::vector<Matrix> A;
            for (int k = 0; k < batch; ++k) A.push_back(random_fixed_rows(dim, per_row));
            run_batch("grid", config, A, 64, sp, bl);
          }
    for (int n : {64, 256, 1024}) {
      if (single_only) break;
      const std::string config = "batch=100 dim=32..256 nnz/row=1..5 n_B=" + std::to_string(n);
      if (!bench::selected(g_configs, config)) continue;
      std::vector<Matrix> A;
      for (int k = 0; k < 100; ++k) A.push_back(random_fixed_rows(32 + int(next_rand() % 225), 1 + int(next_rand() % 5)));
      run_batch("mixed", config, A, n, sp, bl);
    }
    const std::string tox = data + "/molecules/tox21_graphs/";
    if (!single_only && std::filesystem::exists(tox + "tox21_A.txt.gz")) {
      for (std::size_t count : {std::size_t(7831), std::size_t(10000)})
        for (int n : {64, 128, 256}) {
          const std::string config =
              "tox21 graphs=" + std::to_string(count) + " n_B=" + std::to_string(n);
          if (bench::selected(g_configs, config))
            run_batch("tox21", config, tox21(tox, count), n, sp, bl);
        }
    }
    std::vector<std::pair<std::string, std::string>> singles = {
        {"cora", data + "/gcn/planetoid/cora/cora_adj.mtx"},
        {"pubmed", data + "/gcn/planetoid/pubmed/pubmed_adj.mtx.gz"},
        {"wiki-Vote", data + "/snap/wiki-Vote.txt.gz"},
        {"p2p-Gnutella31", data + "/snap/p2p-Gnutella31.txt.gz"},
        {"soc-Epinions1", data + "/snap/soc-Epinions1_lwcc_undirected.txt.gz"}};
    for (auto& [name, path] : singles) {
      if (("," + graphs + ",").find("," + name + ",") == std::string::npos) continue;
      std::string p = path;
      if (!std::filesystem::exists(p) && p.size() > 3 && p.substr(p.size() - 3) == ".gz") p = p.substr(0, p.size() - 3);
      if (!std::filesystem::exists(p)) continue;
      const Matrix g = io::read_graph(p);
      for (int n : single_widths) run_single(name, g, n, sp);
    }
    if (rmat_scale > 0) {
      const auto t0 = std::chrono::steady_clock::now();
      const Matrix g = rmat_with_self_loops(rmat_scale);
      std::cerr << "rmat" << rmat_scale << ": " << g.nrows() << " rows, " << g.nnz() << " entries ("
                << std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() << " s)\n";
      for (int n : rmat_widths) run_single("rmat" + std::to_string(rmat_scale), g, n, sp);
    }

    // ---- output --------------------------------------------------------------------------------
    const std::string date = bench::utc_date();
    std::ofstream js(json);
    js << "{\"gpu\": \"" << prop.name << "\", \"date\": \"" << date << "\", \"copy_bandwidth_gbs\": " << copy_bw
       << ", \"results\": [\n";
    for (std::size_t i = 0; i < g_records.size(); ++i) {
      const auto& r = g_records[i];
      js << "  {\"group\": \"" << r.group << "\", \"config\": \"" << r.config << "\", \"impl\": \"" << r.impl
         << "\", \"nnz\": " << r.nnz << ", \"n_B\": " << r.n << ", \"time_us\": " << r.us << ", \"gflops\": "
         << (r.us > 0 ? 2.0 * r.nnz * r.n / (r.us * 1e3) : 0) << ", \"note\": \"" << r.note << "\"}"
         << (i + 1 < g_records.size() ? ",\n" : "\n");
    }
    js << "]}\n";
    // Markdown: one row per configuration, one column per implementation (us, GFLOP/s); the
    // batched groups and the single SpMM in separate tables.
    std::ofstream out(md);
    out << "# SpMM benchmark (f32, row-major): " << prop.name << ", " << date << "\n\n"
        << "Time per whole call in us (GFLOP/s = 2 nnz(A) n_B / time). Device copy bandwidth "
        << fmt(copy_bw, 0) << " GB/s.\n";
    auto find = [&](const std::string& group, const std::string& config, const std::string& impl) -> const Record* {
      const Record* rec = nullptr;
      for (const auto& r : g_records)
        if (r.group == group && r.config == config && r.impl == impl) rec = &r;
      return rec && rec->us > 0 ? rec : nullptr;
    };
    auto write_table = [&](bool single) {
      std::vector<std::string> impls, configs;
      for (const auto& r : g_records) {
        if ((r.group == "single") != single || r.group == "single_host") continue;
        if (std::find(impls.begin(), impls.end(), r.impl) == impls.end()) impls.push_back(r.impl);
        if (std::find(configs.begin(), configs.end(), r.config) == configs.end()) configs.push_back(r.config);
      }
      if (configs.empty()) return;
      if (single)
        out << "\n## Single SpMM\n\n`ringblas_api`: public mxm, automatic choice (after --settle "
               "ms of it), "
               "`ringblas_api_last` the same timed again after the cuSPARSE rows; "
               "`ringblas_api_<variant>`: "
               "the variant forced; `kernel_*`: the launcher alone (`rowsplit_L<n>`: rows over n "
               "nonzeros "
               "shared by the block, the library's other knobs; the other `rowsplit_` rows change "
               "one knob; "
               "`_scalar`: no 16-byte vectors; `nnzsplit_L<n>`: the nnz-split kernel at the "
               "library's run length, without its s9 options (no dependent launch, run rows "
               "searched), with `_stream` the same on a stream of its own, `_overlap` as "
               "its row pass's dependent launch, `_runrows` its runs' rows from the row pass, "
               "`_lean` sums from -0 in FFMAs and 32-bit B offsets; "
               "`nnzsplit_wave_L<n>`: the run length of SpmmPolicy::nnzsplit_one_wave_small). "
               "Peers: cuSPARSE SpMM (ALG3 after its "
               "untimed preprocessing). Speedup = best cuSPARSE / ringblas. Host us: CPU time per "
               "call "
               "issued back to back.\n\n| config |";
      else
        out << "\n## Batched SpMM\n\n`_padded`: items padded to the largest dim/nnz (equal sizes needed). "
               "`ringblas_api_batch`: the batch as a MatrixBatch (built once, untimed) over stacked B and C. "
               "best peer = fastest of cuSPARSE strided / loop / block-diagonal / cuBLAS batched / TF COO.\n\n| config |";
      for (const auto& i : impls) out << " " << i << " |";
      out << (single ? " best kernel | api vs best cuSPARSE | best kernel vs best cuSPARSE | host us api / cusparse |\n|---|"
                     : " speedup vs best peer (api) | speedup (api, batch object) | speedup (kernel) |\n|---|");
      for (std::size_t i = 0; i < impls.size() + (single ? 4 : 3); ++i) out << "---|";
      out << "\n";
      for (const auto& c : configs) {
        out << "| " << c << " |";
        double api = -1, api_batch = -1, kern = -1, peer = -1;
        std::string kern_name = "n/a";
        for (const auto& i : impls) {
          const Record* rec = nullptr;
          for (const auto& r : g_records)
            if (r.group != "single_host" && (r.group == "single") == single && r.config == c && r.impl == i && r.us > 0) rec = &r;
          if (!rec) {
            out << " n/a |";
            continue;
          }
          out << " " << fmt(rec->us) << " (" << fmt(2.0 * rec->nnz * rec->n / (rec->us * 1e3)) << ") |";
          const bool is_kernel = single ? i.rfind("kernel_", 0) == 0 : i == "ringblas_csr_kernel";
          const bool is_peer = single ? i.rfind("cusparse", 0) == 0 : i.rfind("ringblas", 0) != 0;
          if (i == "ringblas_api") api = rec->us;
          else if (i == "ringblas_api_batch") api_batch = rec->us;
          else if (is_kernel && (kern < 0 || rec->us < kern)) kern = rec->us, kern_name = i;
          else if (is_peer && (peer < 0 || rec->us < peer)) peer = rec->us;
        }
        if (single) out << " " << kern_name << " |";
        out << " " << (api > 0 && peer > 0 ? fmt(peer / api, 2) + "x" : "n/a") << " | ";
        if (!single) out << (api_batch > 0 && peer > 0 ? fmt(peer / api_batch, 2) + "x" : "n/a") << " | ";
        out << (kern > 0 && peer > 0 ? fmt(peer / kern, 2) + "x" : "n/a") << " |";
        if (single) {
          const Record* ha = find("single_host", c, "ringblas_api");
          const Record* hc = find("single_host", c, "cusparse_default");
          out << " " << (ha ? fmt(ha->us) : "n/a") << " / " << (hc ? fmt(hc->us) : "n/a") << " |";
        }
        out << "\n";
      }
    };
    write_table(false);
    write_table(true);
    out << "\n## Achieved bandwidth (compulsory bytes: A's arrays + B + C once) vs device copy "
        << fmt(copy_bw, 0) << " GB/s\n\n| config | impl | GB/s | % of copy |\n|---|---|---|---|\n";
    for (const auto& r : g_records)
      if ((r.group == "tox21" || r.group == "single") && r.us > 0 && r.bytes > 0) {
        const double gbs = r.bytes / (r.us * 1e3);
        out << "| " << r.config << " | " << r.impl << " | " << fmt(gbs, 0) << " | " << fmt(100.0 * gbs / copy_bw, 0) << "% |\n";
      }
    if (!g_choices.empty()) {
      out << "\n## What ringblas_api ran (the trace of one call)\n\n"
          << "| config | trace |\n|---|---|\n";
      for (const auto& [cfg, text] : g_choices) out << "| " << cfg << " | " << text << " |\n";
    }
    std::cerr << "wrote " << json << " and " << md << "\n";
  } catch (const std::exception& e) {
    std::cerr << "bench_spmm: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
