// Net::PlanBlockedLayout: which CPU ops keep their tensors in channel blocks
// or, in an fp16 engine, in half precision.
//
// Ops with blocked (or half-precision) kernels offer that storage as their
// alternative (Operation::AlternativeStorage) after Prepare; the plan takes
// the first kind offered (channel blocks of one width, or Plain(DT_HALF))
// and treats both alike: runs, their cost and the conversions around them.
// For blocks,
// an op whose output would be more than half again as wide once padded to
// whole blocks stays plain, and so does every model output. Connected runs
// of such ops (linked through the tensors between them) run blocked when a
// run holds at least two ops, and at least as many ops that are faster
// blocked on their own (1x1 convolutions reading their input in place,
// stems, stride-2 depthwise) as conversions it would need. Where a blocked
// op reads a plain tensor it cannot take as it is, or a plain op reads a
// blocked one, the net inserts a conversion op before the reader, once per
// tensor and direction, taken from the converter registry. Last, a blocked
// op may fuse with the one blocked op that reads its output, where the op
// registry has a fusion for the pair of types (FuseBlockedReaders), also
// with a reader that fused with its own.
#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include "mace/core/net.h"
#include "mace/utils/logging.h"

// 0 in a build without the CPU's blocked and fp16 kernel families
// (mace/core/BUILD.bazel): no op then offers another storage, and the plan
// is compiled out.
#ifndef MACE_CPU_STORAGE_PLAN
#define MACE_CPU_STORAGE_PLAN 1
#endif

