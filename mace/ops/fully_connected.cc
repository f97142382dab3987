// FullyConnected: output = activation(flatten(input) * weight^T + bias).
// A rank-4 input is flattened per batch in NCHW order and the output keeps
// MACE's [N, O, 1, 1] shape so following NCHW ops still see rank 4.
//
// With a constant weight and a CPU that has fast kernels, Prepare packs the
// weight once as the right-hand GEMM operand and Run is one GEMM (a
// matrix-vector product for batch 1) with bias and activation fused.

#include "mace/ops/ref/fully_connected.h"

#include <algorithm>

#include "mace/ops/common/activation.h"
#include "mace/ops/cpu/fused_activation.h"
#include "mace/ops/cpu/gemm.h"
#include "mace/ops/cpu/op_compute.h"
#include "mace/ops/registry.h"

namespace mace {
namespace ops {
namespace {

class FullyConnectedOp : public Operation {
 public:
  MaceStatus Init() override {
    OP_CHECK(InputSize() >= 2 && InputSize() <= 3 && OutputSize() == 1,
             "needs inputs [input, weight, optional bias] and one output, got ", InputSize(),
             " inputs and ", OutputSize(), " outputs");
    OP_CHECK(Input(0) != nullptr, "input is missing");
    OP_CHECK(Input(1) != nullptr, "weight is missing");
    return ParseActivation(*this, /*allow_prelu=*/false, &params_.activation);
  }

  MaceStatus Prepare(OpContext* context) override {
    const Tensor* input = Input(0);
    const Tensor* weight = Input(1);
    const Tensor* bias = Bias();
    for (const Tensor* tensor : {input, weight, bias}) {
      if (tensor == nullptr) continue;
      OP_CHECK(tensor->dtype() == DT_FLOAT, "'", tensor->name(), "' is ",
               DataTypeName(tensor->dtype()), " but must be float32");
      OP_CHECK(std::all_of(tensor->shape().begin(), tensor->shape().end(),
                           [](int64_t d) { return d > 0; }),
               "'", tensor->name(), "' has shape ", ShapeToString(tensor->shape()),
               " with a non-positive dimension");
    }
    OP_CHECK(input->dim_size() == 2 || input->dim_size() == 4, "input has shape ",
             ShapeToString(input->shape()), " but needs rank 2 [N, K] or 4 [N, C, H, W]");
    OP_CHECK(weight->dim_size() == 2, "weight has shape ", ShapeToString(weight->shape()),
             " but needs rank 2 [out_features, in_features]");
    const int64_t batch = input->dim(0);
    const int64_t in_features = input->size() / batch;
    const int64_t out_features = weight->dim(0);
    OP_CHECK(weight->dim(1) == in_features, "weight has shape ", ShapeToString(weight->shape()),
             " but the input ", ShapeToString(input->shape()), " has ", in_features,
             " features per batch");
    if (bias != nullptr) {
      OP_CHECK(bias->dim_size() == 1 && bias->dim(0) == out_features, "bias has shape ",
               ShapeToString(bias->shape()), " but needs [", out_features, "]");
    }
    params_.batch = batch;
    params_.in_features = in_features;
    params_.out_features = out_features;
    if (input->dim_size() == 4) {
      Output(0)->Reshape({batch, out_features, 1, 1});
    } else {
      Output(0)->Reshape({batch, out_features});
    }
    return PrepareFastKernel(context);
  }

  MaceStatus Run(OpContext* context) override {
    const Tensor* bias = Bias();
    if (table_ != nullptr) {
      RunGemm(context, bias != nullptr ? bias->data<float>() : nullptr);
      return MaceStatus();
    }
    ref::FullyConnected(params_, Input(0)->data<float>(), Input(1)->data<float>(),
                        bias != nullptr ? bias->data<float>() : nullptr,
                        Output(0)->mutable_data<float>());
    return MaceStatus();
  }

  int64_t Macs() const override {
    return params_.batch * params_.in_features * params_.out_features;
  }

 private:
  const Tensor* Bias() const { return InputSize() > 2 ? Input(2) : nullptr; }

  GemmOperand InputOperand() const {
    GemmOperand input;
    input.data = Input(0)->data<float>();
    input.stride = params_.in_features;
    input.depth_stride = 1;
    return input;
  }

  MaceStatus PrepareFastKernel(OpContext* context) {
    table_ = ContextKernelTable(context);
    if (table_ == nullptr || !Input(1)->is_weight()) {
      table_ = nullptr;
      return MaceStatus();
    }
    // weight[o][k] is B^T: B's columns are its rows.
    weight_.Pack(Input(1)->data<float>(), params_.out_features, params_.in_features,
                 params_.in_features, 1, table_->nr, ContextArena(context));
    fused_ = FuseActivation(params_.activation, &epilogue_);
    GemmOperand weight;
    weight.packed = &weight_;
    const int64_t floats = GemmScratchFloatsPerThread(*table_, params_.batch, params_.out_features,
                                                      params_.in_features, InputOperand(), weight);
    return scratch_.Reserve(context, NumThreads(ContextPool(context)) * floats * 4);
  }

  void RunGemm(OpContext* context, const float* bias) {
    GemmOperand weight;
    weight.packed = &weight_;
    TileEpilogue epilogue = epilogue_;
    epilogue.col_bias = bias;
    float* output = Output(0)->mutable_data<float>();
    ThreadPool* pool = ContextPool(context);
    Gemm(*table_, params_.batch, params_.out_features, params_.in_features, InputOperand(), weight,
         output, params_.out_features, epilogue, pool, scratch_.Get(context));
    if (!fused_) {
      ApplyActivation(params_.activation, output, params_.batch * params_.out_features, pool);
    }
  }

  ref::FullyConnectedParams params_;
  const KernelTable* table_ = nullptr;  // null: reference kernel
  PackedPanels weight_;
  TileEpilogue epilogue_;
  bool fused_ = false;
  OpScratch scratch_;
};

}  // namespace

MaceStatus RegisterFullyConnected(OpRegistry* registry) {
  return RegisterOp<FullyConnectedOp>(registry, "FullyConnected", DeviceType::CPU, DT_FLOAT);
}

}  // namespace ops
}  // namespace mace
