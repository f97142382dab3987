#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "mace/ops/registry.h"
#include "mace/ops/testing/op_tester.h"

namespace mace {
namespace ops {
namespace {

using testing::NumElements;
using testing::OpTester;
using testing::RandomFloats;

void ExpectInvalid(OpTester* tester, const std::string& fragment) {
  const MaceStatus status = tester->Run();
  EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS) << status.information();
  EXPECT_NE(status.information().find("ChannelShuffle 'op_under_test'"), std::string::npos)
      << status.information();
  EXPECT_NE(status.information().find(fragment), std::string::npos) << status.information();
}

// Channel c of a [1, channels, 1, 2] input holds 10c and 10c + 1.
std::vector<float> TaggedChannels(int64_t channels) {
  std::vector<float> values;
  for (int64_t c = 0; c < channels; ++c) {
    values.push_back(10.f * c);
    values.push_back(10.f * c + 1);
  }
  return values;
}

TEST(ChannelShuffleTest, ShuffleNetOrder) {
  // Six channels in two groups [0 1 2][3 4 5]: transposing [2, 3] to [3, 2]
  // interleaves them as 0 3 1 4 2 5. With three groups [0 1][2 3][4 5] the
  // order is 0 2 4 1 3 5.
  const std::vector<std::pair<int, std::vector<float>>> cases = {
      {2, {0, 1, 30, 31, 10, 11, 40, 41, 20, 21, 50, 51}},
      {3, {0, 1, 20, 21, 40, 41, 10, 11, 30, 31, 50, 51}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.first);
    OpTester tester("ChannelShuffle", RegisterChannelShuffle);
    tester.Input("x", {1, 6, 1, 2}, TaggedChannels(6)).Output("y").Arg("group", c.first);
    const MaceStatus run_status = tester.Run();
    ASSERT_TRUE(run_status.ok()) << run_status.information();
    EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{1, 6, 1, 2}));
    EXPECT_EQ(tester.OutputData("y"), c.second);
  }
}

TEST(ChannelShuffleTest, TrivialGroupsKeepOrder) {
  // One group, or one channel per group, leaves a single row or column to
  // transpose: the order does not change.
  for (int group : {1, 4}) {
    SCOPED_TRACE(group);
    OpTester tester("ChannelShuffle", RegisterChannelShuffle);
    tester.Input("x", {1, 4, 1, 2}, TaggedChannels(4)).Output("y").Arg("group", group);
    const MaceStatus run_status = tester.Run();
    ASSERT_TRUE(run_status.ok()) << run_status.information();
    EXPECT_EQ(tester.OutputData("y"), TaggedChannels(4));
  }
}

// Literal reshape [N, group, C / group, HW] -> transpose -> [N, C / group,
// group, HW], written as a copy through a 4-D index.
std::vector<float> NaiveShuffle(const std::vector<int64_t>& shape, int64_t group,
                                const std::vector<float>& input) {
  const int64_t n = shape[0], per = shape[1] / group, hw = shape[2] * shape[3];
  std::vector<float> out(input.size());
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t g = 0; g < group; ++g) {
      for (int64_t i = 0; i < per; ++i) {
        for (int64_t k = 0; k < hw; ++k) {
          const int64_t src = ((b * group + g) * per + i) * hw + k;
          const int64_t dst = ((b * per + i) * group + g) * hw + k;
          out[dst] = input[src];
        }
      }
    }
  }
  return out;
}

TEST(ChannelShuffleTest, MatchesNaiveShuffle) {
  struct Case {
    std::vector<int64_t> shape;
    int64_t group;
  };
  const std::vector<Case> cases = {
      {{1, 6, 1, 1}, 2},  {{2, 12, 3, 5}, 3}, {{1, 12, 3, 5}, 4},  {{3, 7, 2, 3}, 7},
      {{1, 15, 5, 1}, 5}, {{1, 8, 7, 9}, 2},  {{2, 116, 2, 2}, 2}, {{1, 9, 1, 1}, 1},
  };
  uint32_t seed = 1300;
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    const Case& c = cases[i];
    const std::vector<float> input = RandomFloats(NumElements(c.shape), seed++);
    OpTester tester("ChannelShuffle", RegisterChannelShuffle);
    tester.Input("x", c.shape, input).Output("y").Arg("group", c.group);
    const MaceStatus run_status = tester.Run();
    ASSERT_TRUE(run_status.ok()) << run_status.information();
    ASSERT_EQ(tester.OutputShape("y"), c.shape);
    EXPECT_EQ(tester.OutputData("y"), NaiveShuffle(c.shape, c.group, input));
  }
}

