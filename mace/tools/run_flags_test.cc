#include "mace/tools/run_flags.h"

#include <cctype>
#include <cstring>
#include <fstream>
#include <map>
#include <string>

#include "gtest/gtest.h"
#include "mace/tools/npy_io.h"
#include "mace/tools/run_report.h"
#include "mace/tools/soak.h"

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

TEST(RunFlagsTest, EmptyShapesAreScalarsAndDimensionsMayBeZero) {
  RunFlags flags;
  std::string error;
  ASSERT_TRUE(Parse({"--model_file=m", "--input_node=a,b,c", "--input_shape=3,4::2,0,4"}, &flags,
                    &error))
      << error;
  ASSERT_EQ(flags.input_shapes.size(), 3u);
  EXPECT_EQ(flags.input_shapes[0], (std::vector<int64_t>{3, 4}));
  EXPECT_TRUE(flags.input_shapes[1].empty());
  EXPECT_EQ(flags.input_shapes[2], (std::vector<int64_t>{2, 0, 4}));
  ASSERT_TRUE(Parse({"--model_file=m", "--input_node=s", "--input_shape="}, &flags, &error))
      << error;
  ASSERT_EQ(flags.input_shapes.size(), 1u);
  EXPECT_TRUE(flags.input_shapes[0].empty());
  // A scalar is not a one-element vector.
  EXPECT_FALSE(CheckInputShapes(flags, {{"s", {1}}}, &error));
  EXPECT_TRUE(CheckInputShapes(flags, {{"s", {}}}, &error)) << error;
  // Empty dimensions inside a shape are still malformed.
  EXPECT_FALSE(Parse({"--model_file=m", "--input_node=a", "--input_shape=3,,4"}, &flags, &error));
  EXPECT_FALSE(Parse({"--model_file=m", "--input_node=a", "--input_shape=3,"}, &flags, &error));
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

TEST(RunFlagsTest, ChecksInputShapesAgainstTheModel) {
  const std::map<std::string, std::vector<int64_t>> model = {{"x", {1, 2, 4, 4}}};
  RunFlags flags;
  std::string error;
  ASSERT_TRUE(Parse({"--model_file=m", "--input_node=x", "--input_shape=1,2,4,4"}, &flags, &error));
  EXPECT_TRUE(CheckInputShapes(flags, model, &error)) << error;
  // Larger than any allocation: refused by comparison, before anything is sized.
  ASSERT_TRUE(Parse({"--model_file=m", "--input_node=x", "--input_shape=1,3,224,2147483648"},
                    &flags, &error));
  EXPECT_FALSE(CheckInputShapes(flags, model, &error));
  EXPECT_EQ(error,
            "--input_shape [1,3,224,2147483648] for input 'x' differs from the model's shape "
            "[1,2,4,4]");
  // The same element count in another shape is still a different input.
  ASSERT_TRUE(Parse({"--model_file=m", "--input_node=x", "--input_shape=1,2,2,8"}, &flags, &error));
  EXPECT_FALSE(CheckInputShapes(flags, model, &error));
  ASSERT_TRUE(Parse({"--model_file=m", "--input_node=z", "--input_shape=1"}, &flags, &error));
  EXPECT_FALSE(CheckInputShapes(flags, model, &error));
  EXPECT_EQ(error, "--input_node 'z' is not an input of the model (its inputs: x)");
}

TEST(RunFlagsTest, DynamicInputsTakeShapesWithinTheirRanges) {
  const std::map<std::string, std::vector<int64_t>> model = {{"x", {1, 4, 16}}};
  const std::map<std::string, std::vector<int64_t>> max = {{"x", {2, 4, 256}}};
  RunFlags flags;
  std::string error;
  std::map<std::string, std::vector<int64_t>> run = model;
  ASSERT_TRUE(Parse({"--model_file=m", "--input_node=x", "--input_shape=2,4,100"}, &flags, &error));
  EXPECT_TRUE(CheckInputShapes(flags, model, max, &run, &error)) << error;
  EXPECT_EQ(run.at("x"), (std::vector<int64_t>{2, 4, 100}));
  // A fixed dimension changed, a dynamic one of 0 or beyond its maximum, or
  // another rank: refused before anything is allocated.
  for (const char* shape : {"--input_shape=1,5,16", "--input_shape=1,4,0", "--input_shape=1,4,257",
                            "--input_shape=3,4,16", "--input_shape=1,4,16,1",
                            "--input_shape=1,4,2147483648"}) {
    run = model;
    ASSERT_TRUE(Parse({"--model_file=m", "--input_node=x", shape}, &flags, &error)) << shape;
    EXPECT_FALSE(CheckInputShapes(flags, model, max, &run, &error)) << shape;
    EXPECT_NE(error.find("outside the model's range"), std::string::npos) << error;
    EXPECT_EQ(run.at("x"), model.at("x")) << shape;
  }
}

TEST(RunFlagsTest, CheckInputShapesRefusesUnpairedFlags) {
  // --help ends parsing before the pairing check: found by run_flags_fuzzer.
  RunFlags flags;
  std::string error;
  ASSERT_TRUE(Parse({"--model_file=m", "-h", "--input_node=x,y"}, &flags, &error)) << error;
  EXPECT_FALSE(CheckInputShapes(flags, {{"x", {1}}, {"y", {1}}}, &error));
  EXPECT_EQ(error, "--input_shape must give one shape per --input_node");
}

TEST(NpyTest, RoundTripsAndRejectsOtherShapes) {
  const std::string path = ::testing::TempDir() + "/t.npy";
  const std::vector<float> values = {1.5f, -2.f, 3.f, 4.f, 5.f, 6.f};
  std::string error;
  ASSERT_TRUE(WriteNpy(path, {2, 3}, values.data(), &error)) << error;
  std::vector<float> read(values.size());
  ASSERT_TRUE(ReadFloatTensor(path, {2, 3}, read.data(), &error)) << error;
  EXPECT_EQ(read, values);
  // Six elements either way, but a transposed or flattened input is a
  // different input: refused, with the file and both shapes named.
  EXPECT_FALSE(ReadFloatTensor(path, {3, 2}, read.data(), &error));
  EXPECT_EQ(error, "'" + path + "': the file's shape [2,3] differs from the input shape [3,2]");
  EXPECT_FALSE(ReadFloatTensor(path, {6}, read.data(), &error));
}

TEST(NpyTest, EncodesIntegerOutputsInTheirOwnType) {
  const std::vector<int32_t> indices = {0, 7, -1, 16777217};
  std::string bytes, error;
  ASSERT_TRUE(EncodeNpy({2, 2}, indices.data(), "<i4", sizeof(int32_t), &bytes, &error)) << error;
  ASSERT_EQ(bytes.size() % 64, 16u);  // 64-byte aligned header, then 16 data bytes
  EXPECT_NE(bytes.find("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 2,), }"),
            std::string::npos);
  int32_t last = 0;
  std::memcpy(&last, bytes.data() + bytes.size() - 4, 4);
  EXPECT_EQ(last, 16777217);  // exact: not rounded through float
  const std::vector<uint8_t> levels = {3, 255, 0};
  ASSERT_TRUE(EncodeNpy({3}, levels.data(), "|u1", 1, &bytes, &error)) << error;
  EXPECT_NE(bytes.find("'shape': (3, ), }"), std::string::npos);
  EXPECT_EQ(static_cast<uint8_t>(bytes[bytes.size() - 2]), 255);
}

// mace_run's input files: a .npy keeps its dtype (int64 beyond 2^24 and
// bool bytes exactly); a raw file is float32.
TEST(NpyTest, ReadsTypedInputFiles) {
  const std::string path = ::testing::TempDir() + "/ids.npy";
  const std::vector<int64_t> ids = {16777217, -3, 0, int64_t{1} << 40};
  std::string error, descr, data;
  ASSERT_TRUE(WriteNpy(path, {2, 2}, ids.data(), "<i8", 8, &error)) << error;
  ASSERT_TRUE(ReadTensorFile(path, {2, 2}, &descr, &data, &error)) << error;
  EXPECT_EQ(descr, "<i8");
  ASSERT_EQ(data.size(), 32u);
  EXPECT_EQ(std::memcmp(data.data(), ids.data(), 32), 0);
  EXPECT_FALSE(ReadTensorFile(path, {4}, &descr, &data, &error));
  EXPECT_EQ(error, "'" + path + "': the file's shape [2,2] differs from the input shape [4]");
  const std::string mask_path = ::testing::TempDir() + "/mask.npy";
  const uint8_t mask[3] = {1, 0, 1};
  ASSERT_TRUE(WriteNpy(mask_path, {3}, mask, "|b1", 1, &error)) << error;
  ASSERT_TRUE(ReadTensorFile(mask_path, {3}, &descr, &data, &error)) << error;
  EXPECT_EQ(descr, "|b1");
  EXPECT_EQ(data, std::string("\x01\x00\x01", 3));
  // A typed file where a float32 one is needed is refused by its dtype.
  std::vector<float> floats(4);
  EXPECT_FALSE(ReadFloatTensor(path, {2, 2}, floats.data(), &error));
  EXPECT_NE(error.find("the dtype is '<i8' but a float32 ('<f4') array is needed"),
            std::string::npos)
      << error;
}

TEST(RunReportTest, IntegerOutputsPrintAsValues) {
  auto data = std::shared_ptr<void>(new int32_t[3]{4, -2, 9},
                                    [](void* p) { delete[] static_cast<int32_t*>(p); });
  MaceTensor tensor({3}, data, TensorDataType::INT32);
  EXPECT_EQ(tensor.data(), nullptr);
  EXPECT_EQ(ValuesAsFloat(tensor), (std::vector<float>{4.f, -2.f, 9.f}));
}

TEST(NpyTest, RawFilesMustHoldExactlyTheInput) {
  const std::string path = ::testing::TempDir() + "/raw_input";
  const float values[3] = {1.f, 2.f, 3.f};
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(values), 12);
  std::vector<float> read(4);
  std::string error;
  ASSERT_TRUE(ReadFloatTensor(path, {3}, read.data(), &error)) << error;
  EXPECT_EQ(read[2], 3.f);
  EXPECT_FALSE(ReadFloatTensor(path, {4}, read.data(), &error));
  EXPECT_EQ(error, "'" + path + "' holds 12 bytes but the input needs 4 float32 values (16 bytes)");
  EXPECT_FALSE(ReadFloatTensor(::testing::TempDir(), {4}, read.data(), &error));
  EXPECT_NE(error.find("is a directory, not a file"), std::string::npos) << error;
}

