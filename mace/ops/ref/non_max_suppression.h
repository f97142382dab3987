// Reference NonMaxSuppression (ONNX NonMaxSuppression, opsets 10 and 11),
// with onnxruntime's order and tie-breaking: per batch, then per class,
// boxes are visited by descending score (equal scores by ascending box
// index) and kept unless their IoU with a box kept before in the same
// class is above the threshold. NaN scores are never kept.
#ifndef MACE_OPS_REF_NON_MAX_SUPPRESSION_H_
#define MACE_OPS_REF_NON_MAX_SUPPRESSION_H_

#include <cstdint>

namespace mace {
namespace ops {
namespace ref {

struct NonMaxSuppressionParams {
  int64_t batch = 0, classes = 0, boxes = 0;
  // Boxes as [y1, x1, y2, x2] (any two opposite corners) or, with
  // center_point_box, as [x_center, y_center, width, height].
  bool center_point_box = false;
  int64_t max_per_class = 0;  // 0 keeps nothing
  float iou_threshold = 0.f;
  // Only boxes scoring strictly above the threshold are candidates.
  bool has_score_threshold = false;
  float score_threshold = 0.f;
};

// boxes [batch, boxes, 4]; scores [batch, classes, boxes]. Writes one
// (batch, class, box) triple per kept box to `selected`, which has room for
// batch * classes * min(boxes, max_per_class) triples, and returns how many.
int64_t NonMaxSuppression(const NonMaxSuppressionParams& params, const float* boxes,
                          const float* scores, int32_t* selected);

// Whether box `a` suppresses box `b` (IoU above the threshold); boxes of no
// area, or not overlapping, never do.
bool SuppressesByIou(const float* a, const float* b, bool center_point_box, float iou_threshold);

}  // namespace ref
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_NON_MAX_SUPPRESSION_H_
