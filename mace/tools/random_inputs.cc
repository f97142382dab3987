#include "mace/tools/random_inputs.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <functional>
#include <new>

#include "mace/tools/run_report.h"

namespace mace {
namespace tools {
namespace {

bool NamesAMask(std::string name) {
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return name.find("mask") != std::string::npos;
}

std::string Number(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.9g", value);
  return text;
}

// The whole numbers in [low, high) that `type` holds: [*first, *last].
bool WholeNumbers(TensorDataType type, const InputRange& range, int64_t* first, int64_t* last) {
  // Beyond 2^53 a double no longer steps by one.
  const double limit = type == TensorDataType::INT32   ? 2147483648.0
                       : type == TensorDataType::UINT8 ? 256.0
                       : type == TensorDataType::BOOL  ? 2.0
                                                       : 9007199254740992.0;
  const bool is_signed = type == TensorDataType::INT32 || type == TensorDataType::INT64;
  const double low = std::ceil(range.low), high = std::ceil(range.high) - 1;
  if (!(low >= (is_signed ? -limit : 0.0) && high < limit && low <= high)) return false;
  *first = static_cast<int64_t>(low);
  *last = static_cast<int64_t>(high);
  return true;
}

template <typename T>
MaceStatus Fill(const std::vector<int64_t>& shape, int64_t count, TensorDataType type,
                const std::function<T()>& draw, MaceTensor* tensor) {
  std::shared_ptr<void> data(new (std::nothrow) T[std::max<int64_t>(count, 1)],
                             std::default_delete<T[]>());
  if (data == nullptr) return MaceStatus(MaceStatus::MACE_OUT_OF_RESOURCES, "");
  T* values = static_cast<T*>(data.get());
  for (int64_t k = 0; k < count; ++k) values[k] = draw();
  *tensor = MaceTensor(shape, data, type);
  return MaceStatus();
}

}  // namespace

InputRange DefaultInputRange(const std::string& name, TensorDataType type) {
  switch (type) {
    case TensorDataType::FLOAT32:
      return {-1.0, 1.0};
    case TensorDataType::UINT8:
      return {0.0, 256.0};
    case TensorDataType::BOOL:
      return {0.0, 2.0};
    case TensorDataType::INT32:
    case TensorDataType::INT64:
      break;
  }
  return NamesAMask(name) ? InputRange{1.0, 2.0} : InputRange{0.0, 2.0};
}

std::string DescribeInputRange(TensorDataType type, const InputRange& range) {
  int64_t first = 0, last = 0;
  if (type == TensorDataType::FLOAT32 || !WholeNumbers(type, range, &first, &last)) {
    return "uniform in [" + Number(range.low) + ", " + Number(range.high) + ")";
  }
  if (first == last) return "all " + std::to_string(first);
  return "integers in [" + std::to_string(first) + ", " + std::to_string(last + 1) + ")";
}

MaceStatus RandomInput(const std::string& name, const std::vector<int64_t>& shape, int64_t count,
                       TensorDataType type, const InputRange& range, std::mt19937* engine,
                       MaceTensor* tensor) {
  MaceStatus status;
  if (type == TensorDataType::FLOAT32) {
    std::uniform_real_distribution<float> uniform(static_cast<float>(range.low),
                                                  static_cast<float>(range.high));
    status = Fill<float>(
        shape, count, type, [&] { return uniform(*engine); }, tensor);
  } else {
    int64_t first = 0, last = 0;
    if (!WholeNumbers(type, range, &first, &last)) {
      return MaceStatus(MaceStatus::MACE_INVALID_ARGS,
                        "input '" + name + "' is " + TensorDataTypeName(type) + " but its range [" +
                            Number(range.low) + ", " + Number(range.high) +
                            ") holds no whole number of that type");
    }
    std::uniform_int_distribution<int64_t> uniform(first, last);
    auto draw = [&] { return uniform(*engine); };
    switch (type) {
      case TensorDataType::INT32:
        status = Fill<int32_t>(
            shape, count, type, [&] { return static_cast<int32_t>(draw()); }, tensor);
        break;
      case TensorDataType::INT64:
        status = Fill<int64_t>(shape, count, type, draw, tensor);
        break;
      case TensorDataType::BOOL:
        status = Fill<bool>(
            shape, count, type, [&] { return draw() != 0; }, tensor);
        break;
      default:
        status = Fill<uint8_t>(
            shape, count, type, [&] { return static_cast<uint8_t>(draw()); }, tensor);
        break;
    }
  }
  if (!status.ok()) {
    return MaceStatus(MaceStatus::MACE_OUT_OF_RESOURCES,
                      "cannot allocate input '" + name + "' of shape " + ShapeText(shape));
  }
  return MaceStatus();
}

}  // namespace tools
}  // namespace mace