// A .npy file with `dict` as its header, version `major`, then `data_bytes`.
std::string Npy(const std::string& dict, size_t data_bytes, int major = 1) {
  std::string bytes = "\x93NUMPY";
  bytes += static_cast<char>(major);
  bytes += '\0';
  const size_t length = dict.size();
  bytes += static_cast<char>(length & 0xff);
  bytes += static_cast<char>(length >> 8);
  if (major != 1) bytes += std::string(2, '\0');
  return bytes + dict + std::string(data_bytes, '\0');
}

std::string Decode(const std::string& bytes, const std::vector<int64_t>& shape) {
  std::vector<float> data(64);
  std::string error;
  return DecodeNpy(bytes, shape, data.data(), &error) ? "ok" : error;
}

TEST(NpyTest, RejectsBadHeadersWithClearErrors) {
  const std::string good = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }\n";
  EXPECT_EQ(Decode(Npy(good, 24), {2, 3}), "ok");
  EXPECT_EQ(Decode(Npy(good, 24, 2), {2, 3}), "ok");
  EXPECT_EQ(Decode(Npy("{'descr': '<f4', 'fortran_order': False, 'shape': ()}", 4), {}), "ok");
  EXPECT_EQ(Decode(Npy(good, 20), {2, 3}),
            "truncated: shape [2,3] needs 24 data bytes but the file has 20");
  EXPECT_EQ(Decode(Npy(good, 28), {2, 3}),
            "trailing bytes: shape [2,3] needs 24 data bytes but the file has 28");
  EXPECT_EQ(Decode(Npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", 48), {2, 3}),
            "the dtype is '<f8'; supported are float32 ('<f4'), int32 ('<i4'), int64 ('<i8'), "
            "bool ('|b1') and uint8 ('|u1')");
  // A supported dtype other than float32 is refused where float32 is needed.
  EXPECT_EQ(Decode(Npy("{'descr': '<i8', 'fortran_order': False, 'shape': (2, 3), }", 48), {2, 3}),
            "the dtype is '<i8' but a float32 ('<f4') array is needed");
  EXPECT_EQ(Decode(Npy("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", 24), {2, 3}),
            "Fortran-order arrays are not supported");
  // A substring search would find '<f4' in the decoy key and accept '<f8'.
  EXPECT_EQ(Decode(Npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), '<f4': 1}", 48),
                   {2, 3}),
            "the header has an unknown key '<f4'");
  EXPECT_EQ(Decode(Npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, x), }", 24), {2, 3}),
            "the header's 'shape' value is malformed");
  EXPECT_EQ(Decode(Npy("{'descr': '<f4', 'shape': (2, 3), }", 24), {2, 3}),
            "the header lacks descr, fortran_order or shape");
  EXPECT_EQ(Decode(Npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)} x", 24), {2, 3}),
            "the header has text after its dict");
  EXPECT_EQ(Decode(Npy("{'descr': '<f4', 'fortran_order': False, 'shape': "
                       "(1099511627776, 1099511627776)}",
                       0),
                   {2, 3}),
            "the .npy shape [1099511627776,1099511627776] is too large");
  EXPECT_EQ(Decode(Npy("{'descr': '<f4', 'fortran_order': False, 'shape': "
                       "(99999999999999999999,)}",
                       0),
                   {2, 3}),
            "the header's 'shape' value is malformed");
  EXPECT_EQ(Decode(Npy(good, 24, 9), {2, 3}), "unsupported .npy version 9.0");
  EXPECT_EQ(Decode(Npy(good, 24).substr(0, 40), {2, 3}), "the .npy header is truncated");
  EXPECT_EQ(Decode("not numpy", {2, 3}), "not a .npy file (no \\x93NUMPY magic)");
  std::string huge_header = Npy(good, 24, 2);
  huge_header[11] = '\x7f';  // a header length near 2 GB
  EXPECT_EQ(Decode(huge_header, {2, 3}),
            "the .npy header claims 2130706492 bytes, more than 65536");
}

