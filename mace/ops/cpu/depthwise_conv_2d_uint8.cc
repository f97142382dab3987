// Prepare checks every tensor's quantization (naming the tensor at fault),
// folds a fused RELU/RELU6 into the output clamp and builds the
// requantization multipliers. Run uses the kernel table's 3x3 row kernels
// (cpu/depthwise_conv_2d_uint8_fast.h) for a constant 3x3 filter, else the
// reference kernel; the two agree bit for bit.
#include "mace/ops/cpu/depthwise_conv_2d_uint8.h"

#include <memory>

#include "mace/ops/common/uint8_checks.h"
#include "mace/ops/cpu/depthwise_conv_2d_uint8_fast.h"
#include "mace/ops/cpu/op_compute.h"
#include "mace/ops/depthwise_conv_2d.h"
#include "mace/ops/ref/quantized/conv_2d.h"

namespace mace {
namespace ops {
namespace {

class DepthwiseConv2dUint8Cpu final : public DepthwiseConv2dBase {
 public:
  MaceStatus Prepare(OpContext* context) override {
    MACE_RETURN_IF_ERROR(InferShapes());
    const Tensor& filter = *Input(1);
    MACE_RETURN_IF_ERROR(CheckQuantizedTensors(*this, {Input(0), Output(0)}));
    // Per-channel int8 scales are per output channel (channel c,
    // multiplier m is c * multiplier + m), not per slice of the filter's
    // dimension 0; MakeChannelMultipliers checks their count and values.
    if (filter.quant().channel_scales.empty() || filter.dtype() != DT_INT8) {
      MACE_RETURN_IF_ERROR(CheckQuantizedTensors(*this, {&filter}));
    } else {
      OP_CHECK(filter.zero_point() == 0, "tensor '", filter.name(), "' is int8 with zero point ",
               filter.zero_point(), "; int8 weights are symmetric (zero point 0)");
    }
    MACE_RETURN_IF_ERROR(MakeConvQuantization(*this, *Input(0), filter, Bias(), *Output(0),
                                              params().channels * params().multiplier,
                                              params().activation, &quant_));
    fast_.reset();
    const KernelTable* table = ContextKernelTable(context);
    if (table != nullptr && filter.is_weight()) {
      fast_ = DepthwiseUint8Fast::Create(*table, params(), quant_, filter.raw_data(),
                                         filter.dtype() == DT_INT8);
    }
    return MaceStatus();
  }

  MaceStatus Run(OpContext* context) override {
    const Tensor* bias = Bias();
    const int32_t* bias_data = bias != nullptr ? bias->data<int32_t>() : nullptr;
    const uint8_t* input = Input(0)->data<uint8_t>();
    uint8_t* output = Output(0)->mutable_data<uint8_t>();
    if (fast_ != nullptr) {
      fast_->Run(input, bias_data, output, ContextPool(context));
    } else if (Input(1)->dtype() == DT_INT8) {
      ref::quantized::DepthwiseConv2d(params(), quant_, input, Input(1)->data<int8_t>(), bias_data,
                                      output);
    } else {
      ref::quantized::DepthwiseConv2d(params(), quant_, input, Input(1)->data<uint8_t>(), bias_data,
                                      output);
    }
    return MaceStatus();
  }

  int64_t HeldBytes() const override { return fast_ != nullptr ? fast_->HeldBytes() : 0; }

 private:
  ref::quantized::ConvQuantization quant_;
  std::unique_ptr<DepthwiseUint8Fast> fast_;
};

}  // namespace

std::unique_ptr<Operation> NewDepthwiseConv2dUint8Cpu() {
  return std::make_unique<DepthwiseConv2dUint8Cpu>();
}

}  // namespace ops
}  // namespace mace
