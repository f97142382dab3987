// Reference Unary: one elementwise math function (exp, log, rounding,
// trigonometry, the smooth activations ONNX names separately) applied to
// every element of a float tensor. It is the single definition each kernel
// of Unary is checked against.
#ifndef MACE_OPS_REF_UNARY_H_
#define MACE_OPS_REF_UNARY_H_

#include <cstdint>
#include <string>

namespace mace {
namespace ops {
namespace ref {

enum class UnaryType {
  EXP, LOG, FLOOR, CEIL, ROUND, SIGN, ERF,
  SOFTPLUS, SOFTSIGN, GELU, GELU_TANH, MISH, ELU, SELU, CELU, THRESHOLDED_RELU,
  SIN, COS, TAN, ASIN, ACOS, ATAN, SINH, COSH, ASINH, ACOSH, ATANH,
};

struct UnaryParams {
  UnaryType type = UnaryType::EXP;
  // ELU, CELU and THRESHOLDED_RELU's alpha; SELU's alpha and gamma.
  float alpha = 1.f;
  float gamma = 1.f;
  int64_t count = 0;
};

// The type named `name` ("EXP", "GELU_TANH", ...); false for an unknown name.
bool ParseUnaryType(const std::string& name, UnaryType* type);

// The function at one point, computed in double and rounded once to float.
float UnaryValue(const UnaryParams& params, float x);

// input, output: params.count values; output may be input.
void Unary(const UnaryParams& params, const float* input, float* output);

}  // namespace ref
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_UNARY_H_