TEST(SoakTest, ReadsStatusFieldsInKilobytes) {
  const std::string status = "Name:\tmace_run\nVmHWM:\t   51200 kB\nVmRSS:\t   40960 kB\n";
  EXPECT_EQ(StatusFieldKb(status, "VmRSS"), 40960);
  EXPECT_EQ(StatusFieldKb(status, "VmHWM"), 51200);
  EXPECT_EQ(StatusFieldKb(status, "VmSwap"), -1);
  EXPECT_EQ(StatusFieldKb("VmRSS:\tlots\n", "VmRSS"), -1);
  // This process has a resident set, so the real file must parse.
  EXPECT_GT(ProcessStatusKb("VmRSS"), 0);
}

TEST(SoakTest, DriftComparesFirstAndLastTenth) {
  std::vector<double> rounds(100, 2.0);
  for (size_t i = 90; i < 100; ++i) rounds[i] = 3.0;
  rounds[0] = 50.0;  // one slow outlier moves no median
  const LatencyDrift drift = MeasureDrift(rounds);
  EXPECT_EQ(drift.window, 10u);
  EXPECT_DOUBLE_EQ(drift.first_ms, 2.0);
  EXPECT_DOUBLE_EQ(drift.last_ms, 3.0);
  EXPECT_DOUBLE_EQ(drift.percent, 50.0);
  // Fewer than ten rounds still compare the first with the last.
  const LatencyDrift short_run = MeasureDrift({4.0, 1.0, 2.0});
  EXPECT_EQ(short_run.window, 1u);
  EXPECT_DOUBLE_EQ(short_run.first_ms, 4.0);
  EXPECT_DOUBLE_EQ(short_run.last_ms, 2.0);
}

