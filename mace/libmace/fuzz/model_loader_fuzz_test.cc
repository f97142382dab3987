// Deterministic mutations of a valid model through the fuzz target, so the
// normal test suite (and its sanitizer builds) exercises the same code path.
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>

#include "gtest/gtest.h"
#include "mace/proto/mace.pb.h"
#include "mace/public/mace.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

std::string Seed() {
  mace::NetDef net;
  mace::InputOutputInfo* input = net.add_input_info();
  input->set_name("x");
  for (int64_t d : {1, 2, 4, 4}) input->add_dims(d);
  net.add_output_info()->set_name("y");
  mace::ConstTensor* w = net.add_tensors();
  w->set_name("w");
  for (int64_t d : {2, 2, 1, 1}) w->add_dims(d);
  w->set_offset(0);
  w->set_data_size(4);
  mace::OperatorDef* conv = net.add_op();
  conv->set_type("Conv2D");
  conv->set_name("conv");
  conv->add_input("x");
  conv->add_input("w");
  conv->add_output("y");
  const std::string graph = net.SerializeAsString();
  const uint32_t size = static_cast<uint32_t>(graph.size());
  const float weights[4] = {1.f, 2.f, 3.f, 4.f};
  return std::string(reinterpret_cast<const char*>(&size), 4) + graph +
         std::string(reinterpret_cast<const char*>(weights), sizeof(weights));
}

TEST(ModelLoaderFuzzTest, SeedModelLoadsAndRuns) {
  // The mutations below only mean something if the unmutated seed gets all
  // the way through loading and running.
  const std::string seed = Seed();
  uint32_t graph_size = 0;
  std::memcpy(&graph_size, seed.data(), 4);
  const auto* bytes = reinterpret_cast<const unsigned char*>(seed.data());
  std::shared_ptr<mace::MaceEngine> engine;
  const mace::MaceStatus status = mace::CreateMaceEngineFromProto(
      bytes + 4, graph_size, bytes + 4 + graph_size, seed.size() - 4 - graph_size, {}, {},
      mace::MaceEngineConfig(), &engine);
  ASSERT_TRUE(status.ok()) << status.information();
  std::shared_ptr<float> input(new float[32](), std::default_delete<float[]>());
  for (int i = 0; i < 32; ++i) input.get()[i] = static_cast<float>(i);
  std::map<std::string, mace::MaceTensor> inputs = {{"x", mace::MaceTensor({1, 2, 4, 4}, input)}};
  std::map<std::string, mace::MaceTensor> outputs;
  ASSERT_TRUE(engine->Run(inputs, &outputs).ok());
  // y[0] = 1 * x[0] + 2 * x[16] at pixel 0: weights [[1, 2], [3, 4]].
  EXPECT_FLOAT_EQ(outputs.at("y").data().get()[0], 32.f);
}

TEST(ModelLoaderFuzzTest, SurvivesMutations) {
  const std::string seed = Seed();
  const uint32_t kSeed = 7767517;
  std::mt19937 rng(kSeed);
  for (int iteration = 0; iteration < 3000; ++iteration) {
    std::string input = seed;
    const int edits = 1 + rng() % 4;
    for (int e = 0; e < edits; ++e) {
      const size_t at = rng() % input.size();
      switch (rng() % 4) {
        case 0: input[at] = static_cast<char>(rng()); break;
        case 1: input[at] ^= static_cast<char>(1 << (rng() % 8)); break;
        case 2: input.resize(at + 1); break;
        default: input.insert(at, 1, static_cast<char>(rng())); break;
      }
    }
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
  }
  SUCCEED() << "3000 mutations of seed " << kSeed << " were handled without a crash";
}

}  // namespace
