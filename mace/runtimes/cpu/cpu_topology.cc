#include "mace/runtimes/cpu/cpu_topology.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "mace/utils/logging.h"

namespace mace {
namespace {

int64_t ReadMaxFreqKhz(int core) {
  const std::string path =
      "/sys/devices/system/cpu/cpu" + std::to_string(core) + "/cpufreq/cpuinfo_max_freq";
  std::FILE* file = std::fopen(path.c_str(), "r");
  if (file == nullptr) return 0;
  char text[64];
  const size_t length = std::fread(text, 1, sizeof(text) - 1, file);
  std::fclose(file);
  text[length] = '\0';
  // A decimal number after optional white space; whatever follows it is
  // ignored.
  char* end = nullptr;
  errno = 0;
  const long long khz = std::strtoll(text, &end, 10);
  if (end == text || errno == ERANGE || khz < 0) return 0;
  return static_cast<int64_t>(khz);
}

}  // namespace

std::vector<CoreInfo> ReadCoreInfo() {
  std::vector<CoreInfo> cores;
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  const bool have_mask = sched_getaffinity(0, sizeof(allowed), &allowed) == 0;
  long configured = sysconf(_SC_NPROCESSORS_CONF);
  if (configured < 1) configured = 1;
  for (int id = 0; id < configured && id < CPU_SETSIZE; ++id) {
    if (have_mask && !CPU_ISSET(id, &allowed)) continue;
    cores.push_back({id, ReadMaxFreqKhz(id)});
  }
  if (cores.empty()) cores.push_back({0, 0});
  return cores;
}

std::vector<int> SelectCores(const std::vector<CoreInfo>& cores, CPUAffinityPolicy policy) {
  std::vector<int> all;
  int64_t low = 0, high = 0;
  bool known = true;
  for (const CoreInfo& core : cores) {
    all.push_back(core.id);
    if (core.max_freq_khz <= 0) known = false;
    low = all.size() == 1 ? core.max_freq_khz : std::min(low, core.max_freq_khz);
    high = all.size() == 1 ? core.max_freq_khz : std::max(high, core.max_freq_khz);
  }
  std::sort(all.begin(), all.end());
  if (policy == CPUAffinityPolicy::AFFINITY_NONE) return all;
  if (!known || low == high) {
    VLOG(1) << "CPU cores report no distinct top frequencies; treating all " << all.size()
            << " as one kind for the affinity policy";
    return all;
  }
  std::vector<int> chosen;
  for (const CoreInfo& core : cores) {
    const bool little = core.max_freq_khz == low;
    if (little == (policy == CPUAffinityPolicy::AFFINITY_LITTLE_ONLY)) chosen.push_back(core.id);
  }
  std::sort(chosen.begin(), chosen.end());
  return chosen;
}

}  // namespace mace
