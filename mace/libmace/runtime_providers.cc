#include "mace/libmace/runtime_providers.h"

#include <cmath>
#include <map>
#include <mutex>
#include <string>

#include "mace/libmace/context_impl.h"
#include "mace/ops/cpu/kernel_table.h"
#include "mace/ops/registry.h"
#include "mace/runtimes/cpu/cpu_features.h"
#include "mace/runtimes/cpu/cpu_runtime.h"
#ifndef MACE_CPU_ONLY
#include "mace/runtimes/hexagon/hexagon_executor.h"
#include "mace/runtimes/opencl/opencl_runtime.h"
#include "mace/ops/opencl/kernels.h"
#endif
#include "mace/utils/logging.h"
#include "mace/utils/status.h"

namespace mace {
namespace {

// The kernel family a config names, if this CPU and build have it.
MaceStatus ChooseKernelIsa(const std::string& family, KernelIsa* isa) {
  if (family.empty() || family == "auto") {
    *isa = ActiveKernelIsa();
    return MaceStatus();
  }
  const std::map<std::string, KernelIsa> names = {{"ref", KernelIsa::kReference},
                                                  {"neon", KernelIsa::kNeon},
                                                  {"avx2", KernelIsa::kAvx2Fma},
                                                  {"avx512", KernelIsa::kAvx512}};
  auto it = names.find(family);
  MACE_CHECK_ARG(it != names.end(), "unknown CPU kernel family '", family,
                 "' (use auto, ref, neon, avx2 or avx512)");
  MACE_UNSUPPORTED_IF(
      it->second != KernelIsa::kReference && !SupportsKernelIsa(HostCpuFeatures(), it->second),
      "this CPU or build has no ", family, " kernels");
  *isa = it->second;
  return MaceStatus();
}

// The layout and fusion choices of a config, with the environment's
// debugging overrides where the config keeps the defaults.
MaceStatus ChooseCpuTunables(const MaceEngineConfig& config, CpuTunables* tunables) {
  CpuTunables chosen;
  MACE_RETURN_IF_ERROR(ParseBlockedLayoutMode(config.cpu_blocked_layout(), &chosen.blocked_layout));
  chosen.fuse_conv_pooling = config.cpu_conv_pooling_fusion();
  chosen.fuse_depthwise_pointwise = config.cpu_depthwise_pointwise_fusion();
  chosen.fuse_expand = config.cpu_expand_fusion();
  *tunables = WithDebugOverrides(chosen);
  return MaceStatus();
}

RuntimeProvider CpuProvider() {
  RuntimeProvider provider;
  provider.create = [](const MaceEngineConfig& config, std::unique_ptr<Runtime>* runtime) {
    KernelIsa isa = KernelIsa::kReference;
    MACE_RETURN_IF_ERROR(ChooseKernelIsa(config.cpu_kernel_family(), &isa));
    CpuTunables tunables;
    MACE_RETURN_IF_ERROR(ChooseCpuTunables(config, &tunables));
    const MaceContext::Impl* context =
        config.context() != nullptr ? config.context()->impl() : nullptr;
    auto cpu = context != nullptr
                   ? std::make_unique<CpuRuntime>(context->thread_pool, context->policy, isa)
                   : std::make_unique<CpuRuntime>(config.num_threads(),
                                                  config.cpu_affinity_policy(), isa);
    cpu->set_tunables(tunables);
    if (config.cpu_precision() == CPUPrecision::FP16) {
      if (ops::Fp16KernelTableFor(isa) != nullptr) {
        cpu->set_fp16(true);
        VLOG(1) << "CPU precision fp16: half-precision kernels";
      } else {
        LOG(WARNING) << "CPU precision fp16 requested, but the " << KernelIsaName(isa)
                     << " kernels of this CPU have no half-precision arithmetic (ARMv8.2 "
                        "FP16); running fp32";
      }
    }
    *runtime = std::move(cpu);
    return MaceStatus();
  };
  provider.register_kernels = [](OpRegistry* registry, ConverterRegistry* converters) {
    MACE_RETURN_IF_ERROR(ops::RegisterAllOps(registry));
    return ops::RegisterCpuConverters(converters);
  };
  return provider;
}

// The CPU-only engine (//mace/libmace:engine_cpu) has neither the OpenCL
// nor the Hexagon runtime: it refuses those devices as runtimes it lacks.
#ifndef MACE_CPU_ONLY
RuntimeProvider OpenCLProvider() {
  RuntimeProvider provider;
  provider.create = [](const MaceEngineConfig& config, std::unique_ptr<Runtime>* runtime) {
    opencl::OpenCLOptions options;
    options.allow_any_device = config.opencl_device_fallback();
    const int data_type = static_cast<int>(config.gpu_data_type());
    MACE_CHECK_ARG(data_type == 0 || data_type == 1, "unknown GPU data type ", data_type);
    options.half_storage = config.gpu_data_type() == GPUDataType::FP16_FP32;
    options.cache_file = config.opencl_cache_file();
    options.binary_files = config.opencl_binary_paths();
    options.parameter_file = config.opencl_parameter_path();
    options.tune = config.opencl_tuning();
    options.profiling = config.opencl_profiling();
    options.limit_kernel_time = config.limit_opencl_kernel_time();
    const double work_per_ms = config.opencl_work_per_ms();
    MACE_CHECK_ARG(std::isfinite(work_per_ms) && work_per_ms >= 0, "OpenCL work per ms ",
                   work_per_ms, ": expected a positive number (0: the default)");
    options.work_per_ms = work_per_ms;
    const std::string& winograd = config.opencl_winograd();
    MACE_CHECK_ARG(winograd == "auto" || winograd == "on" || winograd == "off",
                   "unknown OpenCL Winograd mode '", winograd, "' (use auto, on or off)");
    // Empty: the environment's override, else "auto".
    options.winograd = winograd == "auto" ? "" : winograd;
    options.perf_hint = config.gpu_perf_hint();
    options.priority_hint = config.gpu_priority_hint();
    // Engines of one context with the same device settings share its
    // device state; other settings get a state of their own in the context.
    std::shared_ptr<opencl::OpenCLDevice> shared;
    if (config.context() != nullptr) {
      MaceContext::Impl* context = config.context()->impl();
      std::lock_guard<std::mutex> lock(context->gpu_mutex);
      std::shared_ptr<opencl::OpenCLDevice>& held =
          context->gpu_devices[opencl::DeviceSettingsKey(options)];
      if (held == nullptr) held = std::make_shared<opencl::OpenCLDevice>(options);
      shared = held;
    }
    *runtime = std::make_unique<opencl::OpenCLRuntime>(options, std::move(shared));
    return MaceStatus();
  };
  provider.register_kernels = opencl::RegisterOpenCLKernels;
  return provider;
}

// The emulated Hexagon DSP (docs/design/dsp.md): the model runs as a
// whole graph, in a DSP session the engines of a context share; qemu-hexagon, the DSP image and the call deadline come from
// the config's HexagonOptions, else from MACE_QEMU_HEXAGON (or PATH),
// MACE_DSP_RUNTIME and MACE_DSP_TIMEOUT_MS.
RuntimeProvider HexagonProvider() {
  RuntimeProvider provider;
  provider.wrap_net = [](const MaceEngineConfig& config, std::unique_ptr<Net> net,
                         std::unique_ptr<Executor>* executor) {
    hexagon::DspChannelConfig channel;
    MACE_RETURN_IF_ERROR(hexagon::DspChannelConfigFromOptions(config.hexagon_options(), &channel));
    // Engines of one context with the same emulator and image share one
    // DSP session; others get a session of their own.
    std::shared_ptr<hexagon::DspSession> shared;
    if (config.context() != nullptr) {
      MaceContext::Impl* context = config.context()->impl();
      std::lock_guard<std::mutex> lock(context->dsp_mutex);
      std::shared_ptr<hexagon::DspSession>& held =
          context->dsp_sessions[hexagon::DspSession::Key(channel)];
      if (held == nullptr || held->failed()) held = std::make_shared<hexagon::DspSession>(channel);
      shared = held;
    }
    *executor = std::make_unique<hexagon::HexagonExecutor>(std::move(net), channel, shared);
    return MaceStatus();
  };
  return provider;
}
#endif  // MACE_CPU_ONLY

struct Providers {
  std::mutex mutex;
  std::map<DeviceType, RuntimeProvider> by_device;
};

// Built on first use: the list of runtimes this library has.
Providers& AllProviders() {
  static Providers* providers = [] {
    auto* made = new Providers;
    made->by_device[DeviceType::CPU] = CpuProvider();
#ifndef MACE_CPU_ONLY
    made->by_device[DeviceType::GPU] = OpenCLProvider();
    made->by_device[DeviceType::HEXAGON] = HexagonProvider();
#endif
    return made;
  }();
  return *providers;
}

}  // namespace

const RuntimeProvider* FindRuntimeProvider(DeviceType device) {
  Providers& providers = AllProviders();
  std::lock_guard<std::mutex> lock(providers.mutex);
  auto it = providers.by_device.find(device);
  return it == providers.by_device.end() ? nullptr : &it->second;
}

void SetRuntimeProviderForTesting(DeviceType device, RuntimeProvider provider) {
  Providers& providers = AllProviders();
  std::lock_guard<std::mutex> lock(providers.mutex);
  providers.by_device[device] = std::move(provider);
}

}  // namespace mace
