#include "mace/libmace/op_set_check.h"

#include <set>
#include <string>
#include <vector>

#include "mace/core/control_flow.h"
#include "mace/ops/op_set.h"
#include "mace/utils/status.h"

namespace mace {
namespace {

// `control_flow`: the registry runs If, Loop and Scan.
MaceStatus CheckNet(const NetDef& net, const std::set<std::string>& types, bool control_flow,
                    const char* op_set) {
  for (int i = 0; i < net.op_size(); ++i) {
    const OperatorDef& op = net.op(i);
    if (types.count(op.type()) > 0 || (control_flow && IsControlFlowOp(op.type()))) continue;
    return MaceStatus(
        MaceStatus::MACE_UNSUPPORTED,
        StrCat("op #", i, " '", op.name(), "' needs op type '", op.type(),
               "', which this library leaves out: it was built with only the ops of the "
               "models of deployment '",
               op_set,
               "' (model_specific_library: 1). Add this model to that deployment file and "
               "build again, or build without model_specific_library"));
  }
  for (const NetDef& subgraph : net.subgraphs()) {
    MACE_RETURN_IF_ERROR(CheckNet(subgraph, types, control_flow, op_set));
  }
  return MaceStatus();
}

}  // namespace

MaceStatus CheckModelOpSet(const NetDef& net, const OpRegistry& registry) {
  const char* op_set = ops::ModelSpecificOpSet();
  if (op_set == nullptr) return MaceStatus();
  const std::vector<std::string> registered = registry.OpTypes();
  return CheckNet(net, std::set<std::string>(registered.begin(), registered.end()),
                  registry.control_flow() != nullptr, op_set);
}

}  // namespace mace
