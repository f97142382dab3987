// Prepare checks every tensor's quantization (naming the tensor at fault),
// folds a fused RELU/RELU6 into the output clamp and builds the
// requantization multipliers. Run uses, for a constant weight, the
// matrix-vector kernel at batch 1 where the table has one
// (cpu/fully_connected_uint8_gemv.h), else the uint8 GEMM
// (cpu/fully_connected_uint8_gemm.h); otherwise the reference kernel. All
// agree bit for bit.
#include "mace/ops/cpu/fully_connected_uint8.h"

#include <memory>

#include "mace/ops/common/uint8_checks.h"
#include "mace/ops/cpu/fully_connected_uint8_gemm.h"
#include "mace/ops/cpu/fully_connected_uint8_gemv.h"
#include "mace/ops/cpu/op_compute.h"
#include "mace/ops/fully_connected.h"
#include "mace/ops/ref/quantized/mat_mul.h"

namespace mace {
namespace ops {
namespace {

class FullyConnectedUint8Cpu final : public FullyConnectedBase {
 public:
  MaceStatus Prepare(OpContext* context) override {
    MACE_RETURN_IF_ERROR(InferShapes());
    MACE_RETURN_IF_ERROR(CheckQuantizedTensors(*this, {Input(0), Input(1), Output(0)}));
    shape_.batch = params().batch;
    shape_.depth = params().in_features;
    shape_.units = params().out_features;
    MACE_RETURN_IF_ERROR(MakeConvQuantization(*this, *Input(0), *Input(1), Bias(), *Output(0),
                                              shape_.units, params().activation, &quant_));
    fast_.reset();
    gemv_.reset();
    const KernelTable* table = ContextKernelTable(context);
    const Tensor& weight = *Input(1);
    if (table != nullptr && weight.is_weight()) {
      const bool int8 = weight.dtype() == DT_INT8;
      gemv_ = FullyConnectedUint8Gemv::Create(*table, shape_, quant_, weight.raw_data(), int8);
      if (gemv_ == nullptr) {
        fast_ = MakeFullyConnectedGemm(*table, shape_, quant_, weight.raw_data(), int8);
      }
    }
    return MaceStatus();
  }

  MaceStatus Run(OpContext* context) override {
    const Tensor* bias = Bias();
    const int32_t* bias_data = bias != nullptr ? bias->data<int32_t>() : nullptr;
    const uint8_t* input = Input(0)->data<uint8_t>();
    uint8_t* output = Output(0)->mutable_data<uint8_t>();
    if (gemv_ != nullptr) {
      gemv_->Run(input, bias_data, output, ContextPool(context));
    } else if (fast_ != nullptr) {
      fast_->Run(input, bias_data, output, ContextPool(context));
    } else if (Input(1)->dtype() == DT_INT8) {
      ref::quantized::FullyConnected(shape_, quant_, input, Input(1)->data<int8_t>(), bias_data,
                                     output);
    } else {
      ref::quantized::FullyConnected(shape_, quant_, input, Input(1)->data<uint8_t>(), bias_data,
                                     output);
    }
    return MaceStatus();
  }

  int64_t HeldBytes() const override {
    return (fast_ != nullptr ? fast_->HeldBytes() : 0) + (gemv_ != nullptr ? gemv_->HeldBytes() : 0);
  }

 private:
  ref::quantized::FullyConnectedShape shape_;
  ref::quantized::ConvQuantization quant_;
  std::unique_ptr<FullyConnectedUint8Gemm> fast_;
  std::unique_ptr<FullyConnectedUint8Gemv> gemv_;
};

}  // namespace

std::unique_ptr<Operation> NewFullyConnectedUint8Cpu() {
  return std::make_unique<FullyConnectedUint8Cpu>();
}

}  // namespace ops
}  // namespace mace
