#include "mace/core/op_registry.h"

#include <set>

namespace mace {

MaceStatus OpRegistry::Register(const std::string& type, DeviceType device, DataType dtype,
                                OpFactory factory) {
  Key key(type, device, dtype);
  if (factories_.count(key) > 0) {
    return MaceStatus(MaceStatus::MACE_INVALID_ARGS,
                      StrCat("op '", type, "' is registered twice for the same device and type"));
  }
  factories_.emplace(std::move(key), std::move(factory));
  return MaceStatus();
}

bool OpRegistry::Has(const std::string& type, DeviceType device, DataType dtype) const {
  return factories_.count(Key(type, device, dtype)) > 0;
}

std::unique_ptr<Operation> OpRegistry::Create(const std::string& type, DeviceType device,
                                              DataType dtype) const {
  auto it = factories_.find(Key(type, device, dtype));
  if (it == factories_.end()) return nullptr;
  std::unique_ptr<Operation> op = it->second();
  if (op != nullptr) op->set_kernel_dtype(dtype);
  return op;
}

std::vector<std::string> OpRegistry::OpTypes() const {
  std::set<std::string> types;
  for (const auto& entry : factories_) types.insert(std::get<0>(entry.first));
  return std::vector<std::string>(types.begin(), types.end());
}

MaceStatus OpRegistry::RegisterFusion(const std::string& producer, const std::string& consumer,
                                      DeviceType device, DataType dtype, FusionFn fusion) {
  FusionKey key(producer, consumer, device, dtype);
  if (fusions_.count(key) > 0) {
    return MaceStatus(MaceStatus::MACE_INVALID_ARGS,
                      StrCat("the fusion of '", producer, "' with its reader '", consumer,
                             "' is registered twice for the same device and type"));
  }
  fusions_.emplace(std::move(key), std::move(fusion));
  return MaceStatus();
}

const FusionFn* OpRegistry::FindFusion(const std::string& producer, const std::string& consumer,
                                       DeviceType device, DataType dtype) const {
  auto it = fusions_.find(FusionKey(producer, consumer, device, dtype));
  return it != fusions_.end() ? &it->second : nullptr;
}

}  // namespace mace
