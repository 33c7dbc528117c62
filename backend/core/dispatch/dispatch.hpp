// The one place that chooses who computes an operation: per operation a table of entries
// {variant, executor, can_implement, run} (backend/core/dispatch_tables_*.cpp), and the rule below
// that picks from it for a problem before the output is touched:
//   cpu       the cpu (suitesparse) entry;
//   cuda      the forced variant's entry, or the cheapest cuda entry whose can_implement says yes;
//             NotImplemented naming every entry's reason when none can run;
//   automatic as cuda where a device is visible, else (or when no cuda entry can run) cpu;
//   verify    the cpu entry and the chosen cuda entry on copies of the output, compared.
// No exception-driven fallback: an entry that says it can run is run, and its errors propagate.
#pragma once
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backend/core/dispatch/compare.hpp"
#include "ringblas/context.hpp"
#include "ringblas/descriptor.hpp"
#include "ringblas/error.hpp"

namespace ringblas::detail {

/// Host copies of device-resident inputs for the cpu executor (each copy counted in ctx).
/// Arguments that are not containers (operators, descriptors, index lists) pass through.
class HostInputs {
 public:
  explicit HostInputs(const Context& ctx) : ctx_(ctx) {}
  template <class T>
  const T& operator()(const T& x) {
    if constexpr (requires { x.location(); }) {
      if (x.location() == Location::host) return x;
      auto held = std::make_unique<Holder<T>>(x.to(Location::host, ctx_));
      const T& ref = held->value;
      held_.push_back(std::move(held));
      return ref;
    } else {
      return x;
    }
  }
  template <class T>
  const T* operator()(const T* x) {
    return x ? &(*this)(*x) : nullptr;
  }

