// RangeCollector: ranges widen across observations, percentiles ignore
// outliers, tensors with NaN are refused, and the file has one
// name@@min,max line per tensor in first-seen order; histograms count into
// equal bins over given bounds; plus the flags.
#include "mace/tools/quantize_stat.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "mace/tools/quantize_histogram.h"
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

TEST(HistogramCollector, CountsIntoEqualBinsAndClampsOutsiders) {
  HistogramCollector histograms(4);
  histograms.SetBounds("t", -1.f, 1.f);
  // Bins [-1,-0.5) [-0.5,0) [0,0.5) [0.5,1]; 1 itself and outsiders clamp.
  const std::vector<float> a = {-1.f, -0.75f, -0.5f, 0.f, 0.49f, 0.5f, 1.f, 9.f, -9.f};
  histograms.Observe("t", {9}, a.data());
  histograms.Observe("unknown", {9}, a.data());
  const std::vector<float> b = {0.25f};
  histograms.Observe("t", {1}, b.data());
  EXPECT_EQ(histograms.counts("t"), (std::vector<int64_t>{3, 1, 3, 3}));
  const std::string path = ::testing::TempDir() + "/histograms.txt";
  std::string error;
  ASSERT_TRUE(histograms.Write(path, &error)) << error;
  EXPECT_EQ(ReadAll(path), "t@@-1,1@@3,1,3,3\n");
}

TEST(HistogramCollector, ZeroWidthBoundsCountIntoTheFirstBin) {
  HistogramCollector histograms(3);
  histograms.SetBounds("c", 2.f, 2.f);
  const std::vector<float> values = {2.f, 2.f};
  histograms.Observe("c", {2}, values.data());
  EXPECT_EQ(histograms.counts("c"), (std::vector<int64_t>{2, 0, 0}));
}

TEST(HistogramCollector, BadBoundsFilesAndValues) {
  std::string error;
  HistogramCollector histograms(8);
  EXPECT_FALSE(histograms.ReadBounds("/nonexistent/bounds.txt", &error));
  EXPECT_NE(error.find("cannot read"), std::string::npos) << error;
  for (const char* line : {"t@@1", "t@@a,1", "t@@2,1", "t@@nan,1", "@@0,1", "t 0,1"}) {
    const std::string path = ::testing::TempDir() + "/bounds.txt";
    std::ofstream(path) << "# ok\ngood@@0,1\n" << line << "\n";
    EXPECT_FALSE(histograms.ReadBounds(path, &error)) << line;
    EXPECT_NE(error.find("line 3"), std::string::npos) << error;
  }
  HistogramCollector nan_values(8);
  nan_values.SetBounds("bad", 0.f, 1.f);
  const std::vector<float> bad = {0.5f, std::nanf("")};
  nan_values.Observe("bad", {2}, bad.data());
  EXPECT_FALSE(nan_values.Write(::testing::TempDir() + "/h.txt", &error));
  EXPECT_NE(error.find("'bad' holds NaN"), std::string::npos) << error;
}

TEST(HistogramCollector, Flags) {
  RunFlags flags;
  std::string error;
  const char* good[] = {"mace_run", "--model_file=m.pb", "--quantize_stat=h.txt",
                        "--quantize_stat_histogram=r.txt", "--quantize_stat_bins=4096"};
  ASSERT_TRUE(ParseRunFlags(5, good, &flags, &error)) << error;
  EXPECT_EQ(flags.quantize_stat_histogram, "r.txt");
  EXPECT_EQ(flags.quantize_stat_bins, 4096);
  const char* alone[] = {"mace_run", "--model_file=m.pb", "--quantize_stat_histogram=r.txt"};
  RunFlags fresh;
  EXPECT_FALSE(ParseRunFlags(3, alone, &fresh, &error));
  EXPECT_NE(error.find("needs --quantize_stat"), std::string::npos) << error;
  const char* bins[] = {"mace_run", "--model_file=m.pb", "--quantize_stat_bins=1"};
  EXPECT_FALSE(ParseRunFlags(3, bins, &flags, &error));
}

}  // namespace
}  // namespace tools
}  // namespace mace
