// Reference QuantizeLinear and DequantizeLinear of ONNX in the float domain:
// the quantized values are carried in float32 (every value of the 4-, 8-
// and 16-bit integer types and of the float8 types is exactly a float32).
//
// x is viewed as [outer, axis_len, inner] around the quantization axis.
// Each element's scale (and zero point) is
//   per tensor  scale[0]
//   per axis    scale[d]                          (d: index along the axis)
//   blocked     scale[(o * blocks + d / block) * inner + i], blocks =
//               ceil(axis_len / block)
//
// QuantizeLinear to an integer type: round x / scale (in float32) to the
// nearest integer, ties to even, add the zero point and clamp to the
// type's range; NaN gives the zero point. To a float8 type: x / scale
// converted as Cast does (ref/cast.h), with `saturate`; the zero point is 0.
// DequantizeLinear: (x - zero point) * scale.
#ifndef MACE_OPS_REF_QDQ_LINEAR_H_
#define MACE_OPS_REF_QDQ_LINEAR_H_

#include <cstdint>

#include "mace/ops/ref/cast.h"

namespace mace {
namespace ops {
namespace ref {

enum class QdqGrouping { PER_TENSOR, PER_AXIS, BLOCKED };

struct QdqLinearParams {
  QdqGrouping grouping = QdqGrouping::PER_TENSOR;
  int64_t outer = 1, axis_len = 1, inner = 1;
  int64_t block = 0;  // BLOCKED only
  // QuantizeLinear only: the target type and float8 saturation.
  CastType to = CastType::UINT8;
  bool saturate = true;
};

// Whether `type` is a type QuantizeLinear produces (4-, 8- and 16-bit
// integers, float8).
bool IsQuantizedType(CastType type);
// The range [low, high] of an integer `type`; false for the float8 types
// and any other type.
bool QdqIntegerRange(CastType type, double* low, double* high);

// zero_point may be null (0).
void QuantizeLinear(const QdqLinearParams& p, const float* x, const float* scale,
                    const float* zero_point, float* y);
void DequantizeLinear(const QdqLinearParams& p, const float* x, const float* scale,
                      const float* zero_point, float* y);

}  // namespace ref
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_QDQ_LINEAR_H_
