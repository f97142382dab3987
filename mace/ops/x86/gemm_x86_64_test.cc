// x86-64's kernel tables against the CPU's features: built into
// cpu_gemm_test on x86-64 (BUILD.bazel, TEST_PORT_SRCS).
#include "gtest/gtest.h"
#include "mace/ops/cpu/kernel_table.h"
#include "mace/runtimes/cpu/cpu_features.h"

namespace mace {
namespace ops {
namespace {

TEST(GemmTest, X86KernelTablesMatchTheCpu) {
  EXPECT_EQ(KernelTableFor(KernelIsa::kNeon), nullptr);
  const CpuFeatures features = DetectCpuFeatures();
  // Every family the CPU has gets a table, not only the best one.
  EXPECT_EQ(KernelTableFor(KernelIsa::kAvx2Fma) != nullptr, features.avx2_fma);
  EXPECT_EQ(KernelTableFor(KernelIsa::kAvx512) != nullptr, features.avx512);
  // Both read a FullyConnected's activations in place (the bit-for-bit
  // comparison with packing: DirectAMatchesPackedBitForBit).
  for (KernelIsa isa : {KernelIsa::kAvx2Fma, KernelIsa::kAvx512}) {
    if (const KernelTable* table = KernelTableFor(isa)) {
      EXPECT_NE(table->gemm_direct_a, nullptr);
    }
  }
  if (features.avx512) {
    // The AVX-512 table keeps the AVX2 kernels it does not replace.
    const KernelTable* avx2 = KernelTableFor(KernelIsa::kAvx2Fma);
    const KernelTable* avx512 = KernelTableFor(KernelIsa::kAvx512);
    ASSERT_NE(avx2, nullptr);
    EXPECT_NE(avx512->gemm, avx2->gemm);
    EXPECT_NE(avx512->depthwise3x3_s1, avx2->depthwise3x3_s1);
    EXPECT_NE(avx512->depthwise3x3_s2, avx2->depthwise3x3_s2);
    EXPECT_EQ(avx512->pooling, avx2->pooling);
    EXPECT_EQ(avx512->plane_sum, avx2->plane_sum);
    EXPECT_EQ(avx512->plane_max, avx2->plane_max);
    EXPECT_EQ(avx512->eltwise, avx2->eltwise);
  }
}

}  // namespace
}  // namespace ops
}  // namespace mace
