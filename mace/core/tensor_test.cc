#include "mace/core/tensor.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace mace {
namespace {

TEST(TensorTest, ShapeAndSizes) {
  Tensor tensor("t", DT_FLOAT);
  tensor.Reshape({2, 3, 5});
  EXPECT_EQ(tensor.dim_size(), 3);
  EXPECT_EQ(tensor.size(), 30);
  EXPECT_EQ(tensor.raw_size(), 120);
  EXPECT_EQ(tensor.dim(-1), 5);
  EXPECT_EQ(tensor.dim(0), 2);
  EXPECT_EQ(ShapeToString(tensor.shape()), "[2,3,5]");
  EXPECT_EQ(tensor.DebugString(), "t float32[2,3,5]");
}

TEST(TensorTest, ScalarHasOneElement) {
  Tensor tensor("s", DT_INT32);
  tensor.Reshape({});
  EXPECT_EQ(tensor.size(), 1);
  EXPECT_EQ(tensor.raw_size(), 4);
}

TEST(TensorTest, OwnedBufferIsZeroedAndAligned) {
  Tensor tensor("t", DT_FLOAT);
  tensor.Reshape({7});
  tensor.AllocateOwned();
  ASSERT_NE(tensor.mutable_data<float>(), nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(tensor.raw_data()) % 8, 0u);
  for (int i = 0; i < 7; ++i) EXPECT_EQ(tensor.data<float>()[i], 0.f);
  EXPECT_GE(tensor.capacity(), 28);
}

TEST(TensorTest, WeightsAreReadOnly) {
  const float values[2] = {1.f, 2.f};
  Tensor tensor("w", DT_FLOAT);
  tensor.Reshape({2});
  tensor.SetConstBuffer(values, sizeof(values));
  EXPECT_TRUE(tensor.is_weight());
  EXPECT_EQ(tensor.data<float>()[1], 2.f);
  // Kernels can never write through a weight by accident.
  EXPECT_EQ(tensor.raw_mutable_data(), nullptr);

  std::vector<float> scratch(2);
  tensor.SetBuffer(scratch.data(), 8);
  EXPECT_FALSE(tensor.is_weight());
  EXPECT_EQ(tensor.mutable_data<float>(), scratch.data());
}

TEST(TypesTest, DataTypeSizes) {
  EXPECT_EQ(DataTypeSize(DT_FLOAT), 4);
  EXPECT_EQ(DataTypeSize(DT_INT32), 4);
  EXPECT_EQ(DataTypeSize(DT_UINT8), 1);
  EXPECT_EQ(DataTypeSize(DT_HALF), 2);
  EXPECT_EQ(DataTypeSize(DT_INVALID), 0);
  EXPECT_EQ(AlignUp(65, 64), 128);
  EXPECT_EQ(AlignUp(64, 64), 64);
  EXPECT_EQ(AlignUp(0, 64), 0);
}

}  // namespace
}  // namespace mace
