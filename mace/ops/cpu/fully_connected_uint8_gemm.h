// FullyConnected on the uint8 GEMM of Conv2D (cpu/conv_2d_uint8_gemm.h): a
// fully connected layer over `batch` rows of `depth` values is a pointwise
// convolution of one image whose `batch` positions hold `depth` channels,
// and its weight [units, depth] is that convolution's filter. The image is
// the transposed input, [depth, batch], and the convolution's output
// [units, batch] is transposed back (at batch 1 both are the data as it
// is), so every row shares the GEMM's tiles. The results equal
// ref::quantized::FullyConnected bit for bit: each output is the same
// integer sum, requantized by its unit's multiplier.
#ifndef MACE_OPS_CPU_FULLY_CONNECTED_UINT8_GEMM_H_
#define MACE_OPS_CPU_FULLY_CONNECTED_UINT8_GEMM_H_

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "mace/ops/cpu/conv_2d_uint8_gemm.h"
#include "mace/ops/cpu/kernel_table.h"
#include "mace/ops/cpu/transpose_fast.h"
#include "mace/ops/ref/quantized/mat_mul.h"
#include "mace/runtimes/cpu/thread_pool.h"

namespace mace {
namespace ops {

class FullyConnectedUint8Gemm {
 public:
  // Null where Conv2dUint8Gemm::Create gives none (no uint8 GEMM, or a
  // reduction too deep for exact int32 sums).
  static std::unique_ptr<FullyConnectedUint8Gemm> Create(
      const KernelTable& table, const ref::quantized::FullyConnectedShape& shape,
      const ref::quantized::ConvQuantization& quant, const void* weight, bool int8_weight) {
    ref::Conv2DParams p;
    p.batch = 1;
    p.in_channels = shape.depth;
    p.in_h = p.out_h = shape.batch;
    p.in_w = p.out_w = 1;
    p.out_channels = shape.units;
    p.kernel_h = p.kernel_w = 1;
    std::unique_ptr<Conv2dUint8Gemm> conv =
        Conv2dUint8Gemm::Create(table, p, quant, weight, int8_weight);
    if (conv == nullptr) return nullptr;
    std::unique_ptr<FullyConnectedUint8Gemm> fc(new FullyConnectedUint8Gemm());
    fc->conv_ = std::move(conv);
    fc->shape_ = shape;
    if (shape.batch > 1) {
      fc->columns_.resize(shape.depth * shape.batch);
      fc->planes_.resize(shape.units * shape.batch);
    }
    return fc;
  }

  void Run(const uint8_t* input, const int32_t* bias, uint8_t* output, ThreadPool* pool = nullptr) {
    const int64_t rows = shape_.batch, depth = shape_.depth, units = shape_.units;
    if (rows == 1) {
      conv_->Run(input, bias, output, pool);
      return;
    }
    Transpose(input, rows, depth, columns_.data(), pool);
    conv_->Run(columns_.data(), bias, planes_.data(), pool);
    Transpose(planes_.data(), units, rows, output, pool);
  }

  int64_t HeldBytes() const {
    return conv_->HeldBytes() + static_cast<int64_t>(columns_.size() + planes_.size());
  }

  const char* name() const { return conv_->name(); }

 private:
  FullyConnectedUint8Gemm() = default;

  // to = the [rows, cols] bytes of `from`, transposed.
  static void Transpose(const uint8_t* from, int64_t rows, int64_t cols, uint8_t* to,
                        ThreadPool* pool) {
    ref::TransposeParams params;
    params.element_size = 1;
    params.input_shape = {rows, cols};
    params.perm = {1, 0};
    TransposeFast(params, from, to, pool);
  }

  std::unique_ptr<Conv2dUint8Gemm> conv_;
  ref::quantized::FullyConnectedShape shape_;
  std::vector<uint8_t> columns_;  // the input as [depth, batch]
  std::vector<uint8_t> planes_;   // the output as [units, batch]
};

inline std::unique_ptr<FullyConnectedUint8Gemm> MakeFullyConnectedGemm(
    const KernelTable& table, const ref::quantized::FullyConnectedShape& shape,
    const ref::quantized::ConvQuantization& quant, const void* weight, bool int8_weight) {
  return FullyConnectedUint8Gemm::Create(table, shape, quant, weight, int8_weight);
}

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_FULLY_CONNECTED_UINT8_GEMM_H_
