// cuda entry points of the element-wise family (variant `elementwise`): ewise_add, ewise_mult,
// apply (unary, bound binary, index-unary), select (predicates and top-k) and kronecker on
// matrices; ewise_add, ewise_mult and unary apply on vectors.
//
// Each entry rejects what the cpu executor rejects, with the same error class, before touching
// the output; prepares the operands on the device (transposed, index width, values cast to the
// operator's type, which is C's, as the cpu executor runs it); builds T (elementwise.hpp); and
// writes C<M, replace> = C accum T through cuda::write_back. C ends on the device; the one host
// synchronisation per T is the read of its nnz (named in the trace).
#include <limits>
#include <string>

#include "backend/cuda/common/device_matrix.hpp"
#include "backend/cuda/common/vector_plumbing.hpp"
#include "backend/cuda/common/write_back.hpp"
#include "backend/cuda/cuda_backend.hpp"
#include "backend/cuda/elementwise/elementwise.hpp"
#include "ringblas/error.hpp"
#include "semirings/unary_ops.hpp"

namespace ringblas::cuda {
namespace {

using elementwise::MapOp;
using elementwise::Merge;

/// Throws NotImplemented for a forced variant of another family (row_filter: only where `own`
/// names it) or a positional accumulator (as the cpu executor does), before anything is computed.
void check_common(const char* op, const Descriptor& d, const Accum& accum,
                  Variant own = Variant::elementwise) {
  if (d.variant != Variant::automatic && d.variant != Variant::elementwise && d.variant != own)
    throw NotImplemented(std::string(op) + ": variant " + std::string(variant_name(d.variant)) +
                         " does not compute " + op + " (its cuda variant is elementwise)");
  if (accum && is_positional(*accum))
    throw NotImplemented(std::string(op) + ": positional accumulator " +
                         std::string(binary_op_name(*accum)) + " is not supported");
}

constexpr Index i32_limit = std::numeric_limits<std::int32_t>::max();

IndexType index_for(std::initializer_list<const Matrix*> ms, Index out_nnz) {
  for (const Matrix* m : ms)
    if (m->index_type() == IndexType::i64) return IndexType::i64;
  return out_nnz >= i32_limit ? IndexType::i64 : IndexType::i32;
}

std::string mask_note(const Matrix* M, const Accum& accum, const Descriptor& d) {
  if (!M && !d.mask_complement && !accum) return "";
  std::string s = ", write-back C<";
  s += d.mask_complement ? "!" : "";
  s += M ? (d.mask_structure ? "struct(M)" : "M") : "NULL";
  s += d.replace ? ", replace>" : ">";
  s += accum ? " = C " + std::string(binary_op_name(*accum)) + " T" : " = T";
  return s;
}

/// C<M, replace> = C accum T, with one trace line for the whole operation. `t_syncs`: host
/// synchronisations T took (the read of its nnz: 1, or 0 when its size was known).
void finish(const char* op, const std::string& what, Matrix& C, const Matrix* M, Accum accum,
            const Descriptor& d, Matrix T, Context& ctx, int t_syncs = 1) {
  DeviceMask mask = make_device_mask(M, d.mask_structure, d.mask_complement, T.index_type(), ctx);
  const int syncs = t_syncs + (needs_write_back(mask, accum) ? 1 : 0);
  ctx.trace_line(std::string(op) + ": elementwise, " + what + ", T has " + std::to_string(T.nnz()) +
                 " entries" + mask_note(M, accum, d) + ", " + std::to_string(syncs) +
                 " host sync(s) to read nnz");
  write_back(C, mask, accum, d.replace, std::move(T), ctx);
}

/// A complemented NULL mask admits nothing: T is never needed (C keeps or loses its entries).
bool admits_nothing(const Matrix* M, const Descriptor& d) { return !M && d.mask_complement; }

void ewise_matrix(const char* name, Merge how, Matrix& C, const Matrix* M, Accum accum,
                  BinaryOpCode op, const Matrix& A, const Matrix& B, const Descriptor& d,
                  Context& ctx) {
  check_common(name, d, accum);
  const IndexType it = index_for({&A, &B}, A.nnz() + B.nnz());
  if (admits_nothing(M, d))
    return finish(name, "complemented empty mask", C, M, accum, d,
                  empty_device_matrix(C.nrows(), C.ncols(), C.type(), it, ctx), ctx, 0);
  Matrix ha, hb;
  const Matrix& a = prepare_operand(A, d.transpose_a, it, C.type(), ha, ctx);
  const Matrix& b = prepare_operand(B, d.transpose_b, it, C.type(), hb, ctx);
  Matrix T = elementwise::merge(a, b, op, how, ctx);
  finish(name,
         std::string(how == Merge::union_of ? "union" : "intersection") + " by " +
             std::string(binary_op_name(op)) + " at " + std::string(type_name(C.type())),
         C, M, accum, d, std::move(T), ctx);
}

/// Variant row_filter of apply: C<A> = f(A) into an empty C, the mask being A itself
/// (can_implement_apply_row_filter), so that it is read per entry of A instead of being built
/// as a structure and merged with T: structural, it admits every entry (T = f(A)) or, complemented,
/// none; by value, the entries whose own value is nonzero (or zero, complemented), in one count
/// and one fill pass (elementwise::map_value_masked). C has no entries, so neither the
/// accumulator nor replace changes the result.
void apply_own_mask(const std::string& what, Matrix& C, const Matrix* M, const MapOp& f,
                    const Matrix& A, const Descriptor& d, Context& ctx) {
  if (const auto why = can_implement_apply_row_filter(C, M, A, d))
    throw NotImplemented("apply: variant row_filter: " + *why);
  const IndexType it = A.index_type();
  Matrix hold;
  const Matrix& a = prepare_operand(A, false, it, C.type(), hold, ctx);
  Matrix T;
  std::string how = "A's values as the value mask, count + scan + fill by rows";
  int syncs = 1;
  if (d.mask_structure && d.mask_complement) {
    T = empty_device_matrix(C.nrows(), C.ncols(), C.type(), it, ctx);
    how = "the complement of A's own structure admits nothing";
    syncs = 0;
  } else if (d.mask_structure) {
    T = elementwise::map(a, hold, f, ctx);
    how = "A's own structure admits every entry";
    syncs = 0;
  } else {
    T = elementwise::map_value_masked(a, A, d.mask_complement, f, ctx);
  }
  ctx.trace_line("apply: row_filter, " + what + " at " + std::string(type_name(C.type())) +
                 " under " + (d.mask_complement ? "!" : "") + "A: " + how + ", T has " +
                 std::to_string(T.nnz()) + " entries, " + std::to_string(syncs) +
                 " host sync(s) to read nnz");
  C = std::move(T);
}

void apply_map(const char* what, Matrix& C, const Matrix* M, Accum accum, const MapOp& f,
               const Matrix& A, const Descriptor& d, Context& ctx) {
  if (d.variant == Variant::row_filter) return apply_own_mask(what, C, M, f, A, d, ctx);
  const IndexType it = A.index_type();
  if (admits_nothing(M, d))
    return finish("apply", "complemented empty mask", C, M, accum, d,
                  empty_device_matrix(C.nrows(), C.ncols(), C.type(), it, ctx), ctx, 0);
  Matrix hold;
  const Matrix& a = prepare_operand(A, d.transpose_a, it, C.type(), hold, ctx);
  Matrix T = elementwise::map(a, hold, f, ctx);
  finish("apply", std::string(what) + " at " + std::string(type_name(C.type())), C, M, accum, d,
         std::move(T), ctx, 0);
}

/// w<m, replace> = w accum t for a dense t over w's positions.
void finish_vector(const char* op, const std::string& what, Vector& w, const Vector* m, Accum accum,
                   const Descriptor& d, const elementwise::DenseT& t, Context& ctx) {
  ctx.trace_line(std::string(op) + " (vector): elementwise, " + what + ", dense over " +
                 std::to_string(w.size()) + " positions (nnz read back: 1 sync)");
  Buffer admit = detail::mask_admit(m, w.size(), d.mask_structure, d.mask_complement, ctx);
  w = detail::write_back(w, t.values.data(), w.type(), t.present.as<unsigned char>(),
                         admit.size() ? admit.as<unsigned char>() : nullptr, accum, d.replace, ctx);
}

/// w = T (no mask, no accumulator: replace changes nothing), so that T's structure is w's.
bool plain_assign(const Vector* m, const Accum& accum, const Descriptor& d) {
  return !m && !d.mask_complement && !accum;
}

void ewise_vector(const char* name, Merge how, Vector& w, const Vector* m, Accum accum,
                  BinaryOpCode op, const Vector& u, const Vector& v, const Descriptor& d,
                  Context& ctx) {
  check_common(name, d, accum);
  Vector u_hold, v_hold;
  const Vector& ud = detail::on_device(u, u_hold, ctx);
  const Vector& vd = detail::on_device(v, v_hold, ctx);
  const std::string what = std::string(how == Merge::union_of ? "union" : "intersection") + " by " +
                           std::string(binary_op_name(op));
  if (plain_assign(m, accum, d) && (ud.nnz() == ud.size() || vd.nnz() == vd.size())) {
    w = elementwise::vector_merge_full(ud, vd, op, how, w.type(), ctx);
    ctx.trace_line(std::string(name) + " (vector): elementwise, " + what +
                   " with a full operand, " + std::to_string(w.nnz()) +
                   " entries known beforehand (0 host syncs)");
    return;
  }
  const elementwise::DenseT t = elementwise::vector_merge(ud, vd, op, how, w.type(), ctx);
  finish_vector(name, what, w, m, accum, d, t, ctx);
}

void check_unary(const char* where, UnaryOpCode op, Type t) {
  if (sr::unary_float_only(op) && t != Type::fp32 && t != Type::fp64)
    throw InvalidValue(std::string(where) + ": unary op " + std::string(unary_op_name(op)) +
                       " is defined for fp32/fp64 only, not " + std::string(type_name(t)));
}

}  // namespace

void ewise_add(Matrix& C, const Matrix* M, Accum accum, BinaryOpCode op, const Matrix& A,
               const Matrix& B, const Descriptor& d, Context& ctx) {
  ewise_matrix("ewise_add", Merge::union_of, C, M, accum, op, A, B, d, ctx);
}

void ewise_mult(Matrix& C, const Matrix* M, Accum accum, BinaryOpCode op, const Matrix& A,
                const Matrix& B, const Descriptor& d, Context& ctx) {
  ewise_matrix("ewise_mult", Merge::intersection, C, M, accum, op, A, B, d, ctx);
}

void ewise_add(Vector& w, const Vector* m, Accum accum, BinaryOpCode op, const Vector& u,
               const Vector& v, const Descriptor& d, Context& ctx) {
  ewise_vector("ewise_add", Merge::union_of, w, m, accum, op, u, v, d, ctx);
}

void ewise_mult(Vector& w, const Vector* m, Accum accum, BinaryOpCode op, const Vector& u,
                const Vector& v, const Descriptor& d, Context& ctx) {
  ewise_vector("ewise_mult", Merge::intersection, w, m, accum, op, u, v, d, ctx);
}

void apply(Matrix& C, const Matrix* M, Accum accum, UnaryOpCode op, const Matrix& A,
           const Descriptor& d, Context& ctx) {
  check_common("apply", d, accum, Variant::row_filter);
  check_unary("cuda::apply (unary)", op, C.type());
  MapOp f;
  f.unary = op;
  apply_map(("unary " + std::string(unary_op_name(op))).c_str(), C, M, accum, f, A, d, ctx);
}

void apply(Vector& w, const Vector* m, Accum accum, UnaryOpCode op, const Vector& u,
           const Descriptor& d, Context& ctx) {
  check_common("apply", d, accum);
  check_unary("cuda::apply (unary, vector)", op, w.type());
  Vector u_hold;
  const Vector& ud = detail::on_device(u, u_hold, ctx);
  if (plain_assign(m, accum, d)) {
    w = elementwise::vector_map_values(ud, op, w.type(), ctx);
    ctx.trace_line("apply (vector): elementwise, unary " + std::string(unary_op_name(op)) +
                   " on u's " + std::to_string(w.nnz()) + " entries (0 host syncs)");
    return;
  }
  const elementwise::DenseT t = elementwise::vector_map(ud, op, w.type(), ctx);
  finish_vector("apply", "unary " + std::string(unary_op_name(op)), w, m, accum, d, t, ctx);
}

void apply(Matrix& C, const Matrix* M, Accum accum, BinaryOpCode op, BindSide side, const Scalar& s,
           const Matrix& A, const Descriptor& d, Context& ctx) {
  check_common("apply", d, accum, Variant::row_filter);
  MapOp f;
  f.kind = side == BindSide::first ? MapOp::Kind::bind_first : MapOp::Kind::bind_second;
  f.binary = op;
  f.bound = s;
  const std::string what =
      std::string(binary_op_name(op)) +
      (side == BindSide::first ? " with the scalar bound first" : " with the scalar bound second");
  apply_map(what.c_str(), C, M, accum, f, A, d, ctx);
}

void apply(Matrix& C, const Matrix* M, Accum accum, IndexUnaryOpCode op, Index thunk,
           const Matrix& A, const Descriptor& d, Context& ctx) {
  check_common("apply", d, accum, Variant::row_filter);
  MapOp f;
  f.kind = MapOp::Kind::index_unary;
  f.index_op = op;
  f.thunk = std::int64_t(thunk);
  const char* name = op == IndexUnaryOpCode::rowindex   ? "index-unary rowindex"
                     : op == IndexUnaryOpCode::colindex ? "index-unary colindex"
                                                        : "index-unary diagindex";
  apply_map(name, C, M, accum, f, A, d, ctx);
}

void select(Matrix& C, const Matrix* M, Accum accum, SelectOpCode op, const Scalar& thunk,
            const Matrix& A, const Descriptor& d, Context& ctx) {
  check_common("select", d, accum, Variant::row_filter);
  if (d.variant == Variant::row_filter)
    if (const auto why = can_implement_select_row_filter(C, op))
      throw NotImplemented("select: variant row_filter: " + *why);
  const bool topk = op == SelectOpCode::row_topk || op == SelectOpCode::col_topk;
  const Index k = thunk.as<std::int64_t>();
  if (topk && k < 0)
    throw InvalidValue("cuda::select: " + std::string(select_op_name(op)) + " needs k >= 0, got " +
                       std::to_string(k));
  const IndexType it = A.index_type();
  const std::string what =
      std::string(select_op_name(op)) +
      (topk ? " k = " + std::to_string(k) +
                  " (k-th key per row in registers; a block per row over 256)"
            : "");
  if (admits_nothing(M, d))
    return finish("select", "complemented empty mask", C, M, accum, d,
                  empty_device_matrix(C.nrows(), C.ncols(), A.type(), it, ctx), ctx, 0);
  Matrix hold;
  if (d.variant == Variant::row_filter) {
    const Matrix& a = prepare_operand(A, d.transpose_a, it, std::nullopt, hold, ctx);
    return finish("select", what + " (row_filter: count + scan + fill by rows)", C, M, accum, d,
                  elementwise::select_rows(a, op, thunk, ctx), ctx);
  }
  if (!topk) {
    const Matrix& a = prepare_operand(A, d.transpose_a, it, std::nullopt, hold, ctx);
    return finish("select", what, C, M, accum, d, elementwise::select(a, op, thunk, ctx), ctx);
  }
  // Lines to pick from as rows: op(A) for row_topk, op(A)ᵀ for col_topk (then T transposed back).
  const bool col = op == SelectOpCode::col_topk;
  const Matrix& y = prepare_operand(A, d.transpose_a != col, it, std::nullopt, hold, ctx);
  Matrix picked = elementwise::row_topk(y, k, ctx);
  finish("select", what, C, M, accum, d, col ? transpose(picked, ctx) : std::move(picked), ctx);
}

void kronecker(Matrix& C, const Matrix* M, Accum accum, BinaryOpCode op, const Matrix& A,
               const Matrix& B, const Descriptor& d, Context& ctx) {
  check_common("kronecker", d, accum);
  // 64-bit indices when T's sizes need them (its nnz is nnz(A) * nnz(B)).
  const double nnz = double(A.nnz()) * double(B.nnz());
  IndexType it = index_for({&A, &B}, 0);
  if (nnz >= double(i32_limit) || C.nrows() >= i32_limit || C.ncols() >= i32_limit)
    it = IndexType::i64;
  if (admits_nothing(M, d))
    return finish("kronecker", "complemented empty mask", C, M, accum, d,
                  empty_device_matrix(C.nrows(), C.ncols(), C.type(), it, ctx), ctx, 0);
  Matrix ha, hb;
  const Matrix& a = prepare_operand(A, d.transpose_a, it, C.type(), ha, ctx);
  const Matrix& b = prepare_operand(B, d.transpose_b, it, C.type(), hb, ctx);
  Matrix T = elementwise::kronecker(a, b, op, ctx);
  finish("kronecker",
         "by " + std::string(binary_op_name(op)) + " at " + std::string(type_name(C.type())), C, M,
         accum, d, std::move(T), ctx);
}

}  // namespace ringblas::cuda
