// Eltwise's CPU kernel: the fast kernel (every type but POW, any broadcast;
// cpu/eltwise_kernel.h) when the engine's kernel family has one, else the
// reference kernel. Run blocked, the operands are flat arrays.
#include "mace/ops/cpu/eltwise_cpu.h"

#include <memory>

#include "mace/ops/cpu/blocked_op.h"
#include "mace/ops/cpu/eltwise_half.h"
#include "mace/ops/cpu/eltwise_kernel.h"
#include "mace/ops/cpu/op_compute.h"
#include "mace/ops/eltwise.h"

namespace mace {
namespace ops {
namespace {

class EltwiseCpu final : public BlockedLayoutOp<EltwiseBase> {
 public:
  MaceStatus Prepare(OpContext* context) override {
    kernels_ = ContextKernelTable(context);
    fast_.reset();
    half_ = false;
    MACE_RETURN_IF_ERROR(InferShapes());
    run_params_ = params();
    const KernelTable* table = kernels_;
    // An empty output is never run.
    if (table != nullptr && Output(0)->size() > 0) {
      fast_ = EltwiseKernel::Create(*table, run_params_);
    }
    return MaceStatus();
  }

  MaceStatus Run(OpContext* context) override {
    if (half_) {
      uint16_t* out = Output(0)->mutable_data<uint16_t>();
      kernels_->fp16_add(Input(0)->data<uint16_t>(), Input(1)->data<uint16_t>(),
                         Output(0)->size(), out);
      if (params().activation.type != ActivationType::NOOP) {
        ClampHalves(out, Output(0)->size(), half_limit_);
      }
      return MaceStatus();
    }
    return RunFloat(context);
  }

  // In an fp16 engine, the plain sum of two activations of one shape (a
  // residual addition) adds halves, and clamps them for a ReLU or a ReLU
  // with a bound that is a half value (ResNet's sums).
  bool HalfCapable() const override {
    const ref::EltwiseParams& p = params();
    uint16_t limit = 0;
    return kernels_ != nullptr && kernels_->fp16_add != nullptr && InputSize() == 2 &&
           !Input(0)->is_weight() && !Input(1)->is_weight() &&
           Input(0)->shape() == Input(1)->shape() && p.type == ref::EltwiseType::SUM &&
           p.coeff_a == 1.f && p.coeff_b == 1.f && HalfClamp(&limit);
  }
  MaceStatus UseHalf(OpContext* /*context*/) override {
    half_ = true;
    HalfClamp(&half_limit_);
    return MaceStatus();
  }
  // None, a ReLU, or a ReLU6-like clamp whose bound is a non-negative half
  // value: its bits (+inf for none) to `limit`.
  bool HalfClamp(uint16_t* limit) const {
    const Activation& a = params().activation;
    *limit = 0x7c00;
    if (a.type == ActivationType::NOOP || a.type == ActivationType::RELU) return true;
    if (a.type != ActivationType::RELUX || !(a.max_limit >= 0.f)) return false;
    kernels_->fp16_from_float(&a.max_limit, 1, limit);
    float back = 0.f;
    kernels_->fp16_to_float(limit, 1, &back);
    return back == a.max_limit;
  }

  MaceStatus RunFloat(OpContext* context) {
    const float* in0 = Input(0)->data<float>();
    const float* a = in0;
    const float* b = nullptr;
    if (InputSize() == 2) {
      b = Input(1)->data<float>();
    } else if (has_scalar()) {
      a = scalar_index() == 0 ? &scalar() : in0;
      b = scalar_index() == 0 ? in0 : &scalar();
    }
    if (fast_ != nullptr) {
      fast_->Run(a, b, Output(0)->mutable_data<float>(), ContextPool(context));
      return MaceStatus();
    }
    ref::Eltwise(run_params_, a, b, Output(0)->mutable_data<float>());
    return MaceStatus();
  }

  // Every element is computed on its own, so blocked tensors of one shape
  // (or one tensor and a scalar) are flat arrays, padding lanes included.
  int BlockedBlock() const override {
    const KernelTable* table = kernels_;
    const int block = BlockedLayoutBlock(table);
    if (block == 0 || Input(0)->dim_size() != 4) return 0;
    // A constant operand stays in its stored NCHW order: no conversion
    // would reorder it.
    for (int i = 0; i < InputSize(); ++i) {
      if (Input(i)->is_weight()) return 0;
    }
    if (InputSize() == 2 && Input(1)->shape() != Input(0)->shape()) return 0;
    return block;
  }

  MaceStatus UseBlocked(OpContext* /*context*/) override {
    const int64_t count = Output(0)->storage_size();
    const bool scalar_a = has_scalar() && scalar_index() == 0;
    const bool scalar_b = has_scalar() && scalar_index() == 1;
    run_params_.shape = {count};
    run_params_.a_strides = {scalar_a ? 0 : 1};
    run_params_.b_strides = {scalar_b || (InputSize() == 1 && !scalar_a) ? 0 : 1};
    fast_ = EltwiseKernel::Create(*kernels_, run_params_);
    return MaceStatus();
  }

 private:
  // The engine's CPU kernel family (null: reference kernels), from Prepare.
  const KernelTable* kernels_ = nullptr;
  // params(), or flattened once the op runs blocked.
  ref::EltwiseParams run_params_;
  std::unique_ptr<EltwiseKernel> fast_;
  bool half_ = false;  // UseHalf: both inputs and the output hold halves
  uint16_t half_limit_ = 0x7c00;  // the clamp's upper bound, as a half
};

}  // namespace

std::unique_ptr<Operation> NewEltwiseCpu() { return std::make_unique<EltwiseCpu>(); }

}  // namespace ops
}  // namespace mace
