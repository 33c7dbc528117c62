// cpu executor: dense-output mxm with an epilogue (bias, ReLU, clamp) applied on the host after
// SuiteSparse's product, at the semiring's type, then cast to C's type.
#include <string>

#include "backend/core/containers/host_access.hpp"
#include "backend/cpu/cpu_backend.hpp"
#include "ringblas/error.hpp"
#include "semirings/arith.hpp"
#include "semirings/cast.hpp"

namespace ringblas::cpu {

void mxm(DenseMatrix& C, const Semiring& s, const Matrix& A, const DenseMatrix& B,
         const Epilogue& ep, const Descriptor& desc, Context& ctx) {
  if (ep.is_identity()) return cpu::mxm(C, s, A, B, desc, ctx);
  if (s.type == Type::boolean)
    throw NotImplemented("cpu::mxm (dense, epilogue): bias/ReLU/clamp epilogues need a numeric semiring type, not bool");
  DenseMatrix t(C.nrows(), C.ncols(), s.type, C.layout());
  cpu::mxm(t, s, A, B, desc, ctx);
  DenseVector bias_host;
  if (ep.has_bias()) bias_host = ep.bias->location() == Location::host ? *ep.bias : ep.bias->to(Location::host, ctx);
  DenseMatrix out(C.nrows(), C.ncols(), C.type(), C.layout());
  visit_type(s.type, [&](auto zero) {
    using T = decltype(zero);
    const T* tv = t.values().as<T>();
    for (Index i = 0; i < C.nrows(); ++i)
      for (Index j = 0; j < C.ncols(); ++j) {
        const Index k = C.layout() == Layout::row_major ? i * C.ncols() + j : j * C.nrows() + i;
        T x = tv[k];
        if (ep.has_bias())
          x = sr::add(x, detail::value_at<T>(bias_host.values(), bias_host.type(), j));
        if (ep.has_relu()) x = sr::max(x, T(0));
        if (ep.clamp) x = sr::min(x, sr::cast<T>(*ep.clamp));
        detail::set_value(out.values(), out.type(), k, x);
      }
  });
  C = std::move(out);
}

}  // namespace ringblas::cpu
