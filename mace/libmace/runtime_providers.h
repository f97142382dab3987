// How the engine gets a runtime for a device, and that runtime's kernels
// and storage converters. Each runtime the library is built with has one
// provider, listed in runtime_providers.cc; the engine never names a
// runtime class itself.
#ifndef MACE_LIBMACE_RUNTIME_PROVIDERS_H_
#define MACE_LIBMACE_RUNTIME_PROVIDERS_H_

#include <functional>
#include <memory>

#include "mace/core/converter_registry.h"
#include "mace/core/executor.h"
#include "mace/core/net.h"
#include "mace/core/op_registry.h"
#include "mace/core/runtime.h"
#include "mace/public/mace.h"

namespace mace {

struct RuntimeProvider {
  // Makes the runtime for an engine's config (not yet initialized).
  std::function<MaceStatus(const MaceEngineConfig&, std::unique_ptr<Runtime>*)> create;
  // Adds the runtime's kernels and the converters of its storages.
  std::function<MaceStatus(OpRegistry*, ConverterRegistry*)> register_kernels;
  // A device that runs whole graphs (the Hexagon DSP) sets this instead of
  // the two above: it takes the CPU net the engine built and initialized
  // for the model (shapes inferred, weights bound) and returns the
  // device's executor, which the engine then initializes.
  std::function<MaceStatus(const MaceEngineConfig&, std::unique_ptr<Net>,
                           std::unique_ptr<Executor>*)>
      wrap_net;
};

// The provider for `device`, or null when this library has none.
const RuntimeProvider* FindRuntimeProvider(DeviceType device);

// Installs `provider` for `device` in this process, replacing any other:
// tests plug in runtimes of their own this way. Not safe while engines are
// being created on other threads.
void SetRuntimeProviderForTesting(DeviceType device, RuntimeProvider provider);

}  // namespace mace

#endif  // MACE_LIBMACE_RUNTIME_PROVIDERS_H_
