// Fast paths of Compare, Mod and Where (mace/ops/logic.h) for the common
// case where every operand either has the output's shape or holds a single
// value: one flat loop per type, which the compiler vectorizes, instead of
// the reference's per-element index walk.
#ifndef MACE_OPS_CPU_LOGIC_FAST_H_
#define MACE_OPS_CPU_LOGIC_FAST_H_

#include "mace/ops/ref/logic.h"

namespace mace {
namespace ops {

// Each returns false, writing nothing, when an operand broadcasts in any
// other way; the caller then runs the reference kernel.
bool CompareFlat(ref::CompareType type, const ref::BroadcastParams& params, const float* a,
                 const float* b, float* output);
bool ModFlat(bool fmod, const ref::BroadcastParams& params, const float* a, const float* b,
             float* output);
bool WhereFlat(const ref::BroadcastParams& params, const float* condition, const float* x,
               const float* y, float* output);

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_LOGIC_FAST_H_
