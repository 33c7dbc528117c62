// The naive dense oracle: GraphBLAS semantics computed cell by cell (see oracle.hpp).
#include "support/oracle.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <sstream>

#include "ringblas/error.hpp"
#include "semirings/cast.hpp"
#include "semirings/unary_ops.hpp"
#include "semirings/visit.hpp"

namespace ringblas::test {
namespace {

using LD = long double;

// --- typed access to exactly stored values -----------------------------------------------------

/// The stored value v (exact at type `t`) converted to T with GraphBLAS's typecast.
template <class T>
T as(Type t, LD v) {
  return visit_type(t, [&](auto x) { return sr::cast<T>(static_cast<decltype(x)>(v)); });
}
template <class T>
LD store(T x) {
  return static_cast<LD>(x);
}

bool same_value(LD a, LD b, LD tol) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b || std::fabs(a - b) <= tol;
}

void add_value(RefCell& c, LD v) {
  for (LD x : c.values)
    if (same_value(x, v, 0)) return;
  c.values.push_back(v);
}

RefCell exact_cell(LD v) {
  RefCell c;
  c.present = true;
  c.values = {v};
  return c;
}

template <class T>
constexpr LD eps_of() {
  if constexpr (std::is_floating_point_v<T>)
    return std::numeric_limits<T>::epsilon();
  else
    return 0;
}

LD max_abs(const RefCell& c) {
  LD m = 0;
  for (LD v : c.values)
    if (!std::isnan(v) && !std::isinf(v)) m = std::max(m, std::fabs(v));
  return m;
}

/// A cell of type `from` cast to `to`: every acceptable value is cast; a tolerance becomes more
/// candidates for integer/bool targets (the ends of the interval may truncate differently).
RefCell cast_cell(const RefCell& c, Type from, Type to) {
  if (from == to || !c.present) return c;
  RefCell out;
  out.present = true;
  visit_type(to, [&](auto tv) {
    using D = decltype(tv);
    for (LD v : c.values) {
      add_value(out, store(as<D>(from, v)));
      if (c.tol > 0 && !std::is_floating_point_v<D>) {
        add_value(out, store(sr::cast<D>(static_cast<double>(v - c.tol))));
        add_value(out, store(sr::cast<D>(static_cast<double>(v + c.tol))));
      }
    }
    if constexpr (std::is_floating_point_v<D>)
      out.tol = c.tol > 0 ? c.tol + 2 * eps_of<D>() * (max_abs(c) + c.tol) : 0;
  });
  return out;
}

/// z = f(x, y) at type T over every pair of acceptable values; a tolerance on x or y is carried by
/// evaluating f at the corners of the intervals.
template <class T, class F>
RefCell combine(const RefCell& x, const RefCell& y, F f) {
  RefCell z;
  z.present = true;
  for (LD a : x.values) {
    for (LD b : y.values) {
      const T r = f(static_cast<T>(a), static_cast<T>(b));
      add_value(z, store(r));
      if constexpr (std::is_floating_point_v<T>) {
        if (x.tol > 0 || y.tol > 0) {
          for (int sa = -1; sa <= 1; sa += 2)
            for (int sb = -1; sb <= 1; sb += 2) {
              const T c = f(static_cast<T>(a + sa * x.tol), static_cast<T>(b + sb * y.tol));
              if (!std::isnan(c) && !std::isnan(r))
                z.tol = std::max(z.tol, std::fabs(store(c) - store(r)));
            }
          z.tol += 2 * eps_of<T>() * std::fabs(store(r));
        }
      }
    }
  }
  return z;
}

/// GxB_POW written out from its definition, independently of sr::pow_op: bool x || !y; integers
/// through double with GraphBLAS's saturating cast; floats std::pow at their own precision.
template <class T>
T naive_pow(T x, T y) {
  if constexpr (std::is_same_v<T, bool>)
    return x || !y;
  else if constexpr (std::is_integral_v<T>)
    return sr::cast<T>(std::pow(double(x), double(y)));
  else
    return std::pow(x, y);
}

template <class T>
T binop(BinaryOpCode op, T x, T y, Index ia, Index ja, Index ib, Index jb) {
  if (op == BinaryOpCode::pow) return naive_pow(x, y);
  return sr::visit_binary_op<T>(op, [&](auto f) -> T { return f(x, y, ia, ja, ib, jb); });
}

// --- reading containers ------------------------------------------------------------------------

Index index_at(const Buffer& b, IndexType t, Index k) {
  return t == IndexType::i32 ? Index(b.as<std::int32_t>()[k]) : b.as<std::int64_t>()[k];
}
LD value_at(const Buffer& b, Type t, Index k) {
  return visit_type(t, [&](auto x) { return store(b.as<decltype(x)>()[k]); });
}
void require_host(Location loc, const char* what) {
  if (loc != Location::host)
    throw InvalidValue(std::string("oracle: ") + what + " must be on the host");
}

RefMatrix transposed(const RefMatrix& a) {
  RefMatrix t(a.ncols, a.nrows, a.type);
  for (Index i = 0; i < a.nrows; ++i)
    for (Index j = 0; j < a.ncols; ++j) t.at(j, i) = a.at(i, j);
  return t;
}
RefMatrix input(const Matrix& a, bool transpose) {
  RefMatrix r = to_ref(a);
  return transpose ? transposed(r) : r;
}
RefMatrix mask_ref(const Matrix* m) { return m ? to_ref(*m) : RefMatrix(); }
RefMatrix mask_ref(const Vector* m) { return m ? to_ref(*m) : RefMatrix(); }

void require_dims(const RefMatrix& a, Index m, Index n, const char* what) {
  if (a.nrows != m || a.ncols != n)
    throw DimensionMismatch(std::string("oracle: ") + what + " is " + std::to_string(a.nrows) +
                            "x" + std::to_string(a.ncols) + ", expected " + std::to_string(m) +
                            "x" + std::to_string(n));
}

// --- the common tail: C<M, replace> = C accum T ------------------------------------------------

void finish(RefMatrix& C, const RefMatrix& T, const RefMatrix* mask, Accum accum,
            const Descriptor& d) {
  require_dims(T, C.nrows, C.ncols, "T = op(inputs)");
  if (mask) require_dims(*mask, C.nrows, C.ncols, "mask");
  visit_type(C.type, [&](auto cv) {
    using CT = decltype(cv);
    for (Index i = 0; i < C.nrows; ++i) {
      for (Index j = 0; j < C.ncols; ++j) {
        bool admit = true;
        if (mask) {
          const RefCell& m = mask->at(i, j);
          admit = m.present && (d.mask_structure || m.values[0] != 0);
        }
        if (d.mask_complement) admit = !admit;
        RefCell& c = C.at(i, j);
        if (!admit) {
          if (d.replace) c = RefCell{};
          continue;
        }
        const RefCell t = cast_cell(T.at(i, j), T.type, C.type);
        if (accum && c.present && t.present) {
          c = combine<CT>(c, t, [&](CT x, CT y) { return binop<CT>(*accum, x, y, i, j, i, j); });
        } else if (t.present) {
          c = t;
        } else if (!accum) {
          c = RefCell{};
        }
      }
    }
  });
}

void finish(RefMatrix& C, const RefMatrix& T, const Matrix* mask, Accum accum,
            const Descriptor& d) {
  const RefMatrix m = mask_ref(mask);
  finish(C, T, mask ? &m : nullptr, accum, d);
}
void finish(RefMatrix& C, const RefMatrix& T, const Vector* mask, Accum accum,
            const Descriptor& d) {
  const RefMatrix m = mask_ref(mask);
  finish(C, T, mask ? &m : nullptr, accum, d);
}

// --- reductions --------------------------------------------------------------------------------

/// Folds values (in order) with a monoid at type T; tracks the acceptable values of `any` and
/// the rounding tolerance of float plus/times.
template <class T>
struct Folder {
  MonoidCode code;
  const UserSemiring* user = nullptr;
  bool started = false;
  T acc{};
  Index terms = 0;
  LD sum_abs = 0;
  RefCell any;

