// Reference DynamicQuantizedFullyConnected: a FullyConnected whose weight is
// int8 or uint8 with one scale per output feature and a zero point (0, one
// for the tensor or one per output feature), and whose input is quantized
// to uint8 on every run, each row with its own scale and zero point
// (QuantizeRowDynamic) or the whole tensor with one (QuantizeTensorDynamic,
// ONNX DynamicQuantizeLinear):
//   output[n][o] = activation(s[n] w_scale[o] sum_k (q[n][k] - z[n])
//                             (w[o][k] - w_zero[o]) + bias[o])
// The sums are exact integers; every kernel computes the same ones and
// finishes them with DynamicOutput, so kernels differ from this one only by
// how the compiler rounds that last float expression.
#ifndef MACE_OPS_REF_DYNAMIC_QUANTIZED_FULLY_CONNECTED_H_
#define MACE_OPS_REF_DYNAMIC_QUANTIZED_FULLY_CONNECTED_H_

#include <cstdint>

#include "mace/ops/ref/fully_connected.h"

namespace mace {
namespace ops {
namespace ref {

// How one input row was quantized.
struct DynamicRow {
  float scale = 1.f;
  int32_t zero_point = 0;
  bool finite = true;  // false: the row holds a NaN or an infinity
};

// Quantizes `count` values to uint8 in `q`: the range [min(0, min x),
// max(0, max x)] over 255 steps, in float32 arithmetic: s = (high - low) /
// 255, r = 1 / s, z = round_half_even(-low r), q = clamp(round_half_even(x
// r) + z, 0, 255). A row of zeros gets s 1, z 0; a row with a NaN or an
// infinity is not finite and its q are all 0.
DynamicRow QuantizeRowDynamic(const float* x, int64_t count, uint8_t* q);

// QuantizeRowDynamic, but dividing by s where it multiplies by r, as ONNX
// DynamicQuantizeLinear (and onnxruntime) does: z = round_half_even(-low /
// s), q = clamp(round_half_even(x / s) + z, 0, 255). The op quantizes the
// whole input with it in its per-tensor mode.
DynamicRow QuantizeTensorDynamic(const float* x, int64_t count, uint8_t* q);

// QuantizeTensorDynamic in steps, for a tensor read in pieces (by
// threads): the range of each piece, merged; the tensor's scale and zero
// point from it; then each piece quantized with them. The q equal
// QuantizeTensorDynamic's over the whole tensor (min and max do not depend
// on the order).
struct DynamicRange {
  float low = 0.f, high = 0.f;  // min(0, min x), max(0, max x)
  bool finite = true;           // no NaN and no infinity
};
DynamicRange RangeDynamic(const float* x, int64_t count);
inline DynamicRange MergeRanges(const DynamicRange& a, const DynamicRange& b) {
  DynamicRange range;
  range.low = b.low < a.low ? b.low : a.low;
  range.high = b.high > a.high ? b.high : a.high;
  range.finite = a.finite && b.finite;
  return range;
}
DynamicRow TensorRowDynamic(const DynamicRange& range);
// QuantizeRowDynamic's scale and zero point for a row's range; the row's
// values are then quantized with factor RowFactor(row) (1 / scale), which
// the CPU's vector kernel (transformer_kernels.h, quantize_row) does as
// QuantizeRowDynamic does.
DynamicRow RowDynamic(const DynamicRange& range);
inline float RowFactor(const DynamicRow& row) { return 1.f / row.scale; }
void QuantizeWithRowDynamic(const float* x, int64_t count, const DynamicRow& row, uint8_t* q);

// The weight [out_features, in_features]: int8 or uint8 values (exactly one
// of the two pointers set) and a zero point per output feature (nullptr:
// all 0).
struct DynamicWeight {
  const int8_t* int8 = nullptr;
  const uint8_t* uint8 = nullptr;
  const int32_t* zero_points = nullptr;
  int32_t Value(int64_t index) const {
    return int8 != nullptr ? int32_t{int8[index]} : int32_t{uint8[index]};
  }
  int32_t ZeroPoint(int64_t unit) const { return zero_points != nullptr ? zero_points[unit] : 0; }
};

// One output from its exact integer sum sum_k (q - z) w, converted to
// float (from int32 or int64, the same value).
inline float DynamicOutput(float sum, float row_scale, float weight_scale, float bias) {
  return sum * (row_scale * weight_scale) + bias;
}

// input [batch, in_features] float, weight_scale [out_features], bias
// [out_features] or nullptr, output [batch, out_features]. `per_tensor`:
// the whole input is quantized with one scale and zero point
// (QuantizeTensorDynamic), else each row with its own. The outputs of a row
// that is not finite (of every row when `per_tensor`) are NaN.
void DynamicQuantizedFullyConnected(const FullyConnectedParams& params, const float* input,
                                    const DynamicWeight& weight, bool per_tensor,
                                    const float* weight_scale, const float* bias, float* output);

// The int8 weight with zero points 0, input quantized per row.
inline void DynamicQuantizedFullyConnected(const FullyConnectedParams& params, const float* input,
                                           const int8_t* weight, const float* weight_scale,
                                           const float* bias, float* output) {
  DynamicWeight w;
  w.int8 = weight;
  DynamicQuantizedFullyConnected(params, input, w, false, weight_scale, bias, output);
}

}  // namespace ref
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_DYNAMIC_QUANTIZED_FULLY_CONNECTED_H_
