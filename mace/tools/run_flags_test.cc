#include "mace/tools/run_flags.h"

#include <cctype>
#include <string>

#include "gtest/gtest.h"
#include "mace/tools/npy_io.h"
#include "mace/tools/run_report.h"

namespace mace {
namespace tools {
namespace {

bool Parse(std::vector<const char*> args, RunFlags* flags, std::string* error) {
  args.insert(args.begin(), "mace_run");
  *flags = RunFlags();
  return ParseRunFlags(static_cast<int>(args.size()), args.data(), flags, error);
}

TEST(RunFlagsTest, ParsesListsAndShapes) {
  RunFlags flags;
  std::string error;
  ASSERT_TRUE(Parse({"--model_file=m.pb", "--input_node=a,b", "--input_shape=1,3,8,8:1,4",
                     "--round=5", "--benchmark"},
                    &flags, &error))
      << error;
  EXPECT_EQ(flags.input_nodes, (std::vector<std::string>{"a", "b"}));
  ASSERT_EQ(flags.input_shapes.size(), 2u);
  EXPECT_EQ(flags.input_shapes[0], (std::vector<int64_t>{1, 3, 8, 8}));
  EXPECT_EQ(flags.round, 5);
  EXPECT_TRUE(flags.benchmark);
}

TEST(RunFlagsTest, RejectsBadFlagsWithOneMessage) {
  RunFlags flags;
  std::string error;
  EXPECT_FALSE(Parse({"--model_file=m.pb", "--round=zero"}, &flags, &error));
  EXPECT_EQ(error, "bad value 'zero' for --round");
  EXPECT_FALSE(Parse({"--model_file=m.pb", "--colour=red"}, &flags, &error));
  EXPECT_EQ(error, "unknown flag --colour");
  EXPECT_FALSE(Parse({"--round=3"}, &flags, &error));
  EXPECT_EQ(error, "--model_file is required");
  EXPECT_FALSE(Parse({"--model_file=m", "--input_node=a", "--input_shape=1,-3"}, &flags, &error));
  EXPECT_FALSE(Parse({"--model_file=m", "--input_node=a,b", "--input_shape=1,3"}, &flags, &error));
  EXPECT_FALSE(Parse({"--model_file=m", "--cpu_affinity_policy=7"}, &flags, &error));
}

TEST(RunReportTest, MemoryStrategyNamesInAnyCase) {
  for (MemoryStrategy strategy : AllMemoryStrategies()) {
    const std::string name = MemoryStrategyName(strategy);
    std::string upper = name;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    for (const std::string& spelling : {name, upper}) {
      MemoryStrategy parsed = MemoryStrategy::NAIVE;
      EXPECT_TRUE(ParseMemoryStrategy(spelling, &parsed)) << spelling;
      EXPECT_EQ(parsed, strategy) << spelling;
    }
  }
  MemoryStrategy parsed;
  EXPECT_TRUE(ParseMemoryStrategy("Greedy_By_Size", &parsed));
  EXPECT_EQ(parsed, MemoryStrategy::GREEDY_BY_SIZE);
  EXPECT_FALSE(ParseMemoryStrategy("greedy", &parsed));
  EXPECT_FALSE(ParseMemoryStrategy("", &parsed));
}

TEST(NpyTest, RoundTripsAndRejectsWrongSizes) {
  const std::string path = ::testing::TempDir() + "/t.npy";
  const std::vector<float> values = {1.5f, -2.f, 3.f, 4.f, 5.f, 6.f};
  std::string error;
  ASSERT_TRUE(WriteNpy(path, {2, 3}, values.data(), &error)) << error;
  std::vector<float> read;
  std::vector<int64_t> shape;
  ASSERT_TRUE(ReadFloatTensor(path, 6, &read, &shape, &error)) << error;
  EXPECT_EQ(read, values);
  EXPECT_EQ(shape, (std::vector<int64_t>{2, 3}));
  EXPECT_FALSE(ReadFloatTensor(path, 7, &read, &shape, &error));
  EXPECT_NE(error.find("needs 7 float32 values"), std::string::npos);
}

}  // namespace
}  // namespace tools
}  // namespace mace
