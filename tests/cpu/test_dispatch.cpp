// The dispatch rule (backend/core/dispatch/dispatch.hpp) on a synthetic table, with a GPU machine
// played by passing "cuda available" to choose(); the public operations' dispatch on this machine
// (auto without a GPU -> cpu, forced variants, cpu backend + cuda variant, shared rejections,
// trace); and `ringblas kernels` against backend/core/dispatch/operations.def.
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "backend/core/dispatch/dispatch.hpp"
#include "ringblas/ringblas.hpp"
#include "support/random_matrix.hpp"
#include "test_cli_support.hpp"

namespace ringblas::test {
namespace {

using detail::Entry;
using detail::Executor;
using detail::Reason;
using detail::Table;

// --- the rule, on a synthetic table ------------------------------------------------------------

/// A problem of one number: spmv_pull runs x >= 0, spmv_push x >= 5 and is cheaper, sparse_layer
/// runs anything but only when forced; the cpu row runs everything.
struct Problem {
  int x;
};
struct Out {
  int value = -1;
};
using E = Entry<Problem, Out>;

const Table<Problem, Out>& toy_table() {
  static const Table<Problem, Out> t{
      "toy",
      {
          E{Variant::spmv_pull, Executor::cuda,
            [](const Problem& p, const Out&) -> Reason {
              if (p.x < 0) return "x is negative";
              return std::nullopt;
            },
            [](const Problem&, Out& o, Context&) { o.value = 1; },
            [](const Problem&, const Out&) { return 10.0; }},
          E{Variant::spmv_push, Executor::cuda,
            [](const Problem& p, const Out&) -> Reason {
              if (p.x < 5) return "x is below 5";
              return std::nullopt;
            },
            [](const Problem&, Out& o, Context&) { o.value = 2; },
            [](const Problem&, const Out&) { return 5.0; }},
          E{Variant::sparse_layer, Executor::cuda,
            [](const Problem&, const Out&) -> Reason { return std::nullopt; },
            [](const Problem&, Out& o, Context&) { o.value = 3; }, nullptr, false},
          E{Variant::suitesparse, Executor::cpu,
            [](const Problem&, const Out&) -> Reason { return std::nullopt; },
            [](const Problem&, Out& o, Context&) { o.value = 0; }},
      }};
  return t;
}

const Reason kGpu = std::nullopt;  // choose() told that the cuda executor is available
const Reason kNoGpu = Reason("no CUDA device is visible");

detail::Choice<Problem, Out> pick(int x, Backend b, Variant forced = Variant::automatic,
                                  const Reason& unavailable = kGpu) {
  const Out out;
  return detail::choose(toy_table(), Problem{x}, out, forced, b, true, unavailable);
}

/// The message of the exception `f` throws as E ("" if none or another type).
template <class Err, class F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const Err& e) {
    return e.what();
  } catch (...) {
    return "(another exception)";
  }
  return "(no exception)";
}

TEST(DispatchRule, AutomaticTakesTheCheapestCudaEntryThatCanRun) {
  auto c = pick(10, Backend::automatic);
  ASSERT_NE(c.cuda, nullptr);
  EXPECT_EQ(c.cuda->variant, Variant::spmv_push);  // cost 5 before cost 10, though listed second
  EXPECT_EQ(c.cpu, nullptr);
  EXPECT_EQ(c.trace, "toy: spmv_push (cuda); skipped sparse_layer: runs only when forced");

  c = pick(3, Backend::automatic);
  ASSERT_NE(c.cuda, nullptr);
  EXPECT_EQ(c.cuda->variant, Variant::spmv_pull);
  EXPECT_NE(c.trace.find("spmv_pull (cuda)"), std::string::npos) << c.trace;
  EXPECT_NE(c.trace.find("spmv_push: x is below 5"), std::string::npos) << c.trace;
}

TEST(DispatchRule, AutomaticFallsToCpuOnlyByCanImplementNeverByException) {
  auto c = pick(-1, Backend::automatic);
  EXPECT_EQ(c.cuda, nullptr);
  ASSERT_NE(c.cpu, nullptr);
  EXPECT_EQ(c.cpu->variant, Variant::suitesparse);
  EXPECT_NE(c.trace.find("toy: suitesparse (cpu); skipped "), std::string::npos) << c.trace;
  EXPECT_NE(c.trace.find("spmv_pull: x is negative"), std::string::npos) << c.trace;
  EXPECT_NE(c.trace.find("spmv_push: x is below 5"), std::string::npos) << c.trace;
}

