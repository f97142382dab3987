// Converters between storages, keyed by (source storage, target storage).
// Each runtime registers the converters its storages need (CPU NCHW <-> its
// own layouts and memory types); the net inserts one wherever a tensor's
// producer and reader disagree on storage: between runtimes, layouts or data
// types. A converter is an ordinary op with one input and one output that
// keeps the logical shape.
#ifndef MACE_CORE_CONVERTER_REGISTRY_H_
#define MACE_CORE_CONVERTER_REGISTRY_H_

#include <string>
#include <vector>

#include "mace/core/op_registry.h"

namespace mace {

struct Converter {
  Storage from;
  Storage to;
  DeviceType device = DeviceType::CPU;  // the runtime that runs it
  std::string op_type;                  // for reports and VLOG
  OpFactory factory;
};

class ConverterRegistry {
 public:
  // Fails if a converter for the same pair exists.
  MaceStatus Register(Converter converter);
  // Null when no converter takes `from` to `to`.
  const Converter* Find(const Storage& from, const Storage& to) const;
  int size() const { return static_cast<int>(converters_.size()); }

 private:
  std::vector<Converter> converters_;
};

}  // namespace mace

#endif  // MACE_CORE_CONVERTER_REGISTRY_H_
