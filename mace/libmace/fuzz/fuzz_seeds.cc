// Writes seed inputs for model_loader_fuzzer and engine_fuzzer: small valid
// models in the fuzzers' [graph length][graph][weights] layout.
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "mace/proto/mace.pb.h"

namespace {

void AddArg(mace::OperatorDef* op, const std::string& name, int64_t value) {
  mace::Argument* arg = op->add_arg();
  arg->set_name(name);
  arg->set_i(value);
}

std::string Pack(const mace::NetDef& net, const std::string& weights) {
  const std::string graph = net.SerializeAsString();
  const uint32_t size = static_cast<uint32_t>(graph.size());
  std::string packed(reinterpret_cast<const char*>(&size), 4);
  return packed + graph + weights;
}

mace::NetDef ConvNet(std::string* weights) {
  mace::NetDef net;
  mace::InputOutputInfo* input = net.add_input_info();
  input->set_name("x");
  for (int64_t d : {1, 3, 5, 5}) input->add_dims(d);
  net.add_output_info()->set_name("y");
  std::vector<float> w(4 * 3 * 3 * 3, 0.25f);
  mace::ConstTensor* tensor = net.add_tensors();
  tensor->set_name("w");
  for (int64_t d : {4, 3, 3, 3}) tensor->add_dims(d);
  tensor->set_offset(0);
  tensor->set_data_size(w.size());
  weights->assign(reinterpret_cast<const char*>(w.data()), w.size() * sizeof(float));
  mace::OperatorDef* conv = net.add_op();
  conv->set_type("Conv2D");
  conv->set_name("conv");
  conv->add_input("x");
  conv->add_input("w");
  conv->add_output("c");
  AddArg(conv, "padding", 1);
  mace::OperatorDef* pool = net.add_op();
  pool->set_type("Pooling");
  pool->set_name("pool");
  pool->add_input("c");
  pool->add_output("y");
  AddArg(pool, "pooling_type", 2);
  AddArg(pool, "global", 1);
  return net;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fuzz_seeds OUTPUT_DIR\n");
    return 2;
  }
  std::string weights;
  const mace::NetDef conv = ConvNet(&weights);
  std::ofstream(std::string(argv[1]) + "/conv_pool", std::ios::binary) << Pack(conv, weights);
  mace::NetDef reshape = conv;
  reshape.mutable_op(1)->set_type("Softmax");
  reshape.mutable_op(1)->clear_arg();
  std::ofstream(std::string(argv[1]) + "/conv_softmax", std::ios::binary)
      << Pack(reshape, weights);
  // With an offline memory plan: the conv output (400 bytes) at 0, the pool
  // output after it.
  mace::NetDef planned = conv;
  planned.mutable_op(0)->add_output_mem_offset(0);
  planned.mutable_op(1)->add_output_mem_offset(448);
  std::ofstream(std::string(argv[1]) + "/conv_pool_planned", std::ios::binary)
      << Pack(planned, weights);
  return 0;
}
