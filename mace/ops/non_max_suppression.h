// NonMaxSuppression (ONNX NonMaxSuppression): inputs [boxes [N, B, 4],
// scores [N, C, B], optional max_output_boxes_per_class, iou_threshold and
// score_threshold, each one value], argument center_point_box (0 or 1).
// Output: int32 [K, 3] (batch, class, box) triples, K known only when the
// op runs. Prepare sets the largest shape, [N * C * B, 3] (or N * C * max
// rows when max_output_boxes_per_class is a constant), which the memory
// plan reserves; Run shrinks it to K rows, and the net prepares the ops
// after it again for the shapes that follow (Net::Run).
//
// NonMaxSuppressionBase is the device-neutral part; the CPU kernel is
// mace/ops/cpu/non_max_suppression_cpu.cc over the reference kernel.
#ifndef MACE_OPS_NON_MAX_SUPPRESSION_H_
#define MACE_OPS_NON_MAX_SUPPRESSION_H_

#include "mace/core/operation.h"
#include "mace/ops/ref/non_max_suppression.h"

namespace mace {
namespace ops {

class NonMaxSuppressionBase : public Operation {
 public:
  MaceStatus Init() override;
  DataType OutputType(int /*index*/) const override { return DT_INT32; }
  OutputShapeSource output_shape_source() const override {
    return OutputShapeSource::kInputValuesBounded;
  }

 protected:
  // Checks the inputs, fills the shape part of params() and sets the
  // output's largest shape.
  MaceStatus InferShapes();
  // Reads the run-time scalars (max_output_boxes_per_class, iou_threshold,
  // score_threshold) into params(), in Run.
  MaceStatus ReadScalars();
  // Reads max_output_boxes_per_class alone.
  MaceStatus ReadMaxPerClass();
  const ref::NonMaxSuppressionParams& params() const { return params_; }

 private:
  ref::NonMaxSuppressionParams params_;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_NON_MAX_SUPPRESSION_H_
