#include "mace/ops/ref/non_max_suppression.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace mace {
namespace ops {
namespace ref {
namespace {

struct Extent {
  float x_min, x_max, y_min, y_max;
};

Extent BoxExtent(const float* box, bool center_point_box) {
  if (center_point_box) {
    const float half_w = box[2] / 2, half_h = box[3] / 2;
    return {box[0] - half_w, box[0] + half_w, box[1] - half_h, box[1] + half_h};
  }
  return {std::min(box[1], box[3]), std::max(box[1], box[3]), std::min(box[0], box[2]),
          std::max(box[0], box[2])};
}

}  // namespace

bool SuppressesByIou(const float* a, const float* b, bool center_point_box, float iou_threshold) {
  const Extent p = BoxExtent(a, center_point_box), q = BoxExtent(b, center_point_box);
  const float x_low = std::max(p.x_min, q.x_min), x_high = std::min(p.x_max, q.x_max);
  if (!(x_high > x_low)) return false;
  const float y_low = std::max(p.y_min, q.y_min), y_high = std::min(p.y_max, q.y_max);
  if (!(y_high > y_low)) return false;
  const float intersection = (x_high - x_low) * (y_high - y_low);
  if (!(intersection > 0.f)) return false;
  const float area_p = (p.x_max - p.x_min) * (p.y_max - p.y_min);
  const float area_q = (q.x_max - q.x_min) * (q.y_max - q.y_min);
  const float union_area = area_p + area_q - intersection;
  if (!(area_p > 0.f) || !(area_q > 0.f) || !(union_area > 0.f)) return false;
  return intersection / union_area > iou_threshold;
}

int64_t NonMaxSuppression(const NonMaxSuppressionParams& params, const float* boxes,
                          const float* scores, int32_t* selected) {
  const int64_t limit = std::min(params.max_per_class, params.boxes);
  if (limit <= 0) return 0;
  int64_t count = 0;
  std::vector<std::pair<float, int64_t>> candidates;
  std::vector<int64_t> kept;
  for (int64_t n = 0; n < params.batch; ++n) {
    const float* batch_boxes = boxes + n * params.boxes * 4;
    for (int64_t c = 0; c < params.classes; ++c) {
      const float* class_scores = scores + (n * params.classes + c) * params.boxes;
      candidates.clear();
      for (int64_t b = 0; b < params.boxes; ++b) {
        // A NaN score is never a candidate (it has no place in the order).
        if (class_scores[b] != class_scores[b]) continue;
        if (params.has_score_threshold && !(class_scores[b] > params.score_threshold)) continue;
        candidates.emplace_back(class_scores[b], b);
      }
      // Descending score, ties by ascending index.
      std::stable_sort(candidates.begin(), candidates.end(),
                       [](const auto& l, const auto& r) { return l.first > r.first; });
      kept.clear();
      for (const auto& candidate : candidates) {
        if (static_cast<int64_t>(kept.size()) >= limit) break;
        const float* box = batch_boxes + candidate.second * 4;
        bool suppressed = false;
        for (int64_t other : kept) {
          if (SuppressesByIou(batch_boxes + other * 4, box, params.center_point_box,
                              params.iou_threshold)) {
            suppressed = true;
            break;
          }
        }
        if (suppressed) continue;
        kept.push_back(candidate.second);
        selected[count * 3] = static_cast<int32_t>(n);
        selected[count * 3 + 1] = static_cast<int32_t>(c);
        selected[count * 3 + 2] = static_cast<int32_t>(candidate.second);
        ++count;
      }
    }
  }
  return count;
}

}  // namespace ref
}  // namespace ops
}  // namespace mace
