// FullyConnected's CPU kernel. With a constant weight and a kernel family,
// Prepare packs the weight once as the right-hand GEMM operand and Run is
// one GEMM (a matrix-vector product for batch 1) with bias and activation
// fused; otherwise the reference kernel runs. On x86 a batch-1 product reads
// the weight in place instead: its rows are what the product streams anyway,
// and a classifier's packed copy (4-5 MiB for the MobileNets) was a quarter
// of engine creation's CPU time and as much fresh memory.
#include "mace/ops/cpu/fully_connected_cpu.h"

#include <memory>

#include "mace/ops/cpu/fully_connected_weight_layout.h"
#include "mace/ops/cpu/fused_activation.h"
#include "mace/ops/cpu/gemm.h"
#include "mace/ops/cpu/gemm_fp16.h"
#include "mace/ops/cpu/linked_families.h"
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
    fused_ = FuseActivation(params().activation, &epilogue_);
    if (kLinksFp16Kernels && table_->fp16_gemm != nullptr) {
      // Half precision: weight[o][k] is A, each input row one column of B.
      fp16_weight_.Pack(*table_, Input(1)->data<float>(), params().out_features,
                        params().in_features, params().in_features, 1, ContextArena(context));
      const int64_t floats = Fp16GemmScratchFloatsPerThread(*table_, 1, params().in_features);
      return scratch_.Reserve(context, NumThreads(ContextPool(context)) * floats * 4);
    }
    // A Prepare for another batch (a dynamic input) chooses again.
    in_place_ =
        FullyConnectedWeightInPlace() && params().batch == 1 && RowsTimesVectorSupported(*table_);
    if (in_place_) return MaceStatus();
    // weight[o][k] is B^T: B's columns are its rows.
    weight_.Pack(Input(1)->data<float>(), params().out_features, params().in_features,
                 params().in_features, 1, table_->nr, ContextArena(context));
    GemmOperand weight;
    weight.packed = &weight_;
    const int64_t floats =
        GemmScratchFloatsPerThread(*table_, params().batch, params().out_features,
                                   params().in_features, InputOperand(), weight);
    return scratch_.Reserve(context, NumThreads(ContextPool(context)) * floats * 4);
  }

  void RunGemm(OpContext* context, const float* bias) {
    if (kLinksFp16Kernels && table_->fp16_gemm != nullptr) {
      RunFp16(context, bias);
      return;
    }
    float* output = Output(0)->mutable_data<float>();
    ThreadPool* pool = ContextPool(context);
    if (in_place_) {
      RowsTimesVector(*table_, Input(1)->data<float>(), params().out_features, params().in_features,
                      params().in_features, Input(0)->data<float>(), bias, epilogue_, output, pool);
      if (!fused_) ApplyActivation(params().activation, output, params().out_features, pool);
      return;
    }
    GemmOperand weight;
    weight.packed = &weight_;
    TileEpilogue epilogue = epilogue_;
    epilogue.col_bias = bias;
    Gemm(*table_, params().batch, params().out_features, params().in_features, InputOperand(),
         weight, output, params().out_features, epilogue, pool, scratch_.Get(context));
    if (!fused_) {
      ApplyActivation(params().activation, output, params().batch * params().out_features, pool);
    }
  }

  // One matrix-vector product per batch row.
  void RunFp16(OpContext* context, const float* bias) {
    TileEpilogue epilogue = epilogue_;
    epilogue.row_bias = bias;
    float* output = Output(0)->mutable_data<float>();
    ThreadPool* pool = ContextPool(context);
    const int64_t in = params().in_features, out = params().out_features;
    for (int64_t row = 0; row < params().batch; ++row) {
      GemmOperand column;
      column.data = Input(0)->data<float>() + row * in;
      column.stride = in;
      column.depth_stride = 1;
      Fp16Gemm(*table_, out, 1, in, fp16_weight_, column, output + row * out, 1, epilogue, pool,
               scratch_.Get(context));
    }
    if (!fused_) ApplyActivation(params().activation, output, params().batch * out, pool);
  }

  const KernelTable* table_ = nullptr;  // null: reference kernel
  Fp16Panels fp16_weight_;              // with the table's fp16 kernels
  PackedPanels weight_;
  TileEpilogue epilogue_;
  bool fused_ = false;
  bool in_place_ = false;  // batch 1: the weight's rows read in place
  OpScratch scratch_;
};

}  // namespace

std::unique_ptr<Operation> NewFullyConnectedCpu() { return std::make_unique<FullyConnectedCpu>(); }

}  // namespace ops
}  // namespace mace
