#include "mace/tools/quantize_stat.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace mace {
namespace tools {
namespace {

// The value of rank `fraction` (0..1) of `values`, which it reorders.
float Rank(std::vector<float>* values, double fraction) {
  const size_t index = static_cast<size_t>(std::lround(fraction * (values->size() - 1)));
  std::nth_element(values->begin(), values->begin() + index, values->end());
  return (*values)[index];
}

}  // namespace

void RangeCollector::Observe(const std::string& name, const std::vector<int64_t>& shape,
                             const float* data) {
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  if (count <= 0 || data == nullptr) return;
  float low = std::numeric_limits<float>::infinity();
  float high = -low;
  bool finite = true;
  for (int64_t i = 0; i < count; ++i) {
    finite = finite && std::isfinite(data[i]);
    low = std::min(low, data[i]);
    high = std::max(high, data[i]);
  }
  if (!finite) {
    if (std::find(non_finite_.begin(), non_finite_.end(), name) == non_finite_.end()) {
      non_finite_.push_back(name);
    }
    return;
  }
  if (percentile_ < 100.0) {
    scratch_.assign(data, data + count);
    high = Rank(&scratch_, percentile_ / 100.0);
    low = Rank(&scratch_, 1.0 - percentile_ / 100.0);
  }
  auto it = ranges_.find(name);
  if (it == ranges_.end()) {
    ranges_.emplace(name, std::make_pair(low, high));
    order_.push_back(name);
  } else {
    it->second.first = std::min(it->second.first, low);
    it->second.second = std::max(it->second.second, high);
  }
}

bool WriteStatFile(const std::string& path, const std::string& text, std::string* error) {
  std::FILE* file = std::fopen(path.c_str(), "w");
  const bool ok = file != nullptr && std::fwrite(text.data(), 1, text.size(), file) == text.size();
  if (file == nullptr || std::fclose(file) != 0 || !ok) {
    *error = "cannot write --quantize_stat file '" + path + "'";
    return false;
  }
  return true;
}

bool RangeCollector::Write(const std::string& path, std::string* error) const {
  if (!non_finite_.empty()) {
    *error = "tensor '" + non_finite_.front() + "' holds NaN or infinity; it has no range";
    return false;
  }
  std::string text;
  char line[64];
  for (const std::string& name : order_) {
    const auto& range = ranges_.at(name);
    std::snprintf(line, sizeof(line), "@@%.9g,%.9g\n", range.first, range.second);
    text += name + line;
  }
  return WriteStatFile(path, text, error);
}

}  // namespace tools
}  // namespace mace
