// Pad: grows each dimension by a leading and a trailing pad, filled with a
// constant or taken from the input by reflection, symmetric mirroring or edge
// replication. Works on any rank; `paddings` lists [before, after] per
// dimension.
//
// The pads may instead come as inputs, as ONNX opset 11 and later puts them
// (float32 kernel only): input 1 `pads` (all leading pads, then all trailing
// ones, int32 or float32 holding integers), optional input 2 the constant
// value (one float32) and optional input 3 `axes`, the dimensions the pads
// are for (all by default). Weights are read once; tensors computed at run
// time on every run, and their pads must give the planned output shape, the
// one the model declares (common/runtime_ints.h). A model that declares no
// output shape (no output_shape) leaves it to the pads: the net prepares
// the op with their values before each run (OutputShapeSource::
// kInputValues). Pads must not be negative.
//
// PadBase is the device-neutral part: arguments (Init) and shapes
// (InferShapes), shared by every device's kernel. The CPU kernel is
// mace/ops/cpu/pad_cpu.cc.
#ifndef MACE_OPS_PAD_H_
#define MACE_OPS_PAD_H_

#include <vector>

#include "mace/core/operation.h"
#include "mace/ops/ref/pad.h"

namespace mace {
namespace ops {

class PadBase : public Operation {
 public:
  MaceStatus Init() override;
  // Pads or axes computed at run time with no planned output shape (the
  // model leaves output_shape out): the output shape follows from them.
  OutputShapeSource output_shape_source() const override {
    return shape_from_values_ ? OutputShapeSource::kInputValues
                              : OutputShapeSource::kInputShapes;
  }

 protected:
  // Checks the input's type and shape against the paddings, fills params()
  // and sets the output's shape. With the shape taken from the values,
  // `input_values` says whether the inputs hold them (else the output gets
  // an empty shape of the input's rank).
  MaceStatus InferShapes(bool input_values = false);
  const ref::PadParams& params() const { return params_; }
  // With pads, axes or the constant value computed at run time: reads them,
  // checks the pads give the output shape planned in Prepare and fills
  // params(). Kernels call it in Run.
  MaceStatus ReadRuntimeInputs();

 private:
  // `paddings` ([before, after] per dimension) from ONNX-ordered `pads` for
  // `axes` (all dimensions when there is no axes input).
  MaceStatus ResolvePads(const std::vector<int64_t>& pads, const std::vector<int64_t>& axes,
                         std::vector<int64_t>* paddings) const;
  // params for the input and `paddings`.
  MaceStatus ComputeParams(const std::vector<int64_t>& paddings, ref::PadParams* params) const;
  MaceStatus ReadConstantValue(float* value) const;
  // Reads the computed pads (and axes) into *pads and fills *params for
  // them, with the pad type and the constant value known so far.
  MaceStatus ReadComputedParams(std::vector<int64_t>* pads, ref::PadParams* params) const;

  std::vector<int64_t> paddings_;
  std::vector<int64_t> const_pads_, const_axes_;  // pads and axes given as weights
  bool has_axes_ = false;
  bool computed_ = false;  // pads or axes are read on every run
  bool shape_from_values_ = false;  // computed_ without a planned output shape
  ref::PadParams params_;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_PAD_H_
