// Maps (op type, device, data type) to a kernel factory. Registration is
// explicit: each op file defines RegisterXxx(OpRegistry*), and
// mace/ops/registry.cc calls them all from one sorted list.
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

 private:
  using Key = std::tuple<std::string, DeviceType, DataType>;
  std::map<Key, OpFactory> factories_;
};

template <typename OpClass>
MaceStatus RegisterOp(OpRegistry* registry, const std::string& type, DeviceType device,
                      DataType dtype) {
  return registry->Register(type, device, dtype,
                            [] { return std::unique_ptr<Operation>(new OpClass()); });
}

}  // namespace mace

#endif  // MACE_CORE_OP_REGISTRY_H_
