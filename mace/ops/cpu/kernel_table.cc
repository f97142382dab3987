// Which kernel tables a CPU gets: for every instruction set the CPU
// supports, one table whose families the port fills (cpu/kernel_tables.h),
// each once, on the first call; and the blocked layout's default.
#include "mace/ops/cpu/kernel_table.h"

#include "mace/ops/cpu/kernel_tables.h"
#include "mace/runtimes/cpu/cpu_tunables.h"

namespace mace {
namespace ops {
namespace {

constexpr uint32_t Bit(KernelFamily family) { return 1u << static_cast<int>(family); }

// The plain families (all but fp16) for `isa`.
KernelTable FillTable(KernelIsa isa, const CpuFeatures& features) {
  KernelTable table;
  table.isa = isa;
  table.name = KernelIsaName(isa);
#define MACE_FILL_PLAIN(family, Struct, LIST, plain)                                        \
  if (plain && PortFill##Struct(isa, features, static_cast<Struct*>(&table))) {             \
    table.families |= Bit(KernelFamily::family);                                          \
  }
  MACE_CPU_KERNEL_FAMILIES(MACE_FILL_PLAIN)
#undef MACE_FILL_PLAIN
  return table;
}

// Tables are built at most once per instruction set and kind.
constexpr int kIsas = 4;
static_assert(static_cast<int>(KernelIsa::kAvx512) < kIsas, "one slot per KernelIsa");

const KernelTable* PlainTable(KernelIsa isa, const CpuFeatures& features) {
  static const KernelTable* tables[kIsas] = {};
  static const bool built = [&features] {
    for (int i = 1; i < kIsas; ++i) {
      const KernelIsa each = static_cast<KernelIsa>(i);
      if (!SupportsKernelIsa(features, each)) continue;
      const KernelTable table = FillTable(each, features);
      // No GEMM, no table: a port without the instruction set fills no
      // family, and every build links the GEMM family where there is one.
      if (KernelFamilyPresent(table, KernelFamily::gemm)) tables[i] = new KernelTable(table);
    }
    return true;
  }();
  (void)built;
  return tables[static_cast<int>(isa)];
}

const KernelTable* HalfTable(KernelIsa isa, const CpuFeatures& features) {
  static const KernelTable* tables[kIsas] = {};
  static const bool built = [&features] {
    for (int i = 1; i < kIsas; ++i) {
      const KernelTable* plain = PlainTable(static_cast<KernelIsa>(i), features);
      if (plain == nullptr) continue;
      KernelTable table = *plain;
      if (!PortFillFp16Kernels(table.isa, features, &table)) continue;
      table.families |= Bit(KernelFamily::fp16);
      if (table.fp16_table_name != nullptr) table.name = table.fp16_table_name;
      tables[i] = new KernelTable(table);
    }
    return true;
  }();
  (void)built;
  return tables[static_cast<int>(isa)];
}

}  // namespace

const char* KernelFamilyName(KernelFamily family) {
  switch (family) {
#define MACE_FAMILY_NAME(family, Struct, LIST, plain) \
  case KernelFamily::family:                          \
    return #family;
    MACE_CPU_KERNEL_FAMILIES(MACE_FAMILY_NAME)
#undef MACE_FAMILY_NAME
  }
  return "";
}

bool KernelFamilyPresent(const KernelTable& table, KernelFamily family) {
  return (table.families & Bit(family)) != 0;
}

const KernelTable* KernelTableFor(KernelIsa isa) {
  const CpuFeatures& features = HostCpuFeatures();
  if (isa == KernelIsa::kReference || !SupportsKernelIsa(features, isa)) return nullptr;
  return PlainTable(isa, features);
}

const KernelTable* Fp16KernelTableFor(KernelIsa isa) {
  const CpuFeatures& features = HostCpuFeatures();
  if (isa == KernelIsa::kReference || !SupportsKernelIsa(features, isa)) return nullptr;
  return HalfTable(isa, features);
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
