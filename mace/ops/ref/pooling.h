// Reference Pooling (average, max and Lp over NCHW windows).
#ifndef MACE_OPS_REF_POOLING_H_
#define MACE_OPS_REF_POOLING_H_

#include <cstdint>

namespace mace {
namespace ops {
namespace ref {

// Values match MACE's pooling_type argument.
// LP: (sum of |x|^p over the taps inside the input)^(1/p), as ONNX LpPool;
// taps in the padding add nothing.
enum class PoolingType { AVG = 1, MAX = 2, LP = 3 };

struct PoolingParams {
  PoolingType type = PoolingType::MAX;
  int64_t batch = 0;
  int64_t channels = 0, in_h = 0, in_w = 0;
  int64_t out_h = 0, out_w = 0;
  int64_t kernel_h = 0, kernel_w = 0;
  int64_t stride_h = 1, stride_w = 1;
  int64_t dilation_h = 1, dilation_w = 1;
  int64_t pad_top = 0, pad_left = 0;
  // Declared trailing padding. Only count_include_pad reads it: taps in the
  // padding count toward the divisor, taps past it (from ceil_mode) never do.
  int64_t pad_bottom = 0, pad_right = 0;
  bool count_include_pad = false;
  // The exponent of LP pooling (1 or more).
  int64_t p = 2;
};

// input [batch, channels, in_h, in_w], output [batch, channels, out_h, out_w].
// A window that covers no input element at all yields 0.
void Pooling(const PoolingParams& params, const float* input, float* output);

// Max pooling that also gives ONNX MaxPool's Indices output: indices[i] is
// where output i's maximum lies in the whole input, batch and channel
// included. Row-major (storage_order 0): plane * in_h * in_w + ih * in_w + iw;
// column-major (storage_order 1): plane * in_h * in_w + iw * in_h + ih.
// The first of equal maxima in row-major window order wins (a later value
// replaces it only when greater, so a NaN met first stays). A window that
// covers no input element yields 0 and index -1. params.type is ignored.
void MaxPoolingWithIndices(const PoolingParams& params, bool column_major, const float* input,
                           float* output, int32_t* indices);

}  // namespace ref
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_POOLING_H_
