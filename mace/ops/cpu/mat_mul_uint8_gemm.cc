#include "mace/ops/cpu/mat_mul_uint8_gemm.h"

namespace mace {
namespace ops {
namespace {

// dst [cols, rows] = the transpose of src [rows, cols].
void Transpose(const uint8_t* src, int64_t rows, int64_t cols, uint8_t* dst) {
  constexpr int64_t kTile = 32;
  for (int64_t r0 = 0; r0 < rows; r0 += kTile) {
    const int64_t r1 = r0 + kTile < rows ? r0 + kTile : rows;
    for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
      const int64_t c1 = c0 + kTile < cols ? c0 + kTile : cols;
      for (int64_t c = c0; c < c1; ++c) {
        for (int64_t r = r0; r < r1; ++r) dst[c * rows + r] = src[r * cols + c];
      }
    }
  }
}

}  // namespace

MatMulUint8Gemm::MatMulUint8Gemm(const KernelTable& table,
                                 const ref::quantized::MatMulShape& shape,
                                 const ref::quantized::ConvQuantization& quant)
    : table_(table), shape_(shape), quant_(quant) {
  // A is the convolution's filter and B its input.
  quant_.filter_zero_point = quant.input_zero_point;
  quant_.input_zero_point = quant.filter_zero_point;
  conv_.batch = 1;
  conv_.in_channels = shape.depth;
  conv_.in_h = 1;
  conv_.in_w = shape.cols;
  conv_.out_channels = shape.rows;
  conv_.out_h = 1;
  conv_.out_w = shape.cols;
  conv_.kernel_h = conv_.kernel_w = 1;
}

bool MatMulUint8Gemm::Run(const uint8_t* a, bool a_changed, const uint8_t* b, uint8_t* output,
                          ThreadPool* pool) {
  if (table_.quantized_gemm == nullptr || unavailable_) return false;
  if (gemm_ == nullptr || a_changed || a != packed_a_) {
    const uint8_t* filter = a;
    if (shape_.transpose_a) {  // stored [depth, rows]
      a_rows_.resize(shape_.rows * shape_.depth);
      Transpose(a, shape_.depth, shape_.rows, a_rows_.data());
      filter = a_rows_.data();
    }
    gemm_ = Conv2dUint8Gemm::Create(table_, conv_, quant_, filter, false);
    packed_a_ = a;
    if (gemm_ == nullptr) {
      unavailable_ = true;  // the depth alone decides
      return false;
    }
  }
  const uint8_t* input = b;
  if (shape_.transpose_b) {  // stored [cols, depth]
    b_rows_.resize(shape_.depth * shape_.cols);
    Transpose(b, shape_.cols, shape_.depth, b_rows_.data());
    input = b_rows_.data();
  }
  gemm_->Run(input, nullptr, output, pool);
  return true;
}

}  // namespace ops
}  // namespace mace
