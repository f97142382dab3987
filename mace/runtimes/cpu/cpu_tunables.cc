#include "mace/runtimes/cpu/cpu_tunables.h"

#include <cstring>

#include "mace/utils/debug_overrides.h"

namespace mace {
namespace {

thread_local const CpuTunables* current_tunables = nullptr;

}  // namespace

MaceStatus ParseBlockedLayoutMode(const std::string& text, BlockedLayoutMode* mode) {
  if (text == "auto") {
    *mode = BlockedLayoutMode::kAuto;
  } else if (text == "on") {
    *mode = BlockedLayoutMode::kOn;
  } else if (text == "off") {
    *mode = BlockedLayoutMode::kOff;
  } else {
    return MaceStatus(MaceStatus::MACE_INVALID_ARGS,
                      "unknown CPU blocked layout '" + text + "' (use auto, on or off)");
  }
  return MaceStatus();
}

CpuTunables WithDebugOverrides(CpuTunables tunables) {
  if (tunables.blocked_layout == BlockedLayoutMode::kAuto) {
    const char* layout = DebugOverrideValue(DebugOverride::kCpuBlockedLayout);
    if (layout != nullptr && std::strcmp(layout, "1") == 0) {
      tunables.blocked_layout = BlockedLayoutMode::kOn;
    } else if (layout != nullptr && std::strcmp(layout, "0") == 0) {
      tunables.blocked_layout = BlockedLayoutMode::kOff;
    }
  }
  tunables.fuse_conv_pooling =
      tunables.fuse_conv_pooling && DebugOverrideOn(DebugOverride::kCpuFusePooling);
  tunables.fuse_depthwise_pointwise =
      tunables.fuse_depthwise_pointwise && DebugOverrideOn(DebugOverride::kCpuFuseDepthwise);
  tunables.fuse_expand = tunables.fuse_expand && DebugOverrideOn(DebugOverride::kCpuFuseExpand);
  return tunables;
}

CpuTunables CurrentCpuTunables() {
  return current_tunables != nullptr ? *current_tunables : WithDebugOverrides(CpuTunables());
}

ScopedCpuTunables::ScopedCpuTunables(const CpuTunables* tunables) : previous_(current_tunables) {
  current_tunables = tunables;
}

ScopedCpuTunables::~ScopedCpuTunables() { current_tunables = previous_; }

}  // namespace mace