  void add(T p) {
    ++terms;
    if constexpr (std::is_floating_point_v<T>) sum_abs += std::fabs(store(p));
    if (!user && code == MonoidCode::any) add_value(any, store(p));
    if (!started) {
      acc = p;
      started = true;
    } else if (user) {
      T z;
      user->add(&z, &acc, &p);
      acc = z;
    } else {
      acc = sr::visit_monoid<T>(code, [&](auto m) -> T { return m(acc, p); });
    }
  }
  T identity() const {
    if (user) {
      T v;
      std::memcpy(&v, user->identity.data(), sizeof(T));
      return v;
    }
    return sr::visit_monoid<T>(code, [](auto m) -> T { return m.identity(); });
  }
  /// The result cell; absent when nothing was added unless `identity_if_empty`.
  RefCell result(bool identity_if_empty) const {
    if (!started) return identity_if_empty ? exact_cell(store(identity())) : RefCell{};
    if (!user && code == MonoidCode::any) {
      RefCell c = any;
      c.present = true;
      return c;
    }
    RefCell c = exact_cell(store(acc));
    // lor/land/lxor on a numeric type are monoids only on {0, 1}: a lone entry 5 may come back as
    // 5 (no operation applied) or as identity ⊕ 5 = 1 (a fold that starts at the identity).
    if (!user && !std::is_same_v<T, bool> &&
        (code == MonoidCode::lor || code == MonoidCode::land || code == MonoidCode::lxor))
      add_value(
          c, store(sr::visit_monoid<T>(code, [&](auto m) -> T { return m(m.identity(), acc); })));
    if constexpr (std::is_floating_point_v<T>) {
      if (!user && terms > 1 && code == MonoidCode::plus)
        c.tol = 2 * LD(terms) * eps_of<T>() * sum_abs;
      if (!user && terms > 1 && code == MonoidCode::times)
        c.tol = 2 * LD(terms) * eps_of<T>() * std::fabs(store(acc));
    }
    return c;
  }
};

/// T = A ⊕.⊗ B at the semiring's type, products in increasing k; positional indices are those of
/// A(i,k) and B(k,j) as operated on (after any transpose).
RefMatrix semiring_product(const Semiring& s, const RefMatrix& A, const RefMatrix& B,
                           bool identity_if_empty) {
  if (A.ncols != B.nrows)
    throw DimensionMismatch("oracle: inner dimensions " + std::to_string(A.ncols) + " and " +
                            std::to_string(B.nrows) + " differ");
  RefMatrix T(A.nrows, B.ncols, s.type);
  visit_type(s.type, [&](auto tv) {
    using V = decltype(tv);
    for (Index i = 0; i < A.nrows; ++i) {
      for (Index j = 0; j < B.ncols; ++j) {
        Folder<V> f{s.add, s.user.get()};
        for (Index k = 0; k < A.ncols; ++k) {
          if (!A.has(i, k) || !B.has(k, j)) continue;
          const V x = as<V>(A.type, A.at(i, k).values[0]);
          const V y = as<V>(B.type, B.at(k, j).values[0]);
          V p;
          if (s.user)
            s.user->mul(&p, &x, &y);
          else
            p = binop<V>(s.mul, x, y, i, k, k, j);
          f.add(p);
        }
        T.at(i, j) = f.result(identity_if_empty);
      }
    }
  });
  return T;
}

RefMatrix column(const RefMatrix& r) {
  RefMatrix c = r;
  c.nrows = r.nrows * r.ncols;
  c.ncols = 1;
  return c;
}

Index thunk_index(const Scalar& s) { return s.as<Index>(); }

}  // namespace

