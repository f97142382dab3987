#include "mace/tools/soak.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "mace/tools/run_report.h"

namespace mace {
namespace tools {

int64_t StatusFieldKb(const std::string& status_text, const std::string& field) {
  std::istringstream lines(status_text);
  std::string line;
  const std::string key = field + ":";
  while (std::getline(lines, line)) {
    if (line.compare(0, key.size(), key) != 0) continue;
    char* end = nullptr;
    const long long value = std::strtoll(line.c_str() + key.size(), &end, 10);
    const std::string unit = end;
    if (end == line.c_str() + key.size() || value < 0 || unit.find("kB") == std::string::npos) {
      return -1;
    }
    return value;
  }
  return -1;
}

int64_t ProcessStatusKb(const std::string& field) {
  // /proc files report size 0, so they are read as a stream to the end.
  std::ifstream file("/proc/self/status");
  std::stringstream text;
  text << file.rdbuf();
  return file ? StatusFieldKb(text.str(), field) : -1;
}

LatencyDrift MeasureDrift(const std::vector<double>& round_ms) {
  LatencyDrift drift;
  if (round_ms.empty()) return drift;
  drift.window = std::max<size_t>(1, round_ms.size() / 10);
  drift.first_ms = Median({round_ms.begin(), round_ms.begin() + drift.window});
  drift.last_ms = Median({round_ms.end() - drift.window, round_ms.end()});
  if (drift.first_ms > 0) drift.percent = (drift.last_ms - drift.first_ms) / drift.first_ms * 100;
  return drift;
}

void PrintSoak(size_t rounds, int64_t rss_start_kb, int64_t rss_end_kb, int64_t rss_peak_kb,
               const LatencyDrift& drift) {
  std::printf("soak: %zu rounds on one engine\n", rounds);
  if (rss_start_kb >= 0 && rss_end_kb >= 0) {
    std::printf("soak: VmRSS start %lld kB, end %lld kB (%+lld kB), peak VmHWM %lld kB\n",
                static_cast<long long>(rss_start_kb), static_cast<long long>(rss_end_kb),
                static_cast<long long>(rss_end_kb - rss_start_kb),
                static_cast<long long>(rss_peak_kb));
  } else {
    std::printf("soak: VmRSS unavailable (no /proc/self/status)\n");
  }
  std::printf("soak: latency median first %zu rounds %.3f ms, last %zu rounds %.3f ms (%+.1f%%)\n",
              drift.window, drift.first_ms, drift.window, drift.last_ms, drift.percent);
}

}  // namespace tools
}  // namespace mace
