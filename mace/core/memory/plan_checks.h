// Validation of finished plans. Tests run every strategy through these, and
// callers that load a plan from elsewhere (an offline plan, a file) can check
// it before trusting it with real memory.
#ifndef MACE_CORE_MEMORY_PLAN_CHECKS_H_
#define MACE_CORE_MEMORY_PLAN_CHECKS_H_

#include <vector>

#include "mace/core/memory/status.h"
#include "mace/core/memory/usage_record.h"

namespace mace {
namespace memory {

// Every tensor has a valid object, each object is at least as large as its
// tensors, and tensors sharing an object have disjoint lifetimes.
Status CheckObjectsAssignment(const std::vector<UsageRecord>& records,
                              const ObjectsAssignment& assignment);
// Same for images: the object must cover the tensor in both dimensions.
Status CheckImageObjectsAssignment(const std::vector<ImageUsageRecord>& records,
                                   const ImageObjectsAssignment& assignment);
// Offsets are aligned, every tensor ends within total_size, and no two
// tensors that are live at the same task share a byte.
Status CheckOffsetsAssignment(const std::vector<UsageRecord>& records,
                              const OffsetsAssignment& assignment, size_t alignment);

}  // namespace memory
}  // namespace mace

#endif  // MACE_CORE_MEMORY_PLAN_CHECKS_H_