TEST(DispatchRule, AutomaticWithoutGpuIsCpuAndSaysWhy) {
  auto c = pick(10, Backend::automatic, Variant::automatic, kNoGpu);
  EXPECT_EQ(c.cuda, nullptr);
  ASSERT_NE(c.cpu, nullptr);
  EXPECT_NE(c.trace.find("spmv_push: no CUDA device is visible"), std::string::npos) << c.trace;
}

TEST(DispatchRule, ForcedVariantThatCannotRunNamesWhy) {
  const std::string m =
      message_of<NotImplemented>([] { pick(2, Backend::cuda, Variant::spmv_push); });
  EXPECT_NE(m.find("spmv_push"), std::string::npos) << m;
  EXPECT_NE(m.find("x is below 5"), std::string::npos) << m;
  // Forced under automatic means cuda: no quiet cpu fallback.
  const std::string a =
      message_of<NotImplemented>([] { pick(-3, Backend::automatic, Variant::spmv_pull); });
  EXPECT_NE(a.find("x is negative"), std::string::npos) << a;
  // A variant the operation has no row for.
  const std::string n =
      message_of<NotImplemented>([] { pick(9, Backend::cuda, Variant::spgemm_hash); });
  EXPECT_NE(n.find("spgemm_hash does not compute toy"), std::string::npos) << n;
  EXPECT_NE(n.find("spmv_pull, spmv_push, sparse_layer"), std::string::npos) << n;
}

TEST(DispatchRule, ForcedOnlyEntriesRunWhenForced) {
  auto c = pick(-1, Backend::cuda, Variant::sparse_layer);
  ASSERT_NE(c.cuda, nullptr);
  EXPECT_EQ(c.cuda->variant, Variant::sparse_layer);
  c = pick(-1, Backend::automatic, Variant::sparse_layer);
  ASSERT_NE(c.cuda, nullptr);
  EXPECT_EQ(c.cuda->variant, Variant::sparse_layer);
}

TEST(DispatchRule, CudaBackendWithNothingRunnableListsEveryReason) {
  const std::string m = message_of<NotImplemented>([] { pick(-1, Backend::cuda); });
  EXPECT_NE(m.find("x is negative"), std::string::npos) << m;
  EXPECT_NE(m.find("x is below 5"), std::string::npos) << m;
  EXPECT_NE(m.find("sparse_layer: runs only when forced"), std::string::npos) << m;
}

TEST(DispatchRule, BackendAndVariantMustAgree) {
  EXPECT_THROW(pick(10, Backend::cpu, Variant::spmv_pull), InvalidValue);
  EXPECT_THROW(pick(10, Backend::cuda, Variant::suitesparse), InvalidValue);
  EXPECT_THROW(pick(10, Backend::verify, Variant::suitesparse), InvalidValue);
  auto c = pick(10, Backend::automatic, Variant::suitesparse);
  EXPECT_EQ(c.cuda, nullptr);
  ASSERT_NE(c.cpu, nullptr);
  c = pick(10, Backend::cpu);
  EXPECT_EQ(c.cuda, nullptr);
  ASSERT_NE(c.cpu, nullptr);
  EXPECT_EQ(c.trace, "toy: suitesparse (cpu)");
}

TEST(DispatchRule, VerifyRunsTheCpuEntryAndTheChosenCudaEntry) {
  auto c = pick(10, Backend::verify);
  ASSERT_NE(c.cpu, nullptr);
  ASSERT_NE(c.cuda, nullptr);
  EXPECT_EQ(c.cuda->variant, Variant::spmv_push);
  EXPECT_NE(c.trace.find("verify suitesparse (cpu) against spmv_push (cuda)"), std::string::npos)
      << c.trace;
  c = pick(10, Backend::verify, Variant::spmv_pull);
  ASSERT_NE(c.cuda, nullptr);
  EXPECT_EQ(c.cuda->variant, Variant::spmv_pull);
  EXPECT_THROW(pick(-1, Backend::verify), NotImplemented);  // nothing on cuda to verify
}

