// Registration entry points of the built-in ops. Each is defined in the op's
// own file; RegisterAllOps calls them from one sorted list.
#ifndef MACE_OPS_REGISTRY_H_
#define MACE_OPS_REGISTRY_H_

#include "mace/core/control_flow.h"  // RegisterControlFlow: If, Loop and Scan
#include "mace/core/converter_registry.h"
#include "mace/core/op_registry.h"

namespace mace {
namespace ops {

// The CPU's storage converters (plain <-> channel blocks).
MaceStatus RegisterCpuConverters(ConverterRegistry* converters);

MaceStatus RegisterActivation(OpRegistry* registry);
MaceStatus RegisterArgMax(OpRegistry* registry);
MaceStatus RegisterAttention(OpRegistry* registry);
MaceStatus RegisterAssign(OpRegistry* registry);
MaceStatus RegisterAxisOps(OpRegistry* registry);
MaceStatus RegisterBatchNorm(OpRegistry* registry);
MaceStatus RegisterBatchToSpaceND(OpRegistry* registry);
MaceStatus RegisterBiasAdd(OpRegistry* registry);
MaceStatus RegisterBitwise(OpRegistry* registry);
MaceStatus RegisterCast(OpRegistry* registry);
MaceStatus RegisterChannelShuffle(OpRegistry* registry);
MaceStatus RegisterConcat(OpRegistry* registry);
MaceStatus RegisterConv2D(OpRegistry* registry);
MaceStatus RegisterConv3D(OpRegistry* registry);
MaceStatus RegisterDeconv2D(OpRegistry* registry);
MaceStatus RegisterDeconv3D(OpRegistry* registry);
MaceStatus RegisterDepthToSpace(OpRegistry* registry);
MaceStatus RegisterDepthwiseConv2d(OpRegistry* registry);
MaceStatus RegisterDequantize(OpRegistry* registry);
MaceStatus RegisterDynamicQuantizedFullyConnected(OpRegistry* registry);
MaceStatus RegisterDropout(OpRegistry* registry);
MaceStatus RegisterEltwise(OpRegistry* registry);
MaceStatus RegisterFullyConnected(OpRegistry* registry);
MaceStatus RegisterGather(OpRegistry* registry);
MaceStatus RegisterGridSample(OpRegistry* registry);
MaceStatus RegisterIdentity(OpRegistry* registry);
MaceStatus RegisterLayerNorm(OpRegistry* registry);
MaceStatus RegisterLocalResponseNorm(OpRegistry* registry);
MaceStatus RegisterLogic(OpRegistry* registry);
MaceStatus RegisterMatMul(OpRegistry* registry);
MaceStatus RegisterMaxPool3D(OpRegistry* registry);
MaceStatus RegisterMaxPoolArgmax(OpRegistry* registry);
MaceStatus RegisterNonMaxSuppression(OpRegistry* registry);
MaceStatus RegisterPad(OpRegistry* registry);
MaceStatus RegisterPooling(OpRegistry* registry);
MaceStatus RegisterQdqLinear(OpRegistry* registry);
MaceStatus RegisterQuantize(OpRegistry* registry);
MaceStatus RegisterRecurrent(OpRegistry* registry);
MaceStatus RegisterReduce(OpRegistry* registry);
MaceStatus RegisterReshape(OpRegistry* registry);
MaceStatus RegisterResizeBilinear(OpRegistry* registry);
MaceStatus RegisterResizeNd(OpRegistry* registry);
MaceStatus RegisterResizeNearestNeighbor(OpRegistry* registry);
MaceStatus RegisterRoiAlign(OpRegistry* registry);
MaceStatus RegisterSlice(OpRegistry* registry);
MaceStatus RegisterSoftmax(OpRegistry* registry);
MaceStatus RegisterSpaceToBatchND(OpRegistry* registry);
MaceStatus RegisterSpaceToDepth(OpRegistry* registry);
MaceStatus RegisterSplit(OpRegistry* registry);
MaceStatus RegisterSqueeze(OpRegistry* registry);
MaceStatus RegisterTranspose(OpRegistry* registry);
MaceStatus RegisterUnary(OpRegistry* registry);

MaceStatus RegisterAllOps(OpRegistry* registry);

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REGISTRY_H_
