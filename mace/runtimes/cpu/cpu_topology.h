// Which cores are "big" and which are "little", for the CPU affinity policy.
//
// Phones mix fast and slow cores; Linux reports each core's top frequency in
// /sys/devices/system/cpu/cpuN/cpufreq/cpuinfo_max_freq, and that is the only
// portable signal for the split. Cores at the lowest top frequency are little
// and every faster core is big, so a tri-cluster phone's prime core counts
// as big. When no core reports a frequency (containers, emulators, most x86
// hosts) or all report the same one, all cores are treated as one kind and
// every policy selects all of them.
#ifndef MACE_RUNTIMES_CPU_CPU_TOPOLOGY_H_
#define MACE_RUNTIMES_CPU_CPU_TOPOLOGY_H_

#include <cstdint>
#include <vector>

#include "mace/public/mace.h"

namespace mace {

struct CoreInfo {
  int id = 0;
  int64_t max_freq_khz = 0;  // 0 when unknown
};

// The cores this process may run on (its affinity mask), with their top
// frequencies where sysfs has them.
std::vector<CoreInfo> ReadCoreInfo();

// The core ids `policy` allows, in ascending order. Never empty when `cores`
// is not.
std::vector<int> SelectCores(const std::vector<CoreInfo>& cores, CPUAffinityPolicy policy);

}  // namespace mace

#endif  // MACE_RUNTIMES_CPU_CPU_TOPOLOGY_H_
