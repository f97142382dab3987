// LocalResponseNorm across channels on NCHW, as TensorFlow defines it:
// y = x / (bias + alpha * sum of x^2 over channels [c - r, c + r]) ^ beta.
// ONNX and Caffe LRN map onto it with r = (size - 1) / 2 and
// alpha = alpha_onnx / size (docs/reference/ops/spatial.md).
//
// Arguments (int or float): depth_radius (5), bias (1), alpha (1), beta (0.5).
//
// LocalResponseNormBase is the device-neutral part: arguments (Init) and
// shapes (InferShapes), shared by every device's kernel. The CPU kernel is
// mace/ops/cpu/local_response_norm_cpu.cc.
#ifndef MACE_OPS_LOCAL_RESPONSE_NORM_H_
#define MACE_OPS_LOCAL_RESPONSE_NORM_H_

#include <string>

#include "mace/core/operation.h"
#include "mace/ops/ref/local_response_norm.h"

namespace mace {
namespace ops {

class LocalResponseNormBase : public Operation {
 public:
  MaceStatus Init() override;

 protected:
  // Checks the input's type and shape, fills params() and sets the output's
  // shape.
  MaceStatus InferShapes();
  const ref::LocalResponseNormParams& params() const { return params_; }

 private:
  // Converters write these as int or float arguments alike; any other type
  // is an error that Construct reports.
  MaceStatus ReadNumber(const std::string& name, double default_value, double* value) const;

  ref::LocalResponseNormParams params_;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_LOCAL_RESPONSE_NORM_H_
