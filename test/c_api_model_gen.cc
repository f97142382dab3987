// Writes the small model the C API test loads: input x [1, 2, 3, 3];
// y = RELU(1x1 conv of x with w = [[1, 2], [-1, 0.5]] and bias
// [0.5, -0.25]) [1, 2, 3, 3]; idx = ArgMax of x over channels [1, 1, 3, 3]
// (int32). With two more paths it also writes a uint8 model for the
// Hexagon DSP options: x [1, 2, 3, 3] float -> Quantize -> 1x1 Conv2D
// (uint8 weights) -> Dequantize -> y. With two more it writes the first
// model again with a dynamic input: x [1, 2, 3, 3], largest [1, 2, 8, 8]
// (max_dims), so its height and width may change between runs. With two
// more it writes a model of typed inputs and outputs: ids [4] int64 ->
// twice = ids + ids (int64; the op computes in float32), and mask [4] bool
// -> mask_out = mask (bool). With two more it writes a model with a
// one-element input: x [4] and scale [1] (float32) -> scaled = x * scale.
//
//   c_api_model_gen OUT.pb OUT.data [DSP.pb DSP.data [DYNAMIC.pb DYNAMIC.data
//                   [TYPED.pb TYPED.data [SCALAR.pb SCALAR.data]]]]
#include <cstdio>
#include <fstream>
#include <string>
#include <utility>

#include "test/model_builder.h"

namespace {

int WriteFiles(const mace::testing::ModelBuilder& model, const char* graph_path,
               const char* data_path) {
  std::ofstream graph(graph_path, std::ios::binary);
  graph << model.Graph();
  std::ofstream data(data_path, std::ios::binary);
  data << model.data;
  return graph && data ? 0 : 1;
}

void SetQuantizeInfo(mace::OperatorDef* op, float scale, int32_t zero_point) {
  mace::QuantizeActivationInfo* info = op->add_quantize_info();
  info->set_scale(scale);
  info->set_zero_point(zero_point);
}

int WriteDspModel(const char* graph_path, const char* data_path) {
  using mace::testing::ModelBuilder;
  ModelBuilder model;
  mace::InputOutputInfo* input = model.net.add_input_info();
  input->set_name("x");
  for (int64_t d : {1, 2, 3, 3}) input->add_dims(d);
  model.net.add_output_info()->set_name("y");
  mace::OperatorDef* quantize = model.AddOp("Quantize", "quantize", {"x"}, "xq");
  ModelBuilder::SetInt(quantize, "T", mace::DT_UINT8);
  SetQuantizeInfo(quantize, 0.02f, 128);
  const uint8_t w[4] = {200, 60, 90, 170};
  mace::ConstTensor* weight = model.AddRawWeight("w", {2, 2, 1, 1}, mace::DT_UINT8, w, 4, 1);
  weight->set_scale(0.01f);
  weight->set_zero_point(128);
  mace::OperatorDef* conv = model.AddOp("Conv2D", "conv", {"xq", "w"}, "yq");
  ModelBuilder::SetInt(conv, "T", mace::DT_UINT8);
  SetQuantizeInfo(conv, 0.02f, 128);
  model.AddOp("Dequantize", "dequantize", {"yq"}, "y");
  return WriteFiles(model, graph_path, data_path);
}

// The float model; `dynamic` gives x its max_dims.
int WriteModel(const char* graph_path, const char* data_path, bool dynamic) {
  mace::testing::ModelBuilder model;
  mace::InputOutputInfo* input = model.net.add_input_info();
  input->set_name("x");
  for (int64_t d : {1, 2, 3, 3}) input->add_dims(d);
  if (dynamic) {
    for (int64_t d : {1, 2, 8, 8}) input->add_max_dims(d);
  }
  model.net.add_output_info()->set_name("y");
  mace::InputOutputInfo* idx = model.net.add_output_info();
  idx->set_name("idx");
  idx->set_data_type(mace::DT_INT32);
  model.AddWeight("w", {2, 2, 1, 1}, {1.f, 2.f, -1.f, 0.5f});
  model.AddWeight("b", {2}, {0.5f, -0.25f});
  mace::OperatorDef* conv = model.AddOp("Conv2D", "conv", {"x", "w", "b"}, "y");
  mace::testing::ModelBuilder::SetString(conv, "activation", "RELU");
  mace::OperatorDef* argmax = model.AddOp("ArgMax", "argmax", {"x"}, "idx");
  mace::testing::ModelBuilder::SetInt(argmax, "axis", 1);
  return WriteFiles(model, graph_path, data_path);
}

int WriteTypedModel(const char* graph_path, const char* data_path) {
  mace::testing::ModelBuilder model;
  for (const auto& [name, type] : {std::pair<const char*, mace::IODataType>{"ids", mace::IO_INT64},
                                   {"mask", mace::IO_BOOL}}) {
    mace::InputOutputInfo* input = model.net.add_input_info();
    input->set_name(name);
    input->add_dims(4);
    input->set_data_format(0);
    input->set_app_data_type(type);
  }
  for (const auto& [name, type] : {std::pair<const char*, mace::IODataType>{"twice", mace::IO_INT64},
                                   {"mask_out", mace::IO_BOOL}}) {
    mace::InputOutputInfo* output = model.net.add_output_info();
    output->set_name(name);
    output->set_data_format(0);
    output->set_app_data_type(type);
  }
  mace::OperatorDef* add = model.AddOp("Eltwise", "add", {"ids", "ids"}, "twice");
  mace::testing::ModelBuilder::SetInt(add, "type", 0);
  model.AddOp("Identity", "id", {"mask"}, "mask_out");
  return WriteFiles(model, graph_path, data_path);
}

int WriteScalarModel(const char* graph_path, const char* data_path) {
  mace::testing::ModelBuilder model;
  for (const auto& [name, size] : {std::pair<const char*, int64_t>{"x", 4}, {"scale", 1}}) {
    mace::InputOutputInfo* input = model.net.add_input_info();
    input->set_name(name);
    input->add_dims(size);
    input->set_data_format(0);
  }
  mace::InputOutputInfo* output = model.net.add_output_info();
  output->set_name("scaled");
  output->set_data_format(0);
  mace::OperatorDef* product = model.AddOp("Eltwise", "product", {"x", "scale"}, "scaled");
  mace::testing::ModelBuilder::SetInt(product, "type", 2);  // PROD
  return WriteFiles(model, graph_path, data_path);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 && argc != 5 && argc != 7 && argc != 9 && argc != 11) {
    std::fprintf(stderr, "usage: c_api_model_gen OUT.pb OUT.data [DSP.pb DSP.data "
                 "[DYNAMIC.pb DYNAMIC.data [TYPED.pb TYPED.data [SCALAR.pb SCALAR.data]]]]\n");
    return 2;
  }
  if (WriteModel(argv[1], argv[2], false) != 0) return 1;
  if (argc >= 5 && WriteDspModel(argv[3], argv[4]) != 0) return 1;
  if (argc >= 7 && WriteModel(argv[5], argv[6], true) != 0) return 1;
  if (argc >= 9 && WriteTypedModel(argv[7], argv[8]) != 0) return 1;
  return argc == 11 ? WriteScalarModel(argv[9], argv[10]) : 0;
}
