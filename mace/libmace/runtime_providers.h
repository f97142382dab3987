// How the engine gets a runtime for a device, and that runtime's kernels
// and storage converters. Each runtime the library is built with has one
// provider, listed in runtime_providers.cc; the engine never names a
// runtime class itself.
#ifndef MACE_LIBMACE_RUNTIME_PROVIDERS_H_
#define MACE_LIBMACE_RUNTIME_PROVIDERS_H_

#include <functional>
#include <memory>

#include "mace/core/converter_registry.h"
#include "mace/core/op_registry.h"
#include "mace/core/runtime.h"
#include "mace/public/mace.h"

namespace mace {

struct RuntimeProvider {
  // Makes the runtime for an engine's config (not yet initialized).
  std::function<MaceStatus(const MaceEngineConfig&, std::unique_ptr<Runtime>*)> create;
  // Adds the runtime's kernels and the converters of its storages.
  std::function<MaceStatus(OpRegistry*, ConverterRegistry*)> register_kernels;
};

// The provider for `device`, or null when this library has none.
const RuntimeProvider* FindRuntimeProvider(DeviceType device);

// Installs `provider` for `device` in this process, replacing any other:
// tests plug in runtimes of their own this way. Not safe while engines are
// being created on other threads.
void SetRuntimeProviderForTesting(DeviceType device, RuntimeProvider provider);

}  // namespace mace

#endif  // MACE_LIBMACE_RUNTIME_PROVIDERS_H_
