// DynamicQuantizedFullyConnected: FullyConnected with an int8 weight [O, K]
// quantized per output feature (scales [O], zero point 0) and float input
// rows quantized to uint8 at run time, each with its own scale and zero
// point (ref/dynamic_quantized_fully_connected.h). Inputs [input, weight,
// weight_scale, optional bias]; the input is [N, K] or [N, C, H, W]
// (flattened per batch as FullyConnected does), the output float [N, O]
// (or [N, O, 1, 1]). The converter writes it for `dynamic_quantize: 1`.
//
// The CPU kernel runs on the kernel table's uint8 GEMM
// (cpu/dynamic_quantized_fully_connected_gemm.h) for a constant weight,
// else the reference kernel.
#include <memory>

#include "mace/ops/common/activation.h"
#include "mace/ops/common/op_checks.h"
#include "mace/ops/cpu/dynamic_quantized_fully_connected_gemm.h"
#include "mace/ops/cpu/op_compute.h"
#include "mace/ops/fully_connected.h"
#include "mace/ops/op_registration.h"
#include "mace/ops/ref/dynamic_quantized_fully_connected.h"

namespace mace {
namespace ops {
namespace {

class DynamicQuantizedFullyConnectedCpu final : public FullyConnectedBase {
 public:
  MaceStatus Init() override {
    OP_CHECK(InputSize() >= 3 && InputSize() <= 4 && OutputSize() == 1,
             "needs inputs [input, weight, weight_scale, optional bias] and one output, got ",
             InputSize(), " inputs and ", OutputSize(), " outputs");
    for (int i = 0; i < 3; ++i) OP_CHECK(Input(i) != nullptr, "input ", i, " is missing");
    return ParseActivation(*this, /*allow_prelu=*/false, &mutable_params()->activation);
  }

  MaceStatus Prepare(OpContext* context) override {
    const ref::FullyConnectedParams before = params();
    MACE_RETURN_IF_ERROR(CheckTensor(*this, Input(0), DT_FLOAT));
    MACE_RETURN_IF_ERROR(CheckTensor(*this, Input(1), DT_INT8));
    MACE_RETURN_IF_ERROR(CheckTensor(*this, Input(2), DT_FLOAT));
    MACE_RETURN_IF_ERROR(InferInputWeightShapes());
    const int64_t units = params().out_features;
    const Tensor* scale = Input(2);
    OP_CHECK(scale->dim_size() == 1 && scale->dim(0) == units, "weight_scale has shape ",
             ShapeToString(scale->shape()), " but needs [", units, "]");
    if (InputSize() > 3) {
      const Tensor* bias = Input(3);
      MACE_RETURN_IF_ERROR(CheckTensor(*this, bias, DT_FLOAT));
      OP_CHECK(bias->dim_size() == 1 && bias->dim(0) == units, "bias has shape ",
               ShapeToString(bias->shape()), " but needs [", units, "]");
    }
    // A new batch (a dynamic input) keeps the packed weight.
    if (gemm_ != nullptr && before.in_features == params().in_features &&
        before.out_features == units) {
      return MaceStatus();
    }
    gemm_.reset();
    const KernelTable* table = ContextKernelTable(context);
    if (table != nullptr && Input(1)->is_weight()) {
      gemm_ = DynamicInt8Gemm::Create(*table, units, params().in_features,
                                      Input(1)->data<int8_t>());
    }
    return MaceStatus();
  }

  MaceStatus Run(OpContext* context) override {
    const float* bias = InputSize() > 3 ? Input(3)->data<float>() : nullptr;
    float* output = Output(0)->mutable_data<float>();
    if (gemm_ != nullptr) {
      gemm_->Run(params(), Input(0)->data<float>(), Input(2)->data<float>(), bias, output,
                 ContextPool(context));
    } else {
      ref::DynamicQuantizedFullyConnected(params(), Input(0)->data<float>(),
                                          Input(1)->data<int8_t>(), Input(2)->data<float>(), bias,
                                          output);
    }
    return MaceStatus();
  }

  int64_t HeldBytes() const override { return gemm_ != nullptr ? gemm_->HeldBytes() : 0; }

 private:
  std::unique_ptr<DynamicInt8Gemm> gemm_;
};

}  // namespace

MaceStatus RegisterDynamicQuantizedFullyConnected(OpRegistry* registry) {
  return RegisterOp<DynamicQuantizedFullyConnectedCpu>(registry, "DynamicQuantizedFullyConnected",
                                                       DeviceType::CPU, DT_FLOAT);
}

}  // namespace ops
}  // namespace mace
