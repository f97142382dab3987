// ArgMax: the int32 index of the largest value along `axis`, following ONNX
// (axis defaults to 0, keepdims to 1, select_last_index picks the last of
// tied maxima). The output is int32 (OutputType); the kernel is registered
// under the net's float32 data type.
//
// ArgMaxBase is the device-neutral part: arguments (Init) and shapes
// (InferShapes), shared by every device's kernel. The CPU kernel is
// mace/ops/cpu/arg_max_cpu.cc.
#ifndef MACE_OPS_ARG_MAX_H_
#define MACE_OPS_ARG_MAX_H_

#include "mace/core/operation.h"
#include "mace/ops/ref/arg_max.h"

namespace mace {
namespace ops {

class ArgMaxBase : public Operation {
 public:
  MaceStatus Init() override;
  // Indices, whatever the input type; Construct refuses another declaration.
  DataType OutputType(int /*index*/) const override { return DT_INT32; }

 protected:
  // Checks the input's type and shape against the axis, fills params() and
  // sets the output's shape.
  MaceStatus InferShapes();
  const ref::ArgMaxParams& params() const { return params_; }

 private:
  int64_t axis_ = 0;
  bool keepdims_ = true;
  ref::ArgMaxParams params_;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_ARG_MAX_H_
