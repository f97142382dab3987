#include "mace/core/op_registry.h"

#include <memory>

#include "gtest/gtest.h"

namespace mace {
namespace {

class NoOp : public Operation {
 public:
  MaceStatus Prepare(OpContext*) override { return MaceStatus(); }
  MaceStatus Run(OpContext*) override { return MaceStatus(); }
};

TEST(OpRegistryTest, KeyedByTypeDeviceAndDataType) {
  OpRegistry registry;
  ASSERT_TRUE(RegisterOp<NoOp>(&registry, "NoOp", DeviceType::CPU, DT_FLOAT).ok());
  EXPECT_TRUE(registry.Has("NoOp", DeviceType::CPU, DT_FLOAT));
  EXPECT_FALSE(registry.Has("NoOp", DeviceType::CPU, DT_UINT8));
  EXPECT_FALSE(registry.Has("NoOp", DeviceType::GPU, DT_FLOAT));
  EXPECT_FALSE(registry.Has("Other", DeviceType::CPU, DT_FLOAT));
  EXPECT_NE(registry.Create("NoOp", DeviceType::CPU, DT_FLOAT), nullptr);
  EXPECT_EQ(registry.Create("NoOp", DeviceType::GPU, DT_FLOAT), nullptr);
  EXPECT_EQ(registry.OpTypes(), std::vector<std::string>{"NoOp"});
}

TEST(OpRegistryTest, RefusesDuplicates) {
  OpRegistry registry;
  ASSERT_TRUE(RegisterOp<NoOp>(&registry, "NoOp", DeviceType::CPU, DT_FLOAT).ok());
  const MaceStatus again = RegisterOp<NoOp>(&registry, "NoOp", DeviceType::CPU, DT_FLOAT);
  EXPECT_FALSE(again.ok());
  EXPECT_NE(again.information().find("NoOp"), std::string::npos) << again.information();
  // Another data type is another kernel.
  EXPECT_TRUE(RegisterOp<NoOp>(&registry, "NoOp", DeviceType::CPU, DT_UINT8).ok());
}

TEST(OpRegistryTest, FusionsKeyedByPairDeviceAndDataType) {
  OpRegistry registry;
  ASSERT_TRUE(registry
                  .RegisterFusion("A", "B", DeviceType::CPU, DT_FLOAT,
                                  [](Operation*, const Operation&) { return true; })
                  .ok());
  EXPECT_NE(registry.FindFusion("A", "B", DeviceType::CPU, DT_FLOAT), nullptr);
  // The pair is ordered: producer first.
  EXPECT_EQ(registry.FindFusion("B", "A", DeviceType::CPU, DT_FLOAT), nullptr);
  EXPECT_EQ(registry.FindFusion("A", "A", DeviceType::CPU, DT_FLOAT), nullptr);
  EXPECT_EQ(registry.FindFusion("A", "C", DeviceType::CPU, DT_FLOAT), nullptr);
  EXPECT_EQ(registry.FindFusion("A", "B", DeviceType::CPU, DT_UINT8), nullptr);
  EXPECT_EQ(registry.FindFusion("A", "B", DeviceType::GPU, DT_FLOAT), nullptr);
  // Fusions are no kernels.
  EXPECT_TRUE(registry.OpTypes().empty());
  const MaceStatus again = registry.RegisterFusion(
      "A", "B", DeviceType::CPU, DT_FLOAT, [](Operation*, const Operation&) { return false; });
  EXPECT_FALSE(again.ok());
  EXPECT_NE(again.information().find("'B'"), std::string::npos) << again.information();
  EXPECT_TRUE(registry
                  .RegisterFusion("A", "B", DeviceType::CPU, DT_UINT8,
                                  [](Operation*, const Operation&) { return false; })
                  .ok());
}

}  // namespace
}  // namespace mace
