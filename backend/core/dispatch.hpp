// The one place that chooses an executor: cpu, cuda, automatic (cuda where a device and a kernel
// exist, else cpu, traced) or verify (both, compared entry by entry).
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backend/core/compare.hpp"
#include "ringblas/context.hpp"
#include "ringblas/descriptor.hpp"
#include "ringblas/error.hpp"

namespace ringblas::detail {

/// Host copies of device-resident inputs for the cpu executor (each copy counted in ctx).
class HostInputs {
 public:
  explicit HostInputs(const Context& ctx) : ctx_(ctx) {}
  template <class T> const T& operator()(const T& x) {
    if (x.location() == Location::host) return x;
    auto held = std::make_unique<Holder<T>>(x.to(Location::host, ctx_));
    const T& ref = held->value;
    held_.push_back(std::move(held));
    return ref;
  }
  template <class T> const T* operator()(const T* x) { return x ? &(*this)(*x) : nullptr; }

 private:
  struct Base {
    virtual ~Base() = default;
  };
  template <class T> struct Holder : Base {
    explicit Holder(T v) : value(std::move(v)) {}
    T value;
  };
  const Context& ctx_;
  std::vector<std::unique_ptr<Base>> held_;
};

bool is_cuda_variant(Variant v);

/// Runs `op` on the executor ctx/desc select. cpu_fn(out, ctx) and cuda_fn(out, ctx) compute
/// into `out`; for verify both run on separate copies of `out`, compared with `tol`.
template <class Out>
void execute(const char* op, Context& ctx, const Descriptor& desc, Out& out,
             const std::function<void(Out&, Context&)>& cpu_fn,
             const std::function<void(Out&, Context&)>& cuda_fn, const Tolerance& tol) {
  Backend b = ctx.backend;
  if (desc.variant == Variant::suitesparse) {
    if (b == Backend::cuda || b == Backend::verify)
      throw InvalidValue(std::string(op) + ": variant suitesparse is the cpu executor, but the context asks for " +
                         backend_name(b));
    b = Backend::cpu;
  } else if (is_cuda_variant(desc.variant) && b == Backend::cpu) {
    throw InvalidValue(std::string(op) + ": variant " + std::string(variant_name(desc.variant)) +
                       " is a cuda kernel, but the context asks for the cpu backend");
  } else if (is_cuda_variant(desc.variant) && b == Backend::automatic) {
    b = Backend::cuda;
  }
  auto run_cpu = [&](Out& o) {
    ctx.trace_line(std::string(op) + ": cpu (suitesparse)");
    if (o.location() != Location::host) o = o.to(Location::host, ctx);
    cpu_fn(o, ctx);
  };
  switch (b) {
    case Backend::cpu: run_cpu(out); return;
    case Backend::cuda: cuda_fn(out, ctx); return;
    case Backend::automatic:
      if (!cuda_available()) return run_cpu(out);
      try {
        cuda_fn(out, ctx);
      } catch (const NotImplemented& e) {
        ctx.trace_line(std::string(op) + ": " + e.what() + "; falling back to cpu");
        run_cpu(out);
      }
      return;
    case Backend::verify: {
      Out expected = out.location() == Location::host ? out : out.to(Location::host, ctx);
      run_cpu(expected);
      cuda_fn(out, ctx);
      Out got = out.location() == Location::host ? out : out.to(Location::host, ctx);
      if (auto diff = compare(got, expected, tol))
        throw VerificationFailed(std::string(op) + ": cuda and cpu results differ at " + *diff +
                                 " (cuda vs cpu)");
      ctx.trace_line(std::string(op) + ": verify passed");
      return;
    }
  }
}

}  // namespace ringblas::detail
