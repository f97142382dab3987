// The OpenCL runtime's kernels and storage converters, registered for
// DeviceType::GPU. One function per op file; RegisterOpenCLKernels calls
// them all from one sorted list.
#ifndef MACE_OPS_OPENCL_KERNELS_H_
#define MACE_OPS_OPENCL_KERNELS_H_

#include "mace/core/converter_registry.h"
#include "mace/core/op_registry.h"

namespace mace {
namespace opencl {

MaceStatus RegisterActivationOpenCL(OpRegistry* registry);
MaceStatus RegisterBatchNormOpenCL(OpRegistry* registry);
MaceStatus RegisterBatchToSpaceNDOpenCL(OpRegistry* registry);
MaceStatus RegisterBiasAddOpenCL(OpRegistry* registry);
MaceStatus RegisterChannelShuffleOpenCL(OpRegistry* registry);
MaceStatus RegisterConcatOpenCL(OpRegistry* registry);
MaceStatus RegisterConv2DOpenCL(OpRegistry* registry);
MaceStatus RegisterDeconv2DOpenCL(OpRegistry* registry);
MaceStatus RegisterDepthToSpaceOpenCL(OpRegistry* registry);
MaceStatus RegisterDepthwiseConv2dOpenCL(OpRegistry* registry);
MaceStatus RegisterEltwiseOpenCL(OpRegistry* registry);
MaceStatus RegisterFullyConnectedOpenCL(OpRegistry* registry);
MaceStatus RegisterLocalResponseNormOpenCL(OpRegistry* registry);
MaceStatus RegisterMatMulOpenCL(OpRegistry* registry);
MaceStatus RegisterPadOpenCL(OpRegistry* registry);
MaceStatus RegisterPoolingOpenCL(OpRegistry* registry);
MaceStatus RegisterReduceOpenCL(OpRegistry* registry);
MaceStatus RegisterReshapeOpenCL(OpRegistry* registry);
MaceStatus RegisterResizeBilinearOpenCL(OpRegistry* registry);
MaceStatus RegisterResizeNearestNeighborOpenCL(OpRegistry* registry);
MaceStatus RegisterSliceOpenCL(OpRegistry* registry);
MaceStatus RegisterSoftmaxOpenCL(OpRegistry* registry);
MaceStatus RegisterSpaceToBatchNDOpenCL(OpRegistry* registry);
MaceStatus RegisterSpaceToDepthOpenCL(OpRegistry* registry);
MaceStatus RegisterSplitOpenCL(OpRegistry* registry);
MaceStatus RegisterImageConverters(ConverterRegistry* converters);

// Everything above.
MaceStatus RegisterOpenCLKernels(OpRegistry* registry, ConverterRegistry* converters);

}  // namespace opencl
}  // namespace mace

#endif  // MACE_OPS_OPENCL_KERNELS_H_