TEST(RunFlagsTest, ParsesSoakRounds) {
  RunFlags flags;
  std::string error;
  ASSERT_TRUE(Parse({"--model_file=m", "--soak_rounds=10000"}, &flags, &error)) << error;
  EXPECT_EQ(flags.soak_rounds, 10000);
  EXPECT_FALSE(Parse({"--model_file=m", "--soak_rounds=0"}, &flags, &error));
  EXPECT_EQ(error, "bad value '0' for --soak_rounds");
}

TEST(RunFlagsTest, ParsesInputRanges) {
  RunFlags flags;
  std::string error;
  ASSERT_TRUE(Parse({"--model_file=m", "--input_node=ids,mask", "--input_shape=1,8:1,8",
                     "--input_range=0,30522:1,2"},
                    &flags, &error))
      << error;
  EXPECT_EQ(flags.input_ranges,
            (std::vector<std::pair<double, double>>{{0.0, 30522.0}, {1.0, 2.0}}));
  ASSERT_TRUE(Parse({"--model_file=m", "--input_range=-0.5,1e3"}, &flags, &error)) << error;
  EXPECT_EQ(flags.input_ranges, (std::vector<std::pair<double, double>>{{-0.5, 1000.0}}));
  for (const char* bad :
       {"--input_range=1,1", "--input_range=2,1", "--input_range=0", "--input_range=0,1,2",
        "--input_range=0,inf", "--input_range=a,1", "--input_range="}) {
    EXPECT_FALSE(Parse({"--model_file=m", bad}, &flags, &error)) << bad;
  }
  EXPECT_FALSE(
      Parse({"--model_file=m", "--input_node=a", "--input_shape=1", "--input_range=0,1:0,2"},
            &flags, &error));
  EXPECT_EQ(error,
            "--input_range gives 2 ranges; give one for every input, or one per "
            "--input_node");
}

