// The program cache file: the format on its own (every kind of damage is
// recognized before a binary would reach the driver), then the runtime on
// this machine's OpenCL device: each bad file gives one warning and a
// rebuild, and the rewritten file is loaded next time.
#include "mace/runtimes/opencl/program_cache.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "mace/runtimes/opencl/opencl_runtime.h"
#include "mace/runtimes/opencl/testing/temp_files.h"

namespace mace {
namespace opencl {
namespace {

ProgramCacheKey Key() { return {"platform", "device", "driver 1", "-cl-std=CL1.2", 42}; }

std::string Binary() {
  std::string binary;
  for (int i = 0; i < 1000; ++i) binary.push_back(static_cast<char>(i * 7 + 3));
  return binary;
}

TEST(ProgramCacheFormatTest, RoundTrips) {
  std::string binary, why;
  ASSERT_TRUE(DecodeProgramCache(EncodeProgramCache(Key(), Binary()), Key(), &binary, &why))
      << why;
  EXPECT_EQ(binary, Binary());
}

TEST(ProgramCacheFormatTest, RefusesEveryTruncation) {
  const std::string file = EncodeProgramCache(Key(), Binary());
  for (size_t size = 0; size < file.size(); ++size) {
    std::string binary, why;
    EXPECT_FALSE(DecodeProgramCache(file.substr(0, size), Key(), &binary, &why)) << size;
    EXPECT_FALSE(why.empty());
  }
}

TEST(ProgramCacheFormatTest, RefusesEveryBitFlip) {
  const std::string file = EncodeProgramCache(Key(), Binary());
  for (size_t at = 0; at < file.size(); ++at) {
    for (int bit : {0, 5}) {
      std::string flipped = file;
      flipped[at] = static_cast<char>(flipped[at] ^ (1 << bit));
      std::string binary, why;
      EXPECT_FALSE(DecodeProgramCache(flipped, Key(), &binary, &why)) << at << " bit " << bit;
    }
  }
}

TEST(ProgramCacheFormatTest, NamesWhatDiffers) {
  const std::string file = EncodeProgramCache(Key(), Binary());
  std::string binary, why;
  ProgramCacheKey other = Key();
  other.device = "another device";
  EXPECT_FALSE(DecodeProgramCache(file, other, &binary, &why));
  EXPECT_NE(why.find("device 'device'"), std::string::npos) << why;
  other = Key();
  other.source_hash = 43;
  EXPECT_FALSE(DecodeProgramCache(file, other, &binary, &why));
  EXPECT_NE(why.find("stale"), std::string::npos) << why;
  other = Key();
  other.options += " -DMACE_HALF_COMPUTE";
  EXPECT_FALSE(DecodeProgramCache(file, other, &binary, &why));
  EXPECT_NE(why.find("build options"), std::string::npos) << why;
  std::string versioned = file;
  versioned[8] = static_cast<char>(kProgramCacheVersion + 1);
  EXPECT_FALSE(DecodeProgramCache(versioned, Key(), &binary, &why));
  EXPECT_NE(why.find("format version 2"), std::string::npos) << why;
  EXPECT_FALSE(DecodeProgramCache("", Key(), &binary, &why));
  EXPECT_NE(why.find("empty"), std::string::npos) << why;
}

TEST(ProgramCacheFormatTest, MissingFileIsNotAWarning) {
  std::string binary, why = "unset";
  EXPECT_FALSE(ReadProgramCache("/nonexistent/dir/cache.bin", Key(), &binary, &why));
  EXPECT_TRUE(why.empty()) << why;
}

using testing::ReadFile;
using testing::TempPath;
using testing::WriteFile;

// A runtime on this machine's device with `cache_file`, initialized.
std::unique_ptr<OpenCLRuntime> NewRuntime(const std::string& cache_file) {
  OpenCLOptions options;
  options.allow_any_device = true;
  options.cache_file = cache_file;
  auto runtime = std::make_unique<OpenCLRuntime>(options);
  const MaceStatus status = runtime->Init();
  EXPECT_TRUE(status.ok()) << status.ToString();
  return status.ok() ? std::move(runtime) : nullptr;
}

class ProgramCacheRuntimeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = TempPath(::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::remove(path_.c_str());
    auto first = NewRuntime(path_);
    ASSERT_NE(first, nullptr);
    EXPECT_EQ(first->program_origin(), ProgramOrigin::kBuiltFromSource);
    EXPECT_TRUE(first->cache_warning().empty()) << first->cache_warning();
    key_ = first->program_key();
    valid_ = ReadFile(path_);
    std::string why;
    ASSERT_TRUE(DecodeProgramCache(valid_, key_, &binary_, &why)) << why;
  }

