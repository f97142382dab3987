// Control flow at run time: If and Loop ops that run subgraphs of the model
// (NetDef.subgraphs) as nets of their own. See docs/design/architecture.md
// (Control flow) for the model format and the limits checked here.
//
//   If    inputs  [cond, captured...]            outputs [values...]
//         then_branch / else_branch: subgraph indices; each subgraph takes the
//         captured values as its inputs and gives the values.
//   Loop  inputs  [M, cond, carried..., captured...]   (M and cond optional: "")
//         outputs [carried..., scan outputs...]
//         body: a subgraph index; the body takes
//         [iteration, cond, carried..., captured...] and gives
//         [cond, carried..., scan slices...]. loop_carried: how many carried
//         values; max_iterations bounds a loop that would not end.
//   Scan  inputs  [state..., scanned..., captured...]
//         outputs [state..., scan outputs...]
//         body: takes [state..., one slice of each scanned input (along
//         axis 0, forwards), captured...] and gives [state..., slices...];
//         loop_carried: how many states; num_scan_inputs: how many scanned.
//
// Subgraph nets are built at Prepare for the shapes the op sees then, and
// each plans its own memory once. So a loop-carried value must keep its
// shape, both branches of an If must give the same shapes, and a Loop with
// scan outputs must run the number of iterations its outputs are planned
// for; anything else is a clear error, never a write out of bounds.
#ifndef MACE_CORE_CONTROL_FLOW_H_
#define MACE_CORE_CONTROL_FLOW_H_

#include <memory>
#include <string>
#include <vector>

#include "mace/core/net.h"

namespace mace {

// Subgraphs nested deeper than this are refused.
constexpr int kMaxSubgraphDepth = 8;
// Subgraph nets one model may build in all: each op builds its subgraphs,
// so subgraphs holding several control-flow ops multiply per level.
constexpr int64_t kMaxSubgraphNets = 4096;
// A Loop's max_iterations when the model gives none, and its upper bound.
constexpr int64_t kDefaultMaxLoopIterations = int64_t{1} << 20;
constexpr int64_t kMaxLoopIterations = int64_t{1} << 31;

bool IsControlFlowOp(const std::string& type);

struct ControlFlowArgs {
  const OpRegistry* registry = nullptr;
  const ConverterRegistry* converters = nullptr;
  NetRuntimes runtimes;
  const NetOptions* options = nullptr;
  SubgraphEnv env;
};

// Makes `registry` run If, Loop and Scan (OpRegistry::control_flow).
MaceStatus RegisterControlFlow(OpRegistry* registry);

class ControlFlowOp : public Operation {
 public:
  ControlFlowOp(const OpRegistry* registry, const ConverterRegistry* converters,
                NetRuntimes runtimes, const NetOptions& options, SubgraphEnv env);
  MaceStatus Init() override;
  MaceStatus Prepare(OpContext* context) override;
  MaceStatus Run(OpContext* context) override;
  DataType OutputType(int index) const override;

 private:
  // A subgraph's net and the workspace holding its tensors and weights.
  struct Subnet {
    std::unique_ptr<Workspace> workspace;
    std::unique_ptr<Net> net;
    std::vector<Tensor*> inputs;
    std::vector<const Tensor*> outputs;
  };
  // One formal input of a subgraph: the shape and type the op binds to it,
  // or (`scalar`) one value whose shape and type the subgraph declares.
  struct InputSpec {
    std::vector<int64_t> shape;
    DataType dtype = DT_FLOAT;
    bool scalar = false;
  };
  // Checks subgraph `index` and builds its net for `inputs`; it must have
  // `outputs` outputs. `what` names the argument, for messages.
  MaceStatus Build(const char* what, int64_t index, const std::vector<InputSpec>& inputs,
                   int outputs, std::unique_ptr<Subnet>* subnet);
  MaceStatus PrepareIf();
  MaceStatus PrepareLoop();
  MaceStatus PrepareScan();
  MaceStatus RunIf();
  MaceStatus RunLoop();
  MaceStatus RunScan();
  // Checks that the body's first `count` outputs leave with the shapes and
  // types of its inputs from `first_input` on, and shapes the op's first
  // `count` outputs like them.
  MaceStatus CheckCarried(int first_input, int count);

  const OpRegistry* registry_;
  const ConverterRegistry* converters_;
  NetRuntimes runtimes_;
  NetOptions options_;
  SubgraphEnv env_;
  bool is_loop_ = false;
  bool is_scan_ = false;
  int64_t scan_inputs_ = 0;
  int64_t then_branch_ = -1;
  int64_t else_branch_ = -1;
  int64_t body_ = -1;
  int64_t carried_ = 0;
  int64_t max_iterations_ = kDefaultMaxLoopIterations;
  // Iterations a Loop with scan outputs is planned for (-1: no scan outputs).
  int64_t planned_iterations_ = -1;
  std::unique_ptr<Subnet> then_net_;
  std::unique_ptr<Subnet> else_net_;
  std::unique_ptr<Subnet> body_net_;
};

}  // namespace mace

#endif  // MACE_CORE_CONTROL_FLOW_H_
