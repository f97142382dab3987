// Writes the small model the C API test loads: input x [1, 2, 3, 3];
// y = RELU(1x1 conv of x with w = [[1, 2], [-1, 0.5]] and bias
// [0.5, -0.25]) [1, 2, 3, 3]; idx = ArgMax of x over channels [1, 1, 3, 3]
// (int32).
//
//   c_api_model_gen OUT.pb OUT.data
#include <cstdio>
#include <fstream>
#include <string>

#include "test/model_builder.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: c_api_model_gen OUT.pb OUT.data\n");
    return 2;
  }
  mace::testing::ModelBuilder model;
  mace::InputOutputInfo* input = model.net.add_input_info();
  input->set_name("x");
  for (int64_t d : {1, 2, 3, 3}) input->add_dims(d);
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
  std::ofstream graph(argv[1], std::ios::binary);
  graph << model.Graph();
  std::ofstream data(argv[2], std::ios::binary);
  data << model.data;
  return graph && data ? 0 : 1;
}
