#include "mace/core/memory/planner.h"

#include <algorithm>
#include <cctype>
#include <utility>

#include "mace/core/memory/lower_bounds.h"
#include "mace/core/memory/optimal_offsets.h"
#include "mace/core/memory/plan_checks.h"
#include "mace/core/memory/strategies.h"
#include "mace/utils/string_builder.h"

// Set for a model-specific library (mace/core/memory/BUILD.bazel):
// MACE_MEMORY_ALL_STRATEGIES=0 links only OPTIMAL and the greedy strategies
// it starts from. A strategy left out is never called, so the linker drops
// its code.
#ifndef MACE_MEMORY_ALL_STRATEGIES
#define MACE_MEMORY_ALL_STRATEGIES 1
#endif

namespace mace {
namespace memory {
namespace {

constexpr bool kLinksAllStrategies = MACE_MEMORY_ALL_STRATEGIES;

struct NamedStrategy {
  Strategy strategy;
  const char* name;
};

constexpr NamedStrategy kStrategyNames[] = {
    {Strategy::kNaive, "naive"},
    {Strategy::kEquality, "equality"},
    {Strategy::kGreedyInOrder, "greedy_in_order"},
    {Strategy::kGreedyByBreadth, "greedy_by_breadth"},
    {Strategy::kGreedyBySize, "greedy_by_size"},
    {Strategy::kGreedyBest, "greedy_best"},
    {Strategy::kMinCostFlow, "mincostflow"},
    {Strategy::kOptimal, "optimal"},
};

template <typename... Args>
Status Fail(const Args&... args) {
  StringBuilder builder;
  (builder << ... << args);
  return Status::Error(std::move(builder).str());
}

Status ValidateLifetime(size_t index, TaskId first, TaskId last) {
  if (first < 0 || last > kMaxTask) {
    return Fail("record ", index, ": tasks must be in [0, ", kMaxTask, "]");
  }
  if (first > last) return Fail("record ", index, ": first task ", first, " > last task ", last);
  return Status();
}

std::optional<bool> KnownOptimal(size_t total, size_t lower_bound) {
  if (total == lower_bound) return true;
  return std::nullopt;
}

}  // namespace

bool StrategyLinked(Strategy strategy) {
  switch (strategy) {
    case Strategy::kOptimal:
    case Strategy::kGreedyBest:
    case Strategy::kGreedyBySize:
    case Strategy::kGreedyByBreadth:
      return true;
    default:
      return kLinksAllStrategies;
  }
}

Status CheckStrategyLinked(Strategy strategy) {
  if (StrategyLinked(strategy)) return Status();
  return Fail("memory strategy ", StrategyName(strategy),
              " is not in this library: a model-specific library links optimal and the greedy "
              "strategies it starts from (greedy_best, greedy_by_size, greedy_by_breadth)");
}

bool ParseStrategy(const std::string& name, Strategy* strategy) {
  std::string lower = name;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const NamedStrategy& entry : kStrategyNames) {
    if (lower == entry.name) {
      *strategy = entry.strategy;
      return true;
    }
  }
  return false;
}

const char* StrategyName(Strategy strategy) {
  for (const NamedStrategy& entry : kStrategyNames) {
    if (entry.strategy == strategy) return entry.name;
  }
  return "unknown";
}

Status ValidateRecords(const std::vector<UsageRecord>& records) {
  for (size_t i = 0; i < records.size(); ++i) {
    MACE_MEMORY_RETURN_IF_ERROR(ValidateLifetime(i, records[i].first, records[i].last));
    if (records[i].size > kMaxTensorSize) {
      return Fail("record ", i, ": size ", records[i].size, " exceeds ", kMaxTensorSize);
    }
  }
  return Status();
}

Status ValidateImageRecords(const std::vector<ImageUsageRecord>& records) {
  for (size_t i = 0; i < records.size(); ++i) {
    MACE_MEMORY_RETURN_IF_ERROR(ValidateLifetime(i, records[i].first, records[i].last));
    if (records[i].size.width > kMaxImageExtent || records[i].size.height > kMaxImageExtent) {
      return Fail("record ", i, ": image extent exceeds ", kMaxImageExtent);
    }
  }
  return Status();
}

OffsetsAssignment StackObjects(const ObjectsAssignment& objects, size_t alignment) {
  std::vector<size_t> object_offsets;
  OffsetsAssignment stacked;
  size_t next = 0;
  for (size_t size : objects.object_sizes) {
    object_offsets.push_back(next);
    stacked.total_size = next + size;
    next = AlignUp(next + size, alignment);
  }
  for (size_t object : objects.object_ids) stacked.offsets.push_back(object_offsets[object]);
  return stacked;
}

Status PlanObjects(const std::vector<UsageRecord>& records, Strategy strategy, ObjectsPlan* plan) {
  MACE_MEMORY_RETURN_IF_ERROR(ValidateRecords(records));
  MACE_MEMORY_RETURN_IF_ERROR(CheckStrategyLinked(strategy));
  switch (strategy) {
    case Strategy::kNaive:
      if constexpr (kLinksAllStrategies) plan->assignment = NaiveAssignment(records);
      break;
    case Strategy::kEquality:
      if constexpr (kLinksAllStrategies) plan->assignment = EqualityAssignment(records);
      break;
    case Strategy::kGreedyInOrder:
      if constexpr (kLinksAllStrategies) plan->assignment = GreedyInOrderAssignment(records);
      break;
    case Strategy::kGreedyByBreadth:
      plan->assignment = GreedyByBreadthAssignment(records);
      break;
    case Strategy::kGreedyBySize:
      plan->assignment = GreedyBySizeAssignment(records);
      break;
    case Strategy::kGreedyBest:
      plan->assignment = GreedyBestAssignment(records);
      break;
    case Strategy::kMinCostFlow:
      if constexpr (kLinksAllStrategies) plan->assignment = MinCostFlowAssignment(records);
      break;
    default:
      return Fail("strategy ", StrategyName(strategy), " does not produce shared objects");
  }
  plan->total = SumOfSizes(plan->assignment.object_sizes);
  plan->lower_bound = ObjectsLowerBound(records);
  plan->optimal = KnownOptimal(plan->total, plan->lower_bound);
  return Status();
}

Status PlanImageObjects(const std::vector<ImageUsageRecord>& records, Strategy strategy,
                        ImageObjectsPlan* plan) {
  MACE_MEMORY_RETURN_IF_ERROR(ValidateImageRecords(records));
  if (strategy != Strategy::kGreedyInOrder && !kLinksAllStrategies) {
    return Fail("image strategy ", StrategyName(strategy),
                " is not in this library: a model-specific library plans images greedy_in_order");
  }
  switch (strategy) {
    case Strategy::kNaive:
      if constexpr (kLinksAllStrategies) plan->assignment = NaiveImageAssignment(records);
      break;
    case Strategy::kEquality:
      if constexpr (kLinksAllStrategies) plan->assignment = EqualityImageAssignment(records);
      break;
    case Strategy::kGreedyInOrder:
      plan->assignment = GreedyInOrderImageAssignment(records);
      break;
    default:
      return Fail("strategy ", StrategyName(strategy),
                  " is not supported for 2D images (use naive, equality or greedy_in_order)");
  }
  plan->total = 0;
  for (const ImageSize& size : plan->assignment.object_sizes) plan->total += size.area();
  plan->lower_bound = ImageObjectsLowerBound(records);
  plan->optimal = KnownOptimal(plan->total, plan->lower_bound);
  return Status();
}

Status PlanOffsets(const std::vector<UsageRecord>& records, Strategy strategy,
                   const PlanOptions& options, OffsetsPlan* plan) {
  MACE_MEMORY_RETURN_IF_ERROR(ValidateRecords(records));
  const size_t alignment = options.alignment;
  if (alignment == 0 || alignment > kMaxAlignment) {
    return Fail("alignment must be in [1, ", kMaxAlignment, "], got ", alignment);
  }
  if (options.time_limit_ms < 0) return Fail("time limit must not be negative");
  if (options.step_limit < 0) return Fail("step limit must not be negative");
  plan->lower_bound = OffsetsLowerBound(records, alignment);
  if (strategy == Strategy::kOptimal) {
    OptimalResult result = OptimalOffsets(records, alignment, options.time_limit_ms, options.step_limit);
    plan->assignment = std::move(result.assignment);
    plan->optimal = result.proven || plan->assignment.total_size == plan->lower_bound;
    return Status();
  }
  if (strategy == Strategy::kGreedyBySize) {
    plan->assignment = GreedyBySizeOffsets(records, alignment);
  } else if (strategy == Strategy::kGreedyBest) {
    // Neither best fit nor first fit wins everywhere; keep the smallest,
    // earlier candidates on ties.
    plan->assignment = GreedyBySizeOffsets(records, alignment);
    const OffsetsAssignment others[] = {
        FirstFitBySizeOffsets(records, alignment),
        StackObjects(GreedyBestAssignment(records), alignment),
    };
    for (const OffsetsAssignment& other : others) {
      if (other.total_size < plan->assignment.total_size) plan->assignment = other;
    }
  } else {
    ObjectsPlan objects;
    MACE_MEMORY_RETURN_IF_ERROR(PlanObjects(records, strategy, &objects));
    plan->assignment = StackObjects(objects.assignment, alignment);
  }
  plan->optimal = KnownOptimal(plan->assignment.total_size, plan->lower_bound);
  return Status();
}

Status PlanOffsetsAround(const std::vector<UsageRecord>& records,
                         const std::vector<FixedPlacement>& fixed, const PlanOptions& options,
                         OffsetsPlan* plan) {
  std::vector<UsageRecord> all;
  std::vector<size_t> offsets;
  OffsetsAssignment preset;
  for (const FixedPlacement& placement : fixed) all.push_back(placement.record);
  MACE_MEMORY_RETURN_IF_ERROR(ValidateRecords(all));
  for (size_t i = 0; i < fixed.size(); ++i) {
    // Offsets come from a model file: bounding them like sizes keeps
    // offset + size (and every sum the placer forms) far from wrapping.
    if (fixed[i].offset > kMaxTensorSize) {
      return Fail("fixed placement ", i, ": offset ", fixed[i].offset, " exceeds ", kMaxTensorSize);
    }
    preset.offsets.push_back(fixed[i].offset);
    preset.total_size = std::max(preset.total_size, fixed[i].offset + fixed[i].record.size);
  }
  MACE_MEMORY_RETURN_IF_ERROR(ValidateRecords(records));
  const size_t alignment = options.alignment;
  if (alignment == 0 || alignment > kMaxAlignment) {
    return Fail("alignment must be in [1, ", kMaxAlignment, "], got ", alignment);
  }
  const Status preset_ok = CheckOffsetsAssignment(all, preset, alignment);
  if (!preset_ok.ok())
    return Fail("the fixed placements are not a valid plan: ", preset_ok.message());
  offsets = preset.offsets;
  all.insert(all.end(), records.begin(), records.end());
  offsets.resize(all.size(), kNotAssigned);
  const OffsetsAssignment combined =
      PlaceBySize(all, alignment, /*best_fit=*/true, kMaxOverlapPairs, &offsets);
  plan->assignment.offsets.assign(combined.offsets.begin() + fixed.size(), combined.offsets.end());
  plan->assignment.total_size = combined.total_size;
  plan->lower_bound = OffsetsLowerBound(all, alignment);
  plan->optimal = KnownOptimal(combined.total_size, plan->lower_bound);
  return Status();
}

}  // namespace memory
}  // namespace mace
