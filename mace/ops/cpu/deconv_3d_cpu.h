// The CPU kernel of Deconv3D (mace/ops/deconv_3d.h).
#ifndef MACE_OPS_CPU_DECONV_3D_CPU_H_
#define MACE_OPS_CPU_DECONV_3D_CPU_H_

#include <memory>

#include "mace/core/operation.h"
#include "mace/ops/ref/deconv_3d.h"
#include "mace/runtimes/cpu/thread_pool.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewDeconv3DCpu();

// Arguments as in ref::Deconv3D; pool may be null. A scatter: each
// (batch, output channel) plane starts at the bias, then every input voxel
// of its group adds its products with the filter taps to the voxels they
// reach. Planes are split over threads, so no two threads write one voxel.
void Deconv3DScatter(const ref::Deconv3DParams& params, const float* input, const float* filter,
                     const float* bias, float* output, ThreadPool* pool);

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_DECONV_3D_CPU_H_
