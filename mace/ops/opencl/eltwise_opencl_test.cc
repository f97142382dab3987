// The GPU Eltwise against the CPU's reference kernel in both storages:
// every type on two computed tensors, coeff, broadcasting of a computed
// [N, C, 1, 1] tensor and of constants of lower rank (a channel count of 1
// included), constants as either operand, the scalar forms and the unary
// types, channels not a multiple of 4.
#include <string>
#include <vector>

#include "mace/runtimes/opencl/testing/gpu_engine.h"

namespace mace {
namespace {

using testing::ModelBuilder;

const std::vector<int64_t> kShape = {2, 5, 3, 4};

// x -> RELU -> r, x -> global average pooling -> p, then y = Eltwise of the
// named operands.
ModelBuilder EltwiseModel(int type, const std::vector<std::string>& operands) {
  ModelBuilder model = testing::ModelWithInput(kShape);
  ModelBuilder::SetString(model.AddOp("Activation", "relu", {"x"}, "r"), "activation", "RELU");
  OperatorDef* pool = model.AddOp("Pooling", "pool", {"x"}, "p");
  ModelBuilder::SetInt(pool, "global", 1);
  model.AddWeight("wc", {5, 1, 1}, testing::RandomValues(5, 21));
  model.AddWeight("ww", {4}, testing::RandomValues(4, 22));
  model.AddWeight("whw", {1, 3, 4}, testing::RandomValues(12, 23));
  OperatorDef* op = model.AddOp("Eltwise", "eltwise", operands, "y");
  ModelBuilder::SetInt(op, "type", type);
  return model;
}

class EltwiseOpenCLTest : public ::testing::TestWithParam<GPUDataType> {};

TEST_P(EltwiseOpenCLTest, EveryTypeOnTwoComputedTensors) {
  for (int type : {0, 1, 2, 3, 4, 5, 8, 9}) {
    SCOPED_TRACE("type " + std::to_string(type));
    // POW takes the non-negative r as its base.
    const std::vector<std::string> operands =
        type == 9 ? std::vector<std::string>{"r", "x"} : std::vector<std::string>{"x", "r"};
    testing::ExpectGpuMatchesCpu(EltwiseModel(type, operands), kShape, GetParam());
  }
  ModelBuilder model = EltwiseModel(0, {"x", "r"});
  Argument* coeff = model.Op("eltwise")->add_arg();
  coeff->set_name("coeff");
  coeff->add_floats(0.5f);
  coeff->add_floats(-2.f);
  ModelBuilder::SetString(model.Op("eltwise"), "activation", "TANH");
  testing::ExpectGpuMatchesCpu(model, kShape, GetParam());
}

TEST_P(EltwiseOpenCLTest, BroadcastsComputedTensorsAndConstants) {
  const std::vector<std::vector<std::string>> pairs = {
      {"x", "p"}, {"p", "x"}, {"x", "wc"}, {"ww", "x"}, {"x", "whw"}};
  for (const std::vector<std::string>& operands : pairs) {
    for (int type : {0, 1, 2}) {
      SCOPED_TRACE(operands[0] + " " + operands[1] + " type " + std::to_string(type));
      std::vector<std::string> ops;
      testing::ExpectGpuMatchesCpu(EltwiseModel(type, operands), kShape, GetParam(), &ops);
      EXPECT_EQ(ops.back(), "ImageToBuffer");
      EXPECT_EQ(ops[ops.size() - 2], "Eltwise");
    }
  }
}

TEST_P(EltwiseOpenCLTest, ScalarAndUnaryForms) {
  for (int type : {6, 7}) {
    testing::ExpectGpuMatchesCpu(EltwiseModel(type, {"x"}), kShape, GetParam());
  }
  for (int index : {0, 1}) {
    for (int type : {1, 3, 4}) {
      SCOPED_TRACE("scalar index " + std::to_string(index) + " type " + std::to_string(type));
      ModelBuilder model = EltwiseModel(type, {"x"});
      Argument* scalar = model.Op("eltwise")->add_arg();
      scalar->set_name("scalar_input");
      scalar->set_f(0.5f);
      ModelBuilder::SetInt(model.Op("eltwise"), "scalar_input_index", index);
      testing::ExpectGpuMatchesCpu(model, kShape, GetParam());
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Storages, EltwiseOpenCLTest,
                         ::testing::Values(GPUDataType::FP32_FP32, GPUDataType::FP16_FP32),
                         [](const ::testing::TestParamInfo<GPUDataType>& info) {
                           return std::string(testing::StorageName(info.param));
                         });

}  // namespace
}  // namespace mace
