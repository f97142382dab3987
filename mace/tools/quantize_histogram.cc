#include "mace/tools/quantize_histogram.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "mace/tools/quantize_stat.h"

namespace mace {
namespace tools {

bool HistogramCollector::ReadBounds(const std::string& path, std::string* error) {
  std::ifstream file(path);
  if (!file) {
    *error = "cannot read --quantize_stat_histogram file '" + path + "'";
    return false;
  }
  std::string line;
  for (int number = 1; std::getline(file, line); ++number) {
    if (line.empty() || line[0] == '#') continue;
    const size_t at = line.rfind("@@");
    const size_t comma = at == std::string::npos ? at : line.find(',', at);
    float low = 0, high = 0;
    bool ok = at != std::string::npos && at > 0 && comma != std::string::npos;
    if (ok) {
      const std::string low_text = line.substr(at + 2, comma - at - 2);
      const std::string high_text = line.substr(comma + 1);
      char* end_low = nullptr;
      char* end_high = nullptr;
      low = std::strtof(low_text.c_str(), &end_low);
      high = std::strtof(high_text.c_str(), &end_high);
      ok = !low_text.empty() && !high_text.empty() && *end_low == '\0' && *end_high == '\0' &&
           std::isfinite(low) && std::isfinite(high) && low <= high;
    }
    if (!ok) {
      *error = path + ", line " + std::to_string(number) +
               ": expected 'name@@min,max' with finite min <= max, got '" + line + "'";
      return false;
    }
    SetBounds(line.substr(0, at), low, high);
  }
  return true;
}

void HistogramCollector::SetBounds(const std::string& name, float low, float high) {
  if (histograms_.count(name) == 0) order_.push_back(name);
  Histogram& histogram = histograms_[name];
  histogram.low = low;
  histogram.high = high;
  histogram.counts.assign(bins_, 0);
}

void HistogramCollector::Observe(const std::string& name, const std::vector<int64_t>& shape,
                                 const float* data) {
  auto it = histograms_.find(name);
  if (it == histograms_.end() || data == nullptr) return;
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  Histogram& histogram = it->second;
  const double width = static_cast<double>(histogram.high) - histogram.low;
  const double per_unit = width > 0 ? bins_ / width : 0.0;
  for (int64_t i = 0; i < count; ++i) {
    if (!std::isfinite(data[i])) {
      if (std::find(non_finite_.begin(), non_finite_.end(), name) == non_finite_.end()) {
        non_finite_.push_back(name);
      }
      return;
    }
    const double position = (static_cast<double>(data[i]) - histogram.low) * per_unit;
    const int64_t bin = static_cast<int64_t>(std::floor(position));
    ++histogram.counts[std::clamp<int64_t>(bin, 0, bins_ - 1)];
  }
}

bool HistogramCollector::Write(const std::string& path, std::string* error) const {
  if (!non_finite_.empty()) {
    *error = "tensor '" + non_finite_.front() + "' holds NaN or infinity; it has no histogram";
    return false;
  }
  std::string text;
  char number[64];
  for (const std::string& name : order_) {
    const Histogram& histogram = histograms_.at(name);
    std::snprintf(number, sizeof(number), "@@%.9g,%.9g@@", histogram.low, histogram.high);
    text += name + number;
    for (size_t i = 0; i < histogram.counts.size(); ++i) {
      text += (i == 0 ? "" : ",") + std::to_string(histogram.counts[i]);
    }
    text += '\n';
  }
  return WriteStatFile(path, text, error);
}

}  // namespace tools
}  // namespace mace
