// Public interface of the memory planner: given tensor lifetimes, decide
// which tensors share memory. Pure C++17, no engine dependency, so it can be
// tested and benchmarked on its own (and driven by tools/mace_plan).
//
//   std::vector<UsageRecord> records = {{1024, 0, 1}, {2048, 1, 2}};
//   OffsetsPlan plan;
//   Status status = PlanOffsets(records, Strategy::kGreedyBySize, {}, &plan);
//
// Two output forms, as in TFLite's GPU delegate:
//  - shared objects (PlanObjects): tensors map to objects; an object is as
//    large as its largest tensor. Needed for GPU images, which cannot be
//    carved out of one buffer.
//  - offsets (PlanOffsets): one arena, a byte offset per tensor.
#ifndef MACE_CORE_MEMORY_PLANNER_H_
#define MACE_CORE_MEMORY_PLANNER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mace/core/memory/status.h"
#include "mace/core/memory/usage_record.h"

namespace mace {
namespace memory {

// Values match mace::MemoryStrategy in mace/public/mace.h.
enum class Strategy {
  kNaive = 0,            // one object per tensor
  kEquality = 1,         // reuse only objects of exactly the same size
  kGreedyInOrder = 2,    // walk tensors by first task, best-sized free object
  kGreedyByBreadth = 3,  // widest tasks first
  kGreedyBySize = 4,     // largest tensors first (default; offsets: best fit)
  kGreedyBest = 5,       // best of the fast greedy strategies
  kMinCostFlow = 6,      // min-cost flow over reuse edges
  kOptimal = 7,          // offsets only: time-bounded exact search
};

constexpr Strategy kDefaultStrategy = Strategy::kGreedyBySize;

// Accepts the CLI spellings ("greedy_by_size"), case-insensitively.
bool ParseStrategy(const std::string& name, Strategy* strategy);
// The CLI spelling, e.g. "greedy_by_size".
const char* StrategyName(Strategy strategy);

// Whether this build links `strategy` for arenas. Every strategy is linked
// unless the planner is compiled for a model-specific library
// (--define=mace_memory_strategies=default: OPTIMAL and the greedy
// strategies it starts from, GREEDY_BEST, GREEDY_BY_SIZE and
// GREEDY_BY_BREADTH, and GREEDY_IN_ORDER for images). Planning with a
// strategy left out fails; CheckStrategyLinked says why.
bool StrategyLinked(Strategy strategy);
Status CheckStrategyLinked(Strategy strategy);

struct PlanOptions {
  // Offsets are multiples of this; sizes are not rounded, but the next
  // tensor above one starts at the aligned end.
  size_t alignment = 1;
  // OPTIMAL's budgets: the best plan found when either runs out is
  // returned. step_limit counts search steps, a node's cost being the
  // buffers it scans (0: no limit); a plan it cuts short is the same on
  // every machine, one the clock cuts short is not.
  int64_t time_limit_ms = 1000;
  int64_t step_limit = 0;
};

struct ObjectsPlan {
  ObjectsAssignment assignment;
  size_t total = 0;        // sum of object sizes
  size_t lower_bound = 0;  // sum of positional maxima
  // true: total equals the lower bound. nullopt: not known.
  std::optional<bool> optimal;
};

struct ImageObjectsPlan {
  ImageObjectsAssignment assignment;
  size_t total = 0;        // sum of object areas (width * height)
  size_t lower_bound = 0;  // sum of positional maxima of areas
  std::optional<bool> optimal;
};

struct OffsetsPlan {
  OffsetsAssignment assignment;  // total_size = max(offset + size)
  size_t lower_bound = 0;        // see OffsetsLowerBound()
  // true: proven (by the lower bound or by OPTIMAL's search). false: OPTIMAL
  // ran out of time before proving it. nullopt: a heuristic, not known.
  std::optional<bool> optimal;
};

// Strategies: every linked one except kOptimal.
Status PlanObjects(const std::vector<UsageRecord>& records, Strategy strategy, ObjectsPlan* plan);

// Strategies: kNaive, kEquality, kGreedyInOrder (images never grow).
Status PlanImageObjects(const std::vector<ImageUsageRecord>& records, Strategy strategy,
                        ImageObjectsPlan* plan);

// kGreedyBySize places offsets directly (best fit, leading gap included);
// kOptimal searches; kGreedyBest takes the best of best fit, first fit and
// the stacked GREEDY_BEST objects; the other object strategies are stacked.
Status PlanOffsets(const std::vector<UsageRecord>& records, Strategy strategy,
                   const PlanOptions& options, OffsetsPlan* plan);

// A tensor whose offset is already decided, e.g. by an offline plan stored
// in the model.
struct FixedPlacement {
  UsageRecord record;
  size_t offset = 0;
};

// Keeps every `fixed` tensor at its offset and places `records` around them
// (GREEDY_BY_SIZE best fit, gaps between fixed tensors included). Fails if
// the fixed tensors overlap each other in memory while both are live, or are
// not aligned. plan->assignment covers `records` only; its total_size and
// the lower bound cover both.
Status PlanOffsetsAround(const std::vector<UsageRecord>& records,
                         const std::vector<FixedPlacement>& fixed, const PlanOptions& options,
                         OffsetsPlan* plan);

// Lays objects out one after another: object k starts at the aligned sum of
// the sizes of objects 0..k-1.
OffsetsAssignment StackObjects(const ObjectsAssignment& objects, size_t alignment);

// Input checks shared by all entry points (first <= last, limits).
Status ValidateRecords(const std::vector<UsageRecord>& records);
Status ValidateImageRecords(const std::vector<ImageUsageRecord>& records);

}  // namespace memory
}  // namespace mace

#endif  // MACE_CORE_MEMORY_PLANNER_H_
