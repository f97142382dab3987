// RangeCollector: ranges widen across observations, percentiles ignore
// outliers, tensors with NaN are refused, and the file has one
// name@@min,max line per tensor in first-seen order; plus the flags.
#include "mace/tools/quantize_stat.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "mace/tools/run_flags.h"

namespace mace {
namespace tools {
namespace {

std::string ReadAll(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

TEST(RangeCollector, MinMaxWidensAcrossRunsInFirstSeenOrder) {
  RangeCollector ranges;
  const std::vector<float> a = {0.5f, -2.f, 3.25f, 1.f};
  const std::vector<float> b = {-1.f, 7.f};
  ranges.Observe("z/out", {2, 2}, a.data());
  ranges.Observe("a:0", {2}, b.data());
  const std::vector<float> a2 = {-4.f, 0.f, 0.f, 0.f};
  ranges.Observe("z/out", {4}, a2.data());
  const std::string path = ::testing::TempDir() + "/ranges.txt";
  std::string error;
  ASSERT_TRUE(ranges.Write(path, &error)) << error;
  EXPECT_EQ(ReadAll(path), "z/out@@-4,3.25\na:0@@-1,7\n");
}

TEST(RangeCollector, PercentileIgnoresRareOutliers) {
  std::vector<float> values(1001);
  for (int i = 0; i <= 1000; ++i) values[i] = static_cast<float>(i) / 1000.f;
  values[500] = 1000.f;  // one outlier
  RangeCollector minmax;
  RangeCollector percentile(99.0);
  minmax.Observe("t", {1001}, values.data());
  percentile.Observe("t", {1001}, values.data());
  EXPECT_EQ(minmax.ranges().at("t").second, 1000.f);
  EXPECT_NEAR(percentile.ranges().at("t").second, 0.99f, 0.002f);
  EXPECT_NEAR(percentile.ranges().at("t").first, 0.01f, 0.002f);
}

TEST(RangeCollector, NonFiniteValuesAreAnError) {
  RangeCollector ranges;
  const std::vector<float> bad = {1.f, std::nanf("")};
  ranges.Observe("bad", {2}, bad.data());
  std::string error;
  EXPECT_FALSE(ranges.Write(::testing::TempDir() + "/bad.txt", &error));
  EXPECT_NE(error.find("'bad' holds NaN"), std::string::npos) << error;
  EXPECT_FALSE(RangeCollector().Write("/nonexistent/dir/r.txt", &error));
  EXPECT_NE(error.find("cannot write"), std::string::npos) << error;
}

TEST(RangeCollector, Flags) {
  RunFlags flags;
  std::string error;
  const char* good[] = {"mace_run", "--model_file=m.pb", "--quantize_stat=r.txt",
                        "--quantize_stat_percentile=99.9"};
  ASSERT_TRUE(ParseRunFlags(4, good, &flags, &error)) << error;
  EXPECT_EQ(flags.quantize_stat, "r.txt");
  EXPECT_DOUBLE_EQ(flags.quantize_stat_percentile, 99.9);
  for (const char* bad : {"--quantize_stat_percentile=49", "--quantize_stat_percentile=101",
                          "--quantize_stat_percentile=x", "--quantize_stat="}) {
    const char* argv[] = {"mace_run", "--model_file=m.pb", bad};
    EXPECT_FALSE(ParseRunFlags(3, argv, &flags, &error)) << bad;
  }
}

}  // namespace
}  // namespace tools
}  // namespace mace
