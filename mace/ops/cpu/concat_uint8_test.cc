// The uint8 Concat's fast path (concat_uint8_fast.h) against
// ref::quantized::Concat, bit for bit, with each kernel table's output
// step: copied and rescaled inputs, runs shorter and longer than a block
// and not multiples of the vector width, zero points 0 and 255, scale
// ratios near 1 and a ratio above 1 (the scalar rule), 1 to 3 threads.
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "mace/ops/cpu/concat_uint8_fast.h"
#include "mace/ops/cpu/kernel_test_util.h"

namespace mace {
namespace ops {
namespace {

struct InputCase {
  int64_t run;
  int32_t zero_point;
  double ratio;  // input scale / output scale; 0: quantized like the output
};

struct Case {
  int64_t outer;
  std::vector<InputCase> inputs;
  int32_t output_zero_point;
};

const Case kCases[] = {
    {1, {{1, 0, 0.7}, {1, 255, 0.3}}, 128},
    {1, {{3025 * 64, 0, 0.0}, {3025 * 64, 0, 0.83}}, 0},          // a fire module
    {1, {{1025, 7, 0.999}, {31, 200, 0.5}, {17, 0, 0.0}}, 255},
    {3, {{33, 255, 0.25}, {1023, 3, 0.9}, {5, 9, 1.7}}, 19},      // 1.7: the scalar rule
    {2, {{2048, 128, 0.0}, {4095, 100, 0.0001}}, 77},
};

TEST(ConcatUint8Fast, MatchesReferenceExactly) {
  std::mt19937 rng(41017);
  for (const Case& c : kCases) {
    std::vector<std::vector<uint8_t>> data;
    std::vector<ref::quantized::ConcatInput> inputs;
    int64_t total = 0;
    for (const InputCase& in : c.inputs) {
      data.push_back(testing::RandomValues<uint8_t>(c.outer * in.run, 0, 255, &rng));
      ref::quantized::ConcatInput input;
      input.data = data.back().data();
      input.run = in.run;
      input.zero_point = in.zero_point;
      input.rescale = in.ratio != 0.0;
      if (input.rescale) {
        ASSERT_TRUE(MakeQuantizedMultiplier(in.ratio, "test", &input.multiplier).ok());
      }
      inputs.push_back(input);
      total += c.outer * in.run;
    }
    std::vector<uint8_t> expected(total);
    ref::quantized::Concat(c.outer, inputs, c.output_zero_point, expected.data());
    int tested = 0;
    for (const KernelTable* table : testing::TablesUnderTest()) {
      if (table->requantize_row == nullptr) continue;
      ++tested;
      SCOPED_TRACE(::testing::Message() << table->name << " first run " << c.inputs[0].run);
      EXPECT_EQ(testing::FirstMismatch(expected,
                                       [&](ThreadPool* pool, uint8_t* out) {
                                         ConcatUint8Fast(c.outer, inputs, c.output_zero_point,
                                                         out, table->requantize_row, pool);
                                       }),
                "");
    }
    // Without an output step every input takes the reference rule.
    EXPECT_EQ(testing::FirstMismatch(expected,
                                     [&](ThreadPool* pool, uint8_t* out) {
                                       ConcatUint8Fast(c.outer, inputs, c.output_zero_point, out,
                                                       nullptr, pool);
                                     }),
              "");
    if (tested == 0) GTEST_SKIP() << "no kernel table of this CPU has a uint8 output step";
  }
}

}  // namespace
}  // namespace ops
}  // namespace mace
