#include "mace/core/workspace.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace mace {
namespace {

ConstTensor* AddWeight(NetDef* net, const std::string& name, std::vector<int64_t> dims,
                       int64_t offset, int64_t data_size, DataType dtype = DT_FLOAT) {
  ConstTensor* tensor = net->add_tensors();
  tensor->set_name(name);
  for (int64_t d : dims) tensor->add_dims(d);
  tensor->set_offset(offset);
  tensor->set_data_size(data_size);
  tensor->set_data_type(dtype);
  return tensor;
}

std::shared_ptr<WeightsBlob> Blob(const std::vector<float>& values) {
  return CopyWeights(reinterpret_cast<const unsigned char*>(values.data()),
                     static_cast<int64_t>(values.size() * sizeof(float)));
}

MaceStatus Load(const NetDef& net, const std::vector<float>& values) {
  Workspace workspace;
  return workspace.LoadWeights(net, Blob(values));
}

TEST(WorkspaceTest, CreateAndFindTensors) {
  Workspace workspace;
  Tensor* a = workspace.CreateTensor("a", DT_FLOAT);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(workspace.CreateTensor("a", DT_FLOAT), nullptr);
  EXPECT_EQ(workspace.GetTensor("a"), a);
  EXPECT_EQ(workspace.GetTensor("b"), nullptr);
  EXPECT_TRUE(workspace.HasTensor("a"));
}

TEST(WorkspaceTest, WeightsViewTheBlobInPlace) {
  NetDef net;
  AddWeight(&net, "w0", {2}, 0, 2);
  AddWeight(&net, "w1", {1, 2}, 8, 2);
  Workspace workspace;
  auto blob = Blob({1, 2, 3, 4});
  ASSERT_TRUE(workspace.LoadWeights(net, blob).ok());
  const Tensor* w1 = workspace.GetTensor("w1");
  ASSERT_NE(w1, nullptr);
  EXPECT_TRUE(w1->is_weight());
  // Zero copy: the tensor points into the blob itself.
  EXPECT_EQ(w1->raw_data(), blob->data() + 8);
  EXPECT_EQ(w1->data<float>()[1], 4.f);
  EXPECT_EQ(workspace.weights_bytes(), 16);
}

TEST(WorkspaceTest, MisalignedWeightsAreCopied) {
  NetDef net;
  AddWeight(&net, "w", {1}, 2, 1);
  std::vector<unsigned char> bytes(8, 0);
  const float value = 3.5f;
  std::memcpy(bytes.data() + 2, &value, 4);
  Workspace workspace;
  auto blob = CopyWeights(bytes.data(), 8);
  ASSERT_TRUE(workspace.LoadWeights(net, blob).ok());
  const Tensor* w = workspace.GetTensor("w");
  EXPECT_NE(w->raw_data(), blob->data() + 2);
  EXPECT_EQ(w->data<float>()[0], 3.5f);
}

TEST(WorkspaceTest, AlignedBuffersAreZeroedOrACopy) {
  for (int64_t size : {int64_t{1}, int64_t{63}, int64_t{4096}, int64_t{3} << 20}) {
    std::vector<unsigned char> source(size);
    for (int64_t i = 0; i < size; ++i) source[i] = static_cast<unsigned char>(i * 7 + 1);
    AlignedBuffer copy(size, 64, source.data());
    ASSERT_EQ(copy.size(), size);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(copy.data()) % 64, 0u);
    EXPECT_EQ(std::memcmp(copy.data(), source.data(), size), 0) << size;
    AlignedBuffer zeroed(size);
    ASSERT_EQ(zeroed.size(), size);
    EXPECT_EQ(std::vector<unsigned char>(zeroed.data(), zeroed.data() + size),
              std::vector<unsigned char>(size, 0))
        << size;
  }
  // A weights copy (weights given in memory) holds the same bytes.
  std::vector<unsigned char> bytes(5000);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<unsigned char>(255 - i % 251);
  auto blob = CopyWeights(bytes.data(), static_cast<int64_t>(bytes.size()));
  ASSERT_EQ(blob->size(), static_cast<int64_t>(bytes.size()));
  EXPECT_NE(blob->data(), bytes.data());
  EXPECT_EQ(std::memcmp(blob->data(), bytes.data(), bytes.size()), 0);
}

TEST(WorkspaceTest, RejectsOutOfRangeOffsets) {
  NetDef net;
  AddWeight(&net, "w", {4}, 4, 4);
  const MaceStatus status = Load(net, {1, 2, 3, 4});
  EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS);
  EXPECT_NE(status.information().find("weight 'w' needs 16 bytes at offset 4"), std::string::npos)
      << status.information();
  EXPECT_NE(status.information().find("only 16 bytes"), std::string::npos);
}

TEST(WorkspaceTest, RejectsNegativeAndHugeOffsets) {
  NetDef negative;
  AddWeight(&negative, "w", {1}, -4, 1);
  EXPECT_FALSE(Load(negative, {1}).ok());
  NetDef huge;
  AddWeight(&huge, "w", {1}, int64_t{1} << 62, 1);
  EXPECT_FALSE(Load(huge, {1}).ok());
  // offset + bytes would overflow int64: refused without forming the sum.
  NetDef last;
  AddWeight(&last, "w", {1}, std::numeric_limits<int64_t>::max(), 1);
  const MaceStatus status = Load(last, {1});
  EXPECT_NE(status.information().find("at offset 9223372036854775807"), std::string::npos)
      << status.information();
}

