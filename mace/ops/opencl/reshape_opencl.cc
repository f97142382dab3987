// Reshape, Squeeze and Identity on the OpenCL runtime: the same elements
// in row-major order under the output's shape, copied between activation
// images (whose layouts differ between the two shapes).
#include "mace/ops/identity.h"
#include "mace/ops/reshape.h"
#include "mace/ops/squeeze.h"
#include "mace/ops/opencl/kernels.h"
#include "mace/ops/opencl/remap.h"

namespace mace {
namespace opencl {
namespace {

template <typename Base>
class FlatCopyOpenCL : public RemapOp<Base> {
 protected:
  RemapArgs ArgsFor(int /*output*/) const override { return RemapArgs(); }
};

}  // namespace

MaceStatus RegisterReshapeOpenCL(OpRegistry* registry) {
  MACE_RETURN_IF_ERROR(RegisterOp<FlatCopyOpenCL<ops::IdentityBase>>(registry, "Identity",
                                                                    DeviceType::GPU, DT_FLOAT));
  MACE_RETURN_IF_ERROR(RegisterOp<FlatCopyOpenCL<ops::ReshapeBase>>(registry, "Reshape",
                                                                   DeviceType::GPU, DT_FLOAT));
  return RegisterOp<FlatCopyOpenCL<ops::SqueezeBase>>(registry, "Squeeze", DeviceType::GPU,
                                                      DT_FLOAT);
}

}  // namespace opencl
}  // namespace mace
