#include "mace/ops/ref/unary.h"

#include <cmath>
#include <map>

namespace mace {
namespace ops {
namespace ref {

bool ParseUnaryType(const std::string& name, UnaryType* type) {
  static const std::map<std::string, UnaryType> kTypes = {
      {"EXP", UnaryType::EXP},         {"LOG", UnaryType::LOG},
      {"FLOOR", UnaryType::FLOOR},     {"CEIL", UnaryType::CEIL},
      {"ROUND", UnaryType::ROUND},     {"SIGN", UnaryType::SIGN},
      {"ERF", UnaryType::ERF},         {"SOFTPLUS", UnaryType::SOFTPLUS},
      {"SOFTSIGN", UnaryType::SOFTSIGN}, {"GELU", UnaryType::GELU},
      {"GELU_TANH", UnaryType::GELU_TANH}, {"MISH", UnaryType::MISH},
      {"ELU", UnaryType::ELU},         {"SELU", UnaryType::SELU},
      {"CELU", UnaryType::CELU},       {"THRESHOLDED_RELU", UnaryType::THRESHOLDED_RELU},
      {"SIN", UnaryType::SIN},         {"COS", UnaryType::COS},
      {"TAN", UnaryType::TAN},         {"ASIN", UnaryType::ASIN},
      {"ACOS", UnaryType::ACOS},       {"ATAN", UnaryType::ATAN},
      {"SINH", UnaryType::SINH},       {"COSH", UnaryType::COSH},
      {"ASINH", UnaryType::ASINH},     {"ACOSH", UnaryType::ACOSH},
      {"ATANH", UnaryType::ATANH},
  };
  auto it = kTypes.find(name);
  if (it == kTypes.end()) return false;
  *type = it->second;
  return true;
}

namespace {

// log(1 + e^x) without overflow for large x.
double Softplus(double x) { return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)); }

}  // namespace

float UnaryValue(const UnaryParams& p, float value) {
  const double x = value;
  double y = x;
  switch (p.type) {
    case UnaryType::EXP: y = std::exp(x); break;
    case UnaryType::LOG: y = std::log(x); break;
    case UnaryType::FLOOR: y = std::floor(x); break;
    case UnaryType::CEIL: y = std::ceil(x); break;
    // Halves go to the even neighbour (ONNX Round, numpy.round).
    case UnaryType::ROUND: y = std::nearbyint(x); break;
    case UnaryType::SIGN: y = x > 0 ? 1.0 : x < 0 ? -1.0 : x; break;
    case UnaryType::ERF: y = std::erf(x); break;
    case UnaryType::SOFTPLUS: y = Softplus(x); break;
    case UnaryType::SOFTSIGN: y = x / (1.0 + std::fabs(x)); break;
    case UnaryType::GELU: y = 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); break;
    case UnaryType::GELU_TANH: {
      const double k = std::sqrt(2.0 / 3.14159265358979323846);
      y = 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
      break;
    }
    case UnaryType::MISH: y = x * std::tanh(Softplus(x)); break;
    case UnaryType::ELU: y = x >= 0 ? x : p.alpha * std::expm1(x); break;
    case UnaryType::SELU: y = p.gamma * (x > 0 ? x : p.alpha * std::expm1(x)); break;
    case UnaryType::CELU:
      y = std::fmax(0.0, x) + std::fmin(0.0, p.alpha * std::expm1(x / p.alpha));
      break;
    case UnaryType::THRESHOLDED_RELU: y = x > p.alpha ? x : 0.0; break;
    case UnaryType::SIN: y = std::sin(x); break;
    case UnaryType::COS: y = std::cos(x); break;
    case UnaryType::TAN: y = std::tan(x); break;
    case UnaryType::ASIN: y = std::asin(x); break;
    case UnaryType::ACOS: y = std::acos(x); break;
    case UnaryType::ATAN: y = std::atan(x); break;
    case UnaryType::SINH: y = std::sinh(x); break;
    case UnaryType::COSH: y = std::cosh(x); break;
    case UnaryType::ASINH: y = std::asinh(x); break;
    case UnaryType::ACOSH: y = std::acosh(x); break;
    case UnaryType::ATANH: y = std::atanh(x); break;
  }
  return static_cast<float>(y);
}

void Unary(const UnaryParams& params, const float* input, float* output) {
  for (int64_t i = 0; i < params.count; ++i) output[i] = UnaryValue(params, input[i]);
}

}  // namespace ref
}  // namespace ops
}  // namespace mace
