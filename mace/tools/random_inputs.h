// The random inputs mace_run makes when no --input_file is given: each in
// the type the model declares for the app, drawn from one generator with a
// fixed seed, so that runs repeat.
#ifndef MACE_TOOLS_RANDOM_INPUTS_H_
#define MACE_TOOLS_RANDOM_INPUTS_H_

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "mace/public/mace.h"

namespace mace {
namespace tools {

// Values are drawn from [low, high); an integer input takes the whole
// numbers in it.
struct InputRange {
  double low = -1.0;
  double high = 1.0;
};

// The range of an input nobody gave one for: float32 [-1, 1); uint8
// [0, 256); bool [0, 2); an int32 or int64 input whose name contains "mask"
// (any case) [1, 2), all ones: every position attended; other integers
// [0, 2), indices that any table of two rows or more takes.
InputRange DefaultInputRange(const std::string& name, TensorDataType type);

// "uniform in [-1, 1)", or for integers "integers in [0, 2)" / "all 1".
std::string DescribeInputRange(TensorDataType type, const InputRange& range);

// A tensor of `shape` (`count` elements) and `type`, uniform in `range`.
MaceStatus RandomInput(const std::string& name, const std::vector<int64_t>& shape, int64_t count,
                       TensorDataType type, const InputRange& range, std::mt19937* engine,
                       MaceTensor* tensor);

}  // namespace tools
}  // namespace mace

#endif  // MACE_TOOLS_RANDOM_INPUTS_H_
