// FullyConnected's CPU kernel. With a constant weight and a kernel family,
// Prepare packs the weight once as the right-hand GEMM operand and Run is
// one GEMM (a matrix-vector product for batch 1) with bias and activation
// fused; otherwise the reference kernel runs.
#include "mace/ops/cpu/fully_connected_cpu.h"

#include <memory>

#include "mace/ops/cpu/fused_activation.h"
#include "mace/ops/cpu/gemm.h"
#include "mace/ops/cpu/op_compute.h"
#include "mace/ops/fully_connected.h"

namespace mace {
namespace ops {
namespace {

class FullyConnectedCpu final : public FullyConnectedBase {
 public:
  MaceStatus Prepare(OpContext* context) override {
    MACE_RETURN_IF_ERROR(InferShapes());
    return PrepareFastKernel(context);
  }

  MaceStatus Run(OpContext* context) override {
    const Tensor* bias = Bias();
    if (table_ != nullptr) {
      RunGemm(context, bias != nullptr ? bias->data<float>() : nullptr);
      return MaceStatus();
    }
    ref::FullyConnected(params(), Input(0)->data<float>(), Input(1)->data<float>(),
                        bias != nullptr ? bias->data<float>() : nullptr,
                        Output(0)->mutable_data<float>());
    return MaceStatus();
  }

 private:
  GemmOperand InputOperand() const {
    GemmOperand input;
    input.data = Input(0)->data<float>();
    input.stride = params().in_features;
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
    weight_.Pack(Input(1)->data<float>(), params().out_features, params().in_features,
                 params().in_features, 1, table_->nr, ContextArena(context));
    fused_ = FuseActivation(params().activation, &epilogue_);
    GemmOperand weight;
    weight.packed = &weight_;
    const int64_t floats =
        GemmScratchFloatsPerThread(*table_, params().batch, params().out_features,
                                   params().in_features, InputOperand(), weight);
    return scratch_.Reserve(context, NumThreads(ContextPool(context)) * floats * 4);
  }

  void RunGemm(OpContext* context, const float* bias) {
    GemmOperand weight;
    weight.packed = &weight_;
    TileEpilogue epilogue = epilogue_;
    epilogue.col_bias = bias;
    float* output = Output(0)->mutable_data<float>();
    ThreadPool* pool = ContextPool(context);
    Gemm(*table_, params().batch, params().out_features, params().in_features, InputOperand(),
         weight, output, params().out_features, epilogue, pool, scratch_.Get(context));
    if (!fused_) {
      ApplyActivation(params().activation, output, params().batch * params().out_features, pool);
    }
  }

  const KernelTable* table_ = nullptr;  // null: reference kernel
  PackedPanels weight_;
  TileEpilogue epilogue_;
  bool fused_ = false;
  OpScratch scratch_;
};

}  // namespace

std::unique_ptr<Operation> NewFullyConnectedCpu() { return std::make_unique<FullyConnectedCpu>(); }

}  // namespace ops
}  // namespace mace
