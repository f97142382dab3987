// Environment variables the library reads, all of them here: debugging
// overrides of settings an app chooses per engine in MaceEngineConfig (or
// HexagonOptions), plus the few with no per-engine form (the cache sizes,
// huge pages, the VLOG level). docs/reference/environment.md lists them.
// An override of a per-engine setting applies to engines whose config
// leaves that setting at its default; it is read as each engine is created
// (MACE_CPU_KERNELS once per process). The process-wide ones are read once,
// at first use.
#ifndef MACE_UTILS_DEBUG_OVERRIDES_H_
#define MACE_UTILS_DEBUG_OVERRIDES_H_

namespace mace {

enum class DebugOverride {
  kCpuKernels,        // MACE_CPU_KERNELS
  kCpuCacheSizes,     // MACE_CPU_CACHE_SIZES
  kCpuBlockedLayout,  // MACE_CPU_BLOCKED_LAYOUT
  kCpuFuseDepthwise,  // MACE_CPU_FUSE_DEPTHWISE
  kCpuFuseExpand,     // MACE_CPU_FUSE_EXPAND
  kCpuFusePooling,    // MACE_CPU_FUSE_POOLING
  kHugePages,         // MACE_HUGE_PAGES
  kVlogLevel,         // MACE_CPP_MIN_VLOG_LEVEL
  kOpenCLWorkPerMs,   // MACE_OPENCL_WORK_PER_MS
  kOpenCLWinograd,    // MACE_OPENCL_WINOGRAD
  kQemuHexagon,       // MACE_QEMU_HEXAGON
  kDspRuntime,        // MACE_DSP_RUNTIME
  kDspTimeoutMs,      // MACE_DSP_TIMEOUT_MS
  kSearchPath,        // PATH, where the DSP emulator is looked for
};

// The variable's name, e.g. "MACE_CPU_KERNELS".
const char* DebugOverrideName(DebugOverride which);

// The variable's value now (empty when set empty), or null when unset.
const char* DebugOverrideValue(DebugOverride which);

// A switch that is on unless the variable says "0".
bool DebugOverrideOn(DebugOverride which);

}  // namespace mace

#endif  // MACE_UTILS_DEBUG_OVERRIDES_H_
