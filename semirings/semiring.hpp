// The semiring template (add monoid + multiply op) and the traits kernels read from it.
#pragma once
#include "binary_ops.hpp"
#include "monoids.hpp"

namespace ringblas::sr {

template <class AddMonoid, class MulOp> struct semiring {
  using add_monoid = AddMonoid;
  using mul_op = MulOp;
  using value_type = typename AddMonoid::value_type;
  static_assert(std::is_same_v<value_type, typename MulOp::value_type>,
                "a semiring's monoid and multiply must share one value type");
  static constexpr bool reads_a = MulOp::reads_x;   // pair/second/positional skip A's values
  static constexpr bool reads_b = MulOp::reads_y;   // pair/first/positional skip B's values
  static constexpr bool positional = MulOp::positional;
  static constexpr bool has_terminal = AddMonoid::has_terminal;
  static constexpr bool is_any = AddMonoid::code == MonoidCode::any;
  static constexpr AtomicKind atomic = AddMonoid::atomic;

  RINGBLAS_HD static constexpr value_type identity() { return AddMonoid::identity(); }
  RINGBLAS_HD static constexpr value_type terminal() { return AddMonoid::terminal(); }
  RINGBLAS_HD static value_type add(value_type x, value_type y) { return AddMonoid{}(x, y); }
  RINGBLAS_HD static value_type mul(value_type x, value_type y, index_t ia, index_t ja,
                                    index_t ib, index_t jb) {
    return MulOp{}(x, y, ia, ja, ib, jb);
  }
};

}  // namespace ringblas::sr