TEST(WorkspaceTest, RejectsInconsistentWeights) {
  NetDef size_mismatch;
  AddWeight(&size_mismatch, "w", {2, 2}, 0, 3);
  EXPECT_NE(Load(size_mismatch, {1, 2, 3, 4}).information().find("data_size 3"), std::string::npos);

  NetDef bad_dim;
  AddWeight(&bad_dim, "w", {-1}, 0, 1);
  EXPECT_NE(Load(bad_dim, {1}).information().find("invalid dimension -1"), std::string::npos);

  NetDef overflow;
  AddWeight(&overflow, "w", {1 << 20, 1 << 20, 1 << 20}, 0, 1);
  EXPECT_FALSE(Load(overflow, {1}).ok());

  NetDef bad_type;
  AddWeight(&bad_type, "w", {1}, 0, 1, DT_INVALID);
  EXPECT_NE(Load(bad_type, {1}).information().find("unsupported data type"), std::string::npos);

  NetDef twice;
  AddWeight(&twice, "w", {1}, 0, 1);
  AddWeight(&twice, "w", {1}, 0, 1);
  EXPECT_NE(Load(twice, {1}).information().find("defined twice"), std::string::npos);

  NetDef unnamed;
  AddWeight(&unnamed, "", {1}, 0, 1);
  EXPECT_FALSE(Load(unnamed, {1}).ok());
}

TEST(WorkspaceTest, RejectsWeightsThatShareBytes) {
  // Two weights at one offset (an offset changed to another tensor's) and
  // one starting inside another (an offset moved by less than its size).
  NetDef same;
  AddWeight(&same, "a", {2}, 0, 2);
  AddWeight(&same, "b", {2}, 0, 2);
  const MaceStatus status = Load(same, {1, 2, 3, 4});
  EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS);
  EXPECT_NE(status.information().find("overlaps weight"), std::string::npos)
      << status.information();
  NetDef inside;
  AddWeight(&inside, "a", {3}, 0, 3);
  AddWeight(&inside, "b", {1}, 8, 1);
  EXPECT_NE(Load(inside, {1, 2, 3, 4}).information().find("weight 'b' at offset 8 overlaps "
                                                          "weight 'a' at [0, +12)"),
            std::string::npos);
  // Touching ranges, listed out of order, and empty weights are fine.
  NetDef touching;
  AddWeight(&touching, "b", {2}, 8, 2);
  AddWeight(&touching, "a", {2}, 0, 2);
  AddWeight(&touching, "empty", {0}, 4, 0);
  EXPECT_TRUE(Load(touching, {1, 2, 3, 4}).ok());
}

TEST(WorkspaceTest, MapsWeightsFiles) {
  const std::string path = ::testing::TempDir() + "/workspace_test.data";
  const float values[3] = {5.f, 6.f, 7.f};
  FILE* file = std::fopen(path.c_str(), "wb");
  ASSERT_NE(file, nullptr);
  std::fwrite(values, sizeof(float), 3, file);
  std::fclose(file);

  std::shared_ptr<WeightsBlob> blob;
  ASSERT_TRUE(MapWeightsFile(path, &blob).ok());
  EXPECT_EQ(blob->size(), 12);
  NetDef net;
  AddWeight(&net, "w", {3}, 0, 3);
  Workspace workspace;
  ASSERT_TRUE(workspace.LoadWeights(net, blob).ok());
  EXPECT_EQ(workspace.GetTensor("w")->data<float>()[2], 7.f);
  std::remove(path.c_str());

  const MaceStatus missing = MapWeightsFile("/nonexistent/model.data", &blob);
  EXPECT_EQ(missing.code(), MaceStatus::MACE_INVALID_ARGS);
  EXPECT_NE(missing.information().find("/nonexistent/model.data"), std::string::npos);
  EXPECT_FALSE(MapWeightsFile(::testing::TempDir(), &blob).ok());  // a directory
}

// Every Run of an engine holding a mapped file asks CheckUnchanged first:
// one fstat, which must stay negligible next to a Run.
TEST(WorkspaceTest, AMappedFileIsCheckedWithOneFstat) {
  const std::string path = ::testing::TempDir() + "/workspace_check_test.data";
  const std::vector<float> values = {1.f, 2.f, 3.f, 4.f};
  {
    FILE* file = std::fopen(path.c_str(), "wb");
    ASSERT_NE(file, nullptr);
    std::fwrite(values.data(), sizeof(float), values.size(), file);
    std::fclose(file);
  }
  const struct timespec past[2] = {{1000000000, 0}, {1000000000, 0}};
  ASSERT_EQ(utimensat(AT_FDCWD, path.c_str(), past, 0), 0);
  std::shared_ptr<WeightsBlob> mapped, copied;
  ASSERT_TRUE(MapWeightsFile(path, &mapped).ok());
  ASSERT_TRUE(ReadWeightsFile(path, &copied).ok());
  ASSERT_EQ(copied->size(), 16);
  EXPECT_EQ(std::memcmp(copied->data(), values.data(), 16), 0);

  constexpr int kChecks = 20000;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kChecks; ++i) ASSERT_TRUE(mapped->CheckUnchanged().ok());
  const double nanos =
      std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() /
      kChecks;
  std::printf("CheckUnchanged of a mapped weights file: %.0f ns\n", nanos);
  EXPECT_LT(nanos, 20000.0);  // one system call, with room for a loaded machine

  ASSERT_EQ(truncate(path.c_str(), 8), 0);
  const MaceStatus changed = mapped->CheckUnchanged();
  EXPECT_EQ(changed.code(), MaceStatus::MACE_RUNTIME_ERROR);
  EXPECT_EQ(changed.information(), "weights file '" + path +
                                       "' changed since the engine was created; create the "
                                       "engine again");
  // The copy does not depend on the file.
  EXPECT_TRUE(copied->CheckUnchanged().ok());
  EXPECT_EQ(std::memcmp(copied->data(), values.data(), 16), 0);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace mace
