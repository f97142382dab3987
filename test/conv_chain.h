// A chain of 3x3 convolutions (SAME, RELU) for the cancellation and
// pipeline tests: x[1,C,S,S] -> layers x Conv2D C->C -> y, seeded weights.
#ifndef TEST_CONV_CHAIN_H_
#define TEST_CONV_CHAIN_H_

#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "test/model_builder.h"

namespace mace {
namespace testing {

struct ConvChain : ModelBuilder {
  ConvChain(const std::string& name, int channels, int size, int layers, uint32_t seed)
      : channels(channels), size(size) {
    net.set_name(name);
    InputOutputInfo* input = net.add_input_info();
    input->set_name("x");
    for (int64_t d : {1, channels, size, size}) input->add_dims(d);
    net.add_output_info()->set_name("y");
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> uniform(-0.1f, 0.1f);
    std::string from = "x";
    for (int layer = 0; layer < layers; ++layer) {
      std::vector<float> w(channels * channels * 9);
      for (float& v : w) v = uniform(rng);
      const std::string weight = "w" + std::to_string(layer);
      AddWeight(weight, {channels, channels, 3, 3}, w);
      const std::string to = layer + 1 == layers ? "y" : "c" + std::to_string(layer);
      OperatorDef* conv = AddOp("Conv2D", "conv" + std::to_string(layer), {from, weight}, to);
      SetInt(conv, "padding", 1);
      SetString(conv, "activation", "RELU");
      from = to;
    }
  }

  // Input "x" of uniform values in [-1, 1) drawn from `seed`.
  std::map<std::string, MaceTensor> Input(uint32_t seed) const {
    const int64_t count = int64_t{channels} * size * size;
    std::shared_ptr<float> x(new float[count], std::default_delete<float[]>());
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> uniform(-1.f, 1.f);
    for (int64_t i = 0; i < count; ++i) x.get()[i] = uniform(rng);
    return {{"x", MaceTensor({1, channels, size, size}, x)}};
  }

  const int channels;
  const int size;
};

}  // namespace testing
}  // namespace mace

#endif  // TEST_CONV_CHAIN_H_
