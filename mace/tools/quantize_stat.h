// Activation ranges for post-training quantization: mace_run --quantize_stat
// watches every float op output (MaceEngineConfig::SetOutputObserver) and
// writes one line per tensor, "name@@min,max", the format the converter's
// quantize_range_file reads back.
#ifndef MACE_TOOLS_QUANTIZE_STAT_H_
#define MACE_TOOLS_QUANTIZE_STAT_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace mace {
namespace tools {

// Writes `text` to the --quantize_stat file `path`; false with `error` set
// when it cannot.
bool WriteStatFile(const std::string& path, const std::string& text, std::string* error);

class RangeCollector {
 public:
  // percentile 100 keeps the true minimum and maximum of each tensor; below
  // 100 each observation contributes its (100 - p)-th and p-th percentiles,
  // which ignores rare outliers. Ranges widen across observations.
  explicit RangeCollector(double percentile = 100.0) : percentile_(percentile) {}

  void Observe(const std::string& name, const std::vector<int64_t>& shape, const float* data);
  // Writes the ranges in the order the tensors were first seen. Returns false
  // with `error` set when the file cannot be written or a tensor held NaN.
  bool Write(const std::string& path, std::string* error) const;
  const std::map<std::string, std::pair<float, float>>& ranges() const { return ranges_; }

 private:
  double percentile_;
  std::map<std::string, std::pair<float, float>> ranges_;
  std::vector<std::string> order_;
  std::vector<std::string> non_finite_;
  std::vector<float> scratch_;
};

}  // namespace tools
}  // namespace mace

#endif  // MACE_TOOLS_QUANTIZE_STAT_H_
