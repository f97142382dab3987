// The GPU MatMul against the CPU reference in both storages: ranks 2 to 4,
// transposes, broadcast batch dimensions, a constant B and bias, sizes not
// a multiple of 4.
#include <string>
#include <vector>

#include "mace/runtimes/opencl/testing/gpu_op_test.h"

namespace mace {
namespace testing {
namespace {

struct MatMulCase {
  std::vector<int64_t> a, b;
  bool transpose_a = false, transpose_b = false, bias = false;
};

using MatMulOpenCLTest = GpuOpTest;

TEST_P(MatMulOpenCLTest, ConstantBMatchesTheCpuReference) {
  const std::vector<MatMulCase> cases = {
      {{3, 5}, {5, 6}},
      {{5, 3}, {6, 5}, true, true, true},
      {{2, 3, 7}, {7, 9}, false, false, true},
      {{2, 2, 1, 5}, {2, 1, 5, 3}},
      {{1, 4, 9}, {1, 9, 17}, false, false, true},
      {{2, 3, 6, 1}, {3, 6, 2}, true, false, false},
  };
  for (const MatMulCase& c : cases) {
    SCOPED_TRACE(ShapeName(c.a) + " x " + ShapeName(c.b));
    std::vector<std::string> weights = {"b"};
    if (c.bias) weights.push_back("bias");
    OpModel m("MatMul", c.a, weights);
    m.AddWeight("b", c.b, 7);
    if (c.bias) m.AddWeight("bias", {c.transpose_b ? c.b[c.b.size() - 2] : c.b.back()}, 8);
    ModelBuilder::SetInt(m.op, "transpose_a", c.transpose_a);
    ModelBuilder::SetInt(m.op, "transpose_b", c.transpose_b);
    ExpectOpOnGpu(m, GetParam());
  }
}

// A x A^T: both operands are activations.
TEST_P(MatMulOpenCLTest, TwoActivations) {
  OpModel m("MatMul", {2, 5, 6});
  m.op->add_input("x");
  ModelBuilder::SetInt(m.op, "transpose_b", 1);
  ExpectOpOnGpu(m, GetParam());
}

INSTANTIATE_STORAGES(MatMulOpenCLTest);

}  // namespace
}  // namespace testing
}  // namespace mace
