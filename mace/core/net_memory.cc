// Net::PlanMemory: lifetimes, in-place aliasing and arena placement of every
// intermediate tensor.
#include <algorithm>
#include <map>
#include <set>

#include "mace/core/arena_plan.h"
#include "mace/core/net.h"
#include "mace/utils/logging.h"
#include "mace/utils/timer.h"

namespace mace {
namespace {

struct Lifetime {
  int first = 0;
  int last = 0;
  int64_t fixed_offset = -1;  // from an offline plan in the model
};

}  // namespace

MaceStatus Net::PlanMemory(const std::vector<std::string>& input_names,
                           const std::vector<std::string>& output_names) {
  const int last_op = static_cast<int>(ops_.size()) - 1;
  // Tensors in definition order; the index is the planner's record id.
  std::vector<Tensor*> order;
  std::map<const Tensor*, Lifetime> lifetimes;
  std::map<const Tensor*, Tensor*> alias_root;
  auto root_of = [&](const Tensor* tensor) -> Tensor* {
    auto it = alias_root.find(tensor);
    return it == alias_root.end() ? const_cast<Tensor*>(tensor) : it->second;
  };
  const std::set<std::string> outputs(output_names.begin(), output_names.end());
  // Last consumer of every non-constant tensor, before any aliasing decision.
  // Optional inputs that a model leaves empty are null and take no memory.
  std::map<const Tensor*, int> last_use;
  for (int i = 0; i <= last_op; ++i) {
    for (int k = 0; k < ops_[i]->InputSize(); ++k) {
      const Tensor* input = ops_[i]->Input(k);
      if (input != nullptr && !input->is_weight()) last_use[input] = i;
    }
  }
  // Model inputs live from the start. By default they are preserved for the
  // whole run, since the app may read them back; otherwise they die with
  // their last reader (an unread input still needs its bytes at op 0).
  for (const std::string& name : input_names) {
    Tensor* tensor = workspace_->GetTensor(name);
    order.push_back(tensor);
    int last = last_op;
    if (!options_.preserve_inputs && !options_.preserve_intermediates &&
        outputs.count(name) == 0) {
      last = last_use.count(tensor) > 0 ? last_use[tensor] : 0;
    }
    lifetimes[tensor] = {0, last};
  }
  const std::set<std::string> inputs(input_names.begin(), input_names.end());
  for (int i = 0; i <= last_op; ++i) {
    Operation* op = ops_[i].get();
    for (int k = 0; k < op->OutputSize(); ++k) {
      Tensor* output = op->Output(k);
      const bool is_output = outputs.count(output->name()) > 0;
      int last = is_output || options_.preserve_intermediates ? last_op : i;
      if (last_use.count(output) > 0) last = std::max(last, last_use[output]);
      const int alias_input = k == 0 ? op->InPlaceInput() : -1;
      const Tensor* candidate = alias_input >= 0 && alias_input < op->InputSize()
                                    ? op->Input(alias_input) : nullptr;
      if (candidate != nullptr && !candidate->is_weight() && !options_.preserve_intermediates &&
          candidate->raw_size() == output->raw_size() && last_use[candidate] == i &&
          outputs.count(candidate->name()) == 0 && inputs.count(root_of(candidate)->name()) == 0) {
        // The input dies here, so the output can take over its bytes.
        Tensor* root = root_of(candidate);
        alias_root[output] = root;
        lifetimes[root].last = std::max(lifetimes[root].last, last);
        continue;
      }
      Lifetime life{i, last};
      const OperatorDef& def = op->def();
      if (k < def.output_mem_offset_size() && def.output_mem_offset(k) >= 0) {
        life.fixed_offset = def.output_mem_offset(k);
      }
      lifetimes[output] = life;
      order.push_back(output);
    }
  }

  std::vector<ArenaRecord> records;
  for (const Tensor* tensor : order) {
    const Lifetime& life = lifetimes[tensor];
    records.push_back({AlignUp(std::max<int64_t>(tensor->raw_size(), 1), options_.arena_alignment),
                       life.first, life.last, life.fixed_offset});
  }
  ArenaPlan plan;
  const int64_t plan_start = NowMicros();
  MACE_RETURN_IF_ERROR(PlanArena(records, options_.memory_strategy, options_.arena_alignment,
                                 options_.plan_time_limit_ms, &plan));
  const int64_t plan_micros = NowMicros() - plan_start;
  unsigned char* arena = workspace_->AllocateBuffer(std::max<int64_t>(plan.total, 1));
  MACE_CHECK_ARG(arena != nullptr, "cannot allocate a ", plan.total, "-byte tensor arena");

  memory_report_ = MemoryReport();
  memory_report_.strategy = plan.strategy;
  memory_report_.arena_bytes = plan.total;
  memory_report_.lower_bound_bytes = plan.lower_bound;
  memory_report_.plan_micros = plan_micros;
  memory_report_.weights_bytes = workspace_->weights_bytes();
  if (runtime_ != nullptr) runtime_->ReportMemory(&memory_report_);
  for (size_t r = 0; r < order.size(); ++r) {
    Tensor* tensor = order[r];
    tensor->SetBuffer(arena + plan.offsets[r], records[r].size);
    memory_report_.naive_bytes += records[r].size;
    memory_report_.tensors.push_back({tensor->name(), MemoryTypeName(tensor->memory_type()),
                                      plan.offsets[r], records[r].size, records[r].first,
                                      records[r].last, ""});
  }
  for (const auto& [alias, root] : alias_root) {
    const_cast<Tensor*>(alias)->SetBuffer(root->raw_mutable_data(), root->capacity());
    memory_report_.tensors.push_back({alias->name(), MemoryTypeName(alias->memory_type()), -1,
                                      alias->raw_size(), lifetimes[root].first,
                                      lifetimes[root].last, root->name()});
  }
  VLOG(1) << "memory plan " << plan.strategy << ": arena " << plan.total << " bytes, lower bound "
          << plan.lower_bound << ", naive " << memory_report_.naive_bytes;
  return MaceStatus();
}

}  // namespace mace
