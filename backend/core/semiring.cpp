// Semiring construction by name, the catalog list, and semiring names.
#include <string>

#include "ringblas/error.hpp"
#include "ringblas/semiring.hpp"

namespace ringblas {

Semiring::Semiring(MonoidCode a, BinaryOpCode m, Type t) : add(a), mul(m), type(t) {
  if (is_positional(m) && t != Type::int32 && t != Type::int64)
    throw InvalidValue("semiring " + std::string(monoid_name(a)) + "_" +
                       std::string(binary_op_name(m)) + ": a positional multiply needs type " +
                       "int32 or int64, not " + std::string(type_name(t)));
}

std::string Semiring::name() const {
  if (user) return user->name;
  return std::string(monoid_name(add)) + "_" + std::string(binary_op_name(mul)) + "_" +
         std::string(type_name(type));
}

Semiring semiring(std::string_view name, Type type) {
  auto cut = name.find('_');
  if (cut == std::string_view::npos)
    throw InvalidValue("semiring name '" + std::string(name) +
                       "' is not <monoid>_<multiply>, e.g. plus_times or min_plus");
  return Semiring(parse_monoid(name.substr(0, cut)), parse_binary_op(name.substr(cut + 1)), type);
}

const std::vector<std::string>& semiring_catalog() {
  static const std::vector<std::string> names = {
#define RINGBLAS_CATALOG(name, add, mul) #name,
#include "semirings/catalog.def"
#undef RINGBLAS_CATALOG
  };
  return names;
}

}  // namespace ringblas
