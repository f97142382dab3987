// Lower bounds reported with every plan, so a user can see how far a plan
// is from the best possible one without running the exact search.
#ifndef MACE_CORE_MEMORY_LOWER_BOUNDS_H_
#define MACE_CORE_MEMORY_LOWER_BOUNDS_H_

#include <vector>

#include "mace/core/memory/usage_record.h"

namespace mace {
namespace memory {

// Shared objects: the sum of positional maxima. The k-th largest object must
// hold the k-th largest tensor of every task, so it is at least pm[k].
size_t ObjectsLowerBound(const std::vector<UsageRecord>& records);

// Same bound over image areas (width * height).
size_t ImageObjectsLowerBound(const std::vector<ImageUsageRecord>& records);

// One arena: the most bytes live at any task. With alignment > 1 the tensors
// live at a task stack up, and all but the topmost one take their size
// rounded up to the alignment, so the bound per task is
//   sum(AlignUp(size)) - max(AlignUp(size) - size).
// With alignment 1 this is exactly the max live bytes.
size_t OffsetsLowerBound(const std::vector<UsageRecord>& records, size_t alignment);

}  // namespace memory
}  // namespace mace

#endif  // MACE_CORE_MEMORY_LOWER_BOUNDS_H_