// NaiveShuffle's output cut into `parts` equal pieces along channels.
std::vector<std::vector<float>> SplitChannels(const std::vector<int64_t>& shape, int64_t parts,
                                              const std::vector<float>& shuffled) {
  const int64_t per = shape[1] / parts, plane = shape[2] * shape[3];
  std::vector<std::vector<float>> pieces(parts);
  for (int64_t b = 0; b < shape[0]; ++b) {
    for (int64_t c = 0; c < shape[1]; ++c) {
      const auto from = shuffled.begin() + (b * shape[1] + c) * plane;
      pieces[c / per].insert(pieces[c / per].end(), from, from + plane);
    }
  }
  return pieces;
}

TEST(ChannelShuffleTest, SplitOutputsMatchNaiveShuffleThenSplit) {
  struct Case {
    std::vector<int64_t> shape;
    int64_t group, parts;
  };
  const std::vector<Case> cases = {
      {{1, 116, 2, 2}, 2, 2},  // ShuffleNet v2's unit, small planes
      {{2, 12, 3, 5}, 3, 2},   // two images
      {{1, 12, 1, 1}, 4, 3},   // one-element planes, pieces across groups
      {{3, 6, 2, 3}, 2, 6},    // a piece per channel
      {{1, 9, 5, 3}, 3, 3},    // odd channels and planes
      {{1, 8, 7, 9}, 2, 4},
  };
  uint32_t seed = 1400;
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    const Case& c = cases[i];
    const std::vector<float> input = RandomFloats(NumElements(c.shape), seed++);
    OpTester tester("ChannelShuffle", RegisterChannelShuffle);
    tester.Input("x", c.shape, input).Arg("group", c.group);
    for (int64_t j = 0; j < c.parts; ++j) tester.Output("y" + std::to_string(j));
    const MaceStatus run_status = tester.Run();
    ASSERT_TRUE(run_status.ok()) << run_status.information();
    const auto want = SplitChannels(c.shape, c.parts, NaiveShuffle(c.shape, c.group, input));
    std::vector<int64_t> piece_shape = c.shape;
    piece_shape[1] /= c.parts;
    for (int64_t j = 0; j < c.parts; ++j) {
      EXPECT_EQ(tester.OutputShape("y" + std::to_string(j)), piece_shape) << j;
      EXPECT_EQ(tester.OutputData("y" + std::to_string(j)), want[j]) << j;
    }
  }
}

TEST(ChannelShuffleTest, Uint8SplitOutputsKeepQuantization) {
  const std::vector<int64_t> shape = {1, 10, 3, 3};
  std::vector<uint8_t> input(NumElements(shape));
  for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<uint8_t>(i * 7 + 3);
  std::vector<float> as_float(input.begin(), input.end());
  const auto want = SplitChannels(shape, 2, NaiveShuffle(shape, 5, as_float));
  OpTester tester("ChannelShuffle", RegisterChannelShuffle);
  tester.KernelType(DT_UINT8)
      .QuantizedInput("x", shape, input, 0.05f, 7)
      .Output("a", DT_UINT8)
      .Output("b", DT_UINT8)
      .Arg("group", 5);
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  for (const auto& [name, j] : {std::pair<std::string, int>{"a", 0}, {"b", 1}}) {
    const std::vector<uint8_t> bytes = tester.OutputBytes(name);
    EXPECT_EQ(std::vector<float>(bytes.begin(), bytes.end()), want[j]) << name;
    EXPECT_EQ(tester.GetOutput(name).zero_point(), 7) << name;
  }
}

TEST(ChannelShuffleTest, RejectsBadArgs) {
  struct BadArgs {
    std::vector<int64_t> shape;
    std::function<void(OpTester*)> set;
    std::string fragment;
  };
  const std::vector<BadArgs> cases = {
      {{1, 6, 1, 1}, [](OpTester*) {}, "group is required"},
      {{1, 6, 1, 1}, [](OpTester* t) { t->Arg("group", 0); }, "group must be positive, got 0"},
      {{1, 6, 1, 1}, [](OpTester* t) { t->Arg("group", -2); }, "group must be positive"},
      {{1, 6, 1, 1}, [](OpTester* t) { t->Arg("group", 4); }, "group 4 does not divide the 6"},
      {{1, 6, 1, 1}, [](OpTester* t) { t->Arg("group", int64_t{1} << 40); }, "does not divide"},
      {{6, 1, 1}, [](OpTester* t) { t->Arg("group", 2); }, "needs rank 4"},
  };
  // Split outputs must be equal pieces of the channels.
  {
    OpTester tester("ChannelShuffle", RegisterChannelShuffle);
    tester.Input("x", {1, 6, 1, 1}, std::vector<float>(6)).Output("a").Output("b").Output("c");
    tester.Output("d").Arg("group", 2);
    ExpectInvalid(&tester, "the 6 input channels do not split evenly into 4 outputs");
  }
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    OpTester tester("ChannelShuffle", RegisterChannelShuffle);
    tester.Input("x", cases[i].shape, std::vector<float>(NumElements(cases[i].shape))).Output("y");
    cases[i].set(&tester);
    ExpectInvalid(&tester, cases[i].fragment);
  }
}

}  // namespace
}  // namespace ops
}  // namespace mace