TEST(RunFlagsTest, ParsesGpuFlags) {
  RunFlags flags;
  std::string error;
  ASSERT_TRUE(Parse({"--model_file=m", "--device=GPU", "--gpu_data_type=fp32_fp32",
                     "--opencl_device_fallback", "--limit_opencl_kernel_time"},
                    &flags, &error))
      << error;
  EXPECT_EQ(flags.gpu_data_type, "fp32_fp32");
  EXPECT_TRUE(flags.opencl_device_fallback);
  EXPECT_TRUE(flags.limit_opencl_kernel_time);
  ASSERT_TRUE(Parse({"--model_file=m", "--limit_opencl_kernel_time=0"}, &flags, &error));
  EXPECT_FALSE(flags.limit_opencl_kernel_time);
  EXPECT_FALSE(Parse({"--model_file=m", "--limit_opencl_kernel_time=2"}, &flags, &error));
  EXPECT_EQ(error, "bad value '2' for --limit_opencl_kernel_time");
  EXPECT_FALSE(Parse({"--model_file=m", "--gpu_data_type=fp16_fp16"}, &flags, &error));
}

TEST(RunFlagsTest, ParsesLayoutAndWinogradModes) {
  RunFlags flags;
  std::string error;
  EXPECT_EQ(flags.cpu_blocked_layout, "auto");
  EXPECT_EQ(flags.opencl_winograd, "auto");
  ASSERT_TRUE(Parse({"--model_file=m", "--cpu_blocked_layout=off", "--opencl_winograd=on"},
                    &flags, &error))
      << error;
  EXPECT_EQ(flags.cpu_blocked_layout, "off");
  EXPECT_EQ(flags.opencl_winograd, "on");
  EXPECT_FALSE(Parse({"--model_file=m", "--cpu_blocked_layout=yes"}, &flags, &error));
  EXPECT_EQ(error, "bad value 'yes' for --cpu_blocked_layout");
  EXPECT_FALSE(Parse({"--model_file=m", "--opencl_winograd=2"}, &flags, &error));
}

TEST(RunFlagsTest, ParsesDspFlags) {
  RunFlags flags;
  std::string error;
  EXPECT_TRUE(flags.dsp_image.empty());
  EXPECT_EQ(flags.dsp_timeout_ms, 0);  // 0: the environment's, else the default
  ASSERT_TRUE(Parse({"--model_file=m", "--device=HEXAGON", "--dsp_image=/d/dsp_runtime.elf",
                     "--dsp_emulator=/q/qemu-hexagon", "--dsp_timeout_ms=120000"},
                    &flags, &error))
      << error;
  EXPECT_EQ(flags.dsp_image, "/d/dsp_runtime.elf");
  EXPECT_EQ(flags.dsp_emulator, "/q/qemu-hexagon");
  EXPECT_EQ(flags.dsp_timeout_ms, 120000);
  for (const char* bad : {"--dsp_timeout_ms=0", "--dsp_timeout_ms=-3", "--dsp_timeout_ms=86400001",
                          "--dsp_image="}) {
    EXPECT_FALSE(Parse({"--model_file=m", bad}, &flags, &error)) << bad;
  }
  EXPECT_EQ(error, "bad value '' for --dsp_image");
}

}  // namespace
}  // namespace tools
}  // namespace mace
