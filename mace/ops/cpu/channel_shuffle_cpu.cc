// ChannelShuffle's CPU kernel. It moves whole channel planes, so every
// element type takes the same path: the output's planes, in ranges spread
// over the runtime's threads, each copied from its input plane (the
// reference order is mace/ops/ref/channel_shuffle.h). With N outputs each
// plane goes straight to its piece of the fused Split.
#include "mace/ops/cpu/channel_shuffle_cpu.h"

#include <memory>
#include <vector>

#include "mace/ops/channel_shuffle.h"
#include "mace/ops/cpu/generic_kernels.h"
#include "mace/ops/cpu/op_compute.h"
#include "mace/ops/cpu/parallel_copy.h"

namespace mace {
namespace ops {
namespace {

class ChannelShuffleCpu : public ChannelShuffleBase {
 public:
  MaceStatus Prepare(OpContext* /*context*/) override {
    output_data_.assign(OutputSize(), nullptr);
    return InferShapes();
  }

  MaceStatus Run(OpContext* context) override {
    const ref::ChannelShuffleParams& p = params();
    const int64_t plane_bytes = p.height * p.width * DataTypeSize(Input(0)->dtype());
    if (plane_bytes == 0 || p.batch * p.channels == 0) return MaceStatus();
    // Buffers are bound after Prepare, so the pointers are gathered here.
    for (int i = 0; i < OutputSize(); ++i) {
      output_data_[i] = static_cast<unsigned char*>(Output(i)->raw_mutable_data());
    }
    ShufflePlanes(ContextPool(context), p.batch, p.channels, p.group, plane_bytes,
                  static_cast<const unsigned char*>(Input(0)->raw_data()), output_data_.data(),
                  OutputSize());
    return MaceStatus();
  }

 protected:
  bool SplitsOutput() const override { return true; }

 private:
  std::vector<unsigned char*> output_data_;
};

}  // namespace

std::unique_ptr<Operation> NewChannelShuffleCpu() { return std::make_unique<ChannelShuffleCpu>(); }

// uint8: the same moves, the output quantized as the input.
std::unique_ptr<Operation> NewChannelShuffleUint8Cpu() {
  return std::make_unique<KeepQuantizationCpu<ChannelShuffleCpu>>();
}

}  // namespace ops
}  // namespace mace
