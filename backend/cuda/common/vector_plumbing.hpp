// Sparse-vector plumbing shared by every cuda operation on vectors (mxv, vxm, element-wise, apply,
// reduce): u scattered to dense form or narrowed to a
// 32-bit index list, the mask as a dense admit flag per position, and the write-back
// w<m, replace> = w accum t with compaction back to a sparse vector (CUB DeviceSelect).
#pragma once
#include "ringblas/buffer.hpp"
#include "ringblas/context.hpp"
#include "ringblas/descriptor.hpp"
#include "ringblas/matrix.hpp"

namespace ringblas::cuda::detail {

/// v itself when it is on the device, else its device copy (counted) held in `hold`: a device
/// operand is read in place (copying a Vector copies its buffers, with a host wait).
const Vector& on_device(const Vector& v, Vector& hold, Context& ctx);
/// u (on the device) as dense values in `type` (nullptr dense: values skipped) and presence
/// flags (nullptr present: not written).
void scatter_vector(const Vector& u, Type type, void* dense, unsigned char* present, Context& ctx);
/// u's values (on the device) cast to `type` in a new buffer.
Buffer vector_values_as(const Vector& u, Type type, Context& ctx);
/// 64-bit indices narrowed to 32 bits.
Buffer narrow_indices(const Buffer& idx, Index count, Context& ctx);
/// One byte per position of an n-vector: 1 where C<mask> admits it (after complement). An empty
/// buffer means every position is admitted (no mask, no complement).
Buffer mask_admit(const Vector* mask, Index n, bool structural, bool complement, Context& ctx);
/// The new w (on the device): w<admit, replace> = w accum t, with t dense in t_type over w's
/// positions (t_values valid where t_present). Accumulators: every non-positional operator, at
/// w's type (NotImplemented for positional ones).
Vector write_back(const Vector& w_old, const void* t_values, Type t_type,
                  const unsigned char* t_present, const unsigned char* admit, Accum accum,
                  bool replace, Context& ctx);
/// The sparse vector (on the device) of the positions i < n where flags[i] is set, with values
/// vals[i] (dense, of `type`): one CUB DeviceSelect pass. `count`: how many flags are set when
/// the caller knows it (reduce's row kernel counts them), else -1: counted here first, with one
/// 8-byte read to the host (a host wait), so that the arrays are allocated at their size.
Vector compact_flagged(Index n, Type type, const void* vals, const unsigned char* flags,
                       long long count, Context& ctx);
/// Whether write_back(w_old, t, ..., admit, accum, ...) would return t itself as a sparse vector:
/// no mask (admit null) and no accumulator, or a non-positional one into an empty w (nothing to
/// accumulate with). t's type must be w's. reduce's fused output path is taken only then.
bool write_back_copies_t(const Vector& w_old, const unsigned char* admit, Accum accum);
/// write_back's case where w stays full, done in place: w full on the device (nnz = size > 0),
/// no mask, a (non-positional) accumulator: every position keeps its entry, so only w's values
/// change, w(i) = w(i) accum t(i) where t_present -- one pass, no allocation but t's cast
/// (PageRank's ranks, FastSV's labels; issue 9, per-call cost). False, having done nothing,
/// otherwise (write_back then builds the new w).
bool accumulate_in_place(Vector& w, const void* t_values, Type t_type,
                         const unsigned char* t_present, const unsigned char* admit, Accum accum,
                         Context& ctx);

}  // namespace ringblas::cuda::detail
