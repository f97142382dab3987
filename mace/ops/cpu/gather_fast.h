// The fast CPU kernel of Gather along one axis (mace/ops/ref/gather.h's
// GatherParams): output rows split over the thread pool, single values
// copied by plain loads and stores rather than a library call each.
#ifndef MACE_OPS_CPU_GATHER_FAST_H_
#define MACE_OPS_CPU_GATHER_FAST_H_

#include <cstdint>

#include "mace/ops/ref/gather.h"
#include "mace/runtimes/cpu/thread_pool.h"

namespace mace {
namespace ops {

// output[o, j, :] = data[o, indices[j], :] for o < outer, j < count; the
// indices are already checked and non-negative. Equal to ref::Gather bit for
// bit. A null pool runs on the calling thread.
void GatherFast(const ref::GatherParams& params, const float* data, const int64_t* indices,
                float* output, ThreadPool* pool);

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_GATHER_FAST_H_
