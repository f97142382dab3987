#include "mace/ops/non_max_suppression.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "mace/ops/common/op_checks.h"
#include "mace/ops/cpu/non_max_suppression_cpu.h"
#include "mace/ops/op_registration.h"

namespace mace {
namespace ops {
namespace {

const char* const kScalarNames[] = {"", "", "max_output_boxes_per_class", "iou_threshold",
                                    "score_threshold"};

// Input `index` if the model gives it (null otherwise).
const Tensor* OptionalInput(const Operation& op, int index) {
  return index < op.InputSize() ? op.Input(index) : nullptr;
}

}  // namespace

MaceStatus NonMaxSuppressionBase::Init() {
  OP_CHECK(InputSize() >= 2 && InputSize() <= 5 && OutputSize() == 1,
           "needs inputs [boxes, scores, optional max_output_boxes_per_class, iou_threshold, "
           "score_threshold] and one output, got ",
           InputSize(), " inputs and ", OutputSize(), " outputs");
  const int64_t center = GetInt("center_point_box", 0);
  OP_CHECK(center == 0 || center == 1, "center_point_box must be 0 or 1, got ", center);
  params_.center_point_box = center == 1;
  return MaceStatus();
}

MaceStatus NonMaxSuppressionBase::InferShapes() {
  const Tensor* boxes = Input(0);
  const Tensor* scores = Input(1);
  MACE_RETURN_IF_ERROR(CheckTensorMayBeEmpty(*this, boxes, DT_FLOAT));
  MACE_RETURN_IF_ERROR(CheckTensorMayBeEmpty(*this, scores, DT_FLOAT));
  OP_CHECK(boxes->dim_size() == 3 && boxes->dim(2) == 4, "boxes have shape ",
           ShapeToString(boxes->shape()), "; they must be [N, B, 4]");
  OP_CHECK(
      scores->dim_size() == 3 && scores->dim(0) == boxes->dim(0) && scores->dim(2) == boxes->dim(1),
      "scores have shape ", ShapeToString(scores->shape()), " but boxes ",
      ShapeToString(boxes->shape()), "; scores must be [N, C, B]");
  // Box indices are written as int32.
  OP_CHECK(boxes->dim(1) < (int64_t{1} << 31), "more than 2^31 - 1 boxes");
  for (int index = 2; index < 5; ++index) {
    const Tensor* scalar = OptionalInput(*this, index);
    if (scalar == nullptr) continue;
    OP_CHECK(scalar->dtype() == DT_FLOAT && scalar->size() == 1, kScalarNames[index],
             " must be one float32 value, got ", DataTypeName(scalar->dtype()), " of shape ",
             ShapeToString(scalar->shape()));
  }
  params_.batch = boxes->dim(0);
  params_.boxes = boxes->dim(1);
  params_.classes = scores->dim(1);
  int64_t rows_per_class = params_.boxes;
  const Tensor* max_output = OptionalInput(*this, 2);
  if (max_output == nullptr) {
    rows_per_class = 0;
  } else if (max_output->is_weight()) {
    // Only a weight has its value before the run (the others' memory is
    // not bound yet).
    MACE_RETURN_IF_ERROR(ReadMaxPerClass());
    rows_per_class = std::min(rows_per_class, params_.max_per_class);
  }
  Output(0)->Reshape({params_.batch * params_.classes * rows_per_class, 3});
  return MaceStatus();
}

MaceStatus NonMaxSuppressionBase::ReadMaxPerClass() {
  const Tensor* max_output = OptionalInput(*this, 2);
  params_.max_per_class = 0;
  if (max_output != nullptr) {
    const float value = max_output->data<float>()[0];
    OP_CHECK(std::isfinite(value) && value == std::floor(value), "max_output_boxes_per_class is ",
             value, "; it must be a whole number");
    // A negative count keeps nothing; a count above B keeps at most B.
    params_.max_per_class =
        value <= 0.f ? 0 : std::min(params_.boxes, static_cast<int64_t>(std::min(value, 4e18f)));
  }
  return MaceStatus();
}

MaceStatus NonMaxSuppressionBase::ReadScalars() {
  MACE_RETURN_IF_ERROR(ReadMaxPerClass());
  const Tensor* iou = OptionalInput(*this, 3);
  const Tensor* score = OptionalInput(*this, 4);
  params_.iou_threshold = iou != nullptr ? iou->data<float>()[0] : 0.f;
  OP_CHECK(params_.iou_threshold >= 0.f && params_.iou_threshold <= 1.f, "iou_threshold is ",
           params_.iou_threshold, "; it must be in [0, 1]");
  params_.has_score_threshold = score != nullptr;
  params_.score_threshold = score != nullptr ? score->data<float>()[0] : 0.f;
  OP_CHECK(!std::isnan(params_.score_threshold), "score_threshold is NaN");
  return MaceStatus();
}

MaceStatus RegisterNonMaxSuppression(OpRegistry* registry) {
  return registry->Register("NonMaxSuppression", DeviceType::CPU, DT_FLOAT,
                            NewNonMaxSuppressionCpu);
}

}  // namespace ops
}  // namespace mace
