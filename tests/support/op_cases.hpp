// Shared pieces of the oracle tests: mask modes, descriptor names, the types each catalog
// semiring is tested at, and a runner that compares one backend call with the oracle.
#pragma once
#include <gtest/gtest.h>

#include <exception>
#include <ostream>
#include <string>
#include <vector>

#include "ringblas/ringblas.hpp"
#include "support/oracle.hpp"

namespace ringblas::test {

enum class MaskMode { none, value, structure, complement_value, complement_structure };
inline constexpr MaskMode all_mask_modes[] = {MaskMode::none, MaskMode::value, MaskMode::structure,
                                              MaskMode::complement_value,
                                              MaskMode::complement_structure};

inline const char* mask_mode_name(MaskMode m) {
  switch (m) {
    case MaskMode::none:
      return "nomask";
    case MaskMode::value:
      return "mask";
    case MaskMode::structure:
      return "smask";
    case MaskMode::complement_value:
      return "cmask";
    default:
      return "csmask";
  }
}

/// A descriptor with the mask flags of `m` and the other flags given.
inline Descriptor make_desc(MaskMode m, bool replace, bool ta, bool tb) {
  Descriptor d;
  d.mask_structure = m == MaskMode::structure || m == MaskMode::complement_structure;
  d.mask_complement = m == MaskMode::complement_value || m == MaskMode::complement_structure;
  d.replace = replace;
  d.transpose_a = ta;
  d.transpose_b = tb;
  return d;
}

/// "mask=smask accum=plus replace tA tB"
inline std::string describe(MaskMode m, const Accum& accum, const Descriptor& d) {
  std::string s = mask_mode_name(m);
  s += accum ? " accum=" + std::string(binary_op_name(*accum)) : " noaccum";
  if (d.replace) s += " replace";
  if (d.transpose_a) s += " tA";
  if (d.transpose_b) s += " tB";
  return s;
}

/// The binary op of a monoid, for accumulating with the semiring's own ⊕ (any: second).
inline BinaryOpCode monoid_op(MonoidCode m) {
  switch (m) {
    case MonoidCode::plus:
      return BinaryOpCode::plus;
    case MonoidCode::times:
      return BinaryOpCode::times;
    case MonoidCode::min:
      return BinaryOpCode::min;
    case MonoidCode::max:
      return BinaryOpCode::max;
    case MonoidCode::lor:
      return BinaryOpCode::lor;
    case MonoidCode::land:
      return BinaryOpCode::land;
    case MonoidCode::lxor:
      return BinaryOpCode::lxor;
    default:
      return BinaryOpCode::second;
  }
}

inline constexpr Type all_types[] = {Type::boolean, Type::int32, Type::int64, Type::fp32,
                                     Type::fp64};
/// Every binary operator (the element-wise tests run each).
inline constexpr BinaryOpCode all_binary_ops[] = {
    BinaryOpCode::first,  BinaryOpCode::second, BinaryOpCode::pair,    BinaryOpCode::plus,
    BinaryOpCode::minus,  BinaryOpCode::times,  BinaryOpCode::div,     BinaryOpCode::min,
    BinaryOpCode::max,    BinaryOpCode::lor,    BinaryOpCode::land,    BinaryOpCode::lxor,
    BinaryOpCode::firsti, BinaryOpCode::firstj, BinaryOpCode::secondi, BinaryOpCode::secondj};

/// Types at which a catalog semiring is tested: positional ones at int32/int64, the logical ones
/// (lor_land, land_lor, lxor_land) at bool and two numeric types, the rest at every type.
inline std::vector<Type> semiring_types(const std::string& name) {
  const Semiring probe = semiring(name, Type::int64);
  if (probe.positional()) return {Type::int32, Type::int64};
  if (probe.add == MonoidCode::lor || probe.add == MonoidCode::land ||
      probe.add == MonoidCode::lxor)
    return {Type::boolean, Type::int32, Type::fp64};
  return {all_types, all_types + 5};
}

struct SemiringCase {
  std::string name;
  Type type;
};
inline std::vector<SemiringCase> semiring_cases() {
  std::vector<SemiringCase> out;
  for (const std::string& n : semiring_catalog())
    for (Type t : semiring_types(n)) out.push_back({n, t});
  return out;
}
inline std::string semiring_case_name(const testing::TestParamInfo<SemiringCase>& p) {
  return p.param.name + "_" + std::string(type_name(p.param.type));
}
/// Readable parameter values in test listings (and so in CTest names).
inline void PrintTo(const SemiringCase& c, std::ostream* os) {
  *os << c.name << "_" << type_name(c.type);
}

/// A value type as a test parameter (printable by name).
struct TypeCase {
  Type type;
};
inline void PrintTo(const TypeCase& c, std::ostream* os) { *os << type_name(c.type); }
inline std::vector<TypeCase> type_cases() {
  std::vector<TypeCase> out;
  for (Type t : all_types) out.push_back({t});
  return out;
}
inline std::string type_case_name(const testing::TestParamInfo<TypeCase>& p) {
  return std::string(type_name(p.param.type));
}

inline Context cpu_context() { return Context(Backend::cpu); }

/// Runs `run` (the backend call writing `actual`) and compares `actual` with `expected`; counts
/// failures so that a broken combination does not flood the log. `may_be_unsupported`: the
/// operation documents this combination as NotImplemented-for-now, so that exception is accepted.
template <class Actual, class Run>
void check_case(const std::string& what, const RefMatrix& expected, const Actual& actual, Run&& run,
                int& failures, bool may_be_unsupported = false) {
  if (failures >= 20) return;
  try {
    run();
  } catch (const NotImplemented& e) {
    if (may_be_unsupported) return;
    ADD_FAILURE() << what << ": the backend threw NotImplemented: " << e.what();
    ++failures;
    return;
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": the backend threw: " << e.what();
    ++failures;
    return;
  }
  const std::string msg = compare(expected, actual, what);
  if (!msg.empty()) {
    ADD_FAILURE() << msg;
    ++failures;
  }
}

}  // namespace ringblas::test