// --- conversions -------------------------------------------------------------------------------

Index RefMatrix::nnz() const {
  return std::count_if(cells.begin(), cells.end(), [](const RefCell& c) { return c.present; });
}

RefMatrix to_ref(const Matrix& a) {
  require_host(a.location(), "matrix");
  RefMatrix r(a.nrows(), a.ncols(), a.type());
  const IndexType it = a.index_type();
  for (Index i = 0; i < a.nrows(); ++i) {
    const Index lo = index_at(a.row_ptr(), it, i), hi = index_at(a.row_ptr(), it, i + 1);
    for (Index p = lo; p < hi; ++p) {
      const Index j = index_at(a.col_idx(), it, p);
      if (j < 0 || j >= a.ncols() || r.has(i, j))
        throw InvalidIndex("oracle: matrix row " + std::to_string(i) + " has a bad column " +
                           std::to_string(j));
      r.at(i, j) = exact_cell(value_at(a.values(), a.type(), p));
    }
  }
  return r;
}

RefMatrix to_ref(const Vector& u) {
  require_host(u.location(), "vector");
  RefMatrix r(u.size(), 1, u.type());
  for (Index p = 0; p < u.nnz(); ++p) {
    const Index i = u.indices().as<Index>()[p];
    if (i < 0 || i >= u.size() || r.has(i, 0))
      throw InvalidIndex("oracle: vector has a bad index " + std::to_string(i));
    r.at(i, 0) = exact_cell(value_at(u.values(), u.type(), p));
  }
  return r;
}

