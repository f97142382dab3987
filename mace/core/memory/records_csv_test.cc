// CSV records (three forms) and arena traces, good and bad.
#include "mace/core/memory/records_csv.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "mace/core/memory/arena_trace.h"

namespace mace {
namespace memory {
namespace {

RecordsFile Parse(const std::string& text) {
  RecordsFile file;
  const Status status = ParseRecordsCsv(text, "test.csv", &file);
  EXPECT_TRUE(status.ok()) << status.message();
  return file;
}

std::string ParseError(const std::string& text) {
  RecordsFile file;
  const Status status = ParseRecordsCsv(text, "test.csv", &file);
  EXPECT_FALSE(status.ok()) << text;
  return status.message();
}

TEST(RecordsCsvTest, SizeFirstLast) {
  const RecordsFile file = Parse("size,first,last\n1024,0,1\n 2048 , 1 , 3 \n\n");
  EXPECT_EQ(file.format, RecordsFormat::kSizeFirstLast);
  ASSERT_EQ(file.records.size(), 2u);
  EXPECT_EQ(file.records[1].size, 2048u);
  EXPECT_EQ(file.records[1].first, 1);
  EXPECT_EQ(file.records[1].last, 3);
  EXPECT_TRUE(file.ids.empty());
}

TEST(RecordsCsvTest, Image) {
  const RecordsFile file = Parse("Width,Height,First,Last\r\n4,8,0,2\r\n");
  EXPECT_TRUE(file.is_image());
  ASSERT_EQ(file.image_records.size(), 1u);
  EXPECT_EQ(file.image_records[0].size.width, 4u);
  EXPECT_EQ(file.image_records[0].size.height, 8u);
  EXPECT_EQ(file.image_records[0].last, 2);
}

TEST(RecordsCsvTest, MiniMallocIsHalfOpen) {
  const RecordsFile file = Parse("id,lower,upper,size\nb0,0,10,512\nb1,10,11,64\n");
  EXPECT_EQ(file.format, RecordsFormat::kMiniMalloc);
  ASSERT_EQ(file.records.size(), 2u);
  EXPECT_EQ(file.records[0].first, 0);
  EXPECT_EQ(file.records[0].last, 9);  // [0, 10) ends at 9
  EXPECT_EQ(file.records[1].first, 10);
  EXPECT_EQ(file.records[1].last, 10);
  EXPECT_EQ(file.ids, (std::vector<std::string>{"b0", "b1"}));
}

TEST(RecordsCsvTest, HeaderOnlyIsEmpty) { EXPECT_TRUE(Parse("size,first,last\n").records.empty()); }

TEST(RecordsCsvTest, Errors) {
  EXPECT_NE(ParseError("").find("missing header"), std::string::npos);
  EXPECT_NE(ParseError("bytes,from,to\n1,2,3\n").find("unknown header"), std::string::npos);
  EXPECT_NE(ParseError("size,first,last\n1,2\n").find("test.csv:2: expected 3 fields"),
            std::string::npos);
  EXPECT_NE(ParseError("size,first,last\n1,2,3,4\n").find("expected 3 fields"), std::string::npos);
  EXPECT_NE(ParseError("size,first,last\n1,2,\n").find("last"), std::string::npos);
  EXPECT_NE(ParseError("size,first,last\n-1,0,0\n").find("size"), std::string::npos);
  EXPECT_NE(ParseError("size,first,last\n1.5,0,0\n").find("size"), std::string::npos);
  EXPECT_NE(ParseError("size,first,last\nabc,0,0\n").find("size"), std::string::npos);
  EXPECT_NE(ParseError("size,first,last\n1,3,2\n").find("first > last"), std::string::npos);
  EXPECT_NE(ParseError("size,first,last\n99999999999999999999,0,0\n").find("size"),
            std::string::npos);
  EXPECT_NE(ParseError("size,first,last\n1099511627777,0,0\n").find("size"), std::string::npos);
  EXPECT_NE(ParseError("width,height,first,last\n1048577,1,0,0\n").find("width"),
            std::string::npos);
  EXPECT_NE(ParseError("id,lower,upper,size\nx,5,5,8\n").find("lower must be < upper"),
            std::string::npos);
  EXPECT_NE(ParseError("id,lower,upper,size\n,0,5,8\n").find("empty id"), std::string::npos);
}

TEST(RecordsCsvTest, ReadsMiniMallocInstance) {
  RecordsFile file;
  const Status status = ReadRecordsCsv("mace/core/memory/testdata/A.1048576.csv", &file);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(file.records.size(), 154u);
  EXPECT_EQ(file.ids.front(), "0");
}

TEST(RecordsCsvTest, MissingFile) {
  RecordsFile file;
  const Status status = ReadRecordsCsv("no/such/file.csv", &file);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("cannot open"), std::string::npos);
}

TEST(RecordsCsvTest, DirectoryIsAnError) {
  RecordsFile file;
  const Status status = ReadRecordsCsv("mace/core/memory/testdata", &file);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("is a directory"), std::string::npos);
}

TEST(RecordsCsvTest, BinaryInputGivesOnePrintableLine) {
  const std::string message = ParseError(std::string("\x7f" "ELF\x01\x02\x00\x03", 8) +
                                         std::string(100, 'x') + "\n");
  EXPECT_NE(message.find("unknown header '?ELF????xxx"), std::string::npos) << message;
  EXPECT_LT(message.size(), 200u);
  for (char c : message) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << message;
}

TEST(ParseUnsignedTest, Limits) {
  size_t value = 0;
  EXPECT_TRUE(ParseUnsigned("0", 10, &value));
  EXPECT_TRUE(ParseUnsigned("10", 10, &value));
  EXPECT_EQ(value, 10u);
  EXPECT_FALSE(ParseUnsigned("11", 10, &value));
  EXPECT_FALSE(ParseUnsigned("", 10, &value));
  EXPECT_FALSE(ParseUnsigned("+1", 10, &value));
  EXPECT_FALSE(ParseUnsigned("1e3", 10000, &value));
}

// 2^32 + 1 wraps to 1 in a 32-bit size_t; it must be refused there, not read
// as 1, and accepted where size_t is 64 bits.
TEST(ParseUnsignedTest, WiderThanSizeT) {
  size_t value = 0;
  const bool wide = sizeof(size_t) >= 8;
  EXPECT_EQ(ParseUnsigned("4294967297", std::numeric_limits<size_t>::max(), &value), wide);
  if (wide) {
    EXPECT_EQ(static_cast<uint64_t>(value), uint64_t{4294967297});
  }
  EXPECT_TRUE(ParseUnsigned("9999999999999999999", std::numeric_limits<size_t>::max(), &value) ==
              wide);
}

TEST(RecordsCsvTest, LongLifetimesOnEveryTarget) {
  RecordsFile file;
  ASSERT_TRUE(ParseRecordsCsv("size,first,last\n8,0,1000000\n", "long.csv", &file).ok());
  ASSERT_EQ(file.records.size(), 1u);
  EXPECT_EQ(file.records[0].last, 1000000);
}

TEST(ArenaTraceTest, ReplaysTfliteSequence) {
  const std::string trace =
      "# TFLite's BasicArenaOperations sequence\n"
      "alloc a 32 2047\nalloc b 32 2047\nalloc c 32 2047\nfree a\n"
      "alloc d 32 1023\nalloc e 32 2047\nfree b\nalloc f 32 1023\n";
  ArenaTraceResult result;
  const Status status = RunArenaTrace(trace, "trace.txt", 64, &result);
  ASSERT_TRUE(status.ok()) << status.message();
  const std::vector<std::pair<std::string, size_t>> expected = {{"a", 0}, {"b", 2048}, {"c", 4096},
                                                                {"d", 0}, {"e", 6144}, {"f", 1024}};
  EXPECT_EQ(result.offsets, expected);
  EXPECT_EQ(result.high_water_mark, 6144u + 2047u);
}

TEST(ArenaTraceTest, Errors) {
  ArenaTraceResult result;
  auto error = [&result](const std::string& trace) {
    const Status status = RunArenaTrace(trace, "t", 64, &result);
    EXPECT_FALSE(status.ok()) << trace;
    return status.message();
  };
  EXPECT_NE(error("alloc a 32\n").find("t:1: expected"), std::string::npos);
  EXPECT_NE(error("alloc a x 10\n").find("bad alignment"), std::string::npos);
  EXPECT_NE(error("alloc a 32 -5\n").find("bad size"), std::string::npos);
  EXPECT_NE(error("alloc a 128 5\n").find("alignment"), std::string::npos);
  EXPECT_NE(error("alloc a 32 5\nalloc a 32 5\n").find("t:2: 'a' allocated twice"),
            std::string::npos);
  EXPECT_NE(error("free a\n").find("before allocation"), std::string::npos);
  EXPECT_NE(error("alloc a 32 5\nfree a\nfree a\n").find("freed twice"), std::string::npos);
  EXPECT_NE(error("resize a 5\n").find("unknown command"), std::string::npos);
  EXPECT_NE(error("free\n").find("expected 'free ID'"), std::string::npos);
}

}  // namespace
}  // namespace memory
}  // namespace mace
