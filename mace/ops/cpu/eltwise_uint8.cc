// Eltwise on uint8: a 256 x 256 table filled by the reference kernel
// (eltwise_uint8_table.h), or the reference kernel (ref/quantized/eltwise.h)
// itself under the reference kernel family. The two
// inputs have the same shape, or the second (for add and multiply either)
// holds one value; other broadcasts and the scalar form are refused.
#include "mace/ops/cpu/eltwise_uint8.h"

#include <memory>
#include <utility>
#include <vector>

#include "mace/ops/common/uint8_checks.h"
#include "mace/ops/cpu/eltwise_uint8_table.h"
#include "mace/ops/cpu/op_compute.h"
#include "mace/ops/eltwise.h"
#include "mace/ops/ref/quantized/eltwise.h"

namespace mace {
namespace ops {
namespace {

class EltwiseUint8Cpu final : public EltwiseBase {
 public:
  MaceStatus Prepare(OpContext* context) override {
    MACE_RETURN_IF_ERROR(InferShapes());
    table_.clear();
    const ref::EltwiseParams& p = params();
    ref::quantized::EltwiseKind kind;
    switch (p.type) {
      case ref::EltwiseType::SUM:
        kind = ref::quantized::EltwiseKind::kAdd;
        break;
      case ref::EltwiseType::SUB:
        kind = ref::quantized::EltwiseKind::kSub;
        break;
      case ref::EltwiseType::PROD:
        kind = ref::quantized::EltwiseKind::kMul;
        break;
      default:
        return Invalid(StrCat("type ", static_cast<int>(p.type),
                              " has no uint8 kernel (only SUM, SUB and PROD do)"));
    }
    OP_CHECK(InputSize() == 2, "the uint8 Eltwise needs two tensor inputs (no scalar form)");
    OP_CHECK(p.coeff_a == 1.f && p.coeff_b == 1.f,
             "the uint8 Eltwise has no coefficients (coeff must be 1, 1)");
    const Tensor* a = Input(0);
    const Tensor* b = Input(1);
    const int64_t count = Output(0)->size();
    swapped_ = kind != ref::quantized::EltwiseKind::kSub && a->size() == 1 && b->size() == count &&
               count != 1;
    if (swapped_) std::swap(a, b);
    OP_CHECK(a->size() == count && (b->size() == count || b->size() == 1), "inputs '",
             Input(0)->name(), "' ", ShapeToString(Input(0)->shape()), " and '", Input(1)->name(),
             "' ", ShapeToString(Input(1)->shape()),
             " broadcast in a way the uint8 Eltwise does not support (same shapes, or one "
             "holding a single value)");
    MACE_RETURN_IF_ERROR(CheckQuantizedTensors(*this, {a, b, Output(0)}));
    MaceStatus status = ref::quantized::MakeEltwiseQuantization(
        kind, a->quant(), b->quant(), Output(0)->quant(), Describe(), &quant_);
    if (!status.ok()) return Invalid(status.information());
    MACE_RETURN_IF_ERROR(
        MakeOutputClamp(p.activation, Output(0)->quant(), Describe(), &quant_.output));
    if (ContextKernelTable(context) != nullptr) MakeEltwiseUint8Table(quant_, &table_);
    return MaceStatus();
  }

  MaceStatus Run(OpContext* context) override {
    const Tensor* a = Input(swapped_ ? 1 : 0);
    const Tensor* b = Input(swapped_ ? 0 : 1);
    if (!table_.empty()) {
      const KernelTable* kernels = ContextKernelTable(context);
      EltwiseUint8ByTable(table_.data(), a->data<uint8_t>(), b->data<uint8_t>(), a->size(),
                          b->size(), Output(0)->mutable_data<uint8_t>(), ContextPool(context),
                          kernels != nullptr ? kernels->eltwise_uint8_table : nullptr);
      return MaceStatus();
    }
    ref::quantized::Eltwise(quant_, a->data<uint8_t>(), b->data<uint8_t>(), a->size(), b->size(),
                            Output(0)->mutable_data<uint8_t>());
    return MaceStatus();
  }

  int64_t HeldBytes() const override { return VectorBytes(table_); }

  // The output may replace input 0 only when it is read as input 0.
  int InPlaceInput() const override { return swapped_ ? -1 : EltwiseBase::InPlaceInput(); }

 private:
  ref::quantized::EltwiseQuantization quant_;
  std::vector<uint8_t> table_;  // empty: the reference kernel runs
  bool swapped_ = false;
};

}  // namespace

std::unique_ptr<Operation> NewEltwiseUint8Cpu() { return std::make_unique<EltwiseUint8Cpu>(); }

}  // namespace ops
}  // namespace mace
