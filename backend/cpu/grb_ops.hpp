// Maps ringblas types, operator codes, semirings, descriptors and scalars onto GraphBLAS objects.
#pragma once
#include <string_view>

#include "backend/cpu/grb_handle.hpp"
#include "ringblas/descriptor.hpp"
#include "ringblas/semiring.hpp"

namespace ringblas::cpu::detail {

GrB_Type grb_type(Type t);

/// The built-in monoid `m` in type t. GraphBLAS's boolean semantics: plus and max are lor, times
/// and min are land. lor/land/lxor on non-bool types are created once and cached.
GrB_Monoid grb_monoid(MonoidCode m, Type t);

/// The built-in binary op in type t (bool: plus = lor, minus = lxor, div = first, as GraphBLAS).
/// Positional ops are GxB_FIRSTI/FIRSTJ/SECONDI/SECONDJ in int32 when t is int32, else int64
/// (the 0-based index, typecast to the output by GraphBLAS).
GrB_BinaryOp grb_binary_op(BinaryOpCode op, Type t);

/// The accumulator in C's type t, or nullptr without one. Positional accumulators throw
/// NotImplemented.
GrB_BinaryOp grb_accum(const Accum& accum, Type t, std::string_view where);

/// Unary ops in type t; sqrt/exp/log exist for fp32/fp64 only (InvalidValue otherwise).
GrB_UnaryOp grb_unary_op(UnaryOpCode op, Type t, std::string_view where);

GrB_IndexUnaryOp grb_index_unary_op(IndexUnaryOpCode op);

/// A GraphBLAS semiring and the objects it was made of (user-defined ones own their operators).
struct semiring_handle {
  binary_op_ptr add_op, mul_op;
  monoid_ptr monoid_owned;
  GrB_Monoid monoid = nullptr;  ///< the add monoid (built-in or monoid_owned)
  semiring_ptr semiring;
  GrB_Semiring get() const { return semiring.get(); }
};
/// Built-in semirings from s.add/s.mul in s.type (positional multiplies need int32/int64:
/// InvalidValue otherwise); user semirings from s.user's function pointers and identity.
semiring_handle grb_semiring(const Semiring& s, std::string_view where);

/// GrB_Descriptor for desc: GrB_OUTP = GrB_REPLACE, GrB_MASK = GrB_COMP and/or GrB_STRUCTURE,
/// GrB_INP0 = GrB_TRAN when transpose_a != flip_a, GrB_INP1 = GrB_TRAN when transpose_b.
descriptor_ptr grb_descriptor(const Descriptor& desc, std::string_view where, bool flip_a = false);

/// A GrB_Scalar holding s in its own type (GraphBLAS typecasts it where it is used).
scalar_ptr grb_scalar(const Scalar& s, std::string_view where);

}  // namespace ringblas::cpu::detail
