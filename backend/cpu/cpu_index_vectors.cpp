// cpu executor of the operations with vector index lists: the sorting permutation by
// GxB_Vector_sort, and the host index list of a vector (extract then runs as with Indices).
#include "backend/cpu/cpu_index_vectors.hpp"

#include <string>

#include "backend/cpu/cpu_common.hpp"
#include "ringblas/error.hpp"

namespace ringblas::cpu {

using namespace detail;

Indices indices_of(const Vector& v) {
  require_host(v.location(), "cpu::indices_of", "index list");
  Indices ix;
  if (v.type() == Type::int32) {
    const std::vector<std::int32_t> vals = v.values_vector<std::int32_t>();
    ix.list.assign(vals.begin(), vals.end());
  } else if (v.type() == Type::int64) {
    ix.list = v.values_vector<std::int64_t>();
  } else {
    throw InvalidValue("cpu::indices_of: an index list must be int32 or int64, it is " +
                       std::string(type_name(v.type())));
  }
  return ix;
}

namespace {
GrB_BinaryOp comparator(Type t, bool descending) {
  switch (t) {
    case Type::boolean:
      return descending ? GrB_GT_BOOL : GrB_LT_BOOL;
    case Type::int32:
      return descending ? GrB_GT_INT32 : GrB_LT_INT32;
    case Type::int64:
      return descending ? GrB_GT_INT64 : GrB_LT_INT64;
    case Type::fp32:
      return descending ? GrB_GT_FP32 : GrB_LT_FP32;
    case Type::fp64:
      return descending ? GrB_GT_FP64 : GrB_LT_FP64;
  }
  throw InvalidValue("cpu::sort_permutation: unknown type");
}
}  // namespace

void sort_permutation(Vector& p, const Vector& u, bool descending, Context&) {
  constexpr std::string_view where = "cpu::sort_permutation";
  vector_ptr a = to_grb(u, where);
  write_vector(p, false, where, [&](GrB_Vector c) {
    RINGBLAS_GRB_TRY(
        where, c, GxB_Vector_sort(nullptr, c, comparator(u.type(), descending), a.get(), nullptr));
  });
}

}  // namespace ringblas::cpu
