// The threaded copies of ChannelShuffle and Split (cpu/parallel_copy.h):
// the ops on no runtime and on 1-3 threads against the reference kernels,
// with shapes below and above the size that is split over threads (planes
// of one element to ShuffleNet's 28x28, several images, uneven and empty
// pieces, uint8), ShufflePlanes with a piece per plane and split outputs,
// RowRuns::Scatter on its own over random run tables, and CopyBytes at
// every small size.
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "mace/ops/cpu/kernel_test_util.h"
#include "mace/ops/cpu/parallel_copy.h"
#include "mace/ops/ref/channel_shuffle.h"
#include "mace/ops/ref/split.h"
#include "mace/ops/registry.h"
#include "mace/ops/testing/op_tester.h"

namespace mace {
namespace ops {
namespace {

using testing::NumElements;
using testing::OpTester;
using testing::RandomFloats;

// No runtime (0), and runtimes of 1, 2 and 3 threads.
constexpr int kThreadCounts[] = {0, 1, 2, 3};

std::unique_ptr<testing::TestCpuRuntime> RuntimeOf(int threads) {
  return threads > 0 ? std::make_unique<testing::TestCpuRuntime>(threads) : nullptr;
}

TEST(ParallelChannelShuffleTest, MatchesReference) {
  struct Case {
    std::vector<int64_t> shape;
    int64_t group;
  };
  const std::vector<Case> cases = {
      {{1, 116, 28, 28}, 2},  // ShuffleNet v2's first stage: 364 KiB
      {{1, 464, 7, 7}, 2},    // its last stage, planes of 196 bytes
      {{2, 48, 13, 11}, 3},   // two images, planes not a multiple of a line
      {{3, 10, 1, 1}, 5},     // one-element planes, below the split size
      {{1, 6, 67, 67}, 6},    // one channel per group: the order is kept
      {{1, 1030, 2, 3}, 1},   // one group
  };
  uint32_t seed = 4100;
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    const std::vector<float> input = RandomFloats(NumElements(c.shape), seed++);
    ref::ChannelShuffleParams p;
    p.batch = c.shape[0];
    p.channels = c.shape[1];
    p.height = c.shape[2];
    p.width = c.shape[3];
    p.group = c.group;
    std::vector<float> expected(input.size());
    ref::ChannelShuffle(p, input.data(), expected.data());
    for (int threads : kThreadCounts) {
      SCOPED_TRACE(::testing::Message() << "case " << i << ", threads " << threads);
      auto runtime = RuntimeOf(threads);
      OpTester tester("ChannelShuffle", RegisterChannelShuffle);
      tester.WithRuntime(runtime.get()).Input("x", c.shape, input).Output("y").Arg("group",
                                                                                   c.group);
      const MaceStatus status = tester.Run();
      ASSERT_TRUE(status.ok()) << status.information();
      EXPECT_EQ(tester.OutputData("y"), expected);
    }
  }
}

TEST(ParallelChannelShuffleTest, Uint8MatchesReference) {
  const std::vector<int64_t> shape = {1, 232, 14, 14};
  std::mt19937 rng(4200);
  const std::vector<uint8_t> input = testing::RandomValues<uint8_t>(NumElements(shape), 0, 255,
                                                                    &rng);
  ref::ChannelShuffleParams p;
  p.batch = 1;
  p.channels = 232;
  p.height = p.width = 14;
  p.group = 4;
  std::vector<uint8_t> expected(input.size());
  ref::ChannelShuffleUint8(p, input.data(), expected.data());
  for (int threads : kThreadCounts) {
    SCOPED_TRACE(::testing::Message() << "threads " << threads);
    auto runtime = RuntimeOf(threads);
    OpTester tester("ChannelShuffle", RegisterChannelShuffle);
    tester.WithRuntime(runtime.get())
        .KernelType(DT_UINT8)
        .QuantizedInput("x", shape, input, 0.05f, 7)
        .Output("y", DT_UINT8)
        .Arg("group", 4);
    const MaceStatus status = tester.Run();
    ASSERT_TRUE(status.ok()) << status.information();
    EXPECT_EQ(tester.OutputBytes("y"), expected);
    EXPECT_EQ(tester.GetOutput("y").zero_point(), 7);
  }
}

// ShufflePlanes on its own: planes of kMinParallelCopyBytes make every
// plane its own piece, so ranges start at every group, channel, image and
// output piece position the counters must find by division. The pieces of
// a split output lie one after another in one buffer.
TEST(ShufflePlanesTest, EveryRangeStartMatchesReference) {
  const int64_t plane = kMinParallelCopyBytes;
  const auto pools = testing::PoolsUnderTest();
  struct Case {
    int64_t batch, channels, group, parts;
  };
  const Case cases[] = {{2, 6, 3, 1}, {3, 5, 1, 1}, {1, 7, 7, 1}, {2, 8, 2, 1},
                        {2, 6, 3, 2}, {2, 6, 2, 3}, {1, 8, 2, 4}, {3, 5, 5, 5}};
  std::mt19937 rng(4500);
  for (const Case& c : cases) {
    const int64_t planes = c.batch * c.channels, per_group = c.channels / c.group;
    const int64_t per_part = c.channels / c.parts;
    std::vector<unsigned char> in(planes * plane);
    for (unsigned char& b : in) b = static_cast<unsigned char>(rng());
    std::vector<unsigned char> expected(in.size());
    for (int64_t n = 0; n < c.batch; ++n) {
      for (int64_t g = 0; g < c.group; ++g) {
        for (int64_t i = 0; i < per_group; ++i) {
          const int64_t to = i * c.group + g, part = to / per_part;
          const int64_t at = part * c.batch * per_part + n * per_part + to - part * per_part;
          std::memcpy(expected.data() + at * plane,
                      in.data() + (n * c.channels + g * per_group + i) * plane, plane);
        }
      }
    }
    for (size_t p = 0; p < pools.size(); ++p) {
      SCOPED_TRACE(::testing::Message() << "batch " << c.batch << ", channels " << c.channels
                                        << ", group " << c.group << ", parts " << c.parts
                                        << ", pool " << p);
      std::vector<unsigned char> out(in.size(), 0xA5);
      std::vector<unsigned char*> outs;
      for (int64_t j = 0; j < c.parts; ++j) {
        outs.push_back(out.data() + j * c.batch * per_part * plane);
      }
      ShufflePlanes(pools[p].get(), c.batch, c.channels, c.group, plane, in.data(), outs.data(),
                    c.parts);
      EXPECT_TRUE(out == expected);
    }
  }
}

TEST(ParallelSplitTest, MatchesReference) {
  struct Case {
    std::vector<int64_t> shape;
    int axis;
    std::vector<int64_t> sizes;
  };
  const std::vector<Case> cases = {
      {{1, 116, 28, 28}, 1, {58, 58}},       // ShuffleNet v2's first stage
      {{1, 464, 7, 7}, 1, {232, 232}},       // and its last
      {{2, 40, 17, 9}, 1, {3, 0, 30, 7}},    // rows before the axis, an empty piece
      {{3, 5, 2000}, 2, {1, 1998, 1}},       // runs cut mid-line, one long
      {{1, 7, 3, 3}, 1, {2, 5}},             // below the split size
      {{4099, 5}, 0, {4000, 99}},            // the first axis: one row
      {{3000, 4}, 1, {1, 3}},                // many rows of 4- and 12-byte runs
  };
  uint32_t seed = 4300;
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    const std::vector<float> input = RandomFloats(NumElements(c.shape), seed++);
    ref::SplitParams p;
    p.outer = 1;
    for (int d = 0; d < c.axis; ++d) p.outer *= c.shape[d];
    int64_t inner = sizeof(float);
    for (size_t d = c.axis + 1; d < c.shape.size(); ++d) inner *= c.shape[d];
    std::vector<std::vector<float>> expected;
    std::vector<void*> expected_data;
    for (int64_t size : c.sizes) {
      p.run_bytes.push_back(size * inner);
      expected.emplace_back(p.outer * size * inner / sizeof(float));
    }
    for (auto& e : expected) expected_data.push_back(e.data());
    ref::Split(p, input.data(), expected_data.data());
    for (int threads : kThreadCounts) {
      SCOPED_TRACE(::testing::Message() << "case " << i << ", threads " << threads);
      auto runtime = RuntimeOf(threads);
      OpTester tester("Split", RegisterSplit);
      tester.WithRuntime(runtime.get()).Input("x", c.shape, input);
      for (size_t k = 0; k < c.sizes.size(); ++k) tester.Output("y" + std::to_string(k));
      tester.Arg("axis", c.axis).Args("split", c.sizes);
      const MaceStatus status = tester.Run();
      ASSERT_TRUE(status.ok()) << status.information();
      for (size_t k = 0; k < c.sizes.size(); ++k) {
        EXPECT_EQ(tester.OutputData("y" + std::to_string(k)), expected[k]) << "output " << k;
      }
    }
  }
}

// Random tables of row runs (some empty) of up to 40 KiB, so parts of the
// stream start and end inside runs, across runs and on their edges.
TEST(RowRunsTest, ScatterCopiesEveryRunOnce) {
  std::mt19937 rng(4400);
  std::uniform_int_distribution<int64_t> outer_of(1, 4), count_of(1, 5), bytes_of(0, 40000);
  const auto pools = testing::PoolsUnderTest();
  for (int trial = 0; trial < 40; ++trial) {
    const int64_t outer = outer_of(rng);
    std::vector<int64_t> run_bytes(count_of(rng));
    for (int64_t& bytes : run_bytes) bytes = trial % 4 == 0 ? bytes_of(rng) / 100 : bytes_of(rng);
    const RowRuns runs(outer, run_bytes);
    int64_t total = 0;
    for (int64_t bytes : run_bytes) total += outer * bytes;
    std::vector<unsigned char> stream(total);
    for (unsigned char& b : stream) b = static_cast<unsigned char>(rng());
    // Expected: row o of buffer i is run i of stream row o.
    std::vector<std::vector<unsigned char>> expected;
    for (int64_t bytes : run_bytes) expected.emplace_back(outer * bytes);
    int64_t offset = 0;
    for (int64_t o = 0; o < outer; ++o) {
      for (size_t i = 0; i < run_bytes.size(); ++i) {
        std::memcpy(expected[i].data() + o * run_bytes[i], stream.data() + offset, run_bytes[i]);
        offset += run_bytes[i];
      }
    }
    for (size_t p = 0; p < pools.size(); ++p) {
      SCOPED_TRACE(::testing::Message() << "trial " << trial << ", pool " << p);
      // Filled with a value the stream bytes rarely all take, so a run
      // copied short shows.
      std::vector<std::vector<unsigned char>> places;
      std::vector<unsigned char*> pointers;
      for (int64_t bytes : run_bytes) places.emplace_back(outer * bytes, 0xA5);
      for (auto& place : places) pointers.push_back(place.data());
      runs.Scatter(pools[p].get(), stream.data(), pointers.data());
      for (size_t i = 0; i < run_bytes.size(); ++i) {
        EXPECT_EQ(places[i], expected[i]) << "buffer " << i;
      }
    }
  }
}

// CopyBytes at every size from 0 to 300 bytes (on both sides of its 64-byte
// steps and of whole multiples of them) and a few large ones, from and to
// every offset mod 4: the range copied, the bytes around both untouched.
TEST(CopyBytesTest, EverySizeAndOffset) {
  std::mt19937 rng(4401);
  std::vector<int64_t> sizes;
  for (int64_t size = 0; size <= 300; ++size) sizes.push_back(size);
  for (int64_t size : {1023, 1024, 3136, 4099}) sizes.push_back(size);
  constexpr int64_t kGuard = 72;
  for (int64_t size : sizes) {
    for (int64_t from_offset = 0; from_offset < 4; ++from_offset) {
      const int64_t to_offset = (from_offset + size) % 4;
      std::vector<unsigned char> from(size + 2 * kGuard), to(size + 2 * kGuard);
      for (unsigned char& b : from) b = static_cast<unsigned char>(rng());
      for (unsigned char& b : to) b = static_cast<unsigned char>(rng());
      std::vector<unsigned char> expected = to;
      const unsigned char* src = from.data() + kGuard - 4 + from_offset;
      std::memcpy(expected.data() + kGuard - 4 + to_offset, src, size);
      CopyBytes(to.data() + kGuard - 4 + to_offset, src, size);
      EXPECT_EQ(to, expected) << size << " bytes, offsets " << from_offset << ", " << to_offset;
    }
  }
}

}  // namespace
}  // namespace ops
}  // namespace mace
