// Prepare checks every tensor's quantization (naming the tensor at fault),
// folds a fused RELU/RELU6 into the output clamp and builds the
// requantization multipliers. Run uses the uint8 GEMM
// (cpu/mat_mul_uint8_gemm.h) where the kernel table has one, else the
// reference kernel; the two agree bit for bit.
#include "mace/ops/cpu/mat_mul_uint8.h"

#include <memory>

#include "mace/ops/common/uint8_checks.h"
#include "mace/ops/cpu/mat_mul_uint8_gemm.h"
#include "mace/ops/cpu/op_compute.h"
#include "mace/ops/mat_mul.h"
#include "mace/ops/ref/quantized/mat_mul.h"

namespace mace {
namespace ops {
namespace {

class MatMulUint8Cpu final : public MatMulBase {
 public:
  MaceStatus Prepare(OpContext* context) override {
    MACE_RETURN_IF_ERROR(InferShapes());
    const Tensor& a = *Input(0);
    const Tensor& b = *Input(1);
    OP_CHECK(b.dtype() == DT_UINT8, "B '", b.name(), "' is ", DataTypeName(b.dtype()),
             " but the uint8 MatMul needs uint8 operands");
    OP_CHECK(Bias() == nullptr, "the uint8 MatMul takes no bias");
    MACE_RETURN_IF_ERROR(CheckQuantizedTensors(*this, {&a, &b, Output(0)}));
    shape_.batch = 1;
    shape_.rows = params().m;
    shape_.depth = params().k;
    shape_.cols = params().n;
    shape_.transpose_a = params().transpose_a;
    shape_.transpose_b = params().transpose_b;
    quant_.input_zero_point = a.zero_point();
    quant_.filter_zero_point = b.zero_point();
    quant_.multipliers.assign(1, QuantizedMultiplier());
    const double real = static_cast<double>(a.scale()) * b.scale() / Output(0)->scale();
    MACE_RETURN_IF_ERROR(OpStatus(MakeQuantizedMultiplier(
        real, StrCat("'", a.name(), "' x '", b.name(), "'"), &quant_.multipliers[0])));
    MACE_RETURN_IF_ERROR(
        MakeOutputClamp(Activation(), Output(0)->quant(), Describe(), &quant_.output));
    fast_.reset();
    if (const KernelTable* table = ContextKernelTable(context)) {
      fast_ = std::make_unique<MatMulUint8Gemm>(*table, shape_, quant_);
    }
    return MaceStatus();
  }

  MaceStatus Run(OpContext* context) override {
    const ref::MatMulParams& p = params();
    const uint8_t* a = Input(0)->data<uint8_t>();
    const uint8_t* b = Input(1)->data<uint8_t>();
    uint8_t* output = Output(0)->mutable_data<uint8_t>();
    const int64_t dims = static_cast<int64_t>(p.batch_shape.size());
    for (int64_t index = 0; index < batch_count(); ++index) {
      // The operands' matrices for output matrix `index` (broadcast
      // dimensions have stride 0).
      int64_t a_matrix = 0, b_matrix = 0, rest = index;
      for (int64_t d = dims - 1; d >= 0; --d) {
        const int64_t coordinate = rest % p.batch_shape[d];
        rest /= p.batch_shape[d];
        a_matrix += coordinate * p.a_batch_strides[d];
        b_matrix += coordinate * p.b_batch_strides[d];
      }
      const uint8_t* a_data = a + a_matrix * p.m * p.k;
      const uint8_t* b_data = b + b_matrix * p.k * p.n;
      uint8_t* out = output + index * p.m * p.n;
      // A constant A is packed once; another is packed again each run, and
      // within a run wherever its matrix changes.
      const bool a_changed = index == 0 && !Input(0)->is_weight();
      if (fast_ == nullptr || !fast_->Run(a_data, a_changed, b_data, out, ContextPool(context))) {
        ref::quantized::MatMul(shape_, quant_, a_data, b_data, out);
      }
    }
    return MaceStatus();
  }

 private:
  MaceStatus OpStatus(const MaceStatus& status) const {
    return status.ok() ? status : OpError(*this, status.information());
  }

  ref::quantized::MatMulShape shape_;
  ref::quantized::ConvQuantization quant_;
  std::unique_ptr<MatMulUint8Gemm> fast_;
};

}  // namespace

std::unique_ptr<Operation> NewMatMulUint8Cpu() { return std::make_unique<MatMulUint8Cpu>(); }

}  // namespace ops
}  // namespace mace
