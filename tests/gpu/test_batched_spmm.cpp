// GPU tests of mxm_batched (spmm_batched and spmm_batched_coo forced): batches of 1, 7, 100 and
// 1000 items of mixed sizes (dim 32-256, nnz/row 1-5) with empty items, several n_B, device-
// resident batches, mixed index widths and types, and the Tox21 molecule graphs as one batch;
// against the cpu backend (Backend::verify).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "ringblas/ringblas.hpp"
#include "support/gpu_fixture.hpp"
#include "support/random_matrix.hpp"

namespace ringblas::test {
namespace {

struct Batch {
  std::vector<Matrix> A;
  std::vector<DenseMatrix> B, C;
};

/// `count` items of random square dims in [32, 256] with 1-5 entries per row; every 13th item
/// has no entries and every 29th is 0 x 0.
Batch mixed_batch(std::size_t count, Index n, std::uint64_t seed, Type t = Type::fp32) {
  Batch b;
  Rng rng(seed);
  for (std::size_t k = 0; k < count; ++k) {
    Index dim = rng.between(32, 256);
    if (k % 29 == 28) dim = 0;
    const double per_row = double(rng.between(1, 5));
    const double density = dim ? (k % 13 == 12 ? 0.0 : per_row / double(dim)) : 0.0;
    b.A.push_back(random_matrix(dim, dim, density, t, seed + k, Pattern::random, ValueKind::integral,
                                k % 2 ? IndexType::i32 : IndexType::i64));
    b.B.push_back(random_dense(dim, n, t, seed + 7 * k, Layout::row_major, ValueKind::integral));
    b.C.emplace_back(dim, n, t);
  }
  return b;
}

std::string verify_batched(Batch& b, const Semiring& s, Variant v) {
  Descriptor d;
  d.variant = v;
  Context ctx(Backend::verify);
  try {
    mxm_batched(b.C, s, b.A, b.B, d, ctx);
  } catch (const Error& e) {
    return std::string(variant_name(v)) + ": " + e.what();
  }
  return "";
}

class BatchedSpmm : public GpuTest {};

TEST_F(BatchedSpmm, MixedSizesWithEmptyItems) {
  const Semiring s = semiring("plus_times", Type::fp32);
  for (std::size_t count : {1u, 7u, 100u, 1000u})
    for (Index n : {3, 16, 64, 257}) {
      if (count == 1000 && n > 64) continue;  // keeps the cpu reference short
      for (Variant v : {Variant::spmm_batched, Variant::spmm_batched_coo}) {
        Batch b = mixed_batch(count, n, 1000 * count + n);
        EXPECT_EQ(verify_batched(b, s, v), "") << "batch " << count << ", n_B " << n;
      }
    }
}

TEST_F(BatchedSpmm, SemiringsAndTypes) {
  for (const char* name : {"min_plus", "max_times", "plus_pair"})
    for (Variant v : {Variant::spmm_batched, Variant::spmm_batched_coo}) {
      Batch b = mixed_batch(20, 40, 77);
      EXPECT_EQ(verify_batched(b, semiring(name, Type::fp32), v), "") << name;
    }
  for (Variant v : {Variant::spmm_batched, Variant::spmm_batched_coo}) {
    Batch b = mixed_batch(20, 24, 78, Type::fp64);  // values cast to the fp32 semiring
    EXPECT_EQ(verify_batched(b, semiring("plus_times", Type::fp32), v), "");
    Batch c = mixed_batch(20, 24, 79, Type::int64);
    EXPECT_EQ(verify_batched(c, semiring("plus_times", Type::int64), v), "");
  }
}

TEST_F(BatchedSpmm, DeviceResidentBatchMatchesHost) {
  const Semiring s = semiring("plus_times", Type::fp32);
  Batch host = mixed_batch(50, 64, 5);
  Context cuda(Backend::cuda), cpu(Backend::cpu);
  Batch dev;
  for (std::size_t k = 0; k < host.A.size(); ++k) {
    dev.A.push_back(host.A[k].with_index_type(IndexType::i32).to(Location::device, cuda));
    dev.B.push_back(host.B[k].to(Location::device, cuda));
    dev.C.push_back(host.C[k].to(Location::device, cuda));
  }
  mxm_batched(dev.C, s, dev.A, dev.B, {}, cuda);
  mxm_batched(host.C, s, host.A, host.B, {}, cpu);
  for (std::size_t k = 0; k < host.A.size(); ++k) {
    ASSERT_EQ(dev.C[k].location(), Location::device);
    const DenseMatrix got = dev.C[k].to(Location::host, cuda);
    for (Index i = 0; i < got.nrows(); ++i)
      for (Index j = 0; j < got.ncols(); ++j)
        ASSERT_EQ(got.at<float>(i, j), host.C[k].at<float>(i, j)) << "item " << k;
  }
}

TEST_F(BatchedSpmm, RejectsMismatchedItems) {
  Batch b = mixed_batch(3, 8, 9);
  b.B[1] = random_dense(b.A[1].ncols(), 9, Type::fp32, 1);
  Context ctx(Backend::cuda);
  EXPECT_THROW(mxm_batched(b.C, semiring("plus_times", Type::fp32), b.A, b.B, {}, ctx), DimensionMismatch);
}

/// Tox21 heavy-atom graphs (TU layout) as one adjacency matrix per molecule.
std::vector<Matrix> tox21_graphs(const std::string& dir) {
  std::istringstream ind(io::read_file_text(dir + "tox21_graph_indicator.txt.gz"));
  std::vector<Index> graph_of, first_node;
  for (Index g; ind >> g;) graph_of.push_back(g - 1);
  const Index ngraphs = graph_of.empty() ? 0 : graph_of.back() + 1;
  first_node.assign(ngraphs + 1, 0);
  for (Index v = 0; v < Index(graph_of.size()); ++v) first_node[graph_of[v] + 1] = v + 1;
  std::vector<std::vector<Index>> rows(ngraphs), cols(ngraphs);
  std::string text = io::read_file_text(dir + "tox21_A.txt.gz");
  for (char& ch : text)
    if (ch == ',') ch = ' ';
  std::istringstream edges(text);
  for (Index i, j; edges >> i >> j;) {
    const Index g = graph_of[i - 1];
    rows[g].push_back(i - 1 - first_node[g]);
    cols[g].push_back(j - 1 - first_node[g]);
  }
  std::vector<Matrix> out;
  for (Index g = 0; g < ngraphs; ++g) {
    const Index n = first_node[g + 1] - first_node[g];
    out.push_back(Matrix::from_triplets(n, n, rows[g], cols[g], std::vector<float>(rows[g].size(), 1.0f),
                                        Dup::first, IndexType::i32));
  }
  return out;
}

TEST_F(BatchedSpmm, Tox21MoleculesAsOneBatch) {
  const std::string dir = std::string(RINGBLAS_DATA_DIR) + "/molecules/tox21_graphs/";
  if (!std::filesystem::exists(dir + "tox21_A.txt.gz")) GTEST_SKIP() << "no Tox21 graphs in " << dir;
  Batch b;
  b.A = tox21_graphs(dir);
  ASSERT_EQ(b.A.size(), 7831u);
  for (std::size_t k = 0; k < b.A.size(); ++k) {
    b.B.push_back(random_dense(b.A[k].nrows(), 64, Type::fp32, k, Layout::row_major, ValueKind::integral));
    b.C.emplace_back(b.A[k].nrows(), 64, Type::fp32);
  }
  for (Variant v : {Variant::spmm_batched, Variant::spmm_batched_coo})
    EXPECT_EQ(verify_batched(b, semiring("plus_times", Type::fp32), v), "");
}

}  // namespace
}  // namespace ringblas::test