TEST(DispatchRule, NoTraceTextUnlessAsked) {
  const Out out;
  auto c = detail::choose(toy_table(), Problem{10}, out, Variant::automatic, Backend::automatic,
                          false, kGpu);
  ASSERT_NE(c.cuda, nullptr);
  EXPECT_TRUE(c.trace.empty());
}

// --- the public operations on this machine -----------------------------------------------------

bool same(const Matrix& a, const Matrix& b) {
  return a.nrows() == b.nrows() && a.ncols() == b.ncols() && a.type() == b.type() &&
         a.row_ptr_vector() == b.row_ptr_vector() && a.col_idx_vector() == b.col_idx_vector() &&
         a.values_vector<double>() == b.values_vector<double>();
}
bool same(const Vector& a, const Vector& b) {
  return a.size() == b.size() && a.indices_vector() == b.indices_vector() &&
         a.values_vector<double>() == b.values_vector<double>();
}

class Dispatch : public ::testing::Test {
 protected:
  const Semiring s = semiring("plus_times", Type::fp64);
  const Matrix A = random_matrix(12, 12, 0.3, Type::fp64, 11);
  const Matrix B = random_matrix(12, 12, 0.3, Type::fp64, 12);
  const Vector u = random_vector(12, 0.5, Type::fp64, 13);
};

TEST_F(Dispatch, AutomaticWithoutGpuIsTheCpuExecutorAndTracesWhy) {
  if (cuda_available())
    GTEST_SKIP() << "a GPU is visible: tests/gpu/test_dispatch_gpu.cpp covers it";
  std::ostringstream trace;
  Context automatic(Backend::automatic), cpu(Backend::cpu);
  automatic.trace = true;
  automatic.trace_out = &trace;
  Matrix got(12, 12), want(12, 12);
  mxm(got, nullptr, no_accum, s, A, B, {}, automatic);
  mxm(want, nullptr, no_accum, s, A, B, {}, cpu);
  EXPECT_TRUE(same(got, want));
  EXPECT_EQ(got.location(), Location::host);
  EXPECT_NE(trace.str().find("mxm: suitesparse (cpu); skipped spgemm_hash: "), std::string::npos)
      << trace.str();
  Vector w(12);
  mxv(w, nullptr, no_accum, s, A, u, {}, automatic);
  EXPECT_NE(trace.str().find("mxv: suitesparse (cpu); skipped spmv_"), std::string::npos)
      << trace.str();
  const Scalar total = reduce(MonoidCode::plus, A, automatic);
  EXPECT_DOUBLE_EQ(total.as<double>(), reduce(MonoidCode::plus, A, cpu).as<double>());
  EXPECT_NE(trace.str().find("reduce (scalar): suitesparse (cpu)"), std::string::npos)
      << trace.str();
}

TEST_F(Dispatch, TraceOfTheCpuBackendNamesTheCpuEntry) {
  std::ostringstream trace;
  Context cpu(Backend::cpu);
  cpu.trace = true;
  cpu.trace_out = &trace;
  Matrix C(12, 12);
  apply(C, nullptr, no_accum, UnaryOpCode::abs, A, {}, cpu);
  transpose(C, nullptr, no_accum, A, {}, cpu);
  EXPECT_EQ(trace.str(),
            "[ringblas] apply: suitesparse (cpu)\n[ringblas] transpose: suitesparse (cpu)\n");
}

TEST_F(Dispatch, CpuBackendWithCudaVariantIsInvalidValueAndLeavesOutput) {
  Context cpu(Backend::cpu);
  Matrix C = random_matrix(12, 12, 0.2, Type::fp64, 14);
  const Matrix before = C;
  Descriptor d;
  d.variant = Variant::spgemm_hash;
  EXPECT_THROW(mxm(C, nullptr, no_accum, s, A, B, d, cpu), InvalidValue);
  EXPECT_TRUE(same(C, before));
  d.variant = Variant::elementwise;
  EXPECT_THROW(ewise_add(C, nullptr, no_accum, BinaryOpCode::plus, A, B, d, cpu), InvalidValue);
  EXPECT_TRUE(same(C, before));
}

