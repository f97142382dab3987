// The GPU ChannelShuffle, DepthToSpace, SpaceToDepth, BatchToSpaceND and
// SpaceToBatchND against the CPU reference in both storages: channels not
// a multiple of 4, W = 1, H = 1, batch > 1, both channel orders, crops
// and paddings.
#include <string>
#include <vector>

#include "mace/runtimes/opencl/testing/gpu_op_test.h"

namespace mace {
namespace testing {
namespace {

using RearrangeOpenCLTest = GpuOpTest;

TEST_P(RearrangeOpenCLTest, ChannelShuffle) {
  const std::vector<std::pair<std::vector<int64_t>, int64_t>> cases = {
      {{2, 6, 3, 4}, 2}, {{1, 9, 1, 5}, 3}, {{1, 12, 2, 1}, 4}, {{1, 10, 2, 9}, 5}};
  for (const auto& c : cases) {
    SCOPED_TRACE(ShapeName(c.first) + " groups " + std::to_string(c.second));
    OpModel m("ChannelShuffle", c.first);
    ModelBuilder::SetInt(m.op, "group", c.second);
    ExpectOpOnGpu(m, GetParam());
  }
}

// A ChannelShuffle fused with the Split after it writes runs of the
// shuffled channels to several outputs.
TEST_P(RearrangeOpenCLTest, ChannelShuffleIntoSplitOutputs) {
  struct Case {
    std::vector<int64_t> shape;
    int64_t group;
    int outputs;
  };
  const std::vector<Case> cases = {
      {{1, 12, 3, 5}, 3, 2}, {{2, 8, 2, 2}, 2, 4}, {{1, 6, 1, 7}, 2, 3}, {{1, 116, 2, 2}, 2, 2}};
  for (const Case& c : cases) {
    SCOPED_TRACE("groups " + std::to_string(c.group));
    OperatorDef* op = nullptr;
    const ModelBuilder model = MultiOutputModel("ChannelShuffle", c.shape, c.outputs, &op);
    ModelBuilder::SetInt(op, "group", c.group);
    ExpectEveryOutputOnGpu(model, c.shape, c.outputs, GetParam());
  }
}

TEST_P(RearrangeOpenCLTest, DepthToSpaceAndBack) {
  const std::vector<std::pair<std::vector<int64_t>, int64_t>> cases = {
      {{2, 12, 2, 3}, 2}, {{1, 9, 1, 1}, 3}, {{1, 4, 3, 1}, 2}, {{1, 20, 2, 5}, 2}};
  for (const auto& c : cases) {
    for (const char* mode : {"DCR", "CRD"}) {
      SCOPED_TRACE(ShapeName(c.first) + " block " + std::to_string(c.second) + " " + mode);
      OpModel to_space("DepthToSpace", c.first);
      ModelBuilder::SetInt(to_space.op, "block_size", c.second);
      ModelBuilder::SetString(to_space.op, "mode", mode);
      ExpectOpOnGpu(to_space, GetParam());
      const std::vector<int64_t> space = {c.first[0], c.first[1] / (c.second * c.second),
                                          c.first[2] * c.second, c.first[3] * c.second};
      OpModel to_depth("SpaceToDepth", space);
      ModelBuilder::SetInt(to_depth.op, "block_size", c.second);
      ModelBuilder::SetString(to_depth.op, "mode", mode);
      ExpectOpOnGpu(to_depth, GetParam());
    }
  }
}

TEST_P(RearrangeOpenCLTest, BatchToSpaceAndBack) {
  struct Case {
    std::vector<int64_t> space;  // SpaceToBatchND's input
    std::vector<int64_t> block, pads;
  };
  const std::vector<Case> cases = {
      {{1, 3, 4, 6}, {2, 2}, {0, 0, 0, 0}},
      {{2, 5, 3, 5}, {2, 3}, {1, 0, 0, 1}},
      {{1, 6, 1, 4}, {1, 2}, {0, 0, 1, 1}},
      {{1, 2, 5, 1}, {3, 1}, {1, 0, 0, 0}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(ShapeName(c.space) + " block " + ShapeName(c.block) + " pads " +
                 ShapeName(c.pads));
    OpModel to_batch("SpaceToBatchND", c.space);
    AddInts(to_batch.op, "block_shape", c.block);
    AddInts(to_batch.op, "paddings", c.pads);
    ExpectOpOnGpu(to_batch, GetParam());
    const std::vector<int64_t> batch = {c.space[0] * c.block[0] * c.block[1], c.space[1],
                                        (c.space[2] + c.pads[0] + c.pads[1]) / c.block[0],
                                        (c.space[3] + c.pads[2] + c.pads[3]) / c.block[1]};
    OpModel to_space("BatchToSpaceND", batch);
    AddInts(to_space.op, "block_shape", c.block);
    AddInts(to_space.op, "crops", c.pads);
    ExpectOpOnGpu(to_space, GetParam());
  }
}

INSTANTIATE_STORAGES(RearrangeOpenCLTest);

}  // namespace
}  // namespace testing
}  // namespace mace
