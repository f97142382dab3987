// Pad: grows each dimension by a leading and a trailing pad, filled with a
// constant or taken from the input by reflection, symmetric mirroring or edge
// replication. Works on any rank; `paddings` lists [before, after] per
// dimension.
//
// PadBase is the device-neutral part: arguments (Init) and shapes
// (InferShapes), shared by every device's kernel. The CPU kernel is
// mace/ops/cpu/pad_cpu.cc.
#ifndef MACE_OPS_PAD_H_
#define MACE_OPS_PAD_H_

#include <vector>

#include "mace/core/operation.h"
#include "mace/ops/ref/pad.h"

namespace mace {
namespace ops {

class PadBase : public Operation {
 public:
  MaceStatus Init() override;

 protected:
  // Checks the input's type and shape against the paddings, fills params()
  // and sets the output's shape.
  MaceStatus InferShapes();
  const ref::PadParams& params() const { return params_; }

 private:
  std::vector<int64_t> paddings_;
  ref::PadParams params_;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_PAD_H_