TEST_F(Dispatch, ForcedVariantOfAnotherOperationNamesWhyAndLeavesOutput) {
  for (Backend b : {Backend::automatic, Backend::cuda, Backend::verify}) {
    Context ctx(b);
    Matrix C = random_matrix(12, 12, 0.2, Type::fp64, 15);
    const Matrix before = C;
    Descriptor d;
    d.variant = Variant::spmv_push;
    const std::string m =
        message_of<NotImplemented>([&] { mxm(C, nullptr, no_accum, s, A, B, d, ctx); });
    EXPECT_NE(
        m.find("mxm: variant spmv_push does not compute mxm (its cuda variants: spgemm_hash, "
               "spgemm_dot, spgemm_dot_hash)"),
        std::string::npos)
        << m;
    EXPECT_TRUE(same(C, before));
    Vector w = random_vector(12, 0.5, Type::fp64, 16);
    const Vector w_before = w;
    d.variant = Variant::spgemm_hash;
    const std::string v =
        message_of<NotImplemented>([&] { mxv(w, nullptr, no_accum, s, A, u, d, ctx); });
    EXPECT_NE(v.find("spgemm_hash does not compute mxv (its cuda variants: spmv_pull, spmv_push)"),
              std::string::npos)
        << v;
    EXPECT_TRUE(same(w, w_before));
  }
}

