// Slice, with ONNX semantics: for each listed axis, take the elements from
// `starts` up to (not including) `ends`, every `steps`-th one. Negative starts
// and ends count from the back and out-of-range values are clamped (as in
// numpy, but for one negative-step case; see ClampRange in slice.cc), so
// INT64_MAX-style "to the end" values work. The bounds come either as
// arguments or, as ONNX opset 10 and later puts them, as int32 inputs 1 to
// 4. Inputs computed at run time (int32, or float32 holding integers) are
// read on every run and must select the planned output shape, the one the
// model declares (common/runtime_ints.h). It only moves data, so float32 and int32 tensors go
// through the same kernels (common/moved_types.h).
//
// SliceBase is the device-neutral part: arguments (Init) and shapes
// (InferShapes), shared by every device's kernel. The CPU kernel is
// mace/ops/cpu/slice_cpu.cc.
#ifndef MACE_OPS_SLICE_H_
#define MACE_OPS_SLICE_H_

#include <vector>

#include "mace/core/operation.h"
#include "mace/ops/common/moved_types.h"
#include "mace/ops/ref/slice.h"

namespace mace {
namespace ops {

class SliceBase : public DataMovementOp {
 public:
  MaceStatus Init() override;

 protected:
  // Checks the data input's type and shape against the bounds, fills
  // params() and sets the output's shape.
  MaceStatus InferShapes();
  // Per dimension of the data input: first index, step, and the shapes.
  const ref::SliceParams& params() const { return params_; }
  // With bounds computed at run time: reads them, checks they select the
  // output shape planned in Prepare and fills params(). Kernels call it in
  // Run.
  MaceStatus ReadComputedBounds();

 private:
  // Consistent counts of starts, ends, axes and steps; no step 0.
  MaceStatus CheckBounds();
  // `params` for the data input and the current bounds.
  MaceStatus ComputeParams(ref::SliceParams* params) const;
  // Reads bounds that are all weights, in Init.
  MaceStatus ReadConstInts(int index, const char* what, std::vector<int64_t>* values) const;

  std::vector<int64_t> starts_, ends_, axes_, steps_;
  bool has_axes_ = false;
  bool has_steps_ = false;
  bool computed_ = false;  // a bound is computed at run time
  ref::SliceParams params_;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_SLICE_H_
