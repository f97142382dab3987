// Replays the engine fuzz target's structured mutations from a fixed seed in
// the normal test suite (and its sanitizer builds): every mutated model is
// refused with a status or runs; none crashes.
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "mace/proto/mace.pb.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed);

// libFuzzer's byte mutator, which the custom mutator falls back to; outside
// a fuzzing build a bit flip stands in for it.
extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t /*max_size*/) {
  static std::minstd_rand rng(5);
  if (size > 0) data[rng() % size] ^= static_cast<uint8_t>(1u << (rng() % 8));
  return size;
}

namespace {

// Conv2D (3x3, 3 -> 4 channels, SAME) then global average pooling, with an
// offline memory plan for both outputs.
std::string PlannedSeed() {
  mace::NetDef net;
  mace::InputOutputInfo* input = net.add_input_info();
  input->set_name("x");
  for (int64_t d : {1, 3, 5, 5}) input->add_dims(d);
  net.add_output_info()->set_name("y");
  std::vector<float> w(4 * 3 * 3 * 3);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i % 5) * 0.25f - 0.5f;
  mace::ConstTensor* tensor = net.add_tensors();
  tensor->set_name("w");
  for (int64_t d : {4, 3, 3, 3}) tensor->add_dims(d);
  tensor->set_data_size(w.size());
  mace::OperatorDef* conv = net.add_op();
  conv->set_type("Conv2D");
  conv->set_name("conv");
  conv->add_input("x");
  conv->add_input("w");
  conv->add_output("c");
  mace::Argument* padding = conv->add_arg();
  padding->set_name("padding");
  padding->set_i(1);
  conv->add_output_mem_offset(0);
  mace::OperatorDef* pool = net.add_op();
  pool->set_type("Pooling");
  pool->set_name("pool");
  pool->add_input("c");
  pool->add_output("y");
  mace::Argument* type = pool->add_arg();
  type->set_name("pooling_type");
  type->set_i(1);
  mace::Argument* global = pool->add_arg();
  global->set_name("global");
  global->set_i(1);
  pool->add_output_mem_offset(448);
  const std::string graph = net.SerializeAsString();
  const uint32_t size = static_cast<uint32_t>(graph.size());
  return std::string(reinterpret_cast<const char*>(&size), 4) + graph +
         std::string(reinterpret_cast<const char*>(w.data()), w.size() * sizeof(float));
}

TEST(EngineFuzzTest, MutatedModelsAreRefusedOrRun) {
  const std::string seed = PlannedSeed();
  std::vector<uint8_t> buffer(1 << 14);
  size_t size = 0;
  int changed = 0;
  for (unsigned int i = 0; i < 3000; ++i) {
    // Chains of up to ten mutations, each chain starting from the seed.
    if (i % 10 == 0) {
      std::memcpy(buffer.data(), seed.data(), seed.size());
      size = seed.size();
      LLVMFuzzerTestOneInput(buffer.data(), size);
    }
    size = LLVMFuzzerCustomMutator(buffer.data(), size, buffer.size(), i);
    ASSERT_LE(size, buffer.size());
    changed += size != seed.size() || std::memcmp(buffer.data(), seed.data(), size) != 0;
    LLVMFuzzerTestOneInput(buffer.data(), size);
  }
  EXPECT_GT(changed, 2900);
}

}  // namespace
