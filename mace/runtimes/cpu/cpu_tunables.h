// Per-engine choices of the CPU kernels that change their speed, never
// their results beyond float rounding: the channel-blocked layout and the
// fusions of the blocked ops (MaceEngineConfig). The CPU runtime holds an
// engine's; the engine makes them current on the thread that runs its Init
// and Run, where ops decide their layout and fusions without a context.
#ifndef MACE_RUNTIMES_CPU_CPU_TUNABLES_H_
#define MACE_RUNTIMES_CPU_CPU_TUNABLES_H_

#include <string>

#include "mace/utils/status.h"

namespace mace {

enum class BlockedLayoutMode {
  kAuto,  // where it pays on this CPU (the kernel table says)
  kOn,    // wherever blocked kernels exist
  kOff,   // every op in NCHW
};

struct CpuTunables {
  BlockedLayoutMode blocked_layout = BlockedLayoutMode::kAuto;
  bool fuse_conv_pooling = true;         // a blocked convolution and its pooling
  bool fuse_depthwise_pointwise = true;  // a 3x3 depthwise and the 1x1 after it
  bool fuse_expand = true;               // also the 1x1 before such a pair
};

// "auto", "on" or "off" as a mode; anything else is MACE_INVALID_ARGS.
MaceStatus ParseBlockedLayoutMode(const std::string& text, BlockedLayoutMode* mode);

// `tunables` with the environment's debugging overrides applied where they
// are at their defaults: MACE_CPU_BLOCKED_LAYOUT=1 or 0 for kAuto, and
// MACE_CPU_FUSE_POOLING, _DEPTHWISE, _EXPAND=0 to turn a fusion off.
CpuTunables WithDebugOverrides(CpuTunables tunables);

// The tunables of the engine whose Init or Run this thread is in, else the
// defaults with the environment's overrides (ops run without an engine).
CpuTunables CurrentCpuTunables();

// Makes `tunables` current on this thread for the scope's lifetime.
class ScopedCpuTunables {
 public:
  explicit ScopedCpuTunables(const CpuTunables* tunables);
  ~ScopedCpuTunables();
  ScopedCpuTunables(const ScopedCpuTunables&) = delete;
  ScopedCpuTunables& operator=(const ScopedCpuTunables&) = delete;

 private:
  const CpuTunables* previous_;
};

}  // namespace mace

#endif  // MACE_RUNTIMES_CPU_CPU_TUNABLES_H_