 private:
  struct Base {
    virtual ~Base() = default;
  };
  template <class T>
  struct Holder : Base {
    explicit Holder(T v) : value(std::move(v)) {}
    T value;
  };
  const Context& ctx_;
  std::vector<std::unique_ptr<Base>> held_;
};

enum class Executor : std::uint8_t { cpu, cuda };
const char* executor_name(Executor e);

/// can_implement's answer: nullopt when the entry can run the problem, otherwise why not.
using Reason = std::optional<std::string>;

/// One way to compute an operation. `P` holds the operation's inputs (dispatch_problems.hpp),
/// `Out` is its output.
template <class P, class Out>
struct Entry {
  Variant variant;
  Executor executor;
  Reason (*can_implement)(const P&, const Out&);
  void (*run)(const P&, Out&, Context&);
  /// Estimated cost that orders the cuda entries for `automatic` (lower first; nullptr counts 0,
  /// so that equal entries keep the table's order).
  double (*cost)(const P&, const Out&) = nullptr;
  /// False: the entry runs only when Descriptor::variant forces it.
  bool automatic = true;
};

/// An operation's entries: the cuda entries in preference order and its cpu entry (if any).
template <class P, class Out>
struct Table {
  const char* operation;  ///< as in the trace and in `ringblas kernels`
  std::vector<Entry<P, Out>> entries;
};

bool is_cuda_variant(Variant v);
/// The cpu executor's variants: suitesparse, and host_dense for the dense nn operations.
bool is_cpu_variant(Variant v);
/// True in builds with the cuda backend (whether or not a device is visible).
bool cuda_compiled();
/// Why the cuda executor cannot run anything here ("built without CUDA", "no CUDA device is
/// visible"), or nullopt.
Reason cuda_unavailable();

/// The outcome of the decision: the entries to run (cpu and/or cuda) and the trace line.
template <class P, class Out>
struct Choice {
  const Entry<P, Out>* cpu = nullptr;
  const Entry<P, Out>* cuda = nullptr;
  std::string trace;
};

/// Throws the error for a problem no entry can run on the executors `b` asks for.
[[noreturn]] void no_entry_can_run(const char* op, Backend b, const std::string& reasons);
/// Checks the backend/variant combination; returns the backend to use (forced cuda variants
/// make `automatic` mean cuda, forced suitesparse means cpu).
Backend effective_backend(const char* op, Backend b, Variant forced);

/// Picks the entries for problem `p` (see the file comment). Never touches `out`. The trace line
/// is written only when `trace` (a call's host cost matters: issue 9). `unavailable`: why the
/// cuda executor cannot run here (cuda_unavailable(); tests pass nullopt to play a GPU machine).
template <class P, class Out>
Choice<P, Out> choose(const Table<P, Out>& t, const P& p, const Out& out, Variant forced,
                      Backend requested, bool trace, const Reason& unavailable) {
  const Backend b = effective_backend(t.operation, requested, forced);
  Choice<P, Out> c;
  for (const auto& e : t.entries)
    if (e.executor == Executor::cpu) c.cpu = &e;
  // Strings are built only for the trace and for errors: this runs on every call (issue 9).
  const std::string_view op_name(t.operation);
  auto op = [&] { return std::string(op_name); };
  if (b == Backend::cpu) {
    if (!c.cpu) no_entry_can_run(t.operation, b, "it has no cpu implementation");
    if (trace) c.trace = op() + ": " + std::string(variant_name(c.cpu->variant)) + " (cpu)";
    return c;
  }
  std::string skipped;
  auto skip = [&](bool reasons, const Entry<P, Out>& e, const std::string& why) {
    if (reasons)
      skipped += (skipped.empty() ? "" : "; ") + std::string(variant_name(e.variant)) + ": " + why;
  };
  if (is_cuda_variant(forced)) {
    const Entry<P, Out>* f = nullptr;
    for (const auto& e : t.entries)
      if (e.executor == Executor::cuda && e.variant == forced) f = &e;
    if (!f) {
      std::string known;
      for (const auto& e : t.entries)
        if (e.executor == Executor::cuda)
          known += (known.empty() ? "" : ", ") + std::string(variant_name(e.variant));
      throw NotImplemented(op() + ": variant " + std::string(variant_name(forced)) +
                           " does not compute " + op() +
                           " (its cuda variants: " + (known.empty() ? "none" : known) + ")");
    }
    if (unavailable && !cuda_compiled())
      throw NotCompiled(op() + ": variant " + std::string(variant_name(forced)) + ": " +
                        *unavailable);
    if (unavailable)
      throw NotImplemented(op() + ": variant " + std::string(variant_name(forced)) +
                           " cannot run: " + *unavailable);
    if (Reason why = f->can_implement(p, out))
      throw NotImplemented(op() + ": variant " + std::string(variant_name(forced)) +
                           " cannot run this problem: " + *why);
    c.cuda = f;
  } else {
    // Cost order: cheapest first, ties in the table's order. With `reasons`, every skipped
    // entry's reason goes to `skipped` (for the trace, or the error when nothing can run).
    // The order lives on the stack (no allocation per call) unless the table is unusually long.
    using Ranked = std::pair<double, const Entry<P, Out>*>;
    constexpr std::size_t kInline = 16;
    auto pick = [&](bool reasons) -> const Entry<P, Out>* {
      Ranked inline_order[kInline];
      std::vector<Ranked> heap_order;
      Ranked* order = inline_order;
      if (t.entries.size() > kInline) {
        heap_order.resize(t.entries.size());
        order = heap_order.data();
      }
      std::size_t n = 0;
      for (const auto& e : t.entries) {
        if (e.executor != Executor::cuda) continue;
        if (!e.automatic) {
          skip(reasons, e, "runs only when forced");
          continue;
        }
        // Insertion by cost, after every entry of equal cost (stable).
        const Ranked r{e.cost ? e.cost(p, out) : 0.0, &e};
        std::size_t at = n++;
        for (; at > 0 && order[at - 1].first > r.first; --at) order[at] = order[at - 1];
        order[at] = r;
      }
      for (std::size_t k = 0; k < n; ++k) {
        const Entry<P, Out>* e = order[k].second;
        if (unavailable) {
          skip(reasons, *e, *unavailable);
          continue;
        }
        if (Reason why = e->can_implement(p, out)) {
          skip(reasons, *e, *why);
          continue;
        }
        return e;
      }
      if (reasons && n == 0 && skipped.empty()) skipped = "no cuda kernel for " + op();
      return nullptr;
    };
    c.cuda = pick(trace);
    if (!c.cuda) {
      const bool fails = b != Backend::automatic || !c.cpu;
      if (fails && unavailable && !cuda_compiled()) throw NotCompiled(op() + ": " + *unavailable);
      if (fails) {
        if (!trace) pick(true);  // the reasons, for the error only
        no_entry_can_run(t.operation, b, skipped);
      }
      if (trace)
        c.trace =
            op() + ": " + std::string(variant_name(c.cpu->variant)) + " (cpu); skipped " + skipped;
      return c;
    }
  }
  if (b == Backend::verify) {
    if (!c.cpu) no_entry_can_run(t.operation, b, "it has no cpu implementation to verify against");
  } else {
    c.cpu = nullptr;
  }
  if (trace)
    c.trace =
        op() + ": " +
        (c.cpu ? "verify " + std::string(variant_name(c.cpu->variant)) + " (cpu) against " : "") +
        std::string(variant_name(c.cuda->variant)) + " (cuda)" +
        (skipped.empty() ? "" : "; skipped " + skipped);
  return c;
}

void sync_for_trace(const Context& ctx);  // dispatch.cpp: waits for the device's queued work

/// Writes "<op>: <ms> ms" to the trace when the operation ends (trace and trace_time on).
class TraceTimer {
 public:
  TraceTimer(const char* op, const Context& ctx)
      : op_(op), ctx_(ctx), on_(ctx.trace && ctx.trace_time),
        start_(std::chrono::steady_clock::now()) {}
  ~TraceTimer() {
    if (!on_) return;
    sync_for_trace(ctx_);
    const std::chrono::duration<double, std::milli> ms = std::chrono::steady_clock::now() - start_;
    ctx_.trace_line(std::string(op_) + ": " + std::to_string(ms.count()) + " ms");
  }
  TraceTimer(const TraceTimer&) = delete;
  TraceTimer& operator=(const TraceTimer&) = delete;

