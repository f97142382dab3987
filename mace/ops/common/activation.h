// Activation functions shared by the Activation op and by every op with a
// fused activation (Conv2D, FullyConnected, BatchNorm, Eltwise, ...).
//
// Arguments, identical wherever an activation is fused:
//   activation             string: NOOP RELU RELUX RELU6 LEAKYRELU PRELU SIGMOID
//                          TANH HARDSWISH HARDSIGMOID (default NOOP)
//   activation_max_limit   float, upper clamp for RELUX (RELU6 sets 6)
//   activation_coefficient float, LEAKYRELU slope and HARDSIGMOID alpha (1/6)
//   activation_beta        float, HARDSIGMOID beta (0.5)
// PRELU needs a per-channel slope tensor and is only available in Activation.
#ifndef MACE_OPS_COMMON_ACTIVATION_H_
#define MACE_OPS_COMMON_ACTIVATION_H_

#include <algorithm>
#include <cmath>
#include <string>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

enum class ActivationType {
  NOOP, RELU, RELUX, LEAKYRELU, PRELU, SIGMOID, TANH, HARDSWISH, HARDSIGMOID,
};

struct Activation {
  ActivationType type = ActivationType::NOOP;
  float max_limit = 6.f;
  float alpha = 0.f;
  float beta = 0.5f;

  // Scalar form; PRELU uses `alpha` as the slope passed in by the caller.
  float Apply(float x) const {
    switch (type) {
      case ActivationType::NOOP: return x;
      case ActivationType::RELU: return std::max(x, 0.f);
      case ActivationType::RELUX: return std::min(std::max(x, 0.f), max_limit);
      case ActivationType::LEAKYRELU:
      case ActivationType::PRELU: return x >= 0.f ? x : x * alpha;
      case ActivationType::SIGMOID: return 1.f / (1.f + std::exp(-x));
      case ActivationType::TANH: return std::tanh(x);
      case ActivationType::HARDSWISH:
        return x * std::min(std::max(x + 3.f, 0.f), 6.f) / 6.f;
      case ActivationType::HARDSIGMOID:
        return std::min(std::max(alpha * x + beta, 0.f), 1.f);
    }
    return x;
  }

  // Applies in place to `count` values.
  void ApplyInPlace(float* data, int64_t count) const {
    if (type == ActivationType::NOOP) return;
    for (int64_t i = 0; i < count; ++i) data[i] = Apply(data[i]);
  }
};

// Reads the activation arguments of `op`. Unknown names are INVALID_ARGS
// naming the op; PRELU is refused unless `allow_prelu`.
MaceStatus ParseActivation(const Operation& op, bool allow_prelu, Activation* activation);

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_COMMON_ACTIVATION_H_
