#include "mace/ops/ref/pad.h"

namespace mace {
namespace ops {
namespace ref {
namespace {

// The input index that position `pos` reads, counted from the first input
// element along a dimension of `size`, or -1 for the constant.
int64_t SourceIndex(int64_t pos, int64_t size, PadType type) {
  if (pos >= 0 && pos < size) return pos;
  switch (type) {
    case PadType::CONSTANT:
      return -1;
    case PadType::REFLECT:
      return pos < 0 ? -pos : 2 * (size - 1) - pos;
    case PadType::SYMMETRIC:
      return pos < 0 ? -pos - 1 : 2 * size - 1 - pos;
    case PadType::EDGE:
      return pos < 0 ? 0 : size - 1;
    case PadType::WRAP:
      return (pos % size + size) % size;
  }
  return -1;
}

template <typename T>
void PadImpl(const PadParams& p, T constant, const T* input, T* output) {
  const int rank = static_cast<int>(p.output_shape.size());
  int64_t count = 1;
  for (int64_t d : p.output_shape) count *= d;
  for (int64_t flat = 0; flat < count; ++flat) {
    // Peel the output coordinates innermost first; `stride` is the row-major
    // input stride of dimension d.
    int64_t rest = flat, source = 0, stride = 1;
    bool inside = true;
    for (int d = rank - 1; d >= 0; --d) {
      const int64_t coordinate = rest % p.output_shape[d];
      rest /= p.output_shape[d];
      const int64_t index = SourceIndex(coordinate - p.pads_before[d], p.input_shape[d], p.type);
      inside = inside && index >= 0;
      source += index * stride;
      stride *= p.input_shape[d];
    }
    output[flat] = inside ? input[source] : constant;
  }
}

}  // namespace

void Pad(const PadParams& params, const float* input, float* output) {
  PadImpl(params, params.constant_value, input, output);
}

void PadUint8(const PadParams& params, uint8_t constant, const uint8_t* input, uint8_t* output) {
  PadImpl(params, constant, input, output);
}

}  // namespace ref
}  // namespace ops
}  // namespace mace
