// ChannelShuffle: the ShuffleNet channel permutation on NCHW. Channels viewed
// as [group, C / group] are transposed to [C / group, group], so each output
// group of `group` channels takes one channel from every input group.
// With N > 1 outputs the shuffled channels are cut into N equal pieces, as a
// Split on channels after it would (the converter fuses that pair on the
// CPU, so the planes are copied once); only kernels that say so accept it.
//
// ChannelShuffleBase is the device-neutral part: arguments (Init) and shapes
// (InferShapes), shared by every device's kernel. The CPU kernel is
// mace/ops/cpu/channel_shuffle_cpu.cc.
#ifndef MACE_OPS_CHANNEL_SHUFFLE_H_
#define MACE_OPS_CHANNEL_SHUFFLE_H_

#include "mace/core/operation.h"
#include "mace/ops/ref/channel_shuffle.h"

namespace mace {
namespace ops {

class ChannelShuffleBase : public Operation {
 public:
  MaceStatus Init() override;

 protected:
  // Checks the input's type and shape against the arguments, fills params()
  // and sets the output's shape.
  MaceStatus InferShapes();
  // Whether this device's kernel writes N > 1 outputs (the fused Split).
  virtual bool SplitsOutput() const { return false; }
  const ref::ChannelShuffleParams& params() const { return params_; }

 private:
  ref::ChannelShuffleParams params_;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CHANNEL_SHUFFLE_H_
