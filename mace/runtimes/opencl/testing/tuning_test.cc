// Work-group tuning, the tuned-parameter file, precompiled binary files,
// GPU hints and per-op device times, on this machine's OpenCL device.
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "mace/core/tensor.h"
#include "mace/runtimes/opencl/opencl_runtime.h"
#include "mace/runtimes/opencl/testing/split_model.h"
#include "mace/runtimes/opencl/testing/temp_files.h"
#include "mace/runtimes/opencl/tuning.h"

namespace mace {
namespace opencl {
namespace {

using testing::ReadFile;
using testing::TempPath;
using testing::WriteFile;

std::unique_ptr<OpenCLRuntime> NewRuntime(OpenCLOptions options) {
  options.allow_any_device = true;
  options.half_storage = false;
  auto runtime = std::make_unique<OpenCLRuntime>(options);
  const MaceStatus status = runtime->Init();
  EXPECT_TRUE(status.ok()) << status.ToString();
  return status.ok() ? std::move(runtime) : nullptr;
}

// A 1-D weight of 18 values: a 5 x 1 argument image, which its upload
// fills with one pixels_to_image launch over 5 x 1 items.
constexpr int64_t kWeightCount = 18;

// Uploads a fixed weight as a 1-D argument and reads the image back.
std::vector<unsigned char> UploadAndRead(OpenCLRuntime* runtime) {
  std::vector<float> values(kWeightCount);
  for (int64_t i = 0; i < kWeightCount; ++i) values[i] = 0.25f * static_cast<float>(i) - 2.f;
  Tensor weight("w", DT_FLOAT);
  weight.Reshape({kWeightCount});
  weight.SetConstBuffer(values.data(), kWeightCount * sizeof(float));
  std::unique_ptr<Memory> image;
  const MaceStatus status = runtime->UploadWeight(ImageKind::kArgument, weight, &image);
  EXPECT_TRUE(status.ok()) << status.ToString();
  if (!status.ok()) return {};
  unsigned char* host = nullptr;
  EXPECT_TRUE(runtime->Map(image.get(), &host).ok());
  std::vector<unsigned char> bytes(host, host + image->bytes());
  EXPECT_TRUE(runtime->Unmap(image.get()).ok());
  return bytes;
}

TEST(TunedParametersTest, FormatAndParseRoundTrip) {
  TunedParameters tuned;
  tuned[LaunchKey("conv_2d", 28, 14)] = {8, 8};
  tuned[LaunchKey("eltwise", 1, 1)] = {16, 4};
  TunedParameters parsed;
  std::string why;
  ASSERT_TRUE(ParseTunedParameters(FormatTunedParameters(tuned), &parsed, &why)) << why;
  EXPECT_EQ(parsed.size(), 2u);
  EXPECT_TRUE(parsed[LaunchKey("conv_2d", 28, 14)] == (LocalSize{8, 8}));
  for (const char* bad : {"conv 1 2 3\n", "conv 1 2 0 4\n", "conv 1 2 3 4 5\n", "x a b c d\n"}) {
    EXPECT_FALSE(ParseTunedParameters(bad, &parsed, &why)) << bad;
    EXPECT_NE(why.find("malformed"), std::string::npos);
  }
}

TEST(TunedParametersTest, CandidatesFitTheLimitAndTheLaunch) {
  for (int64_t limit : {1, 16, 64, 256}) {
    const std::vector<LocalSize> candidates = CandidateLocalSizes(3, 40, limit);
    ASSERT_FALSE(candidates.empty());
    EXPECT_TRUE(candidates.front() == DefaultLocalSize(limit));
    for (size_t i = 1; i < candidates.size(); ++i) {
      EXPECT_LE(candidates[i].width * candidates[i].height, limit);
      EXPECT_LE(candidates[i].width, 4u);
      EXPECT_LE(candidates[i].height, 64u);
    }
  }
  EXPECT_TRUE(DefaultLocalSize(1024) == (LocalSize{16, 4}));
  EXPECT_TRUE(DefaultLocalSize(8) == (LocalSize{8, 1}));
}

TEST(TuningRuntimeTest, TuningWritesAFileThatLaterRuntimesUse) {
  const std::string path = TempPath("tuned_runtime.bin");
  std::remove(path.c_str());
  auto plain = NewRuntime({});
  ASSERT_NE(plain, nullptr);
  const std::vector<unsigned char> expected = UploadAndRead(plain.get());
  EXPECT_EQ(plain->tuned_launches(), 0);

  OpenCLOptions tuning;
  tuning.parameter_file = path;
  tuning.tune = true;
  auto tuner = NewRuntime(tuning);
  ASSERT_NE(tuner, nullptr);
  EXPECT_TRUE(tuner->parameter_warning().empty()) << tuner->parameter_warning();
  EXPECT_EQ(UploadAndRead(tuner.get()), expected);
  EXPECT_EQ(tuner->tuned_parameters().size(), 1u);
  ASSERT_TRUE(tuner->AfterRun().ok());
  const std::string file = ReadFile(path);
  ASSERT_FALSE(file.empty());
  EXPECT_EQ(file.compare(0, 8, "MACECLTP"), 0);

  OpenCLOptions reading;
  reading.parameter_file = path;
  auto reader = NewRuntime(reading);
  ASSERT_NE(reader, nullptr);
  EXPECT_TRUE(reader->parameter_warning().empty()) << reader->parameter_warning();
  EXPECT_EQ(reader->tuned_parameters().size(), 1u);
  EXPECT_EQ(UploadAndRead(reader.get()), expected);
  EXPECT_EQ(reader->tuned_launches(), 1);
  ASSERT_TRUE(reader->AfterRun().ok());
  // Without tuning the file is only read.
  EXPECT_EQ(ReadFile(path), file);
}

TEST(TuningRuntimeTest, AStoredLocalSizeIsUsed) {
  const std::string path = TempPath("tuned_stored.bin");
  auto plain = NewRuntime({});
  ASSERT_NE(plain, nullptr);
  const std::vector<unsigned char> expected = UploadAndRead(plain.get());
  const OpenCLDeviceInfo& info = plain->device_info();
  const ProgramCacheKey key = {info.platform, info.device, info.driver, "", 0};
  // A 1-D argument of 18 values is a 5 x 1 image; 1 x 1 groups, unlike the
  // default's 16 x 4.
  TunedParameters tuned;
  tuned[LaunchKey("pixels_to_image", 5, 1)] = {1, 1};
  WriteFile(path, EncodeDeviceFile(kTunedParameterFormat, key, FormatTunedParameters(tuned)));
  OpenCLOptions reading;
  reading.parameter_file = path;
  auto reader = NewRuntime(reading);
  ASSERT_NE(reader, nullptr);
  EXPECT_EQ(UploadAndRead(reader.get()), expected);
  EXPECT_EQ(reader->tuned_launches(), 1);
}

TEST(TuningRuntimeTest, CorruptOrForeignFilesAreIgnored) {
  const std::string path = TempPath("tuned_bad.bin");
  auto plain = NewRuntime({});
  ASSERT_NE(plain, nullptr);
  const std::vector<unsigned char> expected = UploadAndRead(plain.get());
  const OpenCLDeviceInfo& info = plain->device_info();
  TunedParameters tuned;
  tuned[LaunchKey("pixels_to_image", 5, 1)] = {1, 1};
  const std::string body = FormatTunedParameters(tuned);
  const std::string valid = EncodeDeviceFile(
      kTunedParameterFormat, {info.platform, info.device, info.driver, "", 0}, body);
  std::string flipped = valid;
  flipped[flipped.size() - 3] ^= 0x04;
  const std::map<std::string, std::string> cases = {
      {"empty", ""},
      {"truncated", valid.substr(0, valid.size() - 4)},
      {"corrupt body", flipped},
      {"bad magic", "MACECLPC" + valid.substr(8)},
      {"Mali-G76", EncodeDeviceFile(kTunedParameterFormat,
                                    {info.platform, "Mali-G76", info.driver, "", 0}, body)},
  };
  for (const auto& entry : cases) {
    SCOPED_TRACE(entry.first);
    WriteFile(path, entry.second);
    OpenCLOptions reading;
    reading.parameter_file = path;
    auto reader = NewRuntime(reading);
    ASSERT_NE(reader, nullptr);
    EXPECT_NE(reader->parameter_warning().find(entry.first), std::string::npos)
        << reader->parameter_warning();
    EXPECT_TRUE(reader->tuned_parameters().empty());
    EXPECT_EQ(UploadAndRead(reader.get()), expected);
    EXPECT_EQ(reader->tuned_launches(), 0);
  }
}

TEST(BinaryFileTest, AValidBinaryFileIsLoadedAndACorruptOneCompiled) {
  const std::string cache = TempPath("binary_source.bin");
  std::remove(cache.c_str());
  OpenCLOptions writing;
  writing.cache_file = cache;
  auto writer = NewRuntime(writing);
  ASSERT_NE(writer, nullptr);
  const std::string valid = ReadFile(cache);
  ASSERT_FALSE(valid.empty());

  const std::string shipped = TempPath("shipped.bin");
  WriteFile(shipped, valid);
  OpenCLOptions reading;
  reading.binary_files = {TempPath("missing.bin"), shipped};
  auto reader = NewRuntime(reading);
  ASSERT_NE(reader, nullptr);
  EXPECT_EQ(reader->program_origin(), ProgramOrigin::kLoadedFromBinaryFile);
  EXPECT_EQ(reader->binary_file_used(), shipped);
  EXPECT_TRUE(reader->cache_warning().empty()) << reader->cache_warning();
  EXPECT_FALSE(UploadAndRead(reader.get()).empty());

  // A corrupt binary file falls back to compiling, and is left as it was.
  std::string corrupt = valid;
  corrupt[corrupt.size() / 2] ^= 0x20;
  WriteFile(shipped, corrupt);
  auto fallback = NewRuntime(reading);
  ASSERT_NE(fallback, nullptr);
  EXPECT_EQ(fallback->program_origin(), ProgramOrigin::kBuiltFromSource);
  EXPECT_NE(fallback->cache_warning().find("binary file"), std::string::npos)
      << fallback->cache_warning();
  EXPECT_FALSE(UploadAndRead(fallback.get()).empty());
  EXPECT_EQ(ReadFile(shipped), corrupt);
}

TEST(GpuHintsTest, HintsAreAcceptedAndUnsupportedOnesNamed) {
  OpenCLOptions hinted;
  hinted.perf_hint = GPUPerfHint::PERF_HIGH;
  hinted.priority_hint = GPUPriorityHint::PRIORITY_LOW;
  auto runtime = NewRuntime(hinted);
  ASSERT_NE(runtime, nullptr);
  const std::string& extensions = runtime->device_info().extensions;
  std::vector<std::string> expected;
  if (extensions.find("cl_qcom_perf_hint") == std::string::npos) expected.push_back("perf");
  if (extensions.find("cl_khr_priority_hints") == std::string::npos) {
    expected.push_back("priority");
  }
  EXPECT_EQ(runtime->unsupported_hints(), expected);
  EXPECT_FALSE(UploadAndRead(runtime.get()).empty());
  auto plain = NewRuntime({});
  ASSERT_NE(plain, nullptr);
  EXPECT_TRUE(plain->unsupported_hints().empty());
}

}  // namespace
}  // namespace opencl

namespace {

std::map<std::string, MaceTensor> SplitInputs() {
  return {{"x", testing::MakeTensor(testing::SplitModelInputShape(),
                                    testing::RandomValues(2 * 5 * 6 * 7, 7, 2.f))}};
}

std::vector<float> RunSplitModel(const MaceEngineConfig& config, RunMetadata* metadata = nullptr) {
  std::shared_ptr<MaceEngine> engine;
  const MaceStatus status = testing::SplitModel().CreateEngine({}, {}, config, &engine);
  EXPECT_TRUE(status.ok()) << status.ToString();
  if (!status.ok()) return {};
  return testing::RunEngine(engine.get(), SplitInputs(), "y", metadata);
}

TEST(TunedEngineTest, TunedAndUntunedOutputsAreIdentical) {
  const std::string path = testing::TempPath("tuned_engine.bin");
  std::remove(path.c_str());
  const std::vector<float> untuned = RunSplitModel(testing::GpuConfig(GPUDataType::FP32_FP32));
  ASSERT_FALSE(untuned.empty());
  MaceEngineConfig tuning = testing::GpuConfig(GPUDataType::FP32_FP32);
  tuning.SetOpenCLParameterPath(path);
  tuning.SetOpenCLTuning(true);
  EXPECT_EQ(RunSplitModel(tuning), untuned);
  const std::string file = testing::ReadFile(path);
  ASSERT_FALSE(file.empty());
  // Both convolutions and the converters' launches are in the file.
  EXPECT_NE(file.find("conv2d_1x1 "), std::string::npos);
  EXPECT_NE(file.find("conv2d "), std::string::npos);
  MaceEngineConfig reading = testing::GpuConfig(GPUDataType::FP32_FP32);
  reading.SetOpenCLParameterPath(path);
  EXPECT_EQ(RunSplitModel(reading), untuned);
  EXPECT_EQ(testing::ReadFile(path), file);
}

TEST(TunedEngineTest, ProfilingGivesGpuOpsADeviceTime) {
  MaceEngineConfig config = testing::GpuConfig(GPUDataType::FP32_FP32);
  config.SetOpenCLProfiling(true);
  RunMetadata metadata;
  ASSERT_FALSE(RunSplitModel(config, &metadata).empty());
  ASSERT_EQ(metadata.op_stats.size(), 7u);
  for (const OperatorStats& stats : metadata.op_stats) {
    SCOPED_TRACE(stats.operator_name);
    if (stats.type == "Transpose") {
      EXPECT_EQ(stats.device_micros, -1);
    } else {
      EXPECT_GE(stats.device_micros, 0);
    }
  }
  // Without profiling the device time is unknown.
  RunSplitModel(testing::GpuConfig(GPUDataType::FP32_FP32), &metadata);
  for (const OperatorStats& stats : metadata.op_stats) EXPECT_EQ(stats.device_micros, -1);
}

}  // namespace
}  // namespace mace
