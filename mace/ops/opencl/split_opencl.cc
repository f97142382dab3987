// Split on the OpenCL runtime: along any axis of a tensor of rank 4 or
// less, into parts of any sizes (channel parts that are not multiples of 4
// included); one remap per output.
#include <vector>

#include "mace/ops/split.h"
#include "mace/ops/opencl/kernels.h"
#include "mace/ops/opencl/remap.h"

namespace mace {
namespace opencl {
namespace {

class SplitOpenCL : public RemapOp<ops::SplitBase> {
 protected:
  RemapArgs ArgsFor(int output) const override {
    const int rank = Input(0)->dim_size();
    std::vector<int64_t> starts(rank, 0);
    for (int i = 0; i < output; ++i) starts[axis()] += sizes()[i];
    RemapArgs args;
    args.mode = RemapMode::kStrided;
    args.a = PerDimension(starts, 0);
    args.b = Int4(1, 1, 1, 1);
    return args;
  }
};

}  // namespace

MaceStatus RegisterSplitOpenCL(OpRegistry* registry) {
  return RegisterOp<SplitOpenCL>(registry, "Split", DeviceType::GPU, DT_FLOAT);
}

}  // namespace opencl
}  // namespace mace
