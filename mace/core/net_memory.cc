// Net::PlanMemory: lifetimes, in-place aliasing and arena placement of every
// intermediate tensor.
#include <algorithm>
#include <map>
#include <set>

#include "mace/core/arena_plan.h"
#include "mace/core/memory/planner.h"
#include "mace/core/net.h"
#include "mace/utils/checked_math.h"
#include "mace/utils/logging.h"
#include "mace/utils/timer.h"

// A library without a GPU runtime (--define=mace_gpu_images=off, as a
// model-specific CPU-only build passes) is compiled with
// MACE_MEMORY_IMAGES=0: it plans no 2D images, and links no image planner.
#ifndef MACE_MEMORY_IMAGES
#define MACE_MEMORY_IMAGES 1
#endif

namespace mace {
namespace {

constexpr bool kLinksImagePlanner = MACE_MEMORY_IMAGES;

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
                  part->storage() == whole->storage() &&
                  whole->memory_type() != MemoryType::GPU_IMAGE;
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
                           const std::vector<std::string>& output_names,
                           const std::set<const Tensor*>& elsewhere) {
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
  app_inputs_.clear();
  int64_t app_input_bytes = 0;
  for (const std::string& name : input_names) {
    Tensor* tensor = workspace_->GetTensor(name);
    // An input the app hands over as plain host memory is read there: no
    // arena bytes and no copy (the engine binds it for each Run).
    if (options_.inputs_in_app_buffers && tensor->memory_type() == MemoryType::CPU_BUFFER &&
        tensor->layout() == Layout::kNCHW && outputs.count(name) == 0 &&
        elsewhere.count(tensor) == 0) {
      app_inputs_.insert(name);
      app_input_bytes += tensor->raw_size();
      tensor->SetBuffer(nullptr, 0);
      continue;
    }
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
  // A tensor kept elsewhere is no slice, and a slice of a whole kept
  // elsewhere is planned on its own.
  // A tensor whose shape follows values may get memory of its own at Run
  // (Net::OwnMemory): it shares no bytes, neither as a slice nor as a whole.
  for (auto it = slices.begin(); it != slices.end();) {
    const bool drop = elsewhere.count(it->first) > 0 || elsewhere.count(it->second.whole) > 0 ||
                      varying_.count(it->first) > 0 || varying_.count(it->second.whole) > 0;
    it = drop ? slices.erase(it) : std::next(it);
  }
  for (int i = 0; i <= last_op; ++i) {
    Operation* op = ops_[i].get();
    for (int k = 0; k < op->OutputSize(); ++k) {
      Tensor* output = op->Output(k);
      if (elsewhere.count(output) > 0) continue;
      auto slice = slices.find(output);
      if (slice != slices.end()) {
        auto first = concat_first.emplace(slice->second.whole, i).first;
        first->second = std::min(first->second, i);
        continue;
      }
      // A model output may be read through a converted copy (a GPU image
      // output's host buffer): the copy lives to the end as well.
      bool is_output = outputs.count(output->name()) > 0;
      for (const auto& [name, tensor] : outputs_) is_output = is_output || tensor == output;
      int last = is_output || options_.preserve_intermediates ? last_op : i;
      if (last_use.count(output) > 0) last = std::max(last, last_use[output]);
      const int alias_input = k == 0 ? op->InPlaceInput() : -1;
      const Tensor* candidate =
          alias_input >= 0 && alias_input < op->InputSize() ? op->Input(alias_input) : nullptr;
      // A state tensor keeps its own bytes for the engine's lifetime.
      if (candidate != nullptr && !candidate->is_weight() && !workspace_->IsState(candidate) &&
          !options_.preserve_intermediates &&
          elsewhere.count(candidate) == 0 && varying_.count(candidate) == 0 &&
          varying_.count(output) == 0 && candidate->storage() == output->storage() &&
          (output->memory_type() != MemoryType::GPU_IMAGE ||
           candidate->shape() == output->shape()) &&
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

  memory_report_ = MemoryReport();
  memory_report_.weights_bytes = workspace_->weights_bytes();
  memory_report_.app_input_bytes = app_input_bytes;
  // One plan per memory type, allocated by the runtime that owns it.
  std::map<MemoryType, std::pair<std::vector<Tensor*>, std::vector<ArenaRecord>>> by_type;
  for (Tensor* tensor : order) {
    const Lifetime& life = lifetimes[tensor];
    auto& [tensors, records] = by_type[tensor->memory_type()];
    tensors.push_back(tensor);
    records.push_back({AlignUp(std::max<int64_t>(tensor->raw_size(), 1), options_.arena_alignment),
                       life.first, life.last, life.fixed_offset});
  }
  // The aliases and slices of each type's planned tensors, for a shared
  // arena to bind again with them when it moves them.
  std::map<MemoryType, std::vector<Follower>> followers;
  auto follow = [&](Tensor* tensor, const Tensor* root, int64_t offset, int64_t size) {
    const std::vector<Tensor*>& planned = by_type[root->memory_type()].first;
    auto it = std::find(planned.begin(), planned.end(), root);
    if (it == planned.end()) return;
    followers[root->memory_type()].push_back(
        {tensor, static_cast<size_t>(it - planned.begin()), offset, size});
  };
  for (const auto& [alias, root] : alias_root) {
    follow(const_cast<Tensor*>(alias), root, 0,
           AlignUp(std::max<int64_t>(root->raw_size(), 1), options_.arena_alignment));
  }
  for (const auto& [part, slice] : slices) {
    follow(const_cast<Tensor*>(part), root_of(slice.whole), slice.offset, part->raw_size());
  }
  for (const auto& [type, planned] : by_type) {
    Runtime* owner =
        type == runtimes_.cpu->default_memory_type() ? runtimes_.cpu : runtimes_.device;
    MACE_RETURN_IF_ERROR(
        PlanMemoryType(type, owner, planned.first, planned.second, followers[type]));
  }
  runtimes_.cpu->ReportMemory(&memory_report_);
  if (runtimes_.device != runtimes_.cpu) runtimes_.device->ReportMemory(&memory_report_);
  for (const auto& [alias, root] : alias_root) {
    const_cast<Tensor*>(alias)->Bind(root->memory(), root->memory_offset(), root->capacity());
    memory_report_.tensors.push_back({alias->name(), MemoryTypeName(alias->memory_type()), -1,
                                      alias->raw_size(), lifetimes[root].first,
                                      lifetimes[root].last, root->name()});
  }
  for (const auto& [part, slice] : slices) {
    Tensor* whole = root_of(slice.whole);
    const_cast<Tensor*>(part)->Bind(whole->memory(), whole->memory_offset() + slice.offset,
                                    part->raw_size());
    memory_report_.tensors.push_back({part->name(), MemoryTypeName(part->memory_type()), -1,
                                      part->raw_size(), lifetimes[whole].first,
                                      lifetimes[whole].last, whole->name()});
  }
  return MaceStatus();
}

const MemoryReport& Net::memory_report() const {
  memory_report_.op_bytes = 0;
  for (const auto& op : ops_) memory_report_.op_bytes += op->HeldBytes();
  if (options_.shared_arena != nullptr) {
    memory_report_.shared_arena_bytes = options_.shared_arena->arena_bytes();
    memory_report_.shared_arena_offset = options_.shared_arena->region_offset();
  }
  return memory_report_;
}

MaceStatus Net::PlanImages(Runtime* runtime, const std::vector<Tensor*>& order,
                           const std::vector<ArenaRecord>& records) {
  if (!kLinksImagePlanner) {
    return MaceStatus(MaceStatus::MACE_UNSUPPORTED,
                      StrCat(runtime->name(),
                             " keeps tensors in 2D images, but this library has "
                             "no planner for them (no GPU runtime)"));
  }
  // Images are shared whole (an image serves a tensor it covers in both
  // dimensions), one plan per pixel size.
  std::map<int, std::vector<size_t>> by_pixel;
  std::vector<MemoryExtent> extents(order.size());
  for (size_t r = 0; r < order.size(); ++r) {
    MACE_RETURN_IF_ERROR(runtime->ImageExtentFor(*order[r], &extents[r]));
    MACE_CHECK_ARG(extents[r].width > 0 && extents[r].height > 0 && extents[r].pixel_bytes > 0,
                   runtime->name(), " gives tensor '", order[r]->name(), "' an empty image");
    by_pixel[extents[r].pixel_bytes].push_back(r);
  }
  // Images take the object strategies only; the offset ones fall back to
  // GREEDY_IN_ORDER, which the image planner has.
  memory::Strategy strategy = static_cast<memory::Strategy>(options_.memory_strategy);
  if (strategy != memory::Strategy::kNaive && strategy != memory::Strategy::kEquality) {
    strategy = memory::Strategy::kGreedyInOrder;
  }
  MemoryTypeReport report;
  report.memory_type = MemoryTypeName(MemoryType::GPU_IMAGE);
  report.runtime = runtime->name();
  report.strategy = memory::StrategyName(strategy);
  for (const auto& [pixel_bytes, members] : by_pixel) {
    std::vector<memory::ImageUsageRecord> usage;
    for (size_t r : members) {
      usage.push_back(
          {{static_cast<size_t>(extents[r].width), static_cast<size_t>(extents[r].height)},
           records[r].first,
           records[r].last});
      report.naive_bytes += extents[r].bytes;
    }
    memory::ImageObjectsPlan plan;
    const memory::Status status = memory::PlanImageObjects(usage, strategy, &plan);
    MACE_CHECK_ARG(status.ok(), "image planning failed: ", status.message());
    std::vector<Memory*> objects;
    for (const memory::ImageSize& size : plan.assignment.object_sizes) {
      int64_t image_bytes = 0;
      MACE_CHECK_ARG(CheckedMul(static_cast<int64_t>(size.width) * pixel_bytes,
                                static_cast<int64_t>(size.height), &image_bytes),
                     "a ", size.width, " x ", size.height, " image is too large");
      MACE_RETURN_IF_ERROR(ReserveMemory(image_bytes, "a GPU image"));
      std::unique_ptr<Memory> image;
      MACE_RETURN_IF_ERROR(
          runtime->Allocate(MemoryExtent::Image(static_cast<int64_t>(size.width),
                                                static_cast<int64_t>(size.height), pixel_bytes),
                            &image));
      objects.push_back(image.get());
      report.bytes += image->bytes();
      memories_.push_back(std::move(image));
    }
    report.lower_bound_bytes += static_cast<int64_t>(plan.lower_bound) * pixel_bytes;
    const int64_t image_base = report.blocks;
    report.blocks += static_cast<int>(objects.size());
    for (size_t k = 0; k < members.size(); ++k) {
      Memory* object = objects[plan.assignment.object_ids[k]];
      Tensor* tensor = order[members[k]];
      tensor->Bind(object, 0, object->bytes());
      memory_report_.tensors.push_back(
          {tensor->name(), report.memory_type, -1, extents[members[k]].bytes,
           records[members[k]].first, records[members[k]].last, "",
           image_base + static_cast<int64_t>(plan.assignment.object_ids[k])});
    }
  }
  VLOG(1) << "image plan on " << runtime->name() << ": " << report.blocks << " images, "
          << report.bytes << " bytes, naive " << report.naive_bytes;
  memory_report_.memory_types.push_back(std::move(report));
  return MaceStatus();
}

MaceStatus Net::PlanMemoryType(MemoryType type, Runtime* runtime, const std::vector<Tensor*>& order,
                               const std::vector<ArenaRecord>& records,
                               const std::vector<Follower>& followers) {
  if (type == MemoryType::GPU_IMAGE) return PlanImages(runtime, order, records);
  ArenaPlan plan;
  const int64_t plan_start = NowMicros();
  MACE_RETURN_IF_ERROR(PlanArena(records, options_.memory_strategy, options_.arena_alignment,
                                 {options_.plan_time_limit_ms, options_.plan_step_limit}, &plan));
  const int64_t plan_micros = NowMicros() - plan_start;
  MACE_RETURN_IF_ERROR(ReserveMemory(plan.total, StrCat("the ", MemoryTypeName(type), " arena")));
  // The CPU arena of an engine in a context is its part of the shared one.
  SharedArena::Member* shared = type == MemoryType::CPU_BUFFER ? options_.shared_arena : nullptr;
  std::unique_ptr<Memory> memory;
  if (shared != nullptr) {
    std::vector<SharedArena::Binding> bindings;
    for (size_t r = 0; r < order.size(); ++r) {
      bindings.push_back({order[r], plan.offsets[r], records[r].size});
    }
    // Aliases and slices move with their roots when the arena is laid out
    // again (an engine joins or leaves the context).
    for (const Follower& follower : followers) {
      bindings.push_back(
          {follower.tensor, plan.offsets[follower.root] + follower.offset, follower.size});
    }
    MACE_RETURN_IF_ERROR(shared->SetPlan(plan.total, std::move(bindings)));
  } else {
    MACE_RETURN_IF_ERROR(
        runtime->Allocate(MemoryExtent::Buffer(type, std::max<int64_t>(plan.total, 1)), &memory));
  }
  MemoryTypeReport report;
  report.memory_type = MemoryTypeName(type);
  report.runtime = runtime->name();
  report.strategy = plan.strategy;
  report.bytes = plan.total;
  report.lower_bound_bytes = plan.lower_bound;
  report.blocks = 1;
  for (size_t r = 0; r < order.size(); ++r) {
    if (memory != nullptr) order[r]->Bind(memory.get(), plan.offsets[r], records[r].size);
    report.naive_bytes += records[r].size;
    memory_report_.tensors.push_back({order[r]->name(), report.memory_type, plan.offsets[r],
                                      records[r].size, records[r].first, records[r].last, ""});
  }
  if (type == MemoryType::CPU_BUFFER) {
    // The CPU arena is the report's headline figure.
    memory_report_.strategy = plan.strategy;
    memory_report_.arena_bytes = plan.total;
    memory_report_.lower_bound_bytes = plan.lower_bound;
    memory_report_.naive_bytes = report.naive_bytes;
  }
  memory_report_.plan_micros += plan_micros;
  VLOG(1) << "memory plan for " << report.memory_type << " on " << runtime->name() << ", "
          << plan.strategy << ": " << plan.total << " bytes, lower bound " << plan.lower_bound
          << ", naive " << report.naive_bytes;
  memory_report_.memory_types.push_back(std::move(report));
  if (memory != nullptr) memories_.push_back(std::move(memory));
  return MaceStatus();
}

MaceStatus Net::ReserveMemory(int64_t bytes, const std::string& what) {
  int64_t total = 0;
  const bool fits = CheckedAdd(reserved_bytes_, bytes, &total);
  if (options_.memory_limit > 0 && (!fits || total > options_.memory_limit)) {
    return MaceStatus(MaceStatus::MACE_OUT_OF_RESOURCES,
                      StrCat("the model's memory plan needs ", bytes, " bytes for ", what, " (",
                             fits ? total : bytes, " in all), more than the engine's memory limit of ",
                             options_.memory_limit, " bytes"));
  }
  reserved_bytes_ = fits ? total : reserved_bytes_;
  return MaceStatus();
}

}  // namespace mace
