// The split of a placed graph into DSP and CPU segments (placement.h).
#include "mace/runtimes/hexagon/placement.h"

#include <gtest/gtest.h>

namespace mace {
namespace hexagon {
namespace {

PlacedOp Op(bool on_dsp, std::vector<int> inputs, std::vector<int> outputs) {
  PlacedOp op;
  op.on_dsp = on_dsp;
  op.inputs = std::move(inputs);
  op.outputs = std::move(outputs);
  return op;
}

// Quantize (CPU), conv, conv (DSP), channel shuffle (CPU), conv, pool
// (DSP), Dequantize (CPU).
TEST(PlacementTest, MidGraphCpuOpSplitsTheDspGraph) {
  const std::vector<PlacedOp> ops = {
      Op(false, {0}, {1}), Op(true, {1}, {2}), Op(true, {2}, {3}),  Op(false, {3}, {4}),
      Op(true, {4}, {5}),  Op(true, {5}, {6}), Op(false, {6}, {7}),
  };
  const std::vector<Segment> segments = PlanSegments(ops, {7});
  ASSERT_EQ(segments.size(), 5u);
  const bool sides[] = {false, true, false, true, false};
  for (size_t s = 0; s < segments.size(); ++s) EXPECT_EQ(segments[s].on_dsp, sides[s]) << s;
  EXPECT_EQ(segments[0].ops, (std::vector<int>{0}));
  EXPECT_EQ(segments[1].ops, (std::vector<int>{1, 2}));
  EXPECT_EQ(segments[3].ops, (std::vector<int>{4, 5}));
  // Only what crosses a boundary is sent or received: tensor 2 stays on
  // the DSP.
  EXPECT_EQ(segments[0].inputs, (std::vector<int>{0}));
  EXPECT_EQ(segments[0].outputs, (std::vector<int>{1}));
  EXPECT_EQ(segments[1].inputs, (std::vector<int>{1}));
  EXPECT_EQ(segments[1].outputs, (std::vector<int>{3}));
  EXPECT_EQ(segments[2].inputs, (std::vector<int>{3}));
  EXPECT_EQ(segments[2].outputs, (std::vector<int>{4}));
  EXPECT_EQ(segments[3].inputs, (std::vector<int>{4}));
  EXPECT_EQ(segments[3].outputs, (std::vector<int>{6}));
  EXPECT_EQ(segments[4].outputs, (std::vector<int>{7}));
}

// A DSP tensor read both inside its segment and two segments later (a skip
// connection around a CPU op) is an output of its segment; one the app
// reads is too, even with no later reader; inputs are listed once, in
// order of first use, and a tensor written inside is not an input.
TEST(PlacementTest, SkipConnectionsAndAppOutputs) {
  const std::vector<PlacedOp> ops = {
      Op(true, {0}, {1}),  Op(true, {1, 0}, {2}), Op(true, {2}, {3}),
      Op(false, {3}, {4}), Op(true, {4, 1}, {5}), Op(true, {5, 5}, {6}),
  };
  const std::vector<Segment> segments = PlanSegments(ops, {2, 6});
  ASSERT_EQ(segments.size(), 3u);
  EXPECT_EQ(segments[0].inputs, (std::vector<int>{0}));
  EXPECT_EQ(segments[0].outputs, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(segments[1].inputs, (std::vector<int>{3}));
  EXPECT_EQ(segments[1].outputs, (std::vector<int>{4}));
  EXPECT_EQ(segments[2].inputs, (std::vector<int>{4, 1}));
  EXPECT_EQ(segments[2].outputs, (std::vector<int>{6}));
}

TEST(PlacementTest, OneSideOnlyAndEmpty) {
  const std::vector<Segment> dsp = PlanSegments({Op(true, {0}, {1}), Op(true, {1}, {2})}, {2});
  ASSERT_EQ(dsp.size(), 1u);
  EXPECT_TRUE(dsp[0].on_dsp);
  EXPECT_EQ(dsp[0].inputs, (std::vector<int>{0}));
  EXPECT_EQ(dsp[0].outputs, (std::vector<int>{2}));
  EXPECT_TRUE(PlanSegments({}, {}).empty());
  // An op whose output nobody reads has no segment output.
  const std::vector<Segment> dead = PlanSegments({Op(false, {0}, {1}), Op(true, {0}, {2})}, {2});
  ASSERT_EQ(dead.size(), 2u);
  EXPECT_TRUE(dead[0].outputs.empty());
  EXPECT_EQ(dead[1].inputs, (std::vector<int>{0}));
}

TEST(PlacementTest, DescriptionNamesEachCpuOpAndItsReason) {
  const std::vector<PlacedOp> ops = {Op(false, {0}, {1}), Op(true, {1}, {2}), Op(false, {2}, {3}),
                                     Op(true, {3}, {4})};
  const std::vector<Segment> segments = PlanSegments(ops, {4});
  const std::string text = DescribePlacement(segments,
                                             {"op #0 'q' (Quantize)", "op #1 'c' (Conv2D)",
                                              "op #2 's' (ChannelShuffle)", "op #3 'p' (Pooling)"},
                                             {"converts", "", "no DSP kernel", ""});
  EXPECT_EQ(text,
            "2 op(s) on the DSP in 2 segment(s), 2 on the CPU\n"
            "  CPU: op #0 'q' (Quantize): converts\n"
            "  CPU: op #2 's' (ChannelShuffle): no DSP kernel");
}

}  // namespace
}  // namespace hexagon
}  // namespace mace
