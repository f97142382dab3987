// Cast: converts each element of a float tensor of any rank to the value
// the element type named by `to` holds for it (see ref::CastType and
// mace/ops/ref/cast.h for the rounding of each type), and keeps it in
// float32. `saturate` (default 1) applies to the float8 types; `truncate`
// (default 0) makes BFLOAT16 drop the low bits instead of rounding. The output
// may take over the input's memory.
//
// CastBase is the device-neutral part; the CPU kernel is the reference one
// (mace/ops/cpu/cast_cpu.cc). No other runtime has a kernel, so the op falls
// back to the CPU there.
#ifndef MACE_OPS_CAST_H_
#define MACE_OPS_CAST_H_

#include "mace/core/operation.h"
#include "mace/ops/ref/cast.h"

namespace mace {
namespace ops {

class CastBase : public Operation {
 public:
  MaceStatus Init() override;
  int InPlaceInput() const override { return 0; }

 protected:
  MaceStatus InferShapes();
  const ref::CastParams& params() const { return params_; }

 private:
  ref::CastParams params_;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CAST_H_
