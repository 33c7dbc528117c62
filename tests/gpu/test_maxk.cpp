// GPU tests of the maxk kernel family (backend/cuda/maxk): MaxK top-k, forward A x CBSR and the
// sampled outer-product backward, each against the cpu executor (Backend::verify with the maxk
// variant forced) and against the naive dense references, for k in {1, 2, 8, 32, H}, ties, H = 256
// and H not a multiple of 32, degree-0 nodes, transposed A, int64 and fp64 A, host and device
// operands, and outputs allocated from a poisoned device pool.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "ringblas/ringblas.hpp"
#include "support/gpu_fixture.hpp"
#include "support/maxk_reference.hpp"
#include "support/random_matrix.hpp"
#if defined(RINGBLAS_HAS_CUDA)
#include "backend/cuda/maxk/maxk.hpp"  // the launchers' shapes (EveryShapeMatchesReference)
#endif

namespace ringblas::test {
namespace {

const Semiring kPlusTimes = semiring("plus_times", Type::fp32);

class MaxkGpu : public GpuTest {};

/// Where inputs are made (maxk on the host) before the GPU runs the operation under test.
Context& cpu_context() {
  static Context c(Backend::cpu);
  return c;
}

Descriptor forced(bool transpose_a = false) {
  Descriptor d;
  d.variant = Variant::maxk;
  d.transpose_a = transpose_a;
  return d;
}

void expect_near_all(const std::vector<float>& got, const std::vector<double>& want,
                     const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t e = 0; e < got.size(); ++e)
    ASSERT_NEAR(got[e], want[e], 1e-4 * (1.0 + std::abs(want[e]))) << what << " at " << e;
}

std::vector<float> host_values(const DenseMatrix& c, const Context& ctx) {
  const DenseMatrix h = c.location() == Location::host ? c : c.to(Location::host, ctx);
  return std::vector<float>(h.values().as<float>(), h.values().as<float>() + h.nrows() * h.ncols());
}

TEST_F(MaxkGpu, TopkVerifiesAndMatchesReference) {
  Context ctx(Backend::verify);
  for (Index h : {Index{1}, Index{5}, Index{40}, Index{100}, Index{256}})
    for (bool ties : {false, true})
      for (int k : ks_for(h)) {
        const Index n = 1000;
        const auto y = random_features(n, h, ties, std::uint64_t(h * 31 + k));
        Cbsr x;
        const std::string what =
            "H " + std::to_string(h) + " k " + std::to_string(k) + (ties ? " ties" : "");
        ASSERT_NO_THROW(maxk(x, DenseMatrix::from_values(n, h, y), k, forced(), ctx)) << what;
        const TopkRef ref = reference_topk(y, n, h, k);
        EXPECT_EQ(x.indices_vector(), ref.indices) << what;
        EXPECT_EQ(x.values_vector(), ref.values) << what;
      }
}

TEST_F(MaxkGpu, TopkSignedZerosAndNaN) {
  Context ctx(Backend::verify);  // the cpu path's totalOrder, checked by MaxkCpu
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> y = {-0.0f, 0.0f, -1.0f, inf, -inf, 1.0f, nan, -nan};
  for (int k = 1; k <= 8; ++k) {
    Cbsr x;
    EXPECT_NO_THROW(maxk(x, DenseMatrix::from_values(1, 8, y), k, forced(), ctx)) << "k " << k;
  }
}

TEST_F(MaxkGpu, TopkDeviceResidentIntoPoisonedPool) {
  Context ctx(Backend::cuda);
  const Index n = 4097, h = 200;
  const int k = 16;
  const auto y = random_features(n, h, true, 5);
  const DenseMatrix yd = DenseMatrix::from_values(n, h, y).to(Location::device, ctx);
  poison_device_pool(std::size_t(n) * h * 8, ctx);
  Cbsr x = Cbsr::from_buffers(n, h, k, Buffer(std::size_t(n * k) * 4, Location::device, &ctx),
                              Buffer(std::size_t(n * k), Location::device, &ctx));
  maxk(x, yd, k, forced(), ctx);
  ASSERT_EQ(x.location(), Location::device);
  const Cbsr xh = x.to(Location::host, ctx);
  const TopkRef ref = reference_topk(y, n, h, k);
  EXPECT_EQ(xh.indices_vector(), ref.indices);
  EXPECT_EQ(xh.values_vector(), ref.values);
}

TEST_F(MaxkGpu, ForwardVerifiesAndMatchesReference) {
  Context ctx(Backend::verify);
  for (Index h : {Index{40}, Index{100}, Index{256}})
    for (int k : ks_for(h))
      for (bool transposed : {false, true}) {
        const Index n = 600;
        Cbsr x;
        maxk(x, DenseMatrix::from_values(n, h, random_features(n, h, false, std::uint64_t(k))), k,
             {}, cpu_context());
        const Matrix A = random_adjacency(n, n, 9, std::uint64_t(h + k));
        DenseMatrix c(n, h, Type::fp32);
        const std::string what =
            "H " + std::to_string(h) + " k " + std::to_string(k) + (transposed ? " A^T" : "");
        ASSERT_NO_THROW(mxm(c, kPlusTimes, A, x, forced(transposed), ctx)) << what;
        expect_near_all(host_values(c, ctx), reference_forward(A, x, transposed), what);
      }
}

TEST_F(MaxkGpu, ForwardEpilogueVerifies) {
  const Index n = 700, h = 256;
  std::vector<float> b(static_cast<std::size_t>(h));
  for (Index j = 0; j < h; ++j) b[j] = float(j % 7) * 0.1f - 0.3f;
  const DenseVector bias = DenseVector::from_values(b);
  for (int k : {3, 32}) {
    Cbsr x;
    maxk(x, DenseMatrix::from_values(n, h, random_features(n, h, false, 12)), k, {}, cpu_context());
    const Matrix A = random_adjacency(n, n, 7, 13);
    for (const Epilogue& ep :
         {Epilogue::bias_add(bias), Epilogue::bias_relu(bias), Epilogue::relu()}) {
      Context verify(Backend::verify);
      DenseMatrix c(n, h, Type::fp32);
      EXPECT_NO_THROW(mxm(c, kPlusTimes, A, x, ep, forced(), verify))
          << "k " << k << " epilogue " << int(ep.kind);
      // Device bias and output, and A without entries (the epilogue alone).
      Context ctx(Backend::cuda);
      const DenseVector bd = bias.to(Location::device, ctx);
      const Epilogue epd(ep.kind, ep.has_bias() ? &bd : nullptr);
      DenseMatrix cd = DenseMatrix(n, h, Type::fp32).to(Location::device, ctx);
      mxm(cd, kPlusTimes, Matrix(n, n, Type::fp32), x, epd, forced(), ctx);
      const auto got = host_values(cd, ctx);
      for (Index i = 0; i < n; i += 97)
        for (Index j = 0; j < h; ++j) {
          float w = ep.has_bias() ? b[j] : 0.0f;
          if (ep.has_relu()) w = std::max(w, 0.0f);
          ASSERT_EQ(got[i * h + j], w) << i << ", " << j;
        }
    }
  }
}

TEST_F(MaxkGpu, ForwardDeviceResidentIntoPoisonedPool) {
  Context ctx(Backend::cuda);
  const Index n = 3000, h = 256;
  for (int k : {16, 64, 256}) {
    Cbsr xh;
    maxk(xh, DenseMatrix::from_values(n, h, random_features(n, h, false, 3)), k, {}, cpu_context());
    // int64 indices and fp64 values: prepared (int32, fp32) on the device.
    const Matrix A = random_adjacency(n, n, 64, 8).cast(Type::fp64).with_index_type(IndexType::i64);
    const Matrix Ad = A.to(Location::device, ctx);
    const Cbsr xd = xh.to(Location::device, ctx);
    poison_device_pool(std::size_t(n) * h * 8, ctx);
    DenseMatrix c = DenseMatrix::from_buffer(
        n, h, Type::fp32, Layout::row_major,
        Buffer(std::size_t(n * h) * sizeof(float), Location::device, &ctx));  // poison inside
    mxm(c, kPlusTimes, Ad, xd, forced(), ctx);
    ASSERT_EQ(c.location(), Location::device);
    expect_near_all(host_values(c, ctx), reference_forward(A, xh, false), "k " + std::to_string(k));
  }
}

TEST_F(MaxkGpu, SampledBackwardVerifiesAndMatchesReference) {
  Context ctx(Backend::verify);
  for (Index h : {Index{40}, Index{100}, Index{256}})
    for (int k : ks_for(h))
      for (bool transposed : {true, false}) {
        const Index n = 600;
        Cbsr dh;
        maxk(dh, DenseMatrix::from_values(n, h, random_features(n, h, false, std::uint64_t(k))), k,
             {}, cpu_context());
        const Matrix A = random_adjacency(n, n, 9, std::uint64_t(3 * h + k));
        const DenseMatrix dy = random_dense(n, h, Type::fp32, std::uint64_t(h * k));
        const auto pattern = dh.indices_vector();
        const std::string what =
            "H " + std::to_string(h) + " k " + std::to_string(k) + (transposed ? " A^T" : " A");
        ASSERT_NO_THROW(mxm(dh, kPlusTimes, A, dy, forced(transposed), ctx)) << what;
        EXPECT_EQ(dh.indices_vector(), pattern) << what;
        expect_near_all(dh.values_vector(), reference_sampled(A, dy, dh, transposed), what);
      }
}

TEST_F(MaxkGpu, SampledBackwardDeviceResidentIntoPoisonedPool) {
  Context ctx(Backend::cuda);
  const Index n = 3000, h = 256;
  for (int k : {16, 32, 64}) {
    Cbsr pattern;
    maxk(pattern, DenseMatrix::from_values(n, h, random_features(n, h, false, 4)), k, {},
         cpu_context());
    const Matrix A = random_adjacency(n, n, 64, 9);
    const DenseMatrix dy = random_dense(n, h, Type::fp32, 10);
    poison_device_pool(std::size_t(n) * h * 8, ctx);
    Cbsr dh = pattern.to(Location::device, ctx);  // values are overwritten, pattern kept
    mxm(dh, kPlusTimes, A.to(Location::device, ctx), dy.to(Location::device, ctx), forced(true),
        ctx);
    ASSERT_EQ(dh.location(), Location::device);
    const Cbsr got = dh.to(Location::host, ctx);
    EXPECT_EQ(got.indices_vector(), pattern.indices_vector());
    expect_near_all(got.values_vector(), reference_sampled(A, dy, pattern, true),
                    "k " + std::to_string(k));
  }
}

TEST_F(MaxkGpu, DensifyVerifiesAndIntoPoisonedPool) {
  const Index n = 2000;
  for (Index h : {Index{100}, Index{256}})  // H % 8 != 0: scalar row stores; == 0: 16-byte
    for (int k : {0, 1, 3, 16, 100, 256}) {
      if (k > h) continue;
      const std::string what = "H " + std::to_string(h) + " k " + std::to_string(k);
      Cbsr x(n, h, 0);
      if (k > 0)
        maxk(x, DenseMatrix::from_values(n, h, random_features(n, h, false, std::uint64_t(k))), k,
             {}, cpu_context());
      Context verify(Backend::verify);
      DenseMatrix d(n, h, Type::fp32);
      EXPECT_NO_THROW(densify(d, x, forced(), verify)) << what;
      Context ctx(Backend::cuda);
      poison_device_pool(std::size_t(n) * h * 8, ctx);
      DenseMatrix dd = DenseMatrix::from_buffer(
          n, h, Type::fp32, Layout::row_major,
          Buffer(std::size_t(n * h) * sizeof(float), Location::device, &ctx));
      densify(dd, x.to(Location::device, ctx), forced(), ctx);
      const DenseMatrix want = x.to_dense();
      EXPECT_EQ(host_values(dd, ctx), host_values(want, ctx)) << what;
    }
}

/// The forward loads 1, 2 or 4 CBSR entries per lane (forward_vector: V = 4 for k % 4 == 0 and
/// k >= 64, V = 2 for even k >= 16), several edges per step while k / V <= 32 and one edge per
/// step above ("wide"); the backward 4, 2 or 1 by k's divisibility. Every combination, with H a
/// multiple of 8 (16-byte row stores and loads) and not, against the dense references; degree
/// about 40 (a full and a partial chunk of 32 edges per row) and every third row empty.
TEST_F(MaxkGpu, ForwardAndBackwardEveryLoadWidth) {
  Context ctx(Backend::cuda);
  const Index n = 500;
  for (Index h : {Index{100}, Index{256}})
    for (int k : {3, 6, 13, 16, 18, 24, 33, 64, 66, 100, 128, 130, 255, 256}) {
      if (k > h) continue;
      const std::string what = "H " + std::to_string(h) + " k " + std::to_string(k);
      Cbsr x;
      maxk(x, DenseMatrix::from_values(n, h, random_features(n, h, false, std::uint64_t(k + h))), k,
           {}, cpu_context());
      const Matrix A = random_adjacency(n, n, 40, std::uint64_t(7 * k + h));
      const Matrix Ad = A.to(Location::device, ctx);
      const Cbsr xd = x.to(Location::device, ctx);
      poison_device_pool(std::size_t(n) * h * 8, ctx);
      DenseMatrix c = DenseMatrix::from_buffer(
          n, h, Type::fp32, Layout::row_major,
          Buffer(std::size_t(n * h) * sizeof(float), Location::device, &ctx));
      mxm(c, kPlusTimes, Ad, xd, forced(), ctx);
      expect_near_all(host_values(c, ctx), reference_forward(A, x, false), "forward " + what);
      const DenseMatrix dy = random_dense(n, h, Type::fp32, std::uint64_t(k * h + 1));
      Cbsr dh = xd;
      mxm(dh, kPlusTimes, Ad, dy.to(Location::device, ctx), forced(true), ctx);
      const Cbsr got = dh.to(Location::host, ctx);
      EXPECT_EQ(got.indices_vector(), x.indices_vector()) << what;
      expect_near_all(got.values_vector(), reference_sampled(A, dy, x, true), "backward " + what);
    }
}

/// k = 0 (a CBSR without entries) under a bias epilogue: every row of C is the bias.
TEST_F(MaxkGpu, ForwardWithoutEntriesWritesEpilogue) {
  Context ctx(Backend::cuda);
  const Index n = 300, h = 256;
  std::vector<float> b(static_cast<std::size_t>(h));
  for (Index j = 0; j < h; ++j) b[j] = float(j % 5) - 2.0f;
  const DenseVector bias = DenseVector::from_values(b).to(Location::device, ctx);
  const Cbsr x(n, h, 0, Location::device, &ctx);
  const Matrix A = random_adjacency(n, n, 8, 5).to(Location::device, ctx);
  poison_device_pool(std::size_t(n) * h * 8, ctx);
  DenseMatrix c =
      DenseMatrix::from_buffer(n, h, Type::fp32, Layout::row_major,
                               Buffer(std::size_t(n * h) * sizeof(float), Location::device, &ctx));
  mxm(c, kPlusTimes, A, x, Epilogue::bias_relu(bias), forced(), ctx);
  const auto got = host_values(c, ctx);
  for (Index i = 0; i < n; ++i)
    for (Index j = 0; j < h; ++j) ASSERT_EQ(got[i * h + j], std::max(b[j], 0.0f)) << i << ", " << j;
}

#if defined(RINGBLAS_HAS_CUDA)
/// Every shape the launchers accept (cuda::maxk::Shape: entries per lane, forward edge slots),
/// as bench_maxk --shapes times them, against the dense references; a shape that does not fit
/// k is refused.
TEST_F(MaxkGpu, EveryShapeMatchesReference) {
  Context ctx(Backend::cuda);
  const Index n = 400, h = 256;
  const Matrix A = random_adjacency(n, n, 40, 21);
  const Matrix Ad = A.to(Location::device, ctx);
  const DenseMatrix dy = random_dense(n, h, Type::fp32, 22);
  const DenseMatrix dyd = dy.to(Location::device, ctx);
  Descriptor dt;
  dt.transpose_a = true;
  for (int k : {8, 16, 32, 64}) {
    Cbsr x;
    maxk(x, DenseMatrix::from_values(n, h, random_features(n, h, false, std::uint64_t(k))), k, {},
         cpu_context());
    const Cbsr xd = x.to(Location::device, ctx);
    const auto want_fwd = reference_forward(A, x, false);
    const auto want_bwd = reference_sampled(A, dy, x, true);
    for (int v : {1, 2, 4})
      for (int slots : {1, 2, 3, 4, 8})
        for (int unroll : {1, 2, 4, 8}) {
          const cuda::maxk::Shape shape{v, slots, unroll};
          const bool compiled = v == 1   ? unroll >= 4
                                : v == 2 ? unroll == 2 || unroll == 4
                                         : unroll <= 4;
          const std::string what = "k " + std::to_string(k) + " V " + std::to_string(v) +
                                   " slots " + std::to_string(slots) + " unroll " +
                                   std::to_string(unroll);
          DenseMatrix c = DenseMatrix(n, h, Type::fp32).to(Location::device, ctx);
          if (k % v != 0 || !compiled) {
            EXPECT_THROW(cuda::maxk::forward(c, Ad, xd, nullptr, {}, ctx, shape), InvalidValue)
                << what;
            continue;
          }
          cuda::maxk::forward(c, Ad, xd, nullptr, {}, ctx, shape);
          expect_near_all(host_values(c, ctx), want_fwd, "forward " + what);
          if (slots == 1 && unroll == 4) {
            Cbsr dh = xd;
            cuda::maxk::backward(dh, Ad, dyd, dt, ctx, shape);
            expect_near_all(dh.to(Location::host, ctx).values_vector(), want_bwd,
                            "backward " + what);
          }
        }
    // Each kernel on the grid it does not use by default (one_wave flipped: the forward with
    // one warp per segment, the backward striding in one wave), rows split into short segments.
    cuda::maxk::Shape fs = cuda::maxk::forward_shape(k), bs = cuda::maxk::backward_shape(k);
    fs.one_wave = !fs.one_wave;
    bs.one_wave = !bs.one_wave;
    fs.segment = bs.segment = 32;  // rows of about 40 edges split in two
    DenseMatrix c = DenseMatrix(n, h, Type::fp32).to(Location::device, ctx);
    cuda::maxk::forward(c, Ad, xd, nullptr, {}, ctx, fs);
    expect_near_all(host_values(c, ctx), want_fwd, "forward, other grid, k " + std::to_string(k));
    Cbsr dh = xd;
    cuda::maxk::backward(dh, Ad, dyd, dt, ctx, bs);
    expect_near_all(dh.to(Location::host, ctx).values_vector(), want_bwd,
                    "backward, other grid, k " + std::to_string(k));
  }
  DenseMatrix c = DenseMatrix(n, h, Type::fp32).to(Location::device, ctx);
  Cbsr x;
  maxk(x, DenseMatrix::from_values(n, h, random_features(n, h, false, 1)), 16, {}, cpu_context());
  EXPECT_THROW(cuda::maxk::forward(c, Ad, x, nullptr, {}, ctx, {3, 1}), InvalidValue);
  EXPECT_THROW(cuda::maxk::forward(c, Ad, x, nullptr, {}, ctx, {2, 9}), InvalidValue);
  EXPECT_THROW(cuda::maxk::forward(c, Ad, x, nullptr, {}, ctx, {2, 2, 8}), InvalidValue);
}
#endif

/// n x n with degree-4 rows and three hub rows of 2500, 1025 and 5000 entries: rows longer than
/// Policy::segment_edges (1024) are split over several warps.
Matrix adjacency_with_hubs(Index n, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<Index> r, c;
  std::vector<float> v;
  for (Index i = 0; i < n; ++i) {
    const Index deg = i == 7 ? 2500 : i == 100 ? 1025 : i == n - 1 ? 5000 : (i % 5 == 3 ? 0 : 4);
    for (Index e = 0; e < deg; ++e) {
      r.push_back(i);
      c.push_back(deg >= 1025 ? (e * 7919 + i) % n : rng.between(0, n - 1));
      v.push_back(float(0.25 + 0.75 * rng.uniform()));
    }
  }
  return Matrix::from_triplets(n, n, r, c, v, Dup::sum, IndexType::i32);
}

TEST_F(MaxkGpu, HubRowsSplitOverWarps) {
  const Index n = 6000, h = 64;
  const Matrix A = adjacency_with_hubs(n, 3);
  std::vector<float> b(static_cast<std::size_t>(h));
  for (Index j = 0; j < h; ++j) b[j] = 0.05f * float(j % 4);
  const DenseVector bias = DenseVector::from_values(b);
  for (int k : {8, 13, 64}) {
    Cbsr x;
    maxk(x, DenseMatrix::from_values(n, h, random_features(n, h, false, std::uint64_t(k))), k, {},
         cpu_context());
    Context verify(Backend::verify);
    for (bool transposed : {false, true}) {
      DenseMatrix c(n, h, Type::fp32);
      EXPECT_NO_THROW(mxm(c, kPlusTimes, A, x, forced(transposed), verify)) << "k " << k;
      for (const Epilogue& ep : {Epilogue::bias_add(bias), Epilogue::bias_relu(bias)})
        EXPECT_NO_THROW(mxm(c, kPlusTimes, A, x, ep, forced(transposed), verify))
            << "k " << k << " epilogue " << int(ep.kind);
      Cbsr dh = x;
      const DenseMatrix dy = random_dense(n, h, Type::fp32, std::uint64_t(k + 1));
      EXPECT_NO_THROW(mxm(dh, kPlusTimes, A, dy, forced(transposed), verify)) << "k " << k;
    }
    // Against the dense reference too (the hub rows' sums span the segments).
    Context ctx(Backend::cuda);
    DenseMatrix c = DenseMatrix(n, h, Type::fp32).to(Location::device, ctx);
    mxm(c, kPlusTimes, A, x, forced(), ctx);
    expect_near_all(host_values(c, ctx), reference_forward(A, x, false), "k " + std::to_string(k));
  }
}

/// The output dropout (OutputDropout) on the device against the cpu executor: rows written by one
/// warp (dropped as they are stored), hub rows split over warps (dropped after their segments
/// add up: drop_split_rows_kernel), a ReLU epilogue (no split), into a poisoned output.
TEST_F(MaxkGpu, ForwardOutputDropoutWithSplitRows) {
  const Index n = 6000, h = 256;
  const Matrix A = adjacency_with_hubs(n, 5);
  std::vector<float> b(static_cast<std::size_t>(h));
  for (Index j = 0; j < h; ++j) b[j] = 0.05f * float(j % 4) - 0.05f;
  const DenseVector bias = DenseVector::from_values(b);
  Context ctx(Backend::cuda);
  const DenseVector bd = bias.to(Location::device, ctx);
  for (int k : {16, 32, 64}) {
    Cbsr x;
    maxk(x, DenseMatrix::from_values(n, h, random_features(n, h, false, std::uint64_t(k + 3))), k,
         {}, cpu_context());
    const Cbsr xd = x.to(Location::device, ctx);
    for (const EpilogueKind kind : {EpilogueKind::bias, EpilogueKind::bias_relu})
      for (double p : {0.0, 0.5}) {
        const std::string what = "k " + std::to_string(k) + " epilogue " +
                                 std::to_string(int(kind)) + " p " + std::to_string(p);
        const OutputDropout drop{p, 11, 12};
        DenseMatrix want(n, h, Type::fp32);
        mxm(want, kPlusTimes, A, x, Epilogue(kind, &bias), drop, {}, cpu_context());
        poison_device_pool(std::size_t(n) * h * 8, ctx);
        DenseMatrix c = DenseMatrix::from_buffer(
            n, h, Type::fp32, Layout::row_major,
            Buffer(std::size_t(n * h) * sizeof(float), Location::device, &ctx));
        mxm(c, kPlusTimes, A, xd, Epilogue(kind, &bd), drop, forced(), ctx);
        const auto got = host_values(c, ctx);
        const float* w = want.values().as<float>();
        std::vector<double> wd(w, w + n * h);
        expect_near_all(got, wd, what);
        // Without ReLU the cpu's zeros are dropped entries (or empty sums plus a zero bias):
        // exact zeros on the device too (the same mask).
        if (kind == EpilogueKind::bias)
          for (Index e = 0; e < n * h; ++e)
            if (w[e] == 0.0f) ASSERT_EQ(got[std::size_t(e)], 0.0f) << what << " at " << e;
      }
  }
}

TEST_F(MaxkGpu, AutomaticPicksMaxkAndFallsBackForOtherSemirings) {
  Context ctx(Backend::automatic);
  std::ostringstream trace;
  ctx.trace = true;
  ctx.trace_out = &trace;
  const Index n = 64, h = 64;
  Cbsr x;
  maxk(x, DenseMatrix::from_values(n, h, random_features(n, h, false, 1)), 8, {}, ctx);
  const Matrix A = random_adjacency(n, n, 3, 2);
  DenseMatrix c(n, h, Type::fp32);
  mxm(c, kPlusTimes, A, x, {}, ctx);
  EXPECT_NE(trace.str().find("maxk: maxk (cuda)"), std::string::npos) << trace.str();
  EXPECT_NE(trace.str().find("mxm (cbsr): maxk (cuda)"), std::string::npos) << trace.str();
  Descriptor d = forced();
  EXPECT_THROW(mxm(c, semiring("min_plus", Type::fp32), A, x, d, ctx), NotImplemented);
}

}  // namespace
}  // namespace ringblas::test
