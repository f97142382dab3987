// Soak runs: one engine run many times, to show memory growth and latency
// drift that a short benchmark hides.
#ifndef MACE_TOOLS_SOAK_H_
#define MACE_TOOLS_SOAK_H_

#include <cstdint>
#include <string>
#include <vector>

namespace mace {
namespace tools {

// The value in kB of `field` (e.g. "VmRSS") in /proc/self/status text, or -1
// when the field is absent or malformed.
int64_t StatusFieldKb(const std::string& status_text, const std::string& field);
// The same, read from this process's /proc/self/status.
int64_t ProcessStatusKb(const std::string& field);

struct LatencyDrift {
  size_t window = 0;    // rounds in each tenth, at least 1
  double first_ms = 0;  // median of the first `window` rounds
  double last_ms = 0;   // median of the last `window` rounds
  double percent = 0;   // (last - first) / first * 100
};

// Compares the first tenth of `round_ms` with the last tenth.
LatencyDrift MeasureDrift(const std::vector<double>& round_ms);

// "soak: ..." lines: rounds, VmRSS before and after, peak, latency drift.
void PrintSoak(size_t rounds, int64_t rss_start_kb, int64_t rss_end_kb, int64_t rss_peak_kb,
               const LatencyDrift& drift);

}  // namespace tools
}  // namespace mace

#endif  // MACE_TOOLS_SOAK_H_
