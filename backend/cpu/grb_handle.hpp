// RAII owners of SuiteSparse:GraphBLAS objects, one-time GrB_init, and GrB_Info -> ringblas errors.
#pragma once
// GraphBLAS.h of SuiteSparse 7.4 declares C functions without extern "C" guards.
extern "C" {
#include <GraphBLAS.h>
}

#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>

namespace ringblas::cpu::detail {

/// Initializes GraphBLAS once per process (GrB_NONBLOCKING); thread-safe. Tolerates a GrB_init
/// made elsewhere (e.g. by a test oracle). Throws InvalidValue if GraphBLAS cannot start.
void ensure_graphblas();

/// Throws the ringblas exception matching `info` (DimensionMismatch, InvalidIndex, OutOfMemory,
/// else InvalidValue), naming the operation, the failing call and GraphBLAS's own error text.
[[noreturn]] void throw_grb_error(GrB_Info info, std::string_view where, const char* call,
                                  const char* grb_text);

inline const char* grb_error_text(GrB_Matrix m) {
  const char* s = nullptr;
  if (m) GrB_Matrix_error(&s, m);
  return s;
}
inline const char* grb_error_text(GrB_Vector v) {
  const char* s = nullptr;
  if (v) GrB_Vector_error(&s, v);
  return s;
}
inline const char* grb_error_text(GrB_Scalar v) {
  const char* s = nullptr;
  if (v) GrB_Scalar_error(&s, v);
  return s;
}
inline const char* grb_error_text(std::nullptr_t) { return nullptr; }

template <class Obj>
inline void grb_check(GrB_Info info, std::string_view where, const char* call, Obj obj) {
  if (info != GrB_SUCCESS) throw_grb_error(info, where, call, grb_error_text(obj));
}

/// A generic owner: frees the handle with GraphBLAS's free function on destruction.
template <class H, GrB_Info (*Free)(H*)>
class grb_owner {
 public:
  grb_owner() = default;
  explicit grb_owner(H h) : h_(h) {}
  grb_owner(const grb_owner&) = delete;
  grb_owner& operator=(const grb_owner&) = delete;
  grb_owner(grb_owner&& o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
  grb_owner& operator=(grb_owner&& o) noexcept {
    if (this != &o) {
      reset();
      h_ = std::exchange(o.h_, nullptr);
    }
    return *this;
  }
  ~grb_owner() { reset(); }

  H get() const { return h_; }
  H* out() {
    reset();
    return &h_;
  }
  void reset() {
    if (h_) Free(&h_);
    h_ = nullptr;
  }

 private:
  H h_ = nullptr;
};

using matrix_ptr = grb_owner<GrB_Matrix, GrB_Matrix_free>;
using vector_ptr = grb_owner<GrB_Vector, GrB_Vector_free>;
using scalar_ptr = grb_owner<GrB_Scalar, GrB_Scalar_free>;
using semiring_ptr = grb_owner<GrB_Semiring, GrB_Semiring_free>;
using monoid_ptr = grb_owner<GrB_Monoid, GrB_Monoid_free>;
using binary_op_ptr = grb_owner<GrB_BinaryOp, GrB_BinaryOp_free>;
using descriptor_ptr = grb_owner<GrB_Descriptor, GrB_Descriptor_free>;

/// A malloc'ed array handed to or received from GraphBLAS's pack/unpack (which use malloc/free
/// under GrB_init); freed here unless GraphBLAS took it (then p is null).
template <class T>
struct malloc_array {
  T* p = nullptr;
  malloc_array() = default;
  malloc_array(const malloc_array&) = delete;
  malloc_array& operator=(const malloc_array&) = delete;
  ~malloc_array() { std::free(p); }
};

}  // namespace ringblas::cpu::detail

/// Checks a GraphBLAS call; `obj` is the object whose GrB_error text explains a failure (or
/// nullptr).
#define RINGBLAS_GRB_TRY(where, obj, call) \
  ::ringblas::cpu::detail::grb_check((call), (where), #call, (obj))
