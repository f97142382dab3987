// The base of CPU ops with channel-blocked ("NCHWc") or half-precision
// tensor kernels. It offers the blocked (or half) storage to the net's
// layout planning through Operation's generic alternative-storage interface; the net decides per run of such ops
// (mace/core/net_layout.cc) and switches each op over with UseStorage.
#ifndef MACE_OPS_CPU_BLOCKED_OP_H_
#define MACE_OPS_CPU_BLOCKED_OP_H_

#include <optional>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

// `Base` is Operation, or the device-neutral part of an op (Conv2DBase).
template <typename Base = Operation>
class BlockedLayoutOp : public Base {
 public:
  using StorageOption = Operation::StorageOption;
  std::optional<StorageOption> AlternativeStorage() const final {
    // An fp16 engine's op that computes in half precision offers to keep
    // its tensors in it, which always beats converting them.
    if (HalfCapable()) return StorageOption{Storage::Plain(DT_HALF), true};
    const int block = BlockedBlock();
    if (block <= 0) return std::nullopt;
    return StorageOption{Storage::ChannelBlocks(block), PrefersBlocked()};
  }
  MaceStatus UseStorage(const Storage& storage, OpContext* context) final {
    if (storage.dtype == DT_HALF) return UseHalf(context);
    return storage.layout == Layout::kNCHWc ? UseBlocked(context) : UsePlain(context);
  }

 protected:
  // Whether the op can read its activation inputs and write output 0 as
  // halves (Storage::Plain(DT_HALF)) for its current shapes. Valid after
  // Prepare; UseHalf then switches it over.
  virtual bool HalfCapable() const { return false; }
  virtual MaceStatus UseHalf(OpContext* /*context*/) { return MaceStatus(); }
  // The channel block this op can run in for its current shapes (output 0
  // and its activation inputs in that layout), or 0. Valid after Prepare.
  virtual int BlockedBlock() const = 0;
  // Whether the blocked kernel beats the plain one on its own; an op that
  // does not prefer it only runs blocked to spare its blocked neighbours a
  // conversion.
  virtual bool PrefersBlocked() const { return false; }
  // Switches to the blocked kernels once the net has set every tensor's
  // storage, or (UsePlain) keeps the plain ones after a Prepare that left
  // the choice open.
  virtual MaceStatus UseBlocked(OpContext* context) = 0;
  virtual MaceStatus UsePlain(OpContext* /*context*/) { return MaceStatus(); }
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_BLOCKED_OP_H_