TEST_F(Dispatch, ForcedCudaVariantWithoutGpuIsRefusedBeforeTheOutput) {
  if (cuda_available()) GTEST_SKIP() << "a GPU is visible";
  Context automatic(Backend::automatic);
  Matrix C = random_matrix(12, 12, 0.2, Type::fp64, 17);
  const Matrix before = C;
  Descriptor d;
  d.variant = Variant::spgemm_hash;
  // NotImplemented (no device) in a CUDA build, NotCompiled without CUDA: never a cpu result.
  try {
    mxm(C, nullptr, no_accum, s, A, B, d, automatic);
    ADD_FAILURE() << "a forced cuda variant ran without a GPU";
  } catch (const Error& e) {
    EXPECT_TRUE(e.code() == ErrorCode::not_implemented || e.code() == ErrorCode::not_compiled)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("spgemm_hash"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(same(C, before));
}

TEST_F(Dispatch, PositionalAccumulatorsAreRejectedOnceForEveryOperation) {
  Context cpu(Backend::cpu), automatic(Backend::automatic);
  const BinaryOpCode positional[] = {BinaryOpCode::firsti, BinaryOpCode::firstj,
                                     BinaryOpCode::secondi, BinaryOpCode::secondj};
  for (Context* ctx : {&cpu, &automatic})
    for (BinaryOpCode acc : positional) {
      Matrix C = random_matrix(12, 12, 0.2, Type::fp64, 18);
      const Matrix before = C;
      Vector w = random_vector(12, 0.5, Type::fp64, 19);
      const Vector w_before = w;
      const std::string want = "positional accumulator " + std::string(binary_op_name(acc));
      auto expect = [&](const char* op, auto&& call) {
        const std::string m = message_of<NotImplemented>(call);
        EXPECT_EQ(m.rfind(std::string(op) + ": " + want, 0), 0u) << op << ": " << m;
      };
      expect("mxm", [&] { mxm(C, nullptr, acc, s, A, B, {}, *ctx); });
      expect("mxv", [&] { mxv(w, nullptr, acc, s, A, u, {}, *ctx); });
      expect("vxm", [&] { vxm(w, nullptr, acc, s, u, A, {}, *ctx); });
      expect("ewise_add", [&] { ewise_add(C, nullptr, acc, BinaryOpCode::plus, A, B, {}, *ctx); });
      expect("ewise_mult",
             [&] { ewise_mult(w, nullptr, acc, BinaryOpCode::plus, u, u, {}, *ctx); });
      expect("apply", [&] { apply(C, nullptr, acc, UnaryOpCode::abs, A, {}, *ctx); });
      expect("select",
             [&] { select(C, nullptr, acc, SelectOpCode::tril, Scalar(Index(0)), A, {}, *ctx); });
      expect("reduce",
             [&] { reduce(w, nullptr, acc, MonoidCode::plus, A, ReduceDim::rows, {}, *ctx); });
      expect("transpose", [&] { transpose(C, nullptr, acc, A, {}, *ctx); });
      expect("extract",
             [&] { extract(C, nullptr, acc, A, Indices::all(), Indices::all(), {}, *ctx); });
      expect("assign",
             [&] { assign(C, nullptr, acc, A, Indices::all(), Indices::all(), {}, *ctx); });
      EXPECT_TRUE(same(C, before));
      EXPECT_TRUE(same(w, w_before));
    }
}

TEST_F(Dispatch, DenseOutputFlagsAreRejectedOnce) {
  Context cpu(Backend::cpu);
  const DenseMatrix Bd = random_dense(12, 3, Type::fp64, 20);
  DenseMatrix C(12, 3);
  Descriptor d;
  d.replace = true;
  const std::string m = message_of<NotImplemented>([&] { mxm(C, s, A, Bd, d, cpu); });
  EXPECT_NE(m.find("mxm (dense): a dense output takes no mask"), std::string::npos) << m;
  Descriptor tb;
  tb.transpose_b = true;
  const std::string e =
      message_of<NotImplemented>([&] { mxm(C, s, A, Bd, Epilogue::relu(), tb, cpu); });
  EXPECT_NE(e.find("mxm (dense, epilogue): transpose_b"), std::string::npos) << e;
}

// --- ringblas kernels --------------------------------------------------------------------------

/// The operation names of backend/core/dispatch/operations.def, read through its own X-macro.
std::set<std::string> operations_def() {
  std::set<std::string> names;
#define RINGBLAS_OP(R, name, params) names.insert(#name);
#include "backend/core/dispatch/operations.def"
#undef RINGBLAS_OP
  return names;
}

TEST(KernelsCommand, ListsEveryOperationOfOperationsDefFromTheTables) {
  const std::set<std::string> ops = operations_def();
  ASSERT_GE(ops.size(), 13u);
  const auto r = test_cli::run_cli({"kernels"});
  ASSERT_EQ(r.code, 0) << r.err;
  std::istringstream lines(r.out);
  std::string line;
  const std::regex format(R"(^(\w+) cpu: (\w+) cuda: (\w+(,\w+)*)$)");
  std::set<std::string> listed;
  std::vector<std::string> order;
  while (std::getline(lines, line)) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(line, m, format)) << "line: " << line;
    EXPECT_TRUE(listed.insert(m[1]).second) << "listed twice: " << m[1];
    order.push_back(line);
  }
  for (const std::string& op : ops) EXPECT_EQ(listed.count(op), 1u) << op << " missing:\n" << r.out;
  // The same rows as the tables' own listing, and the rows this build's tables hold today.
  const std::vector<OperationKernels> table = kernel_table();
  ASSERT_EQ(table.size(), order.size());
  const std::set<std::string> expected = {
      "mxm cpu: suitesparse cuda: "
      "spgemm_hash,spgemm_dot,spgemm_dot_hash,spmm_rowsplit,spmm_subwarp,spmm_subwarp_coo,spmm_batched,spmm_batched_coo,"
      "sparse_layer,maxk",
      "mxv cpu: suitesparse cuda: spmv_pull,spmv_push",
      "vxm cpu: suitesparse cuda: spmv_pull,spmv_push",
      "mxm_batched cpu: suitesparse cuda: spmm_batched,spmm_batched_coo",
      "ewise_add cpu: suitesparse cuda: elementwise",
      "ewise_mult cpu: suitesparse cuda: elementwise",
      "apply cpu: suitesparse cuda: elementwise,row_filter",
      "select cpu: suitesparse cuda: elementwise,row_filter",
      "reduce cpu: suitesparse cuda: reduce",
      "mxm_layers cpu: none cuda: sparse_layer",
      "maxk cpu: suitesparse cuda: maxk",
      "densify cpu: suitesparse cuda: maxk",
  };
  for (const std::string& e : expected)
    EXPECT_NE(std::find(order.begin(), order.end(), e), order.end()) << e << "\nin:\n" << r.out;
}

TEST(KernelsCommand, HelpAndExtraArguments) {
  EXPECT_EQ(test_cli::run_cli({"kernels", "--help"}).code, 0);
  EXPECT_EQ(test_cli::run_cli({"kernels", "extra"}).code, 2);
}

}  // namespace
}  // namespace ringblas::test
