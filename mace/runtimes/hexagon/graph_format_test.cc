// The op type numbers of the graph format (mace/dsp/ops.inc) are the wire
// format hosts and DSP images already use: a change is a new format.
#include "mace/dsp/graph_format.h"

#include <gtest/gtest.h>

#include <set>

namespace mace {
namespace dsp {
namespace {

TEST(GraphFormatTest, OpTypeNumbersAreTheWireFormat) {
  EXPECT_EQ(kConv2D, 1u);
  EXPECT_EQ(kDepthwiseConv2D, 2u);
  EXPECT_EQ(kPooling, 3u);
  EXPECT_EQ(kEltwise, 4u);
  EXPECT_EQ(kClamp, 5u);
  EXPECT_EQ(kFullyConnected, 6u);
  EXPECT_EQ(kConcat, 7u);
  EXPECT_EQ(kSoftmax, 8u);
  EXPECT_EQ(kResizeBilinear, 9u);
}

TEST(GraphFormatTest, EveryListedOpTypeHasItsOwnNumber) {
  std::set<uint32_t> numbers;
  size_t listed = 0;
#define MACE_DSP_OP(name, number, family, mace_type) \
  numbers.insert(k##name);                           \
  ++listed;
#define MACE_DSP_KERNEL_ONLY(name, number, family) \
  numbers.insert(k##name);                         \
  ++listed;
#include "mace/dsp/ops.inc"
  EXPECT_EQ(numbers.size(), listed);
  EXPECT_EQ(listed, 9u);
  EXPECT_EQ(numbers.count(0), 0u);
}

}  // namespace
}  // namespace dsp
}  // namespace mace
