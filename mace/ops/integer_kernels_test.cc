// Which kernels the ops register by data type: every op its float kernel,
// and its uint8 kernel only when the build keeps the integer kernels. A
// build with --define=mace_integer_kernels=off (a model-specific library
// for float models) compiles the ops, and this test, with
// MACE_INTEGER_KERNELS=0; tools/test.sh runs the test in both builds.
#include "gtest/gtest.h"
#include "mace/core/op_registry.h"
#include "mace/ops/op_registration.h"
#include "mace/ops/registry.h"

namespace mace {
namespace ops {
namespace {

TEST(IntegerKernelsTest, RegisteredAsTheBuildSays) {
  OpRegistry registry;
  for (auto* register_fn : {RegisterConv2D, RegisterDepthwiseConv2d, RegisterEltwise,
                            RegisterFullyConnected, RegisterPooling, RegisterReshape}) {
    const MaceStatus status = register_fn(&registry);
    ASSERT_TRUE(status.ok()) << status.information();
  }
  for (const char* type :
       {"Conv2D", "DepthwiseConv2d", "Eltwise", "FullyConnected", "Pooling", "Reshape"}) {
    EXPECT_TRUE(registry.Has(type, DeviceType::CPU, DT_FLOAT)) << type;
    EXPECT_EQ(registry.Has(type, DeviceType::CPU, DT_UINT8), kIntegerKernels)
        << type << " with MACE_INTEGER_KERNELS=" << MACE_INTEGER_KERNELS;
  }
}

}  // namespace
}  // namespace ops
}  // namespace mace
