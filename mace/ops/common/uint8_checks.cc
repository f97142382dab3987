#include "mace/ops/common/uint8_checks.h"

#include <cmath>

#include "mace/ops/common/op_checks.h"
#include "mace/ops/common/quantize.h"

namespace mace {
namespace ops {
namespace {

bool SameScale(float a, float b) { return std::fabs(a - b) <= 1e-6f * std::fabs(b); }

}  // namespace

MaceStatus CheckQuantizedTensors(const Operation& op,
                                 std::initializer_list<const Tensor*> tensors) {
  for (const Tensor* tensor : tensors) {
    if (tensor == nullptr) continue;
    const MaceStatus status = CheckQuantParams(*tensor);
    if (!status.ok()) return OpError(op, status.information());
  }
  return MaceStatus();
}

MaceStatus KeepInputQuantization(const Operation& op, const Tensor& input, Tensor* output) {
  if (input.dtype() != DT_UINT8) return MaceStatus();
  MACE_RETURN_IF_ERROR(CheckQuantizedTensors(op, {&input}));
  if (output->scale() == 0.f && output->zero_point() == 0) {
    output->SetQuantization(input.quant());
    return MaceStatus();
  }
  MACE_RETURN_IF_ERROR(CheckQuantizedTensors(op, {output}));
  if (!SameScale(output->scale(), input.scale()) || output->zero_point() != input.zero_point()) {
    return OpError(op, StrCat("output '", output->name(), "' has scale ", output->scale(),
                              " and zero point ", output->zero_point(), " but input '",
                              input.name(), "' has scale ", input.scale(), " and zero point ",
                              input.zero_point(), "; this uint8 kernel keeps the input's"));
  }
  return MaceStatus();
}

MaceStatus FixOutputQuantization(const Operation& op, float scale, int32_t zero_point,
                                 Tensor* output) {
  if (output->scale() == 0.f && output->zero_point() == 0) {
    output->SetQuantization(scale, zero_point);
    return MaceStatus();
  }
  MACE_RETURN_IF_ERROR(CheckQuantizedTensors(op, {output}));
  if (!SameScale(output->scale(), scale) || output->zero_point() != zero_point) {
    return OpError(
        op, StrCat("output '", output->name(), "' has scale ", output->scale(), " and zero point ",
                   output->zero_point(), " but this uint8 kernel writes scale ", scale,
                   " and zero point ", zero_point));
  }
  return MaceStatus();
}

MaceStatus CheckBiasScale(const Operation& op, const Tensor& input, const Tensor& weight,
                          const Tensor* bias) {
  if (bias == nullptr || bias->quant().scale == 0.f || !weight.quant().channel_scales.empty()) {
    return MaceStatus();
  }
  const double expected = static_cast<double>(input.scale()) * weight.scale();
  if (std::fabs(bias->quant().scale - expected) <= 1e-3 * expected) return MaceStatus();
  return OpError(op, StrCat("bias '", bias->name(), "' has scale ", bias->quant().scale,
                            " but input x weight scale is ", expected));
}

}  // namespace ops
}  // namespace mace
