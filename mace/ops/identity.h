// Identity: output = input. Converters remove most of them; the ones left
// alias their input, so they cost a copy only when aliasing is not legal.
//
// IdentityBase is the device-neutral part: arguments (Init) and shapes
// (InferShapes), shared by every device's kernel. The CPU kernel is
// mace/ops/cpu/identity_cpu.cc.
#ifndef MACE_OPS_IDENTITY_H_
#define MACE_OPS_IDENTITY_H_

#include "mace/core/operation.h"

namespace mace {
namespace ops {

class IdentityBase : public Operation {
 public:
  MaceStatus Init() override;

 protected:
  // Gives the output the input's shape.
  MaceStatus InferShapes();
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_IDENTITY_H_