  // Writes `bytes` as the cache; the runtime must warn (naming `reason`),
  // rebuild and leave a file the next runtime loads.
  void ExpectRebuild(const std::string& bytes, const std::string& reason) {
    WriteFile(path_, bytes);
    auto runtime = NewRuntime(path_);
    ASSERT_NE(runtime, nullptr);
    EXPECT_EQ(runtime->program_origin(), ProgramOrigin::kBuiltFromSource);
    EXPECT_NE(runtime->cache_warning().find(reason), std::string::npos)
        << runtime->cache_warning();
    auto next = NewRuntime(path_);
    ASSERT_NE(next, nullptr);
    EXPECT_EQ(next->program_origin(), ProgramOrigin::kLoadedFromCache);
    EXPECT_TRUE(next->cache_warning().empty()) << next->cache_warning();
  }

  std::string path_;
  ProgramCacheKey key_;
  std::string valid_;
  std::string binary_;
};

TEST_F(ProgramCacheRuntimeTest, SecondRuntimeLoadsTheFile) {
  auto second = NewRuntime(path_);
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(second->program_origin(), ProgramOrigin::kLoadedFromCache);
  EXPECT_TRUE(second->cache_warning().empty());
  EXPECT_EQ(ReadFile(path_), valid_);
}

TEST_F(ProgramCacheRuntimeTest, TruncatedFileIsRebuilt) {
  ExpectRebuild(valid_.substr(0, valid_.size() / 2), "truncated");
}

TEST_F(ProgramCacheRuntimeTest, TruncatedHeaderIsRebuilt) {
  ExpectRebuild(valid_.substr(0, 20), "header");
}

TEST_F(ProgramCacheRuntimeTest, BitFlippedBodyIsRebuilt) {
  std::string flipped = valid_;
  flipped[flipped.size() - binary_.size() / 2] ^= 0x10;
  ExpectRebuild(flipped, "corrupt body");
}

TEST_F(ProgramCacheRuntimeTest, EmptyFileIsRebuilt) { ExpectRebuild("", "empty"); }

TEST_F(ProgramCacheRuntimeTest, OtherDevicesFileIsRebuilt) {
  ProgramCacheKey other = key_;
  other.device = "Adreno (TM) 640";
  ExpectRebuild(EncodeProgramCache(other, binary_), "Adreno (TM) 640");
}

TEST_F(ProgramCacheRuntimeTest, OtherFormatVersionIsRebuilt) {
  std::string versioned = valid_;
  versioned[8] = static_cast<char>(kProgramCacheVersion + 1);
  ExpectRebuild(versioned, "format version");
}

TEST_F(ProgramCacheRuntimeTest, StaleSourcesAreRebuilt) {
  ProgramCacheKey other = key_;
  other.source_hash ^= 1;
  ExpectRebuild(EncodeProgramCache(other, binary_), "stale");
}

// A binary that passes every check of the header but that the driver
// refuses (garbage of the right size and checksum) is rebuilt too.
TEST_F(ProgramCacheRuntimeTest, BinaryTheDriverRefusesIsRebuilt) {
  ExpectRebuild(EncodeProgramCache(key_, std::string(binary_.size(), 'x')), "refused");
}

TEST_F(ProgramCacheRuntimeTest, UnwritableDirectoryWarnsAndRuns) {
  // The parent is a regular file, so no user (root included) can create it.
  const std::string path = path_ + "/cache.bin";
  auto runtime = NewRuntime(path);
  ASSERT_NE(runtime, nullptr);
  EXPECT_EQ(runtime->program_origin(), ProgramOrigin::kBuiltFromSource);
  EXPECT_NE(runtime->cache_warning().find("not saved"), std::string::npos)
      << runtime->cache_warning();
}

}  // namespace
}  // namespace opencl
}  // namespace mace
