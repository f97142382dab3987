#include "mace/utils/debug_overrides.h"

#include <cstdlib>
#include <cstring>

namespace mace {

const char* DebugOverrideName(DebugOverride which) {
  switch (which) {
    case DebugOverride::kCpuKernels:
      return "MACE_CPU_KERNELS";
    case DebugOverride::kCpuCacheSizes:
      return "MACE_CPU_CACHE_SIZES";
    case DebugOverride::kCpuBlockedLayout:
      return "MACE_CPU_BLOCKED_LAYOUT";
    case DebugOverride::kCpuFuseDepthwise:
      return "MACE_CPU_FUSE_DEPTHWISE";
    case DebugOverride::kCpuFuseExpand:
      return "MACE_CPU_FUSE_EXPAND";
    case DebugOverride::kCpuFusePooling:
      return "MACE_CPU_FUSE_POOLING";
    case DebugOverride::kHugePages:
      return "MACE_HUGE_PAGES";
    case DebugOverride::kVlogLevel:
      return "MACE_CPP_MIN_VLOG_LEVEL";
    case DebugOverride::kOpenCLWorkPerMs:
      return "MACE_OPENCL_WORK_PER_MS";
    case DebugOverride::kOpenCLWinograd:
      return "MACE_OPENCL_WINOGRAD";
    case DebugOverride::kQemuHexagon:
      return "MACE_QEMU_HEXAGON";
    case DebugOverride::kDspRuntime:
      return "MACE_DSP_RUNTIME";
    case DebugOverride::kDspTimeoutMs:
      return "MACE_DSP_TIMEOUT_MS";
    case DebugOverride::kSearchPath:
      return "PATH";
  }
  return "";
}

const char* DebugOverrideValue(DebugOverride which) {
  return std::getenv(DebugOverrideName(which));
}

bool DebugOverrideOn(DebugOverride which) {
  const char* value = DebugOverrideValue(which);
  return value == nullptr || std::strcmp(value, "0") != 0;
}

}  // namespace mace
