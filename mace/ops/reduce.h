// Reduce: MEAN, MIN, MAX, PROD or SUM over the axes listed in `axis` (all of
// them when empty), keeping reduced axes as size 1 unless keepdims is 0. Axes
// index the tensor as stored (NCHW for activations). A result that would
// have no dimensions left is shaped [1].
//
// Arguments: reduce_type (int 0 MEAN ... 4 SUM, default MEAN), axis (ints),
// keepdims (int 0 or 1, default 1), noop_with_empty_axes (int 0 or 1,
// default 0).
//
// The axes may instead come as input 1, as ONNX opset 18 puts them: a weight
// is read once, a tensor computed at run time (int32, or float32 holding
// integers) on every run, and those axes must give the planned output shape,
// the one the model declares (common/runtime_ints.h). An empty axes input
// reduces every axis, or with noop_with_empty_axes 1 copies the input.
//
// ReduceBase is the device-neutral part: arguments (Init) and shapes
// (InferShapes), shared by every device's kernel. The CPU kernel is
// mace/ops/cpu/reduce_cpu.cc.
#ifndef MACE_OPS_REDUCE_H_
#define MACE_OPS_REDUCE_H_

#include <vector>

#include "mace/core/operation.h"
#include "mace/ops/ref/reduce.h"

namespace mace {
namespace ops {

class ReduceBase : public Operation {
 public:
  MaceStatus Init() override;

 protected:
  // Checks the input's type and shape against the axes, fills params() and
  // sets the output's shape (the planned one with axes computed at run time).
  MaceStatus InferShapes();
  // With axes computed at run time: reads them, checks they give the output
  // shape planned in Prepare and fills params(). Kernels call it in Run.
  MaceStatus ReadComputedAxes();

  const ref::ReduceParams& params() const { return params_; }
  // Whether only trailing axes are reduced, so that each output reduces a
  // contiguous run of the input.
  bool trailing() const { return trailing_; }

 private:
  // params, output shape and trailing for the input and `axes`.
  MaceStatus ComputeParams(const std::vector<int64_t>& axes, ref::ReduceParams* params,
                           std::vector<int64_t>* output_shape, bool* trailing) const;

  std::vector<int64_t> axes_;
  bool keepdims_ = true;
  bool noop_with_empty_axes_ = false;
  bool computed_ = false;  // the axes are read on every run
  ref::ReduceParams params_;
  bool trailing_ = false;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REDUCE_H_