RefMatrix to_ref(const DenseMatrix& a) {
  require_host(a.location(), "dense matrix");
  RefMatrix r(a.nrows(), a.ncols(), a.type());
  for (Index i = 0; i < a.nrows(); ++i)
    for (Index j = 0; j < a.ncols(); ++j) {
      const Index k = a.layout() == Layout::row_major ? i * a.ncols() + j : j * a.nrows() + i;
      r.at(i, j) = exact_cell(value_at(a.values(), a.type(), k));
    }
  return r;
}

Matrix to_matrix(const RefMatrix& r) {
  return visit_type(r.type, [&](auto tv) {
    using V = decltype(tv);
    std::vector<Index> rows, cols;
    std::vector<V> vals;
    for (Index i = 0; i < r.nrows; ++i)
      for (Index j = 0; j < r.ncols; ++j)
        if (r.has(i, j)) {
          rows.push_back(i);
          cols.push_back(j);
          vals.push_back(static_cast<V>(r.at(i, j).values[0]));
        }
    return Matrix::from_triplets<V>(r.nrows, r.ncols, rows, cols, vals);
  });
}

// --- operations --------------------------------------------------------------------------------

namespace oracle {

void mxm(RefMatrix& C, const Matrix* mask, Accum accum, const Semiring& s, const Matrix& A,
         const Matrix& B, const Descriptor& desc) {
  const RefMatrix T =
      semiring_product(s, input(A, desc.transpose_a), input(B, desc.transpose_b), false);
  finish(C, T, mask, accum, desc);
}

void mxv(RefMatrix& w, const Vector* mask, Accum accum, const Semiring& s, const Matrix& A,
         const Vector& u, const Descriptor& desc) {
  const RefMatrix T = semiring_product(s, input(A, desc.transpose_a), to_ref(u), false);
  finish(w, T, mask, accum, desc);
}

void vxm(RefMatrix& w, const Vector* mask, Accum accum, const Semiring& s, const Vector& u,
         const Matrix& A, const Descriptor& desc) {
  const RefMatrix T = semiring_product(s, transposed(to_ref(u)), input(A, desc.transpose_b), false);
  finish(w, column(T), mask, accum, desc);
}

RefMatrix mxm_dense(Type c_type, const Semiring& s, const Matrix& A, const DenseMatrix& B,
                    const Descriptor& desc) {
  RefMatrix b = to_ref(B);
  if (desc.transpose_b) b = transposed(b);
  const RefMatrix T = semiring_product(s, input(A, desc.transpose_a), b, true);
  RefMatrix C(T.nrows, T.ncols, c_type);
  for (std::size_t k = 0; k < C.cells.size(); ++k)
    C.cells[k] = cast_cell(T.cells[k], T.type, c_type);
  return C;
}

namespace {
/// T = A ∪ B (union) or A ∩ B with op at `type`.
RefMatrix ewise(bool uni, Type type, BinaryOpCode op, const RefMatrix& A, const RefMatrix& B) {
  require_dims(B, A.nrows, A.ncols, "ewise B");
  RefMatrix T(A.nrows, A.ncols, type);
  visit_type(type, [&](auto tv) {
    using V = decltype(tv);
    for (Index i = 0; i < A.nrows; ++i)
      for (Index j = 0; j < A.ncols; ++j) {
        const bool a = A.has(i, j), b = B.has(i, j);
        if (a && b) {
          T.at(i, j) =
              combine<V>(cast_cell(A.at(i, j), A.type, type), cast_cell(B.at(i, j), B.type, type),
                         [&](V x, V y) { return binop<V>(op, x, y, i, j, i, j); });
        } else if (uni && a) {
          T.at(i, j) = cast_cell(A.at(i, j), A.type, type);
        } else if (uni && b) {
          T.at(i, j) = cast_cell(B.at(i, j), B.type, type);
        }
      }
  });
  return T;
}
}  // namespace

void ewise_add(RefMatrix& C, const Matrix* mask, Accum accum, BinaryOpCode op, const Matrix& A,
               const Matrix& B, const Descriptor& desc) {
  finish(C, ewise(true, C.type, op, input(A, desc.transpose_a), input(B, desc.transpose_b)), mask,
         accum, desc);
}
void ewise_add(RefMatrix& w, const Vector* mask, Accum accum, BinaryOpCode op, const Vector& u,
               const Vector& v, const Descriptor& desc) {
  finish(w, ewise(true, w.type, op, to_ref(u), to_ref(v)), mask, accum, desc);
}
void ewise_mult(RefMatrix& C, const Matrix* mask, Accum accum, BinaryOpCode op, const Matrix& A,
                const Matrix& B, const Descriptor& desc) {
  finish(C, ewise(false, C.type, op, input(A, desc.transpose_a), input(B, desc.transpose_b)), mask,
         accum, desc);
}
void ewise_mult(RefMatrix& w, const Vector* mask, Accum accum, BinaryOpCode op, const Vector& u,
                const Vector& v, const Descriptor& desc) {
  finish(w, ewise(false, w.type, op, to_ref(u), to_ref(v)), mask, accum, desc);
}

namespace {
/// T(i,j) = f(i, j, A(i,j) at `type`) over A's entries.
template <class F>
RefMatrix map_entries(Type type, const RefMatrix& A, F f) {
  RefMatrix T(A.nrows, A.ncols, type);
  visit_type(type, [&](auto tv) {
    using V = decltype(tv);
    for (Index i = 0; i < A.nrows; ++i)
      for (Index j = 0; j < A.ncols; ++j)
        if (A.has(i, j))
          T.at(i, j) = exact_cell(store(f(i, j, as<V>(A.type, A.at(i, j).values[0]))));
  });
  return T;
}
}  // namespace

void apply(RefMatrix& C, const Matrix* mask, Accum accum, UnaryOpCode op, const Matrix& A,
           const Descriptor& desc) {
  const RefMatrix T = map_entries(C.type, input(A, desc.transpose_a),
                                  [&](Index, Index, auto x) { return sr::apply_unary(op, x); });
  finish(C, T, mask, accum, desc);
}
void apply(RefMatrix& w, const Vector* mask, Accum accum, UnaryOpCode op, const Vector& u,
           const Descriptor& desc) {
  const RefMatrix T =
      map_entries(w.type, to_ref(u), [&](Index, Index, auto x) { return sr::apply_unary(op, x); });
  finish(w, T, mask, accum, desc);
}
void apply(RefMatrix& C, const Matrix* mask, Accum accum, BinaryOpCode op, BindSide side,
           const Scalar& s, const Matrix& A, const Descriptor& desc) {
  const RefMatrix T =
      map_entries(C.type, input(A, desc.transpose_a), [&](Index i, Index j, auto x) {
        using V = decltype(x);
        const V b = s.as<V>();
        return side == BindSide::first ? binop<V>(op, b, x, i, j, i, j)
                                       : binop<V>(op, x, b, i, j, i, j);
      });
  finish(C, T, mask, accum, desc);
}
void apply(RefMatrix& C, const Matrix* mask, Accum accum, IndexUnaryOpCode op, Index thunk,
           const Matrix& A, const Descriptor& desc) {
  const RefMatrix T =
      map_entries(Type::int64, input(A, desc.transpose_a), [&](Index i, Index j, std::int64_t) {
        switch (op) {
          case IndexUnaryOpCode::rowindex:
            return i + thunk;
          case IndexUnaryOpCode::colindex:
            return j + thunk;
          default:
            return j - i + thunk;
        }
      });
  finish(C, T, mask, accum, desc);
}

void select(RefMatrix& C, const Matrix* mask, Accum accum, SelectOpCode op, const Scalar& thunk,
            const Matrix& A, const Descriptor& desc) {
  const RefMatrix a = input(A, desc.transpose_a);
  RefMatrix T(a.nrows, a.ncols, a.type);
  visit_type(a.type, [&](auto tv) {
    using V = decltype(tv);
    const V y = thunk.as<V>();
    const Index k = thunk_index(thunk);
    auto value = [&](Index i, Index j) { return static_cast<V>(a.at(i, j).values[0]); };
    if (op == SelectOpCode::row_topk || op == SelectOpCode::col_topk) {
      const bool rows = op == SelectOpCode::row_topk;
      const Index outer = rows ? a.nrows : a.ncols, inner = rows ? a.ncols : a.nrows;
      for (Index o = 0; o < outer; ++o) {
        std::vector<Index> idx;
        for (Index q = 0; q < inner; ++q)
          if (rows ? a.has(o, q) : a.has(q, o)) idx.push_back(q);
        auto val = [&](Index q) { return rows ? value(o, q) : value(q, o); };
        std::stable_sort(idx.begin(), idx.end(), [&](Index p, Index q) { return val(p) > val(q); });
        for (std::size_t r = 0; r < idx.size() && Index(r) < k; ++r) {
          const Index i = rows ? o : idx[r], j = rows ? idx[r] : o;
          T.at(i, j) = a.at(i, j);
        }
      }
      return;
    }
    for (Index i = 0; i < a.nrows; ++i)
      for (Index j = 0; j < a.ncols; ++j) {
        if (!a.has(i, j)) continue;
        const V x = value(i, j);
        bool keep = false;
        switch (op) {
          case SelectOpCode::tril:
            keep = j - i <= k;
            break;
          case SelectOpCode::triu:
            keep = j - i >= k;
            break;
          case SelectOpCode::diag:
            keep = j - i == k;
            break;
          case SelectOpCode::offdiag:
            keep = j - i != k;
            break;
          case SelectOpCode::value_gt:
            keep = x > y;
            break;
          case SelectOpCode::value_ge:
            keep = x >= y;
            break;
          case SelectOpCode::value_lt:
            keep = x < y;
            break;
          case SelectOpCode::value_le:
            keep = x <= y;
            break;
          case SelectOpCode::value_eq:
            keep = x == y;
            break;
          default:
            keep = x != y;
            break;
        }
        if (keep) T.at(i, j) = a.at(i, j);
      }
  });
  finish(C, T, mask, accum, desc);
}

void reduce(RefMatrix& w, const Vector* mask, Accum accum, MonoidCode monoid, const Matrix& A,
            ReduceDim dim, const Descriptor& desc) {
  RefMatrix a = input(A, desc.transpose_a);
  if (dim == ReduceDim::cols) a = transposed(a);
  RefMatrix T(a.nrows, 1, w.type);
  visit_type(w.type, [&](auto tv) {
    using V = decltype(tv);
    for (Index i = 0; i < a.nrows; ++i) {
      Folder<V> f{monoid};
      for (Index j = 0; j < a.ncols; ++j)
        if (a.has(i, j)) f.add(as<V>(a.type, a.at(i, j).values[0]));
      T.at(i, 0) = f.result(false);
    }
  });
  finish(w, T, mask, accum, desc);
}

RefMatrix reduce(MonoidCode monoid, const Matrix& A) {
  const RefMatrix a = to_ref(A);
  RefMatrix r(1, 1, a.type);
  visit_type(a.type, [&](auto tv) {
    using V = decltype(tv);
    Folder<V> f{monoid};
    for (const RefCell& c : a.cells)
      if (c.present) f.add(static_cast<V>(c.values[0]));
    r.at(0, 0) = f.result(true);
  });
  return r;
}

RefMatrix reduce(MonoidCode monoid, const Vector& u) {
  return oracle::reduce(monoid, to_matrix(to_ref(u)));
}

void transpose(RefMatrix& C, const Matrix* mask, Accum accum, const Matrix& A,
               const Descriptor& desc) {
  finish(C, input(A, !desc.transpose_a), mask, accum, desc);
}

void extract(RefMatrix& C, const Matrix* mask, Accum accum, const Matrix& A, const Indices& rows,
             const Indices& cols, const Descriptor& desc) {
  const RefMatrix a = input(A, desc.transpose_a);
  RefMatrix T(rows.count(a.nrows), cols.count(a.ncols), a.type);
  for (Index i = 0; i < T.nrows; ++i)
    for (Index j = 0; j < T.ncols; ++j) {
      const Index ai = rows(i), aj = cols(j);
      if (ai < 0 || ai >= a.nrows || aj < 0 || aj >= a.ncols)
        throw InvalidIndex("oracle: extract index (" + std::to_string(ai) + ", " +
                           std::to_string(aj) + ") out of range");
      T.at(i, j) = a.at(ai, aj);
    }
  finish(C, T, mask, accum, desc);
}

void assign(RefMatrix& C, const Matrix* mask, Accum accum, const Matrix& A, const Indices& rows,
            const Indices& cols, const Descriptor& desc) {
  const RefMatrix a = input(A, desc.transpose_a);
  require_dims(a, rows.count(C.nrows), cols.count(C.ncols), "assign A");
  // Z = C with the region C(rows, cols) replaced by C(rows, cols) accum A; then C<M> = Z.
  RefMatrix Z = C;
  visit_type(C.type, [&](auto cv) {
    using CT = decltype(cv);
    for (Index p = 0; p < a.nrows; ++p)
      for (Index q = 0; q < a.ncols; ++q) {
        const Index i = rows(p), j = cols(q);
        if (i < 0 || i >= C.nrows || j < 0 || j >= C.ncols)
          throw InvalidIndex("oracle: assign index (" + std::to_string(i) + ", " +
                             std::to_string(j) + ") out of range");
        const RefCell t = cast_cell(a.at(p, q), a.type, C.type);
        RefCell& z = Z.at(i, j);
        if (accum && z.present && t.present)
          z = combine<CT>(z, t, [&](CT x, CT y) { return binop<CT>(*accum, x, y, i, j, i, j); });
        else if (t.present || !accum)
          z = t;
      }
  });
  const RefMatrix m = mask_ref(mask);
  finish(C, Z, mask ? &m : nullptr, no_accum, desc);
}

void kronecker(RefMatrix& C, const Matrix* mask, Accum accum, BinaryOpCode op, const Matrix& A,
               const Matrix& B, const Descriptor& desc) {
  const RefMatrix a = input(A, desc.transpose_a), b = input(B, desc.transpose_b);
  RefMatrix T(a.nrows * b.nrows, a.ncols * b.ncols, C.type);
  visit_type(C.type, [&](auto cv) {
    using V = decltype(cv);
    for (Index ia = 0; ia < a.nrows; ++ia)
      for (Index ja = 0; ja < a.ncols; ++ja) {
        if (!a.has(ia, ja)) continue;
        const V x = as<V>(a.type, a.at(ia, ja).values[0]);
        for (Index ib = 0; ib < b.nrows; ++ib)
          for (Index jb = 0; jb < b.ncols; ++jb) {
            if (!b.has(ib, jb)) continue;
            const V y = as<V>(b.type, b.at(ib, jb).values[0]);
            T.at(ia * b.nrows + ib, ja * b.ncols + jb) =
                exact_cell(store(binop<V>(op, x, y, ia, ja, ib, jb)));
          }
      }
  });
  finish(C, T, mask, accum, desc);
}

}  // namespace oracle

