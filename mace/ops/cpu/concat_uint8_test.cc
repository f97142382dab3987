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
#include "mace/ops/registry.h"
#include "mace/ops/testing/op_tester.h"

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

// The op offers its output as the inputs' bytes one after the other only
// where that is what it computes: a single outer index and no input to
// rescale. Either way it gives the reference's bytes.
TEST(ConcatUint8Op, ConcatenatesInputsOnlyWhenItCopiesOneRun) {
  std::mt19937 rng(41018);
  struct OpCase {
    std::vector<int64_t> a_shape, b_shape;
    float b_scale;
    bool concatenates;
  };
  const OpCase cases[] = {
      {{1, 3, 2, 5}, {1, 2, 2, 5}, 0.1f, true},    // one image, shared range
      {{2, 3, 2, 5}, {2, 2, 2, 5}, 0.1f, false},   // two images: interleaved runs
      {{1, 3, 2, 5}, {1, 2, 2, 5}, 0.05f, false},  // b rescaled
  };
  for (const OpCase& c : cases) {
    const int64_t outer = c.a_shape[0];
    const int64_t a_run = c.a_shape[1] * 10, b_run = c.b_shape[1] * 10;
    std::vector<uint8_t> a = testing::RandomValues<uint8_t>(outer * a_run, 0, 255, &rng);
    std::vector<uint8_t> b = testing::RandomValues<uint8_t>(outer * b_run, 0, 255, &rng);
    std::vector<ref::quantized::ConcatInput> inputs(2);
    inputs[0].data = a.data();
    inputs[0].run = a_run;
    inputs[0].zero_point = 7;
    inputs[1].data = b.data();
    inputs[1].run = b_run;
    inputs[1].zero_point = 7;
    inputs[1].rescale = c.b_scale != 0.1f;
    if (inputs[1].rescale) {
      ASSERT_TRUE(MakeQuantizedMultiplier(c.b_scale / 0.1, "test", &inputs[1].multiplier).ok());
    }
    std::vector<uint8_t> expected(outer * (a_run + b_run));
    ref::quantized::Concat(outer, inputs, 7, expected.data());
    testing::OpTester tester("Concat", RegisterConcat);
    tester.KernelType(DT_UINT8)
        .QuantizedInput("a", c.a_shape, a, 0.1f, 7)
        .QuantizedInput("b", c.b_shape, b, c.b_scale, 7)
        .QuantizedOutput("y", 0.1f, 7)
        .Arg("axis", 1);
    ASSERT_TRUE(tester.Run().ok());
    EXPECT_EQ(tester.op().OutputConcatenatesInputs(), c.concatenates) << "outer " << outer;
    EXPECT_EQ(tester.OutputBytes("y"), expected) << "outer " << outer;
  }
}

}  // namespace
}  // namespace ops
}  // namespace mace
