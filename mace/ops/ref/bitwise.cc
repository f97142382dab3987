#include "mace/ops/ref/bitwise.h"

#include <vector>

namespace mace {
namespace ops {
namespace ref {

bool ParseBitwiseType(const std::string& name, BitwiseType* type) {
  static const struct {
    const char* name;
    BitwiseType type;
  } kNames[] = {
      {"and", BitwiseType::AND},
      {"or", BitwiseType::OR},
      {"xor", BitwiseType::XOR},
      {"not", BitwiseType::NOT},
  };
  for (const auto& entry : kNames) {
    if (name == entry.name) {
      *type = entry.type;
      return true;
    }
  }
  return false;
}

void Bitwise(BitwiseType type, const BroadcastParams& params, const int32_t* a, const int32_t* b,
             int32_t* output) {
  const int rank = static_cast<int>(params.shape.size());
  const bool binary = type != BitwiseType::NOT;
  int64_t count = 1;
  for (int64_t d : params.shape) count *= d;
  std::vector<int64_t> index(rank, 0);
  int64_t offset_a = 0, offset_b = 0;
  for (int64_t i = 0; i < count; ++i) {
    // On the unsigned bits, so that no operation depends on the sign.
    const uint32_t x = static_cast<uint32_t>(a[offset_a]);
    const uint32_t y = binary ? static_cast<uint32_t>(b[offset_b]) : 0u;
    uint32_t bits = 0;
    switch (type) {
      case BitwiseType::AND:
        bits = x & y;
        break;
      case BitwiseType::OR:
        bits = x | y;
        break;
      case BitwiseType::XOR:
        bits = x ^ y;
        break;
      case BitwiseType::NOT:
        bits = ~x;
        break;
    }
    output[i] = static_cast<int32_t>(bits);
    for (int d = rank - 1; d >= 0; --d) {
      ++index[d];
      offset_a += params.strides[0][d];
      if (binary) offset_b += params.strides[1][d];
      if (index[d] < params.shape[d]) break;
      offset_a -= params.strides[0][d] * index[d];
      if (binary) offset_b -= params.strides[1][d] * index[d];
      index[d] = 0;
    }
  }
}

}  // namespace ref
}  // namespace ops
}  // namespace mace
