// The individual strategies behind planner.h. Inputs are already validated;
// none of these can fail. Records may come in any order: the in-order
// strategies visit them sorted by first task (stable), which is the identity
// for the sorted input TFLite requires.
#ifndef MACE_CORE_MEMORY_STRATEGIES_H_
#define MACE_CORE_MEMORY_STRATEGIES_H_

#include <vector>

#include "mace/core/memory/usage_record.h"

namespace mace {
namespace memory {

ObjectsAssignment NaiveAssignment(const std::vector<UsageRecord>& records);
ObjectsAssignment EqualityAssignment(const std::vector<UsageRecord>& records);
ObjectsAssignment GreedyInOrderAssignment(const std::vector<UsageRecord>& records);
ObjectsAssignment GreedyByBreadthAssignment(const std::vector<UsageRecord>& records);
// TFLite's size-distance priority algorithm.
ObjectsAssignment GreedyBySizeAssignment(const std::vector<UsageRecord>& records);
// GREEDY_BY_SIZE, replaced by GREEDY_BY_BREADTH only if strictly smaller.
ObjectsAssignment GreedyBestAssignment(const std::vector<UsageRecord>& records);
ObjectsAssignment MinCostFlowAssignment(const std::vector<UsageRecord>& records);

// Largest first, smallest fitting gap between overlapping tensors (the
// leading gap from 0 included), else on top.
OffsetsAssignment GreedyBySizeOffsets(const std::vector<UsageRecord>& records, size_t alignment);
// TFLite Micro's variant: largest first, lowest fitting gap.
OffsetsAssignment FirstFitBySizeOffsets(const std::vector<UsageRecord>& records, size_t alignment);
// Both of the above. Overlapping pairs are listed up front when there are at
// most `max_overlap_pairs` of them (about 64 MB at the default); otherwise
// every placed tensor is scanned. The plans are identical either way.
// `fixed_offsets`, when given, holds a preset offset per record or
// kNotAssigned: preset records are placed first, where they are, and the
// others fill the gaps around them.
constexpr size_t kMaxOverlapPairs = size_t{8} << 20;
OffsetsAssignment PlaceBySize(const std::vector<UsageRecord>& records, size_t alignment,
                              bool best_fit, size_t max_overlap_pairs = kMaxOverlapPairs,
                              const std::vector<size_t>* fixed_offsets = nullptr);

ImageObjectsAssignment NaiveImageAssignment(const std::vector<ImageUsageRecord>& records);
ImageObjectsAssignment EqualityImageAssignment(const std::vector<ImageUsageRecord>& records);
ImageObjectsAssignment GreedyInOrderImageAssignment(const std::vector<ImageUsageRecord>& records);

size_t SumOfSizes(const std::vector<size_t>& sizes);

}  // namespace memory
}  // namespace mace

#endif  // MACE_CORE_MEMORY_STRATEGIES_H_
