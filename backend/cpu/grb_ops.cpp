// GraphBLAS objects for ringblas types, operator codes, semirings, descriptors and scalars.
#include "backend/cpu/grb_ops.hpp"

#include <mutex>
#include <string>

#include "ringblas/error.hpp"

namespace ringblas::cpu::detail {

namespace {

// Picks PREFIX<T>SUFFIX for the four numeric types (bool handled by the caller).
#define RINGBLAS_GRB_NUMERIC(t, PREFIX, SUFFIX) \
  switch (t) {                                  \
    case Type::int32:                           \
      return PREFIX##INT32##SUFFIX;             \
    case Type::int64:                           \
      return PREFIX##INT64##SUFFIX;             \
    case Type::fp32:                            \
      return PREFIX##FP32##SUFFIX;              \
    default:                                    \
      return PREFIX##FP64##SUFFIX;              \
  }
// The same for the five ringblas value types.
#define RINGBLAS_GRB_TYPED(t, PREFIX, SUFFIX)           \
  if ((t) == Type::boolean) return PREFIX##BOOL##SUFFIX; \
  RINGBLAS_GRB_NUMERIC(t, PREFIX, SUFFIX)

int type_slot(Type t) { return static_cast<int>(t); }

GrB_BinaryOp logical_op(MonoidCode m, Type t) {
  if (m == MonoidCode::lor) {
    RINGBLAS_GRB_TYPED(t, GxB_LOR_, )
  }
  if (m == MonoidCode::land) {
    RINGBLAS_GRB_TYPED(t, GxB_LAND_, )
  }
  RINGBLAS_GRB_TYPED(t, GxB_LXOR_, )
}

// lor/land/lxor monoids on non-bool types are not built in: made once, kept for the process.
GrB_Monoid logical_monoid(MonoidCode m, Type t) {
  ensure_graphblas();
  static std::mutex mutex;
  static GrB_Monoid cache[3][5] = {};
  const int row = m == MonoidCode::lor ? 0 : m == MonoidCode::land ? 1 : 2;
  std::lock_guard<std::mutex> lock(mutex);
  GrB_Monoid& slot = cache[row][type_slot(t)];
  if (slot) return slot;
  const int identity = m == MonoidCode::land ? 1 : 0;
  GrB_BinaryOp op = logical_op(m, t);
  GrB_Info info;
  switch (t) {
    case Type::int32:
      info = GrB_Monoid_new_INT32(&slot, op, std::int32_t(identity));
      break;
    case Type::int64:
      info = GrB_Monoid_new_INT64(&slot, op, std::int64_t(identity));
      break;
    case Type::fp32:
      info = GrB_Monoid_new_FP32(&slot, op, float(identity));
      break;
    default:
      info = GrB_Monoid_new_FP64(&slot, op, double(identity));
      break;
  }
  grb_check(info, "cpu: monoid", "GrB_Monoid_new", nullptr);
  return slot;
}

}  // namespace

void throw_grb_error(GrB_Info info, std::string_view where, const char* call,
                     const char* grb_text) {
  std::string msg = std::string(where) + ": GraphBLAS call " + call + " failed (GrB_Info " +
                    std::to_string(int(info)) + ")";
  if (grb_text && *grb_text) msg += ": " + std::string(grb_text);
  switch (info) {
    case GrB_DIMENSION_MISMATCH:
      throw DimensionMismatch(msg);
    case GrB_INDEX_OUT_OF_BOUNDS:
    case GrB_INVALID_INDEX:
      throw InvalidIndex(msg);
    case GrB_OUT_OF_MEMORY:
      throw OutOfMemory(msg, 0);
    default:
      throw InvalidValue(msg);
  }
}

void ensure_graphblas() {
  static const GrB_Info info = GrB_init(GrB_NONBLOCKING);
  // GrB_INVALID_VALUE: GraphBLAS was already initialized by someone else in this process.
  if (info != GrB_SUCCESS && info != GrB_INVALID_VALUE)
    throw_grb_error(info, "cpu backend", "GrB_init(GrB_NONBLOCKING)", nullptr);
}

GrB_Type grb_type(Type t){RINGBLAS_GRB_TYPED(t, GrB_, )}

GrB_Monoid grb_monoid(MonoidCode m, Type t) {
  if (t == Type::boolean) {
    switch (m) {
      case MonoidCode::plus:
      case MonoidCode::max:
      case MonoidCode::lor:
        return GrB_LOR_MONOID_BOOL;
      case MonoidCode::times:
      case MonoidCode::min:
      case MonoidCode::land:
        return GrB_LAND_MONOID_BOOL;
      case MonoidCode::lxor:
        return GrB_LXOR_MONOID_BOOL;
      default:
        return GxB_ANY_BOOL_MONOID;
    }
  }
  switch (m) {
    case MonoidCode::plus:
      RINGBLAS_GRB_NUMERIC(t, GrB_PLUS_MONOID_, )
    case MonoidCode::times:
      RINGBLAS_GRB_NUMERIC(t, GrB_TIMES_MONOID_, )
    case MonoidCode::min:
      RINGBLAS_GRB_NUMERIC(t, GrB_MIN_MONOID_, )
    case MonoidCode::max:
      RINGBLAS_GRB_NUMERIC(t, GrB_MAX_MONOID_, )
    case MonoidCode::any:
      RINGBLAS_GRB_NUMERIC(t, GxB_ANY_, _MONOID)
    default:
      return logical_monoid(m, t);
  }
}

GrB_BinaryOp grb_binary_op(BinaryOpCode op, Type t) {
  const bool i32 = t == Type::int32;
  switch (op) {
    case BinaryOpCode::first:
      RINGBLAS_GRB_TYPED(t, GrB_FIRST_, )
    case BinaryOpCode::second:
      RINGBLAS_GRB_TYPED(t, GrB_SECOND_, )
    case BinaryOpCode::pair:
      RINGBLAS_GRB_TYPED(t, GrB_ONEB_, )
    case BinaryOpCode::plus:
      RINGBLAS_GRB_TYPED(t, GrB_PLUS_, )
    case BinaryOpCode::minus:
      RINGBLAS_GRB_TYPED(t, GrB_MINUS_, )
    case BinaryOpCode::times:
      RINGBLAS_GRB_TYPED(t, GrB_TIMES_, )
    case BinaryOpCode::div:
      RINGBLAS_GRB_TYPED(t, GrB_DIV_, )
    case BinaryOpCode::min:
      RINGBLAS_GRB_TYPED(t, GrB_MIN_, )
    case BinaryOpCode::max:
      RINGBLAS_GRB_TYPED(t, GrB_MAX_, )
    case BinaryOpCode::lor:
      return logical_op(MonoidCode::lor, t);
    case BinaryOpCode::land:
      return logical_op(MonoidCode::land, t);
    case BinaryOpCode::lxor:
      return logical_op(MonoidCode::lxor, t);
    case BinaryOpCode::firsti:
      return i32 ? GxB_FIRSTI_INT32 : GxB_FIRSTI_INT64;
    case BinaryOpCode::firstj:
      return i32 ? GxB_FIRSTJ_INT32 : GxB_FIRSTJ_INT64;
    case BinaryOpCode::secondi:
      return i32 ? GxB_SECONDI_INT32 : GxB_SECONDI_INT64;
    case BinaryOpCode::pow:
      // bool x^y = x || !y = x >= y. GrB_GE_BOOL, because SuiteSparse 7.4's GxB_POW_BOOL gives
      // wrong entries when eWiseMult swaps its operands (transposed A with a mask; found by
      // OracleEwise.MatrixAddAndMult/pow_bool).
      if (t == Type::boolean) return GrB_GE_BOOL;
      RINGBLAS_GRB_TYPED(t, GxB_POW_, )
    default:
      return i32 ? GxB_SECONDJ_INT32 : GxB_SECONDJ_INT64;
  }
}

GrB_BinaryOp grb_accum(const Accum& accum, Type t, std::string_view where) {
  if (!accum) return nullptr;
  if (is_positional(*accum))
    throw NotImplemented(std::string(where) + ": positional accumulator " +
                         std::string(binary_op_name(*accum)) + " is not supported");
  return grb_binary_op(*accum, t);
}

GrB_UnaryOp grb_unary_op(UnaryOpCode op, Type t, std::string_view where) {
  const bool fp = t == Type::fp32 || t == Type::fp64;
  switch (op) {
    case UnaryOpCode::identity:
      RINGBLAS_GRB_TYPED(t, GrB_IDENTITY_, )
    case UnaryOpCode::ainv:
      RINGBLAS_GRB_TYPED(t, GrB_AINV_, )
    case UnaryOpCode::minv:
      RINGBLAS_GRB_TYPED(t, GrB_MINV_, )
    case UnaryOpCode::abs:
      RINGBLAS_GRB_TYPED(t, GrB_ABS_, )
    case UnaryOpCode::lnot:
      RINGBLAS_GRB_TYPED(t, GxB_LNOT_, )
    case UnaryOpCode::one:
      RINGBLAS_GRB_TYPED(t, GxB_ONE_, )
    default:
      break;
  }
  if (!fp)
    throw InvalidValue(std::string(where) + ": unary op " + std::string(unary_op_name(op)) +
                       " is defined for fp32/fp64 only, not " + std::string(type_name(t)));
  const bool f32 = t == Type::fp32;
  switch (op) {
    case UnaryOpCode::sqrt:
      return f32 ? GxB_SQRT_FP32 : GxB_SQRT_FP64;
    case UnaryOpCode::exp:
      return f32 ? GxB_EXP_FP32 : GxB_EXP_FP64;
    default:
      return f32 ? GxB_LOG_FP32 : GxB_LOG_FP64;
  }
}

GrB_IndexUnaryOp grb_index_unary_op(IndexUnaryOpCode op) {
  switch (op) {
    case IndexUnaryOpCode::rowindex:
      return GrB_ROWINDEX_INT64;
    case IndexUnaryOpCode::colindex:
      return GrB_COLINDEX_INT64;
    default:
      return GrB_DIAGINDEX_INT64;
  }
}

semiring_handle grb_semiring(const Semiring& s, std::string_view where) {
  ensure_graphblas();
  semiring_handle h;
  if (!s.user) {
    if (is_positional(s.mul) && s.type != Type::int32 && s.type != Type::int64)
      throw InvalidValue(std::string(where) + ": semiring " + s.name() +
                         ": a positional multiply needs type int32 or int64");
    h.monoid = grb_monoid(s.add, s.type);
    RINGBLAS_GRB_TRY(where, nullptr,
                     GrB_Semiring_new(h.semiring.out(), h.monoid, grb_binary_op(s.mul, s.type)));
    return h;
  }
  const UserSemiring& u = *s.user;
  if (u.identity.size() != type_size(u.type))
    throw InvalidValue(std::string(where) + ": user semiring " + u.name + ": identity has " +
                       std::to_string(u.identity.size()) + " bytes, its type needs " +
                       std::to_string(type_size(u.type)));
  if (!u.add || !u.mul)
    throw InvalidValue(std::string(where) + ": user semiring " + u.name +
                       ": add or multiply function is null");
  GrB_Type t = grb_type(u.type);
  // GraphBLAS reads at most GxB_MAX_NAME_LEN characters of an operator's name.
  const std::string add_name = (u.name + "_add").substr(0, GxB_MAX_NAME_LEN - 1);
  const std::string mul_name = (u.name + "_mul").substr(0, GxB_MAX_NAME_LEN - 1);
  RINGBLAS_GRB_TRY(where, nullptr,
                   GxB_BinaryOp_new(h.add_op.out(), reinterpret_cast<GxB_binary_function>(u.add), t,
                                    t, t, add_name.c_str(), nullptr));
  RINGBLAS_GRB_TRY(where, nullptr,
                   GxB_BinaryOp_new(h.mul_op.out(), reinterpret_cast<GxB_binary_function>(u.mul), t,
                                    t, t, mul_name.c_str(), nullptr));
  const void* id = u.identity.data();
  GrB_Info info;
  switch (u.type) {
    case Type::boolean:
      info =
          GrB_Monoid_new_BOOL(h.monoid_owned.out(), h.add_op.get(), *static_cast<const bool*>(id));
      break;
    case Type::int32:
      info = GrB_Monoid_new_INT32(h.monoid_owned.out(), h.add_op.get(),
                                  *static_cast<const std::int32_t*>(id));
      break;
    case Type::int64:
      info = GrB_Monoid_new_INT64(h.monoid_owned.out(), h.add_op.get(),
                                  *static_cast<const std::int64_t*>(id));
      break;
    case Type::fp32:
      info =
          GrB_Monoid_new_FP32(h.monoid_owned.out(), h.add_op.get(), *static_cast<const float*>(id));
      break;
    default:
      info = GrB_Monoid_new_FP64(h.monoid_owned.out(), h.add_op.get(),
                                 *static_cast<const double*>(id));
      break;
  }
  grb_check(info, where, "GrB_Monoid_new (user semiring)", nullptr);
  h.monoid = h.monoid_owned.get();
  RINGBLAS_GRB_TRY(where, nullptr, GrB_Semiring_new(h.semiring.out(), h.monoid, h.mul_op.get()));
  return h;
}

descriptor_ptr grb_descriptor(const Descriptor& desc, std::string_view where, bool flip_a) {
  ensure_graphblas();
  descriptor_ptr d;
  RINGBLAS_GRB_TRY(where, nullptr, GrB_Descriptor_new(d.out()));
  if (desc.replace)
    RINGBLAS_GRB_TRY(where, nullptr, GrB_Descriptor_set(d.get(), GrB_OUTP, GrB_REPLACE));
  if (desc.mask_complement)
    RINGBLAS_GRB_TRY(where, nullptr, GrB_Descriptor_set(d.get(), GrB_MASK, GrB_COMP));
  // Setting GrB_STRUCTURE after GrB_COMP combines the two (SuiteSparse).
  if (desc.mask_structure)
    RINGBLAS_GRB_TRY(where, nullptr, GrB_Descriptor_set(d.get(), GrB_MASK, GrB_STRUCTURE));
  if (desc.transpose_a != flip_a)
    RINGBLAS_GRB_TRY(where, nullptr, GrB_Descriptor_set(d.get(), GrB_INP0, GrB_TRAN));
  if (desc.transpose_b)
    RINGBLAS_GRB_TRY(where, nullptr, GrB_Descriptor_set(d.get(), GrB_INP1, GrB_TRAN));
  return d;
}

scalar_ptr grb_scalar(const Scalar& s, std::string_view where) {
  ensure_graphblas();
  scalar_ptr out;
  const Type t = s.type();
  RINGBLAS_GRB_TRY(where, nullptr, GrB_Scalar_new(out.out(), grb_type(t)));
  GrB_Info info;
  switch (t) {
    case Type::boolean:
      info = GrB_Scalar_setElement_BOOL(out.get(), s.as<bool>());
      break;
    case Type::int32:
      info = GrB_Scalar_setElement_INT32(out.get(), s.as<std::int32_t>());
      break;
    case Type::int64:
      info = GrB_Scalar_setElement_INT64(out.get(), s.as<std::int64_t>());
      break;
    case Type::fp32:
      info = GrB_Scalar_setElement_FP32(out.get(), s.as<float>());
      break;
    default:
      info = GrB_Scalar_setElement_FP64(out.get(), s.as<double>());
      break;
  }
  grb_check(info, where, "GrB_Scalar_setElement", out.get());
  return out;
}

#undef RINGBLAS_GRB_TYPED
#undef RINGBLAS_GRB_NUMERIC

}  // namespace ringblas::cpu::detail