namespace mace {
namespace {

// An op's alternative storage, if it is one the plan knows: the CPU's
// channel blocks of floats, or plain CPU tensors of halves (the fp16
// engine's half-precision runs).
std::optional<Storage> OfferedStorage(const Operation& op) {
  const std::optional<Operation::StorageOption> option = op.AlternativeStorage();
  if (!option.has_value()) return std::nullopt;
  const Storage& storage = option->storage;
  if (storage.memory_type != MemoryType::CPU_BUFFER) return std::nullopt;
  const bool blocks = storage.layout == Layout::kNCHWc && storage.dtype == DT_FLOAT &&
                      storage.block > 0;
  const bool halves = storage == Storage::Plain(DT_HALF);
  if (!blocks && !halves) return std::nullopt;
  return storage;
}

bool IsActivation(const Tensor* tensor) { return tensor != nullptr && !tensor->is_weight(); }

}  // namespace

bool Net::BlockedLayoutEnabled() const {
  // An engine's blocked layout "off" is read by the ops (BlockedLayoutBlock): no
  // op then offers a block, and the plan changes nothing.
  return options_.blocked_layout && !options_.preserve_intermediates && converters_ != nullptr;
}

MaceStatus Net::PlanBlockedLayout(const std::vector<std::string>& output_names) {
  if (!MACE_CPU_STORAGE_PLAN || !BlockedLayoutEnabled()) return MaceStatus();
  OpContext context;
  context.runtime = runtimes_.cpu;
  context.workspace = workspace_;
  const int count = static_cast<int>(ops_.size());
  const std::set<std::string> outputs(output_names.begin(), output_names.end());
  std::map<const Tensor*, int> producer;
  for (int i = 0; i < count; ++i) {
    for (int k = 0; k < ops_[i]->OutputSize(); ++k) producer[ops_[i]->Output(k)] = i;
  }
  // Candidates: ops that can run in one common alternative storage (the
  // first one offered: an engine's ops offer one kind).
  std::optional<Storage> alternative;
  std::vector<bool> capable(count, false), blocked(count, false);
  for (int i = 0; i < count; ++i) {
    const Operation& op = *ops_[i];
    // Only CPU ops have blocked kernels; ops on another runtime stay out.
    const std::optional<Storage> offered =
        op.runtime() == runtimes_.cpu ? OfferedStorage(op) : std::nullopt;
    if (!offered.has_value()) continue;
    capable[i] = true;
    if (op.OutputSize() != 1 || outputs.count(op.Output(0)->name()) > 0) continue;
    // Padding to whole blocks may cost at most half again the channels
    // (MobileNet v2's 24 channels take 32 lanes); narrower tensors stay
    // plain.
    const Tensor* output = op.Output(0);
    const int b = offered->block;
    if (offered->layout == Layout::kNCHWc &&
        (output->dim_size() != 4 || 2 * ((output->dim(1) + b - 1) / b * b) > 3 * output->dim(1))) {
      continue;
    }
    if (!alternative.has_value()) alternative = offered;
    blocked[i] = *offered == *alternative;
  }
  const bool any = alternative.has_value();
  const Storage blocked_storage = any ? *alternative : Storage::Plain(DT_FLOAT);
  // Whether a tensor is in the alternative storage.
  const auto in_alternative = [&](const Tensor* tensor) {
    return any && tensor->storage() == blocked_storage;
  };
  // Runs of candidates, by union-find over the tensors between them.
  std::vector<int> parent(count);
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](int i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  };
  for (int i = 0; i < count; ++i) {
    if (!blocked[i]) continue;
    for (int k = 0; k < ops_[i]->InputSize(); ++k) {
      auto made = producer.find(ops_[i]->Input(k));
      if (made != producer.end() && blocked[made->second]) parent[find(i)] = find(made->second);
    }
  }
  // What each run would cost and win: the conversions it needs (a tensor
  // packed for a member that cannot read it plain, a member's output that a
  // plain op reads) against its members that are faster blocked on their
  // own. A run needs at least two members and as many such members as
  // conversions; ResNet-18's stem, max pool and residual sums would need a
  // conversion around every Winograd convolution and stay plain.
  std::map<int, int> size, preferred, conversions_needed;
  std::set<std::pair<int, const Tensor*>> packs;
  for (int i = 0; i < count; ++i) {
    if (!blocked[i]) continue;
    const int run = find(i);
    ++size[run];
    if (ops_[i]->AlternativeStorage()->preferred) ++preferred[run];
    for (int k = 0; k < ops_[i]->InputSize(); ++k) {
      const Tensor* input = ops_[i]->Input(k);
      if (!IsActivation(input) || ops_[i]->ReadsDefaultInput(k)) continue;
      auto made = producer.find(input);
      const bool inside = made != producer.end() && blocked[made->second];
      if (!inside && packs.emplace(run, input).second) ++conversions_needed[run];
    }
  }
  // Blocked producers and consumers always share a run, so a plain reader
  // of a blocked tensor needs an unpack, counted once per tensor.
  std::set<const Tensor*> unpacks;
  for (int i = 0; i < count; ++i) {
    if (blocked[i]) continue;
    for (int k = 0; k < ops_[i]->InputSize(); ++k) {
      auto made = producer.find(ops_[i]->Input(k));
      if (made != producer.end() && blocked[made->second] &&
          unpacks.insert(ops_[i]->Input(k)).second) {
        ++conversions_needed[find(made->second)];
      }
    }
  }
  std::vector<Operation*> blocked_ops, plain_ops;
  for (int i = 0; i < count; ++i) {
    if (blocked[i]) {
      const int run = find(i);
      blocked[i] =
          size[run] >= 2 && preferred[run] > 0 && preferred[run] >= conversions_needed[run];
    }
    if (blocked[i]) {
      ops_[i]->Output(0)->set_storage(blocked_storage);
      blocked_ops.push_back(ops_[i].get());
    } else if (capable[i]) {
      plain_ops.push_back(ops_[i].get());
    }
  }
  // Conversions, each placed before its first reader.
  std::map<std::pair<const Tensor*, bool>, const Tensor*> converted;
  std::vector<std::unique_ptr<Operation>> ordered;
  int conversions = 0;
  for (int i = 0; i < count; ++i) {
    Operation* op = ops_[i].get();
    for (int k = 0; k < op->InputSize(); ++k) {
      const Tensor* input = op->Input(k);
      if (!IsActivation(input)) continue;
      const bool is_blocked = in_alternative(input);
      const bool want = blocked[i] && (!op->ReadsDefaultInput(k) || is_blocked);
      if (want == is_blocked) continue;
      const std::pair<const Tensor*, bool> key(input, want);
      auto done = converted.find(key);
      if (done == converted.end()) {
        const Storage target = want ? blocked_storage : Storage::Plain(DT_FLOAT);
        const Converter* converter = converters_->Find(input->storage(), target);
        MACE_UNSUPPORTED_IF(converter == nullptr, "no converter from ", input->storage().ToString(),
                            " to ", target.ToString());
        std::unique_ptr<Operation> convert;
        const char* suffix = !want ? "#plain" : blocked_storage.dtype == DT_HALF ? "#half"
                                                                                   : "#blocked";
        MACE_RETURN_IF_ERROR(
            MakeConverter(*converter, input, target, input->name() + suffix, &convert));
        done = converted.emplace(key, convert->Output(0)).first;
        ordered.push_back(std::move(convert));
        ++conversions;
      }
      op->ReplaceInput(k, done->second);
    }
    ordered.push_back(std::move(ops_[i]));
  }
  ops_ = std::move(ordered);
  const int fused = FuseBlockedReaders(outputs, &blocked_ops);
  // The kernels built here pack weights: a failed allocation names its op.
  for (Operation* op : blocked_ops) {
    MACE_RETURN_IF_ERROR(
        CatchExceptions([&] { return op->UseStorage(op->Output(0)->storage(), &context); },
                        [&] { return op->Describe(); }));
  }
  for (Operation* op : plain_ops) {
    MACE_RETURN_IF_ERROR(
        CatchExceptions([&] { return op->UseStorage(op->OutputStorage(0), &context); },
                        [&] { return op->Describe(); }));
  }
  VLOG(1) << "layout plan: " << blocked_ops.size() << " of " << count << " ops in "
          << blocked_storage.ToString() << ", " << conversions << " conversions, " << fused
          << " readers fused";
  return MaceStatus();
}

