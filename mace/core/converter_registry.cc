#include "mace/core/converter_registry.h"

#include <utility>

#include "mace/utils/status.h"

namespace mace {

MaceStatus ConverterRegistry::Register(Converter converter) {
  MACE_CHECK_ARG(converter.factory != nullptr, "converter ", converter.op_type, " has no factory");
  MACE_CHECK_ARG(converter.from != converter.to, "converter ", converter.op_type,
                 " converts a storage to itself (", converter.from.ToString(), ")");
  MACE_CHECK_ARG(Find(converter.from, converter.to) == nullptr, "a converter from ",
                 converter.from.ToString(), " to ", converter.to.ToString(),
                 " is already registered");
  converters_.push_back(std::move(converter));
  return MaceStatus();
}

const Converter* ConverterRegistry::Find(const Storage& from, const Storage& to) const {
  for (const Converter& converter : converters_) {
    if (converter.from == from && converter.to == to) return &converter;
  }
  return nullptr;
}

}  // namespace mace
