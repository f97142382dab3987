// Activation histograms for KL-divergence calibration: mace_run
// --quantize_stat=FILE --quantize_stat_histogram=BOUNDS counts each float
// tensor named in BOUNDS (a range file, "name@@min,max" per line) into
// --quantize_stat_bins equal bins over its bounds. Values outside the bounds
// fall into the first or last bin. FILE gets one line per tensor,
// "name@@min,max@@c0,c1,...", which the converter sums over the calibration
// runs and searches for the clipping range (quantize/kl.py).
#ifndef MACE_TOOLS_QUANTIZE_HISTOGRAM_H_
#define MACE_TOOLS_QUANTIZE_HISTOGRAM_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace mace {
namespace tools {

class HistogramCollector {
 public:
  explicit HistogramCollector(int bins) : bins_(bins) {}

  // Reads the bounds file. Returns false with `error` naming the file and
  // line when it is missing or malformed (a line that is not
  // "name@@min,max" with finite min <= max).
  bool ReadBounds(const std::string& path, std::string* error);
  void SetBounds(const std::string& name, float low, float high);

  // Counts `data` when `name` has bounds; other tensors are ignored.
  void Observe(const std::string& name, const std::vector<int64_t>& shape, const float* data);
  // Writes the histograms in bounds order. Returns false with `error` set
  // when the file cannot be written or a tensor held NaN or infinity.
  bool Write(const std::string& path, std::string* error) const;

  const std::vector<int64_t>& counts(const std::string& name) const {
    return histograms_.at(name).counts;
  }

 private:
  struct Histogram {
    float low = 0;
    float high = 0;
    std::vector<int64_t> counts;
  };
  int bins_;
  std::map<std::string, Histogram> histograms_;
  std::vector<std::string> order_;
  std::vector<std::string> non_finite_;
};

}  // namespace tools
}  // namespace mace

#endif  // MACE_TOOLS_QUANTIZE_HISTOGRAM_H_
