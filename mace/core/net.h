// Net: the ops of one NetDef in execution order, placed on a runtime, with
// memory planned once at Init and per-op timing at Run.
#ifndef MACE_CORE_NET_H_
#define MACE_CORE_NET_H_

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "mace/core/op_registry.h"
#include "mace/core/runtime.h"
#include "mace/core/workspace.h"

namespace mace {

struct NetOptions {
  MemoryStrategy memory_strategy = MemoryStrategy::GREEDY_BY_SIZE;
  int64_t plan_time_limit_ms = 1000;
  bool preserve_intermediates = false;
  bool preserve_inputs = true;
  int64_t arena_alignment = 64;
  // Keep runs of ops with channel-blocked kernels in the blocked layout
  // (net_layout.cc). preserve_intermediates turns it off, so that every
  // intermediate stays readable as NCHW; so does MACE_CPU_BLOCKED_LAYOUT=0,
  // through the ops.
  bool blocked_layout = true;
};

class Net {
 public:
  Net(const OpRegistry* registry, Runtime* runtime, Workspace* workspace, NetOptions options);

  // Creates the model inputs (shapes from input_info), builds and prepares
  // every op, and plans memory for the intermediates.
  MaceStatus Init(const NetDef& net_def, const std::vector<std::string>& output_names);
  MaceStatus Run(RunMetadata* run_metadata);

  const MemoryReport& memory_report() const { return memory_report_; }
  const std::vector<std::unique_ptr<Operation>>& ops() const { return ops_; }

 private:
  MaceStatus CreateOps(const NetDef& net_def);
  // Chooses which ops run channel-blocked, inserts the layout conversions
  // where blocked and plain ops meet, and switches the blocked ops over.
  MaceStatus PlanBlockedLayout(const std::vector<std::string>& output_names);
  bool BlockedLayoutEnabled() const;
  MaceStatus PlanMemory(const std::vector<std::string>& input_names,
                        const std::vector<std::string>& output_names);

  // An input of a concatenating op placed inside that op's output.
  struct Slice {
    const Tensor* whole = nullptr;
    int64_t offset = 0;  // bytes
  };
  // Picks the inputs of ops with OutputConcatenatesInputs() that can live
  // inside the output: see net_memory.cc.
  void PlanConcatSlices(const std::set<std::string>& inputs, const std::set<std::string>& outputs,
                        const std::map<const Tensor*, int>& last_use,
                        std::map<const Tensor*, Slice>* slices) const;

  const OpRegistry* registry_;
  Runtime* runtime_;
  Workspace* workspace_;
  NetOptions options_;
  std::vector<std::unique_ptr<Operation>> ops_;
  MemoryReport memory_report_;
};

}  // namespace mace

#endif  // MACE_CORE_NET_H_
