// The op registry of the sanitizer smoke runs (tools/test.sh builds them
// with --define=mace_op_set=sanitizer_smoke): the ops that the tests under
// AddressSanitizer and ThreadSanitizer create, and MobileNet v2's, which
// the corrupt-model cases run. Those runs then compile these ops' kernels
// with the sanitizers instead of every op's. An op a test needs and this
// list lacks fails that test as an unknown op type; `tools/test.sh
// --asan-all` builds every op as usual.
#include "mace/ops/op_set.h"
#include "mace/ops/registry.h"

namespace mace {
namespace ops {

MaceStatus RegisterAllOps(OpRegistry* registry) {
  using RegisterFn = MaceStatus (*)(OpRegistry*);
  static const RegisterFn kRegisterFns[] = {
      RegisterActivation,
      RegisterArgMax,
      RegisterAssign,
      RegisterBiasAdd,
      RegisterChannelShuffle,
      RegisterConcat,
      RegisterControlFlow,
      RegisterConv2D,
      RegisterDeconv2D,
      RegisterDepthwiseConv2d,
      RegisterDequantize,
      RegisterEltwise,
      RegisterFullyConnected,
      RegisterGather,
      RegisterIdentity,
      RegisterMatMul,
      RegisterNonMaxSuppression,
      RegisterPad,
      RegisterPooling,
      RegisterQuantize,
      RegisterReduce,
      RegisterReshape,
      RegisterResizeBilinear,
      RegisterSlice,
      RegisterSoftmax,
      RegisterSplit,
      RegisterSqueeze,
      RegisterTranspose,
  };
  for (RegisterFn fn : kRegisterFns) MACE_RETURN_IF_ERROR(fn(registry));
  return MaceStatus();
}

// Unknown ops get the full library's error, as the tests expect.
const char* ModelSpecificOpSet() { return nullptr; }

}  // namespace ops
}  // namespace mace
