// DynamicQuantizedFullyConnected: FullyConnected with an int8 or uint8
// weight [O, K] quantized per output feature (scales [O]) and a float input
// quantized to uint8 at run time (ref/dynamic_quantized_fully_connected.h).
// Inputs [input, weight, weight_scale, optional bias]; the input is [N, K]
// or [N, C, H, W] (flattened per batch as FullyConnected does), the output
// float [N, O] (or [N, O, 1, 1]). Arguments:
//   per_tensor          1: the whole input gets one scale and zero point,
//                       as ONNX DynamicQuantizeLinear computes them; 0
//                       (default): each row its own;
//   weight_zero_points  none (all 0), one, or O ints in the weight type's
//                       range.
// The converter writes it for `dynamic_quantize: 1` (int8 weights, rows)
// and for onnxruntime's dynamically quantized MatMuls (per tensor).
//
// The CPU kernel runs on the kernel table's uint8 GEMM
// (cpu/dynamic_quantized_fully_connected_gemm.h) for a constant weight,
// else the reference kernel.
#include <memory>
#include <vector>

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
    per_tensor_ = GetInt("per_tensor", 0) != 0;
    zero_points_ = GetInts("weight_zero_points");
    return ParseActivation(*this, /*allow_prelu=*/false, &mutable_params()->activation);
  }

  MaceStatus Prepare(OpContext* context) override {
    const ref::FullyConnectedParams before = params();
    MACE_RETURN_IF_ERROR(CheckTensor(*this, Input(0), DT_FLOAT));
    const bool uint8_weight = Input(1)->dtype() == DT_UINT8;
    MACE_RETURN_IF_ERROR(CheckTensor(*this, Input(1), uint8_weight ? DT_UINT8 : DT_INT8));
    MACE_RETURN_IF_ERROR(CheckTensor(*this, Input(2), DT_FLOAT));
    MACE_RETURN_IF_ERROR(InferInputWeightShapes());
    const int64_t units = params().out_features;
    const int64_t zeros = static_cast<int64_t>(zero_points_.size());
    OP_CHECK(zeros == 0 || zeros == 1 || zeros == units, "weight_zero_points has ", zeros,
             " values but needs none, 1 or ", units);
    const int32_t low = uint8_weight ? 0 : -128, high = uint8_weight ? 255 : 127;
    for (int64_t zero : zero_points_) {
      OP_CHECK(zero >= low && zero <= high, "weight zero point ", zero, " is outside [", low, ", ",
               high, "]");
    }
    unit_zeros_.assign(zeros == 0 ? 0 : units, 0);
    for (int64_t u = 0; u < static_cast<int64_t>(unit_zeros_.size()); ++u) {
      unit_zeros_[u] = static_cast<int32_t>(zero_points_[zeros == 1 ? 0 : u]);
    }
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
      const CpuRuntime* cpu = ContextCpu(context);
      gemm_ = DynamicInt8Gemm::Create(
          *table, units, params().in_features, Weight(),
          EngineTransformerKernels(cpu != nullptr ? cpu->kernel_isa() : ActiveKernelIsa()));
    }
    return MaceStatus();
  }

  MaceStatus Run(OpContext* context) override {
    const float* bias = InputSize() > 3 ? Input(3)->data<float>() : nullptr;
    float* output = Output(0)->mutable_data<float>();
    if (gemm_ != nullptr) {
      gemm_->Run(params(), Input(0)->data<float>(), per_tensor_, Input(2)->data<float>(), bias,
                 output, ContextPool(context));
    } else {
      ref::DynamicQuantizedFullyConnected(params(), Input(0)->data<float>(), Weight(), per_tensor_,
                                          Input(2)->data<float>(), bias, output);
    }
    return MaceStatus();
  }

  int64_t HeldBytes() const override { return gemm_ != nullptr ? gemm_->HeldBytes() : 0; }

 private:
  ref::DynamicWeight Weight() const {
    ref::DynamicWeight weight;
    if (Input(1)->dtype() == DT_UINT8) {
      weight.uint8 = Input(1)->data<uint8_t>();
    } else {
      weight.int8 = Input(1)->data<int8_t>();
    }
    weight.zero_points = unit_zeros_.empty() ? nullptr : unit_zeros_.data();
    return weight;
  }

  bool per_tensor_ = false;
  std::vector<int64_t> zero_points_;  // as given
  std::vector<int32_t> unit_zeros_;   // one per unit, or empty for all 0
  std::unique_ptr<DynamicInt8Gemm> gemm_;
};

}  // namespace

MaceStatus RegisterDynamicQuantizedFullyConnected(OpRegistry* registry) {
  return RegisterOp<DynamicQuantizedFullyConnectedCpu>(registry, "DynamicQuantizedFullyConnected",
                                                       DeviceType::CPU, DT_FLOAT);
}

}  // namespace ops
}  // namespace mace