int Net::FuseBlockedReaders(const std::set<std::string>& outputs,
                            std::vector<Operation*>* blocked_ops) {
  // Every read of every tensor, a tensor read twice by one op counted twice.
  std::map<const Tensor*, std::vector<Operation*>> readers;
  for (const auto& op : ops_) {
    for (int k = 0; k < op->InputSize(); ++k) {
      if (IsActivation(op->Input(k))) readers[op->Input(k)].push_back(op.get());
    }
  }
  const std::set<Operation*> blocked(blocked_ops->begin(), blocked_ops->end());
  std::set<const Operation*> absorbed;
  // Last op first, so that a reader has fused with its own reader before
  // its producer is offered it: a depthwise op takes its 1x1 projection,
  // then the 1x1 expansion before it takes the pair. An op that fused with
  // its reader writes that reader's output; its own producer sees it so.
  for (auto it = blocked_ops->rbegin(); it != blocked_ops->rend(); ++it) {
    Operation* op = *it;
    if (absorbed.count(op) > 0 || op->OutputSize() != 1) continue;
    const Tensor* output = op->Output(0);
    auto read = readers.find(output);
    // A model output, or a tensor more than one read needs, stays.
    if (outputs.count(output->name()) > 0 || read == readers.end() || read->second.size() != 1) {
      continue;
    }
    Operation* reader = read->second.front();
    if (blocked.count(reader) == 0 || reader->OutputSize() != 1) continue;
    // Both kernels must be the ones the registry made for the fusion's key.
    const DeviceType device = op->runtime()->device_type();
    const FusionFn* fuse = reader->runtime() == op->runtime() &&
                                   reader->kernel_dtype() == op->kernel_dtype()
                               ? registry_->FindFusion(op->type(), reader->type(), device,
                                                       op->kernel_dtype())
                               : nullptr;
    if (fuse == nullptr || !(*fuse)(op, *reader)) continue;
    VLOG(2) << op->Describe() << " computes " << reader->Describe() << " too";
    op->ReplaceOutput(0, reader->Output(0));
    absorbed.insert(reader);
  }
  if (absorbed.empty()) return 0;
  const auto gone = [&](const Operation* op) { return absorbed.count(op) > 0; };
  blocked_ops->erase(std::remove_if(blocked_ops->begin(), blocked_ops->end(), gone),
                     blocked_ops->end());
  ops_.erase(std::remove_if(ops_.begin(), ops_.end(),
                            [&](const std::unique_ptr<Operation>& op) { return gone(op.get()); }),
             ops_.end());
  return static_cast<int>(absorbed.size());
}

}  // namespace mace
