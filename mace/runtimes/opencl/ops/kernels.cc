#include "mace/runtimes/opencl/ops/kernels.h"

namespace mace {
namespace opencl {

MaceStatus RegisterOpenCLKernels(OpRegistry* registry, ConverterRegistry* converters) {
  MACE_RETURN_IF_ERROR(RegisterActivationOpenCL(registry));
  MACE_RETURN_IF_ERROR(RegisterBatchNormOpenCL(registry));
  MACE_RETURN_IF_ERROR(RegisterBiasAddOpenCL(registry));
  MACE_RETURN_IF_ERROR(RegisterConcatOpenCL(registry));
  MACE_RETURN_IF_ERROR(RegisterConv2DOpenCL(registry));
  MACE_RETURN_IF_ERROR(RegisterDepthwiseConv2dOpenCL(registry));
  MACE_RETURN_IF_ERROR(RegisterEltwiseOpenCL(registry));
  MACE_RETURN_IF_ERROR(RegisterFullyConnectedOpenCL(registry));
  MACE_RETURN_IF_ERROR(RegisterPoolingOpenCL(registry));
  MACE_RETURN_IF_ERROR(RegisterSoftmaxOpenCL(registry));
  return RegisterImageConverters(converters);
}

}  // namespace opencl
}  // namespace mace
