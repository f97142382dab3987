// The kernel BatchNorm and BiasAdd share on the OpenCL runtime
// (cl/batch_norm.cl): output = activation(input * scale + offset) per
// channel, scale and offset constant [C] tensors uploaded once.
#ifndef MACE_RUNTIMES_OPENCL_OPS_CHANNEL_AFFINE_H_
#define MACE_RUNTIMES_OPENCL_OPS_CHANNEL_AFFINE_H_

#include <memory>
#include <string>
#include <vector>

#include "mace/core/operation.h"
#include "mace/ops/common/activation.h"
#include "mace/runtimes/opencl/opencl_runtime.h"

namespace mace {
namespace opencl {

class ChannelAffine {
 public:
  // Uploads the per-channel values (an empty scale: 1) on the first call.
  MaceStatus Prepare(Runtime* runtime, const std::string& name, const std::vector<float>& scale,
                     const std::vector<float>& offset);
  MaceStatus Run(const Tensor& input, const Tensor& output, const ops::Activation& activation);

 private:
  std::unique_ptr<Memory> scale_;
  std::unique_ptr<Memory> offset_;
  Kernel kernel_;
};

}  // namespace opencl
}  // namespace mace

#endif  // MACE_RUNTIMES_OPENCL_OPS_CHANNEL_AFFINE_H_
