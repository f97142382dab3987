#include <numeric>

#include "mace/public/mace.h"

namespace mace {

std::string MaceStatus::ToString() const {
  static const char* const kNames[] = {"SUCCESS", "INVALID_ARGS", "OUT_OF_RESOURCES",
                                       "UNSUPPORTED", "RUNTIME_ERROR"};
  std::string text = kNames[code_];
  if (!information_.empty()) text += ": " + information_;
  return text;
}

int64_t MaceTensor::size() const {
  return std::accumulate(shape_.begin(), shape_.end(), int64_t{1},
                         [](int64_t a, int64_t b) { return a * b; });
}

const char* MaceVersion() { return "0.1.0"; }

}  // namespace mace
