#include "mace/ops/opencl/kernels.h"

namespace mace {
namespace opencl {

MaceStatus RegisterOpenCLKernels(OpRegistry* registry, ConverterRegistry* converters) {
  MACE_RETURN_IF_ERROR(RegisterActivationOpenCL(registry));
  MACE_RETURN_IF_ERROR(RegisterBatchNormOpenCL(registry));
  MACE_RETURN_IF_ERROR(RegisterBatchToSpaceNDOpenCL(registry));
  MACE_RETURN_IF_ERROR(RegisterBiasAddOpenCL(registry));
  MACE_RETURN_IF_ERROR(RegisterChannelShuffleOpenCL(registry));
  MACE_RETURN_IF_ERROR(RegisterConcatOpenCL(registry));
  MACE_RETURN_IF_ERROR(RegisterConv2DOpenCL(registry));
  MACE_RETURN_IF_ERROR(RegisterDeconv2DOpenCL(registry));
  MACE_RETURN_IF_ERROR(RegisterDepthToSpaceOpenCL(registry));
  MACE_RETURN_IF_ERROR(RegisterDepthwiseConv2dOpenCL(registry));
  MACE_RETURN_IF_ERROR(RegisterEltwiseOpenCL(registry));
  MACE_RETURN_IF_ERROR(RegisterFullyConnectedOpenCL(registry));
  MACE_RETURN_IF_ERROR(RegisterLocalResponseNormOpenCL(registry));
  MACE_RETURN_IF_ERROR(RegisterMatMulOpenCL(registry));
  MACE_RETURN_IF_ERROR(RegisterPadOpenCL(registry));
  MACE_RETURN_IF_ERROR(RegisterPoolingOpenCL(registry));
  MACE_RETURN_IF_ERROR(RegisterReduceOpenCL(registry));
  MACE_RETURN_IF_ERROR(RegisterReshapeOpenCL(registry));
  MACE_RETURN_IF_ERROR(RegisterResizeBilinearOpenCL(registry));
  MACE_RETURN_IF_ERROR(RegisterResizeNearestNeighborOpenCL(registry));
  MACE_RETURN_IF_ERROR(RegisterSliceOpenCL(registry));
  MACE_RETURN_IF_ERROR(RegisterSoftmaxOpenCL(registry));
  MACE_RETURN_IF_ERROR(RegisterSpaceToBatchNDOpenCL(registry));
  MACE_RETURN_IF_ERROR(RegisterSpaceToDepthOpenCL(registry));
  MACE_RETURN_IF_ERROR(RegisterSplitOpenCL(registry));
  return RegisterImageConverters(converters);
}

}  // namespace opencl
}  // namespace mace
