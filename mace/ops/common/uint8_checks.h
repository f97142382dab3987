// Quantization checks shared by the uint8 CPU kernels (mace/ops/common/
// quantize.h has the scheme). Each error names the op and the tensor.
#ifndef MACE_OPS_COMMON_UINT8_CHECKS_H_
#define MACE_OPS_COMMON_UINT8_CHECKS_H_

#include <initializer_list>

#include "mace/core/operation.h"
#include "mace/ops/common/activation.h"
#include "mace/ops/common/op_checks.h"
#include "mace/ops/common/quantize.h"

namespace mace {
namespace ops {

// CheckQuantParams for each tensor (null entries are skipped).
MaceStatus CheckQuantizedTensors(const Operation& op, std::initializer_list<const Tensor*> tensors);

// For kernels whose output keeps the input's quantization (data movement,
// pooling, resizing, a RELU clamp): an output that states none (scale 0)
// takes the input's; one that states other parameters is an error naming
// both tensors. Inputs that are not uint8 (int32 shape subgraphs) carry no
// quantization and pass.
MaceStatus KeepInputQuantization(const Operation& op, const Tensor& input, Tensor* output);

// For kernels whose output has a fixed quantization (Softmax): an output
// that states none takes `scale` and `zero_point`; one that states other
// parameters is an error.
MaceStatus FixOutputQuantization(const Operation& op, float scale, int32_t zero_point,
                                 Tensor* output);

// A bias of a per-tensor weight that states its scale must state input
// scale x weight scale (to 0.1%); per-channel weights are not checked.
MaceStatus CheckBiasScale(const Operation& op, const Tensor& input, const Tensor& weight,
                          const Tensor* bias);

// Fills a ref::quantized::ConvQuantization (a template parameter, so this
// library needs none of ref/quantized/) for [input, weight, bias] ->
// output with `channels` output channels: zero points, the channels'
// requantization multipliers and the clamp of `activation`.
template <typename ConvQuantization>
MaceStatus MakeConvQuantization(const Operation& op, const Tensor& input, const Tensor& weight,
                                const Tensor* bias, const Tensor& output, int64_t channels,
                                const Activation& activation, ConvQuantization* quant) {
  MACE_RETURN_IF_ERROR(CheckBiasScale(op, input, weight, bias));
  quant->input_zero_point = input.zero_point();
  quant->filter_zero_point = weight.zero_point();
  const MaceStatus status =
      MakeChannelMultipliers(input.scale(), weight, output.scale(), channels, &quant->multipliers);
  if (!status.ok()) return OpError(op, status.information());
  return MakeOutputClamp(activation, output.quant(), op.Describe(), &quant->output);
}

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_COMMON_UINT8_CHECKS_H_
