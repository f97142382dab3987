// The Winograd port of the builds without a port of their own (x86 and
// the reference builds; BUILD.bazel picks arm/winograd_port_neon.cc on ARM):
// no extra kernels, so the driver runs the kernel table's. The blocked
// Winograd's cost model reads the last-level cache where the C library
// reports it.
#include "mace/ops/cpu/winograd_port.h"

#include <unistd.h>

#include <algorithm>

namespace mace {
namespace ops {
namespace {

int64_t SysconfL3Bytes() {
#if defined(_SC_LEVEL3_CACHE_SIZE)
  static const int64_t bytes = std::max<int64_t>(sysconf(_SC_LEVEL3_CACHE_SIZE), 0);
  return bytes;
#else
  return 0;
#endif
}

constexpr WinogradPort MakePort() {
  WinogradPort port;
  port.host_l3_bytes = SysconfL3Bytes;
  return port;
}

}  // namespace

const WinogradPort kWinogradPort = MakePort();

}  // namespace ops
}  // namespace mace
