// Conv2D's uint8 CPU kernel. Prepare checks every tensor's quantization
// (naming the tensor at fault), folds a fused RELU/RELU6 into the output
// clamp and builds the per-channel requantization multipliers. Run uses,
// for a constant filter, the implicit GEMM (cpu/conv_2d_uint8_implicit.h)
// where the table has one and the convolution suits it (windows of more
// than one tap, stride 1 or 2), else the kernel table's uint8 GEMM
// (cpu/conv_2d_uint8_gemm.h); without a constant filter, the reference
// kernel. All agree bit for bit.
#include "mace/ops/cpu/conv_2d_uint8.h"

#include <cmath>
#include <memory>
#include <vector>

#include "mace/ops/common/quantize.h"
#include "mace/ops/conv_2d.h"
#include "mace/ops/cpu/conv_2d_uint8_gemm.h"
#include "mace/ops/cpu/conv_2d_uint8_implicit.h"
#include "mace/ops/cpu/op_compute.h"
#include "mace/ops/ref/quantized/conv_2d.h"
#include "mace/utils/logging.h"

namespace mace {
namespace ops {
namespace {

class Conv2DUint8Cpu final : public Conv2DBase {
 public:
  MaceStatus Prepare(OpContext* context) override {
    MACE_RETURN_IF_ERROR(InferShapes());
    const Tensor& input = *Input(0);
    const Tensor& filter = *Input(1);
    const Tensor& output = *Output(0);
    for (const Tensor* tensor : {&input, &filter, &output}) {
      const MaceStatus status = CheckQuantParams(*tensor);
      if (!status.ok()) return Invalid(status.information());
    }
    const Tensor* bias = Bias();
    if (bias != nullptr && bias->quant().scale != 0.f && filter.quant().channel_scales.empty()) {
      // A bias that states its scale must state input scale x filter scale.
      const double expected = static_cast<double>(input.scale()) * filter.scale();
      OP_CHECK(std::fabs(bias->quant().scale - expected) <= 1e-3 * expected, "bias '",
               bias->name(), "' has scale ", bias->quant().scale, " but input x filter scale is ",
               expected);
    }
    quant_.input_zero_point = input.zero_point();
    quant_.filter_zero_point = filter.zero_point();
    MaceStatus status = MakeChannelMultipliers(input.scale(), filter, output.scale(),
                                               params().out_channels, &quant_.multipliers);
    if (!status.ok()) return Invalid(status.information());
    MACE_RETURN_IF_ERROR(
        MakeOutputClamp(params().activation, output.quant(), Describe(), &quant_.output));
    fast_.reset();
    implicit_.reset();
    const KernelTable* table = ContextKernelTable(context);
    if (table != nullptr && filter.is_weight()) {
      implicit_ = Conv2dUint8Implicit::Create(*table, params(), quant_, filter.raw_data(),
                                              filter.dtype() == DT_INT8);
      if (implicit_ != nullptr) {
        VLOG(2) << Describe() << ": " << table->name << " " << implicit_->name();
        return MaceStatus();
      }
      MakeGemm(*table);
    }
    return MaceStatus();
  }

  MaceStatus Run(OpContext* context) override {
    const Tensor* bias = Bias();
    const int32_t* bias_data = bias != nullptr ? bias->data<int32_t>() : nullptr;
    const uint8_t* input = Input(0)->data<uint8_t>();
    uint8_t* output = Output(0)->mutable_data<uint8_t>();
    if (implicit_ != nullptr && implicit_->Run(input, bias_data, output, ContextPool(context))) {
      return MaceStatus();
    }
    // A bias the implicit GEMM's fused output step cannot take: the GEMM,
    // packed on first need.
    const KernelTable* table = ContextKernelTable(context);
    if (implicit_ != nullptr && fast_ == nullptr && table != nullptr) MakeGemm(*table);
    if (fast_ != nullptr) {
      fast_->Run(input, bias_data, output, ContextPool(context));
    } else if (Input(1)->dtype() == DT_INT8) {
      ref::quantized::Conv2D(params(), quant_, input, Input(1)->data<int8_t>(), bias_data, output);
    } else {
      ref::quantized::Conv2D(params(), quant_, input, Input(1)->data<uint8_t>(), bias_data, output);
    }
    return MaceStatus();
  }

  int64_t HeldBytes() const override {
    return (implicit_ != nullptr ? implicit_->HeldBytes() : 0) +
           (fast_ != nullptr ? fast_->HeldBytes() : 0);
  }

 private:
  void MakeGemm(const KernelTable& table) {
    const Tensor& filter = *Input(1);
    fast_ = Conv2dUint8Gemm::Create(table, params(), quant_, filter.raw_data(),
                                    filter.dtype() == DT_INT8);
    if (fast_ != nullptr) {
      VLOG(2) << Describe() << ": " << table.name << " " << fast_->name();
      // A constant bias (or none): its output terms are made once here
      // rather than on every run.
      const Tensor* bias = Bias();
      if (bias == nullptr) {
        fast_->PrepareBias(nullptr);
      } else if (bias->is_weight()) {
        fast_->PrepareBias(bias->data<int32_t>());
      }
    }
  }

  ref::quantized::ConvQuantization quant_;
  std::unique_ptr<Conv2dUint8Implicit> implicit_;
  std::unique_ptr<Conv2dUint8Gemm> fast_;
};

}  // namespace

std::unique_ptr<Operation> NewConv2DUint8Cpu() { return std::make_unique<Conv2DUint8Cpu>(); }

}  // namespace ops
}  // namespace mace