 private:
  const char* op_;
  const Context& ctx_;
  bool on_;
  std::chrono::steady_clock::time_point start_;
};

// How execute() handles an operation's output. An output of several containers (a loss and
// its gradient, Adam's parameters and moments: backend/core/dispatch/nn_problems.hpp) is a struct
// of pointers with overloads of these: move_to_host moves what the cpu row writes to the host,
// host_copy returns an owning host copy (for verify), view_of gives the Out that writes into
// such a copy, and compare (compare.hpp or next to the struct) compares two copies.
template <class Out>
void move_to_host(Out& o, const Context& ctx) {
  if constexpr (requires { o.location(); })
    if (o.location() != Location::host) o = o.to(Location::host, ctx);
}
template <class Out>
Out host_copy(const Out& o, const Context& ctx) {
  if constexpr (requires { o.location(); })
    if (o.location() != Location::host) return o.to(Location::host, ctx);
  return o;
}
template <class Out>
Out& view_of(Out& host) {
  return host;
}

/// Runs operation `t` on problem `p` into `out` as chosen by choose(); verify compares the cuda
/// result with the cpu result within `tol` and throws VerificationFailed on the first difference.
template <class P, class Out>
void execute(const Table<P, Out>& t, const P& p, Variant forced, Out& out, Context& ctx,
             const Tolerance& tol) {
  const Choice<P, Out> c = choose(t, p, out, forced, ctx.backend, ctx.trace, cuda_unavailable());
  if (ctx.trace) ctx.trace_line(c.trace);
  // With trace_time on, every operation's wall time goes to the trace too.
  const TraceTimer timer(t.operation, ctx);
  if (!c.cuda) {
    move_to_host(out, ctx);
    c.cpu->run(p, out, ctx);
    return;
  }
  if (!c.cpu) {
    c.cuda->run(p, out, ctx);
    return;
  }
  auto expected = host_copy(out, ctx);
  decltype(auto) expected_out = view_of(expected);  // Out& for one container, Out for several
  c.cpu->run(p, expected_out, ctx);
  c.cuda->run(p, out, ctx);
  const auto got = host_copy(out, ctx);
  if (auto diff = compare(got, expected, tol))
    throw VerificationFailed(std::string(t.operation) + ": cuda (" +
                             std::string(variant_name(c.cuda->variant)) +
                             ") and cpu results differ at " + *diff + " (cuda vs cpu)");
  ctx.trace_line(std::string(t.operation) + ": verify passed");
}

}  // namespace ringblas::detail