// --- comparison --------------------------------------------------------------------------------

namespace {

std::string show(const RefCell& c) {
  std::ostringstream s;
  s.precision(17);
  if (c.values.size() == 1) {
    s << static_cast<double>(c.values[0]);
  } else {
    s << "one of {";
    for (std::size_t k = 0; k < c.values.size(); ++k)
      s << (k ? ", " : "") << static_cast<double>(c.values[k]);
    s << "}";
  }
  if (c.tol > 0) s << " +- " << static_cast<double>(c.tol);
  return s.str();
}

std::string compare_refs(const RefMatrix& e, const RefMatrix& a, const std::string& what) {
  std::ostringstream s;
  s.precision(17);
  if (e.nrows != a.nrows || e.ncols != a.ncols) {
    s << what << ": result is " << a.nrows << "x" << a.ncols << ", expected " << e.nrows << "x"
      << e.ncols;
    return s.str();
  }
  if (e.type != a.type) {
    s << what << ": result type " << type_name(a.type) << ", expected " << type_name(e.type);
    return s.str();
  }
  for (Index i = 0; i < e.nrows; ++i)
    for (Index j = 0; j < e.ncols; ++j) {
      const RefCell &x = e.at(i, j), &y = a.at(i, j);
      if (x.present != y.present) {
        s << what << ": entry (" << i << ", " << j << ") is "
          << (y.present ? "present in the result (" + show(y) + ") but absent in the oracle"
                        : "absent in the result but present in the oracle (" + show(x) + ")")
          << "; result nnz " << a.nnz() << ", oracle nnz " << e.nnz();
        return s.str();
      }
      if (!x.present) continue;
      const LD v = y.values[0];
      const bool ok = std::any_of(x.values.begin(), x.values.end(),
                                  [&](LD c) { return same_value(c, v, x.tol); });
      if (!ok) {
        s << what << ": entry (" << i << ", " << j << "): expected " << show(x) << ", got "
          << static_cast<double>(v);
        return s.str();
      }
    }
  return "";
}

/// CSR invariants checked independently of the library (sorted, unique, in range).
std::string check_csr(const Matrix& m, const std::string& what) {
  const IndexType it = m.index_type();
  if (m.nrows() < 0 || m.ncols() < 0) return what + ": negative dimensions";
  if (index_at(m.row_ptr(), it, 0) != 0) return what + ": row_ptr[0] != 0";
  for (Index i = 0; i < m.nrows(); ++i) {
    const Index lo = index_at(m.row_ptr(), it, i), hi = index_at(m.row_ptr(), it, i + 1);
    if (hi < lo) return what + ": row_ptr decreases at row " + std::to_string(i);
    for (Index p = lo; p < hi; ++p) {
      const Index j = index_at(m.col_idx(), it, p);
      if (j < 0 || j >= m.ncols() || (p > lo && j <= index_at(m.col_idx(), it, p - 1)))
        return what + ": row " + std::to_string(i) +
               " has unsorted, repeated or out-of-range "
               "column " +
               std::to_string(j);
    }
  }
  if (index_at(m.row_ptr(), it, m.nrows()) != m.nnz()) return what + ": row_ptr[nrows] != nnz";
  return "";
}

}  // namespace

std::string compare(const RefMatrix& expected, const Matrix& actual, const std::string& what) {
  if (actual.location() != Location::host) return what + ": result is not on the host";
  if (std::string bad = check_csr(actual, what); !bad.empty()) return bad;
  return compare_refs(expected, to_ref(actual), what);
}

std::string compare(const RefMatrix& expected, const Vector& actual, const std::string& what) {
  if (actual.location() != Location::host) return what + ": result is not on the host";
  for (Index p = 1; p < actual.nnz(); ++p)
    if (actual.indices().as<Index>()[p] <= actual.indices().as<Index>()[p - 1])
      return what + ": vector indices not strictly increasing at position " + std::to_string(p);
  return compare_refs(expected, to_ref(actual), what);
}

std::string compare(const RefMatrix& expected, const DenseMatrix& actual, const std::string& what) {
  if (actual.location() != Location::host) return what + ": result is not on the host";
  return compare_refs(expected, to_ref(actual), what);
}

std::string compare(const RefMatrix& expected, const Scalar& actual, const std::string& what) {
  RefMatrix a(1, 1, actual.type());
  a.at(0, 0) = exact_cell(actual.as<LD>());
  return compare_refs(expected, a, what);
}

}  // namespace ringblas::test
