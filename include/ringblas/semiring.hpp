// Runtime semirings: a catalog name or monoid_op pair at a value type, or a user-defined one.
#pragma once
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ringblas/codes.hpp"
#include "ringblas/types.hpp"

namespace ringblas {

/// A user-defined semiring over a built-in value type: two host functions (made from stateless
/// functors by user_semiring) and the add monoid's identity. The cpu backend turns them into
/// GraphBLAS user-defined operators; kernels for the cuda backend come from include/ringblas/
/// extend.cuh, registered under the same name.
struct UserSemiring {
  using Fn = void (*)(void* z, const void* x, const void* y);
  std::string name;
  Type type;
  Fn add = nullptr;
  Fn mul = nullptr;
  std::vector<unsigned char> identity;
};

class Semiring {
 public:
  Semiring() = default;
  Semiring(MonoidCode add, BinaryOpCode mul, Type type);

  MonoidCode add = MonoidCode::plus;
  BinaryOpCode mul = BinaryOpCode::times;
  Type type = Type::fp64;  ///< domain of the monoid and the multiply's output
  std::shared_ptr<const UserSemiring> user;  ///< set for user-defined semirings

  bool is_user() const { return user != nullptr; }
  bool positional() const { return !user && is_positional(mul); }
  /// "plus_times_fp64", or the user's name.
  std::string name() const;
};

/// A built-in semiring by name ("plus_times", "min_plus", any "<monoid>_<op>") at type `type`.
/// Throws InvalidValue naming the valid monoids and operators, or when the type does not fit
/// (positional multiplies need int32/int64; sqrt-like ops do not apply).
Semiring semiring(std::string_view name, Type type = Type::fp64);
/// The catalog names of semirings/catalog.def, in order.
const std::vector<std::string>& semiring_catalog();

namespace detail {
template <class T, class F> void user_thunk(void* z, const void* x, const void* y) {
  T a, b;
  std::memcpy(&a, x, sizeof(T));
  std::memcpy(&b, y, sizeof(T));
  T r = F{}(a, b);
  std::memcpy(z, &r, sizeof(T));
}
}  // namespace detail

/// A user-defined semiring from two stateless functors T(T, T) and the add identity.
template <class T, class Add, class Mul>
Semiring user_semiring(std::string name, Add, Mul, T identity) {
  auto u = std::make_shared<UserSemiring>();
  u->name = std::move(name);
  u->type = type_of_v<T>;
  u->add = &detail::user_thunk<T, Add>;
  u->mul = &detail::user_thunk<T, Mul>;
  u->identity.resize(sizeof(T));
  std::memcpy(u->identity.data(), &identity, sizeof(T));
  Semiring s;
  s.type = u->type;
  s.user = std::move(u);
  return s;
}

}  // namespace ringblas
