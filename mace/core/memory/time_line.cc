#include "mace/core/memory/time_line.h"

#include <algorithm>
#include <functional>

namespace mace {
namespace memory {

TimeLine BuildTimeLine(const std::vector<TaskId>& first, const std::vector<TaskId>& last) {
  TimeLine time_line;
  const size_t n = first.size();
  std::vector<TaskId>& starts = time_line.starts;
  starts.reserve(2 * n);
  for (size_t i = 0; i < n; ++i) {
    starts.push_back(first[i]);
    starts.push_back(last[i] + 1);
  }
  std::sort(starts.begin(), starts.end());
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());

  auto segment_of = [&starts](TaskId task) {
    return static_cast<int>(std::lower_bound(starts.begin(), starts.end(), task) - starts.begin());
  };
  time_line.begin.resize(n);
  time_line.end.resize(n);
  time_line.live.resize(starts.empty() ? 0 : starts.size() - 1);
  for (size_t i = 0; i < n; ++i) {
    time_line.begin[i] = segment_of(first[i]);
    time_line.end[i] = segment_of(last[i] + 1);
    for (int k = time_line.begin[i]; k < time_line.end[i]; ++k) time_line.live[k].push_back(i);
  }
  return time_line;
}

std::vector<size_t> PositionalMaxima(const TimeLine& time_line, const std::vector<size_t>& values) {
  std::vector<size_t> maxima;
  std::vector<size_t> sorted;
  for (const std::vector<size_t>& live : time_line.live) {
    sorted.clear();
    for (size_t i : live) sorted.push_back(values[i]);
    std::sort(sorted.begin(), sorted.end(), std::greater<size_t>());
    if (sorted.size() > maxima.size()) maxima.resize(sorted.size(), 0);
    for (size_t k = 0; k < sorted.size(); ++k) maxima[k] = std::max(maxima[k], sorted[k]);
  }
  return maxima;
}

}  // namespace memory
}  // namespace mace
