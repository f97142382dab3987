// The fast CPU kernel of Transpose (mace/ops/ref/transpose.h's
// TransposeParams). Dimensions of extent 1 are dropped and output
// dimensions that stay neighbours in the input are merged first, so most
// transposes of a model become one of three loops:
// - rows: the innermost output dimension is contiguous in the input (an
//   attention head split, [B, S, H, D] -> [B, H, S, D]): one memcpy per row;
// - tiles: the last two output dimensions swap (a matrix transpose, NCHW <->
//   NHWC, [.., S, D] -> [.., D, S]): 16 x 16 blocks, so both sides stay in
//   cache;
// - otherwise a strided gather along the innermost output dimension.
// The work is split over the thread pool by output rows.
#ifndef MACE_OPS_CPU_TRANSPOSE_FAST_H_
#define MACE_OPS_CPU_TRANSPOSE_FAST_H_

#include "mace/ops/ref/transpose.h"
#include "mace/runtimes/cpu/thread_pool.h"

namespace mace {
namespace ops {

// Equal to ref::Transpose byte for byte, for any element size. A null pool
// runs on the calling thread.
void TransposeFast(const ref::TransposeParams& params, const void* input, void* output,
                   ThreadPool* pool);

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_TRANSPOSE_FAST_H_
