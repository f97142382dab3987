// The x86-64 port's channel-blocked kernels: blocks of 8 channels (AVX2)
// and 16 (AVX-512). The blocked layout is the default on x86, where it is
// measured faster.
#include <unistd.h>

#include <algorithm>

#include "mace/ops/cpu/kernel_tables.h"
#include "mace/ops/x86/avx2_kernels.h"
#include "mace/ops/x86/avx512_kernels.h"
#include "mace/runtimes/cpu/cpu_features.h"

namespace mace {
namespace ops {
namespace {

// The last-level cache glibc reports, for the blocked Winograd's cost model.
int64_t SysconfL3Bytes() {
#if defined(_SC_LEVEL3_CACHE_SIZE)
  return std::max<int64_t>(sysconf(_SC_LEVEL3_CACHE_SIZE), 0);
#else
  return 0;
#endif
}

}  // namespace

bool PortFillBlockedKernels(KernelIsa isa, const CpuFeatures& /*features*/,
                            BlockedKernels* k) {
  if (isa != KernelIsa::kAvx2Fma && isa != KernelIsa::kAvx512) return false;
  k->blocked_l3_bytes = SysconfL3Bytes();
  k->blocked_l1d_bytes = HostCacheSizes().l1d;
  if (isa == KernelIsa::kAvx2Fma) {
    k->channel_block = 8;
    k->blocked_layout_pays = true;
    k->blocked_conv_blocks = 2;
    k->blocked_window_conv_blocks = 3;
    k->blocked_conv = x86::Avx2BlockedConv;
    k->blocked_pack = x86::Avx2BlockedPack;
    k->channel_pack = x86::Avx2ChannelPack;
    k->channel_unpack = x86::Avx2ChannelUnpack;
    k->blocked_window = x86::Avx2BlockedWindow;
    k->blocked_winograd_input = x86::Avx2BlockedWinogradInput;
    k->blocked_winograd_output = x86::Avx2BlockedWinogradOutput;
    return true;
  }
  k->channel_block = 16;
  k->blocked_layout_pays = true;
  k->blocked_conv_blocks = 3;
  k->blocked_window_conv_blocks = 4;
  k->blocked_conv = x86::Avx512BlockedConv;
  k->blocked_pack = x86::Avx512BlockedPack;
  k->channel_pack = x86::Avx512ChannelPack;
  k->channel_unpack = x86::Avx512ChannelUnpack;
  k->blocked_window = x86::Avx512BlockedWindow;
  k->blocked_winograd_input = x86::Avx512BlockedWinogradInput;
  k->blocked_winograd_output = x86::Avx512BlockedWinogradOutput;
  return true;
}

}  // namespace ops
}  // namespace mace
