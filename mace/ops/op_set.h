// Which built-in ops a library registers. mace/ops/registry.cc registers
// every op; a deployment with model_specific_library: 1 links a registry the
// converter generates instead (mace/codegen/op_registry/), with only the
// ops its models use, and the engine names the op a model needs but the
// library left out.
#ifndef MACE_OPS_OP_SET_H_
#define MACE_OPS_OP_SET_H_

namespace mace {
namespace ops {

// Null when every built-in op is registered; else the name of the
// deployment whose models' ops are the only ones.
const char* ModelSpecificOpSet();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_OP_SET_H_
