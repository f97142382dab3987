// Which kernel tables a CPU gets: the port's tables (cpu/kernel_tables.h)
// for the families the CPU supports, and the blocked layout's default.
#include "mace/ops/cpu/kernel_table.h"

#include "mace/ops/cpu/kernel_tables.h"
#include "mace/runtimes/cpu/cpu_tunables.h"

namespace mace {
namespace ops {

const KernelTable* KernelTableFor(KernelIsa isa) {
  const CpuFeatures& features = HostCpuFeatures();
  if (isa == KernelIsa::kReference || !SupportsKernelIsa(features, isa)) return nullptr;
  return PortKernelTable(isa, features);
}

const KernelTable* Fp16KernelTableFor(KernelIsa isa) {
  const CpuFeatures& features = HostCpuFeatures();
  if (isa == KernelIsa::kReference || !SupportsKernelIsa(features, isa)) return nullptr;
  return PortFp16KernelTable(isa, features);
}

const KernelTable* ActiveKernelTable() { return KernelTableFor(ActiveKernelIsa()); }

int BlockedLayoutBlock(const KernelTable* table) {
  if (table == nullptr || table->channel_block <= 0) return 0;
  // An fp16 engine keeps its runs in half precision instead (float blocks
  // would leave its half kernels).
  if (table->fp16_gemm != nullptr) return 0;
  switch (CurrentCpuTunables().blocked_layout) {
    case BlockedLayoutMode::kOn:
      return table->channel_block;
    case BlockedLayoutMode::kOff:
      return 0;
    case BlockedLayoutMode::kAuto:
      break;
  }
  return table->blocked_layout_pays ? table->channel_block : 0;
}

}  // namespace ops
}  // namespace mace
