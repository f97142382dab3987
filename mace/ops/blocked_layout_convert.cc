// BlockedLayoutConvert: copies an NCHW float tensor between the plain layout
// and channel blocks (mace/ops/cpu/blocked_layout.h). Only the engine's
// layout plan (mace/core/net_layout.cc) inserts it; it sets the output's
// layout before Prepare.
//
// Arguments:
//   block  int: the output's channel block, or 0 for a plain output (the
//          input is then blocked)
#include "mace/ops/cpu/blocked_layout.h"
#include "mace/ops/cpu/op_compute.h"
#include "mace/ops/registry.h"

namespace mace {
namespace ops {
namespace {

class BlockedLayoutConvertOp : public Operation {
 public:
  MaceStatus Init() override {
    OP_CHECK(InputSize() == 1 && OutputSize() == 1 && Input(0) != nullptr,
             "needs one input and one output");
    block_ = GetInt("block", -1);
    OP_CHECK(block_ >= 0 && block_ <= 64, "block must be 0 to 64, got ", block_);
    return MaceStatus();
  }

  MaceStatus Prepare(OpContext* /*context*/) override {
    const Tensor* input = Input(0);
    OP_CHECK(input->dtype() == DT_FLOAT && input->dim_size() == 4, "input '", input->name(),
             "' must be a rank-4 float32 tensor, got ", DataTypeName(input->dtype()),
             ShapeToString(input->shape()));
    const int from = input->channel_block(), to = Output(0)->channel_block();
    OP_CHECK(to == block_ && (from == 0) != (to == 0),
             "converts between the plain and the blocked layout only where the engine's layout "
             "plan inserts it (input block ",
             from, ", output block ", to, ", argument ", block_, ")");
    Output(0)->Reshape(input->shape());
    return MaceStatus();
  }

  MaceStatus Run(OpContext* context) override {
    const Tensor* input = Input(0);
    const int64_t plane = input->dim(2) * input->dim(3);
    if (block_ > 0) {
      PackChannelBlocks(input->data<float>(), input->dim(0), input->dim(1), plane,
                        static_cast<int>(block_), Output(0)->mutable_data<float>(),
                        ContextPool(context));
    } else {
      UnpackChannelBlocks(input->data<float>(), input->dim(0), input->dim(1), plane,
                          input->channel_block(), Output(0)->mutable_data<float>(),
                          ContextPool(context));
    }
    return MaceStatus();
  }

 private:
  int64_t block_ = 0;
};

}  // namespace

MaceStatus RegisterBlockedLayoutConvert(OpRegistry* registry) {
  return RegisterOp<BlockedLayoutConvertOp>(registry, "BlockedLayoutConvert", DeviceType::CPU,
                                            DT_FLOAT);
}

}  // namespace ops
}  // namespace mace
