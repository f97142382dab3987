// Reference FullyConnected: output = activation(input * weight^T + bias).
#ifndef MACE_OPS_REF_FULLY_CONNECTED_H_
#define MACE_OPS_REF_FULLY_CONNECTED_H_

#include <cstdint>

#include "mace/ops/common/activation.h"

namespace mace {
namespace ops {
namespace ref {

struct FullyConnectedParams {
  int64_t batch = 0;
  int64_t in_features = 0;
  int64_t out_features = 0;
  Activation activation;
};

// input [batch, in_features], weight [out_features, in_features],
// bias [out_features] or nullptr, output [batch, out_features].
void FullyConnected(const FullyConnectedParams& params, const float* input, const float* weight,
                    const float* bias, float* output);

}  // namespace ref
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_FULLY_CONNECTED_H_
