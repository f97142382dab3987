// Reference Pad: every output element either maps back to one input element
// (directly, mirrored or clamped) or takes the constant.
#ifndef MACE_OPS_REF_PAD_H_
#define MACE_OPS_REF_PAD_H_

#include <cstdint>
#include <vector>

namespace mace {
namespace ops {
namespace ref {

// Values match MACE's pad_type argument. With input a b c d and two pads on
// each side:
//   CONSTANT   v v | a b c d | v v
//   REFLECT    c b | a b c d | c b   (mirror without the edge; pad < size)
//   SYMMETRIC  b a | a b c d | d c   (mirror with the edge; pad <= size)
//   EDGE       a a | a b c d | d d
//   WRAP       c d | a b c d | a b   (the input repeated; any pad)
enum class PadType { CONSTANT = 0, REFLECT = 1, SYMMETRIC = 2, EDGE = 3, WRAP = 4 };

struct PadParams {
  PadType type = PadType::CONSTANT;
  float constant_value = 0.f;
  std::vector<int64_t> input_shape;
  // input_shape plus the leading and trailing pads of each dimension.
  std::vector<int64_t> output_shape;
  // Leading pad of each dimension; the caller guarantees the limits above.
  std::vector<int64_t> pads_before;
};

void Pad(const PadParams& params, const float* input, float* output);
// The same on uint8 data with `constant` (the uint8 kernel passes the zero
// point, real 0) in place of params.constant_value.
void PadUint8(const PadParams& params, uint8_t constant, const uint8_t* input, uint8_t* output);

}  // namespace ref
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_PAD_H_
