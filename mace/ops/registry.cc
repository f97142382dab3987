#include "mace/ops/registry.h"

#include "mace/ops/op_set.h"

namespace mace {
namespace ops {

MaceStatus RegisterAllOps(OpRegistry* registry) {
  using RegisterFn = MaceStatus (*)(OpRegistry*);
  static const RegisterFn kRegisterFns[] = {
      RegisterActivation,
      RegisterArgMax,
      RegisterAttention,
      RegisterAssign,
      RegisterAxisOps,
      RegisterBatchNorm,
      RegisterBatchToSpaceND,
      RegisterBiasAdd,
      RegisterBitwise,
      RegisterCast,
      RegisterChannelShuffle,
      RegisterConcat,
      RegisterControlFlow,
      RegisterConv2D,
      RegisterConv3D,
      RegisterDeconv2D,
      RegisterDeconv3D,
      RegisterDepthToSpace,
      RegisterDepthwiseConv2d,
      RegisterDequantize,
      RegisterDynamicQuantizedFullyConnected,
      RegisterDropout,
      RegisterEltwise,
      RegisterFullyConnected,
      RegisterGather,
      RegisterGridSample,
      RegisterIdentity,
      RegisterLayerNorm,
      RegisterLocalResponseNorm,
      RegisterLogic,
      RegisterMatMul,
      RegisterMaxPool3D,
      RegisterMaxPoolArgmax,
      RegisterNonMaxSuppression,
      RegisterPad,
      RegisterPooling,
      RegisterQdqLinear,
      RegisterQuantize,
      RegisterRecurrent,
      RegisterReduce,
      RegisterReshape,
      RegisterResizeBilinear,
      RegisterResizeNd,
      RegisterResizeNearestNeighbor,
      RegisterRoiAlign,
      RegisterSlice,
      RegisterSoftmax,
      RegisterSpaceToBatchND,
      RegisterSpaceToDepth,
      RegisterSplit,
      RegisterSqueeze,
      RegisterTranspose,
      RegisterUnary,
  };
  for (RegisterFn fn : kRegisterFns) MACE_RETURN_IF_ERROR(fn(registry));
  return MaceStatus();
}

const char* ModelSpecificOpSet() { return nullptr; }

}  // namespace ops
}  // namespace mace
