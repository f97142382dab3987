// Maps (op type, device, data type) to a kernel factory, and (producer
// type, consumer type, device, data type) to a fusion function. Registration
// is explicit: each op file defines RegisterXxx(OpRegistry*), and
// mace/ops/registry.cc (or a model-specific registry) calls them all from
// one sorted list. An op library registers the fusions whose kernels it
// owns, next to its kernels, so a registry holds a fusion only when it
// links that library.
#ifndef MACE_CORE_OP_REGISTRY_H_
#define MACE_CORE_OP_REGISTRY_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "mace/core/operation.h"

namespace mace {

using OpFactory = std::function<std::unique_ptr<Operation>()>;

// Fusion of `producer` with `consumer`, the one op that reads producer's
// output 0, once the layout plan has set every tensor's storage and before
// UseStorage (Net::FuseBlockedReaders). Both ops are kernels the registry
// made for the key's types, device and data type, so the function may
// static_cast them to the classes it registered. It returns true when
// `producer` also computes `consumer`'s work and kept what it needs of it
// (its weights stay in the workspace); the net then rebinds producer's
// output 0 to consumer's output and drops consumer, which never runs, and
// the tensor between them gets no memory. False leaves both as they are.
using FusionFn = std::function<bool(Operation* producer, const Operation& consumer)>;

// What a net hands the control-flow ops (If, Loop, Scan) it makes, for the
// subgraph nets they build (mace/core/control_flow.h).
struct ControlFlowArgs;
using ControlFlowFactory = std::unique_ptr<Operation> (*)(const ControlFlowArgs& args);

class OpRegistry {
 public:
  // Fails if the key is already taken, so two kernels never race silently.
  MaceStatus Register(const std::string& type, DeviceType device, DataType dtype,
                      OpFactory factory);
  bool Has(const std::string& type, DeviceType device, DataType dtype) const;
  // Returns nullptr when no kernel is registered for the key.
  std::unique_ptr<Operation> Create(const std::string& type, DeviceType device,
                                    DataType dtype) const;
  std::vector<std::string> OpTypes() const;

  // Fails if the pair already has a fusion for the device and type.
  MaceStatus RegisterFusion(const std::string& producer, const std::string& consumer,
                            DeviceType device, DataType dtype, FusionFn fusion);
  // Null when no fusion is registered for the pair's kernels.
  const FusionFn* FindFusion(const std::string& producer, const std::string& consumer,
                             DeviceType device, DataType dtype) const;

  // The control-flow ops' factory: set by RegisterControlFlow
  // (control_flow.h), which the full registry calls, and a model-specific
  // one only when its models have control flow. Null otherwise: the
  // control-flow ops' code is then not linked, and a model with one of
  // them is refused.
  void set_control_flow(ControlFlowFactory factory) { control_flow_ = factory; }
  ControlFlowFactory control_flow() const { return control_flow_; }

 private:
  using Key = std::tuple<std::string, DeviceType, DataType>;
  std::map<Key, OpFactory> factories_;
  using FusionKey = std::tuple<std::string, std::string, DeviceType, DataType>;
  std::map<FusionKey, FusionFn> fusions_;
  ControlFlowFactory control_flow_ = nullptr;
};

template <typename OpClass>
MaceStatus RegisterOp(OpRegistry* registry, const std::string& type, DeviceType device,
                      DataType dtype) {
  return registry->Register(type, device, dtype,
                            [] { return std::unique_ptr<Operation>(new OpClass()); });
}

}  // namespace mace

#endif  // MACE_CORE_OP_REGISTRY_H_
