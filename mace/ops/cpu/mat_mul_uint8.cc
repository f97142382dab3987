// Prepare checks every tensor's quantization (naming the tensor at fault),
// folds a fused RELU/RELU6 into the output clamp and builds the
// requantization multipliers; Run calls the reference kernel.
#include "mace/ops/cpu/mat_mul_uint8.h"

#include <memory>

#include "mace/ops/common/uint8_checks.h"
#include "mace/ops/mat_mul.h"
#include "mace/ops/ref/quantized/mat_mul.h"

namespace mace {
namespace ops {
namespace {

class MatMulUint8Cpu final : public MatMulBase {
 public:
  MaceStatus Prepare(OpContext* /*context*/) override {
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
    return MakeOutputClamp(Activation(), Output(0)->quant(), Describe(), &quant_.output);
  }

  MaceStatus Run(OpContext* /*context*/) override {
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
      ref::quantized::MatMul(shape_, quant_, a + a_matrix * p.m * p.k, b + b_matrix * p.k * p.n,
                             output + index * p.m * p.n);
    }
    return MaceStatus();
  }

 private:
  MaceStatus OpStatus(const MaceStatus& status) const {
    return status.ok() ? status : OpError(*this, status.information());
  }

  ref::quantized::MatMulShape shape_;
  ref::quantized::ConvQuantization quant_;
};

}  // namespace

std::unique_ptr<Operation> NewMatMulUint8Cpu() { return std::make_unique<MatMulUint8Cpu>(); }

}  // namespace ops
}  // namespace mace
