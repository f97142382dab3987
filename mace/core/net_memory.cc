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

void Net::PlanConcatSlices(const std::set<std::string>& inputs,
                           const std::set<std::string>& outputs,
                           const std::map<const Tensor*, int>& last_use,
                           std::map<const Tensor*, Slice>* slices) const {
  // Which op and output index defines each tensor.
  std::map<const Tensor*, std::pair<int, int>> producer;
  for (int i = 0; i < static_cast<int>(ops_.size()); ++i) {
    for (int k = 0; k < ops_[i]->OutputSize(); ++k) producer[ops_[i]->Output(k)] = {i, k};
  }
  std::set<const Tensor*> wholes;  // concat outputs already holding slices
  for (int i = 0; i < static_cast<int>(ops_.size()); ++i) {
    const Operation* op = ops_[i].get();
    if (!op->OutputConcatenatesInputs() || op->OutputSize() != 1) continue;
    const Tensor* whole = op->Output(0);
    std::set<const Tensor*> seen;
    int64_t bytes = 0;
    bool placeable = !whole->is_weight() && inputs.count(whole->name()) == 0;
    for (int k = 0; placeable && k < op->InputSize(); ++k) {
      const Tensor* part = op->Input(k);
      auto made = part != nullptr ? producer.find(part) : producer.end();
      auto used = part != nullptr ? last_use.find(part) : last_use.end();
      // A part must be an activation this op reads last (so nothing later
      // needs it apart from the whole), written by an op that neither works
      // in place nor has an offline offset, once in this concat, and not a
      // concat output holding slices itself.
      placeable = part != nullptr && !part->is_weight() && made != producer.end() &&
                  used != last_use.end() && used->second == i && seen.insert(part).second &&
                  inputs.count(part->name()) == 0 && outputs.count(part->name()) == 0 &&
                  wholes.count(part) == 0 && slices->count(part) == 0 &&
                  part->memory_type() == whole->memory_type();
      if (placeable) {
        const Operation* maker = ops_[made->second.first].get();
        const OperatorDef& def = maker->def();
        const int index = made->second.second;
        placeable = !(index == 0 && maker->InPlaceInput() >= 0) &&
                    !(index < def.output_mem_offset_size() && def.output_mem_offset(index) >= 0);
      }
      bytes += placeable ? part->raw_size() : 0;
    }
    if (!placeable || bytes != whole->raw_size()) continue;
    int64_t offset = 0;
    for (int k = 0; k < op->InputSize(); ++k) {
      (*slices)[op->Input(k)] = {whole, offset};
      offset += op->Input(k)->raw_size();
    }
    wholes.insert(whole);
  }
}

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
    if (!options_.preserve_inputs && !options_.preserve_intermediates && outputs.count(name) == 0) {
      last = last_use.count(tensor) > 0 ? last_use[tensor] : 0;
    }
    lifetimes[tensor] = {0, last};
  }
  const std::set<std::string> inputs(input_names.begin(), input_names.end());
  // Concat inputs placed inside the concat's output: the producers write
  // their slices in place and the concat copies nothing. The output is
  // planned from its first slice's producer on.
  std::map<const Tensor*, Slice> slices;
  std::map<const Tensor*, int> concat_first;  // concat output -> first producer
  if (!options_.preserve_intermediates) PlanConcatSlices(inputs, outputs, last_use, &slices);
  for (int i = 0; i <= last_op; ++i) {
    Operation* op = ops_[i].get();
    for (int k = 0; k < op->OutputSize(); ++k) {
      Tensor* output = op->Output(k);
      auto slice = slices.find(output);
      if (slice != slices.end()) {
        auto first = concat_first.emplace(slice->second.whole, i).first;
        first->second = std::min(first->second, i);
        continue;
      }
      const bool is_output = outputs.count(output->name()) > 0;
      int last = is_output || options_.preserve_intermediates ? last_op : i;
      if (last_use.count(output) > 0) last = std::max(last, last_use[output]);
      const int alias_input = k == 0 ? op->InPlaceInput() : -1;
      const Tensor* candidate =
          alias_input >= 0 && alias_input < op->InputSize() ? op->Input(alias_input) : nullptr;
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
      if (concat_first.count(output) > 0) life.first = concat_first[output];
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
  for (const auto& [part, slice] : slices) {
    Tensor* whole = root_of(slice.whole);
    const_cast<Tensor*>(part)->SetBuffer(
        static_cast<unsigned char*>(whole->raw_mutable_data()) + slice.offset, part->raw_size());
    memory_report_.tensors.push_back({part->name(), MemoryTypeName(part->memory_type()), -1,
                                      part->raw_size(), lifetimes[whole].first,
                                      lifetimes[whole].last, whole->name()});
  }
  VLOG(1) << "memory plan " << plan.strategy << ": arena " << plan.total << " bytes, lower bound "
          << plan.lower_bound << ", naive " << memory_report_.naive_bytes;
  return MaceStatus();
}

}  // namespace mace
