// The table form of the uint8 Eltwise (eltwise_uint8_table.h) against
// ref::quantized::Eltwise, bit for bit: add, subtract and multiply with
// random scales and zero points (0 and 255 included), every input pair,
// tensors around the thread pieces (equal ones per thread), a single-value
// second input, with 1, 2 and 3 threads; the scalar lookups and each
// kernel table's (the AVX-512 gather), with tails of 1 and 15 past its
// 16-pair step.
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "mace/ops/cpu/eltwise_uint8_table.h"
#include "mace/ops/cpu/kernel_test_util.h"

namespace mace {
namespace ops {
namespace {

using ref::quantized::EltwiseKind;

TEST(EltwiseUint8Table, MatchesReferenceExactly) {
  std::mt19937 rng(8102);
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_real_distribution<float> scale(0.001f, 0.2f);
  const int32_t zero_points[] = {0, 255, 128, 37};
  int trial = 0;
  for (EltwiseKind kind : {EltwiseKind::kAdd, EltwiseKind::kSub, EltwiseKind::kMul}) {
    for (int32_t zp : zero_points) {
      QuantParams in0, in1, out;
      in0.scale = scale(rng);
      in0.zero_point = zp;
      in1.scale = scale(rng);
      in1.zero_point = byte(rng);
      out.scale = kind == EltwiseKind::kMul ? in0.scale * in1.scale * 40.f : scale(rng);
      out.zero_point = 255 - zp;
      ref::quantized::EltwiseQuantization quant;
      ASSERT_TRUE(ref::quantized::MakeEltwiseQuantization(kind, in0, in1, out, "test", &quant).ok());
      if (trial++ % 2 == 1) quant.output = OutputClamp{out.zero_point, 10, 240};  // fused clamp
      std::vector<uint8_t> table;
      MakeEltwiseUint8Table(quant, &table);
      ASSERT_EQ(table.size(), static_cast<size_t>(kEltwiseUint8TableSize));
      // 16,384 and more split into equal pieces per thread: 16,384 in
      // two of 8,192, 18,816 (14 x 14 x 96) and 25,089 with a short last
      // piece.
      for (int64_t count : {int64_t{1}, int64_t{65536}, int64_t{16383}, int64_t{40000},
                            int64_t{16384}, int64_t{18816}, int64_t{25089}}) {
        std::vector<uint8_t> a(count), b(count);
        for (int64_t i = 0; i < count; ++i) {
          // The 65536 case holds every pair once.
          a[i] = static_cast<uint8_t>(count == 65536 ? i >> 8 : byte(rng));
          b[i] = static_cast<uint8_t>(count == 65536 ? i & 255 : byte(rng));
        }
        for (int64_t b_count : {count, int64_t{1}}) {
          std::vector<uint8_t> expected(count);
          ref::quantized::Eltwise(quant, a.data(), b.data(), count, b_count, expected.data());
          // The scalar lookups, then each kernel table's.
          std::vector<EltwiseUint8TableKernel> kernels = {nullptr};
          for (const KernelTable* kernel_table : testing::TablesUnderTest()) {
            if (kernel_table->eltwise_uint8_table != nullptr) {
              kernels.push_back(kernel_table->eltwise_uint8_table);
            }
          }
          for (EltwiseUint8TableKernel kernel : kernels) {
            const std::string mismatch =
                testing::FirstMismatch(expected, [&](ThreadPool* pool, uint8_t* got) {
                  EltwiseUint8ByTable(table.data(), a.data(), b.data(), count, b_count, got, pool,
                                      kernel);
                });
            EXPECT_EQ(mismatch, "") << "kind " << static_cast<int>(kind) << " zero point " << zp
                                    << " count " << count << " input1 count " << b_count
                                    << (kernel != nullptr ? " vector" : " scalar");
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace ops
}  // namespace mace
