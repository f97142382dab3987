// The GPU Conv2D against the CPU's reference kernel, through whole engines
// (so the converters to and from images run too), in both storages, at
// edge shapes: channels not a multiple of 4, W = 1, H = 1, batch > 1,
// outputs wider than one work-group, every window argument.
#include <string>
#include <vector>

#include "mace/runtimes/opencl/testing/gpu_engine.h"

namespace mace {
namespace {

using testing::AddInts;
using testing::Count;
using testing::ExpectGpuMatchesCpu;
using testing::ModelBuilder;

struct ConvCase {
  std::string name;
  std::vector<int64_t> input;   // NCHW
  std::vector<int64_t> filter;  // OIHW
  std::vector<int64_t> strides = {1, 1};
  std::vector<int64_t> dilations = {1, 1};
  int padding = 0;              // 0 VALID, 1 SAME
  std::vector<int64_t> pads;    // explicit [top, left, bottom, right]
  bool bias = true;
  std::string activation = "NOOP";
};

OperatorDef* AddConv(ModelBuilder* model, const ConvCase& c, const std::string& name,
                     const std::string& input, const std::string& output, uint32_t seed) {
  model->AddWeight(name + "_w", c.filter, testing::RandomValues(Count(c.filter), seed));
  std::vector<std::string> inputs = {input, name + "_w"};
  if (c.bias) {
    model->AddWeight(name + "_b", {c.filter[0]}, testing::RandomValues(c.filter[0], seed + 1));
    inputs.push_back(name + "_b");
  }
  OperatorDef* op = model->AddOp("Conv2D", name, inputs, output);
  AddInts(op, "strides", c.strides);
  AddInts(op, "dilations", c.dilations);
  if (!c.pads.empty()) {
    AddInts(op, "pads", c.pads);
  } else {
    ModelBuilder::SetInt(op, "padding", c.padding);
  }
  if (c.activation != "NOOP") ModelBuilder::SetString(op, "activation", c.activation);
  return op;
}

ModelBuilder ConvModel(const ConvCase& c) {
  ModelBuilder model = testing::ModelWithInput(c.input);
  AddConv(&model, c, "conv", "x", "y", 11);
  return model;
}

std::vector<ConvCase> Cases() {
  std::vector<ConvCase> cases;
  cases.push_back({"3x3_same_batch2_c3_to_5", {2, 3, 5, 7}, {5, 3, 3, 3}});
  cases.back().padding = 1;
  cases.back().activation = "RELU";
  cases.push_back({"1x1_w1", {1, 6, 3, 1}, {4, 6, 1, 1}});
  cases.back().bias = false;
  cases.push_back({"1x1_stride2_h1", {1, 8, 1, 9}, {9, 8, 1, 1}, {2, 2}});
  cases.back().activation = "RELUX";
  cases.push_back({"5x3_stride2_dilation2_pads", {1, 5, 11, 10}, {6, 5, 5, 3}, {2, 2}, {2, 2}});
  cases.back().pads = {2, 1, 0, 3};
  cases.back().activation = "LEAKYRELU";
  cases.push_back({"3x3_wide_sigmoid", {1, 4, 3, 41}, {7, 4, 3, 3}});
  cases.back().padding = 1;
  cases.back().activation = "SIGMOID";
  cases.push_back({"1x1_explicit_pad_tanh", {2, 2, 2, 3}, {3, 2, 1, 1}});
  cases.back().pads = {1, 0, 1, 1};
  cases.back().activation = "TANH";
  cases.push_back({"1x1_batch3_c13", {3, 13, 2, 2}, {5, 13, 1, 1}});
  cases.back().activation = "HARDSWISH";
  return cases;
}

class Conv2DOpenCLTest : public ::testing::TestWithParam<GPUDataType> {};

TEST_P(Conv2DOpenCLTest, MatchesTheCpuReference) {
  for (const ConvCase& c : Cases()) {
    SCOPED_TRACE(c.name);
    ExpectGpuMatchesCpu(ConvModel(c), c.input, GetParam());
  }
}

// A SIGMOID output with 5 channels leaves 3 lanes of its last block that
// the activation would make 0.5; the next convolution reads whole blocks.
TEST_P(Conv2DOpenCLTest, ChainedConvolutionsStayOnTheGpu) {
  ModelBuilder model = testing::ModelWithInput({1, 3, 6, 5});
  ConvCase first{"first", {1, 3, 6, 5}, {5, 3, 3, 3}};
  first.padding = 1;
  first.activation = "SIGMOID";
  ConvCase second{"second", {1, 5, 6, 5}, {3, 5, 1, 1}};
  AddConv(&model, first, "conv1", "x", "h", 21);
  AddConv(&model, second, "conv2", "h", "y", 31);
  std::vector<std::string> ops;
  ExpectGpuMatchesCpu(model, {1, 3, 6, 5}, GetParam(), &ops);
  EXPECT_EQ(ops, std::vector<std::string>(
                     {"BufferToImage", "Conv2D", "Conv2D", "ImageToBuffer"}));
}

// The GPU kernel refuses a grouped convolution when prepared (Accepts):
// it runs on the CPU's kernel with the reference result. The image of "x"
// made for the refused kernel is undone, so the GPU convolution that also
// reads "x" gets a converter of its own, and the sum reads the CPU's
// output through one more.
TEST_P(Conv2DOpenCLTest, RefusedGroupedConvolutionRunsOnTheCpu) {
  ModelBuilder model = testing::ModelWithInput({1, 4, 5, 6});
  ConvCase grouped{"grouped", {1, 4, 5, 6}, {6, 2, 3, 3}};
  grouped.padding = 1;
  ConvCase plain{"plain", {1, 4, 5, 6}, {6, 4, 1, 1}};
  OperatorDef* refused = AddConv(&model, grouped, "conv_grouped", "x", "h", 41);
  ModelBuilder::SetInt(refused, "group", 2);
  AddConv(&model, plain, "conv_plain", "x", "g", 51);
  OperatorDef* sum = model.AddOp("Eltwise", "sum", {"h", "g"}, "y");
  ModelBuilder::SetInt(sum, "type", 0);
  std::vector<std::string> ops;
  ExpectGpuMatchesCpu(model, {1, 4, 5, 6}, GetParam(), &ops);
  EXPECT_EQ(ops, std::vector<std::string>({"Conv2D", "BufferToImage", "Conv2D", "BufferToImage",
                                           "Eltwise", "ImageToBuffer"}));
}

INSTANTIATE_TEST_SUITE_P(Storages, Conv2DOpenCLTest,
                         ::testing::Values(GPUDataType::FP32_FP32, GPUDataType::FP16_FP32),
                         [](const ::testing::TestParamInfo<GPUDataType>& info) {
                           return std::string(testing::StorageName(info.param));
                         });

}  // namespace
}  // namespace mace
