// QuantizeLinear and DequantizeLinear: ONNX's ops in the float domain, with
// scales and zero points that may be computed at run time. The quantized
// side holds the integer (or float8) values in float32; see
// mace/ops/ref/qdq_linear.h for the arithmetic.
//
// Inputs: x, scale, optional zero point (all float32). The scale is per
// tensor (one value), per axis (1-D, one value per index of `axis`) or, with
// block_size > 0, blocked (x's shape with ceil(length / block_size) along
// `axis`); the zero point has the scale's shape.
//
// Arguments: axis (int, default 1), block_size (int >= 0, default 0);
// QuantizeLinear also `to` (UINT8 default, INT8, UINT16, INT16, UINT4, INT4,
// FLOAT8E4M3FN, FLOAT8E4M3FNUZ, FLOAT8E5M2, FLOAT8E5M2FNUZ) and saturate
// (int 0/1, default 1, float8 only), and dequantize (int 0/1, default 0):
// with 1 the output is DequantizeLinear of the quantized values with the
// same scale and zero point, a fake quantization (round and saturate to the
// grid, in float) in one op. A float8 zero point must be 0.
#ifndef MACE_OPS_QDQ_LINEAR_H_
#define MACE_OPS_QDQ_LINEAR_H_

#include "mace/core/operation.h"
#include "mace/ops/ref/qdq_linear.h"

namespace mace {
namespace ops {

class QdqLinearBase : public Operation {
 public:
  explicit QdqLinearBase(bool quantize) : quantize_(quantize) {}
  MaceStatus Init() override;

 protected:
  MaceStatus InferShapes();
  // Runs the reference kernel after checking a float8 zero point is 0.
  MaceStatus Compute();
  bool quantize() const { return quantize_; }
  // QuantizeLinear with dequantize 1.
  bool dequantize() const { return dequantize_; }
  const ref::QdqLinearParams& params() const { return params_; }

 private:
  const bool quantize_;
  bool dequantize_ = false;
  int64_t axis_ = 1;
  int64_t block_size_ = 0;
  ref::QdqLinearParams params_;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_QDQ_LINEAR_H_
