// Splits an op's fused activation into what the micro-kernels apply in
// registers and what needs a separate pass over the output.
#ifndef MACE_OPS_CPU_FUSED_ACTIVATION_H_
#define MACE_OPS_CPU_FUSED_ACTIVATION_H_

#include <cstdint>

#include "mace/ops/common/activation.h"
#include "mace/ops/cpu/micro_kernels.h"
#include "mace/runtimes/cpu/thread_pool.h"

namespace mace {
namespace ops {

// Sets epilogue->activation, lo and hi. Returns false when `activation`
// (sigmoid, tanh, leaky ReLU, hard sigmoid) cannot be fused; the epilogue
// then applies none and the caller runs ApplyActivation afterwards.
bool FuseActivation(const Activation& activation, TileEpilogue* epilogue);

// Applies `activation` in place to `count` values, split across the pool.
void ApplyActivation(const Activation& activation, float* data, int64_t count, ThreadPool* pool);

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_FUSED_ACTIVATION_H_
