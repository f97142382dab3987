// MatMul's CPU kernel. With a kernel family each product runs on the packed
// GEMM, and a constant, unbatched B is packed once in Prepare; otherwise the
// reference kernel runs.
#include "mace/ops/cpu/mat_mul_cpu.h"

#include <algorithm>
#include <memory>

#include "mace/ops/cpu/gemm.h"
#include "mace/ops/cpu/op_compute.h"
#include "mace/ops/mat_mul.h"

namespace mace {
namespace ops {
namespace {

class MatMulCpu final : public MatMulBase {
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
    ref::MatMul(params(), Input(0)->data<float>(), Input(1)->data<float>(),
                bias != nullptr ? bias->data<float>() : nullptr, Output(0)->mutable_data<float>());
    return MaceStatus();
  }

 private:
  // Operands of one product, matrices at `a` and `b`.
  GemmOperand OperandA(const float* a) const {
    GemmOperand operand;
    operand.data = a;
    operand.stride = params().transpose_a ? 1 : params().k;
    operand.depth_stride = params().transpose_a ? params().m : 1;
    return operand;
  }
  GemmOperand OperandB(const float* b) const {
    GemmOperand operand;
    if (packed_b_.rows() > 0) {
      operand.packed = &packed_b_;
      return operand;
    }
    operand.data = b;
    operand.stride = params().transpose_b ? params().k : 1;
    operand.depth_stride = params().transpose_b ? 1 : params().n;
    return operand;
  }

  MaceStatus PrepareFastKernel(OpContext* context) {
    table_ = ContextKernelTable(context);
    packed_b_ = PackedPanels();
    if (table_ == nullptr) return MaceStatus();
    const std::vector<int64_t>& b_strides = params().b_batch_strides;
    const bool one_b =
        std::all_of(b_strides.begin(), b_strides.end(), [](int64_t stride) { return stride == 0; });
    if (Input(1)->is_weight() && one_b) {
      const GemmOperand b = OperandB(Input(1)->data<float>());
      packed_b_.Pack(b.data, params().n, params().k, b.stride, b.depth_stride, table_->nr,
                     ContextArena(context));
    }
    const int64_t floats = GemmScratchFloatsPerThread(*table_, params().m, params().n, params().k,
                                                      OperandA(nullptr), OperandB(nullptr));
    return scratch_.Reserve(context, NumThreads(ContextPool(context)) * floats * 4);
  }

  void RunGemm(OpContext* context, const float* bias) {
    const ref::MatMulParams& p = params();
    const int rank = static_cast<int>(p.batch_shape.size());
    TileEpilogue epilogue;
    epilogue.col_bias = bias;
    const float* a = Input(0)->data<float>();
    const float* b = Input(1)->data<float>();
    float* output = Output(0)->mutable_data<float>();
    for (int64_t batch = 0; batch < batch_count(); ++batch) {
      int64_t a_matrix = 0, b_matrix = 0, rest = batch;
      for (int i = rank - 1; i >= 0; --i) {
        const int64_t coordinate = rest % p.batch_shape[i];
        rest /= p.batch_shape[i];
        a_matrix += coordinate * p.a_batch_strides[i];
        b_matrix += coordinate * p.b_batch_strides[i];
      }
      Gemm(*table_, p.m, p.n, p.k, OperandA(a + a_matrix * p.m * p.k),
           OperandB(b + b_matrix * p.k * p.n), output + batch * p.m * p.n, p.n, epilogue,
           ContextPool(context), scratch_.Get(context));
    }
  }

  const KernelTable* table_ = nullptr;  // null: reference kernel
  PackedPanels packed_b_;               // filled for a constant, unbatched B
  OpScratch scratch_;
};

}  // namespace

std::unique_ptr<Operation> NewMatMulCpu() { return std::make_unique<MatMulCpu>(); }

}  // namespace ops
}  // namespace mace
