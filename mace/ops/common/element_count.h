// A cap on tensor sizes for ops whose output shape comes from arguments
// (resizes, block rearrangements, reductions). A hostile model can ask for
// dimensions whose product overflows int64; checking every shape against the
// cap before anything is sized keeps all later index arithmetic in range.
#ifndef MACE_OPS_COMMON_ELEMENT_COUNT_H_
#define MACE_OPS_COMMON_ELEMENT_COUNT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "mace/core/operation.h"
#include "mace/utils/checked_math.h"

namespace mace {
namespace ops {

// 2^31 float32 elements is 8 GiB: far beyond any phone, far below overflow.
constexpr int64_t kMaxElements = int64_t{1} << 31;

// The element count of `shape` if every dimension is positive and the product
// is at most kMaxElements, else -1. A rank-0 shape holds one element.
inline int64_t BoundedElementCount(const std::vector<int64_t>& shape) {
  for (int64_t d : shape) {
    if (d <= 0) return -1;
  }
  return CheckedElementCount(shape, kMaxElements);
}

// BoundedElementCount, but a shape with a 0 dimension (and no negative one)
// holds 0 elements, provided its other dimensions stay within the cap.
inline int64_t BoundedElementCountMayBeEmpty(const std::vector<int64_t>& shape) {
  std::vector<int64_t> others;
  bool empty = false;
  for (int64_t d : shape) {
    if (d < 0) return -1;
    if (d == 0) empty = true;
    else others.push_back(d);
  }
  const int64_t count = BoundedElementCount(others);
  return count < 0 ? -1 : empty ? 0 : count;
}

// INVALID_ARGS naming `op` unless `shape` (of the tensor called `what`) has
// only positive dimensions and at most kMaxElements elements.
inline MaceStatus CheckElementCount(const Operation& op, const std::string& what,
                                    const std::vector<int64_t>& shape) {
  if (BoundedElementCount(shape) >= 0) return MaceStatus();
  for (int64_t d : shape) {
    if (d <= 0) {
      return MaceStatus(MaceStatus::MACE_INVALID_ARGS,
                        StrCat(op.Describe(), ": ", what, " has shape ", ShapeToString(shape),
                               " with a non-positive dimension"));
    }
  }
  return MaceStatus(MaceStatus::MACE_INVALID_ARGS,
                    StrCat(op.Describe(), ": ", what, " has shape ", ShapeToString(shape),
                           " with more than 2^31 elements"));
}

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_COMMON_ELEMENT_COUNT_H_
