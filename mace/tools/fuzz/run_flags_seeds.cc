#include "mace/tools/fuzz/run_flags_seeds.h"

#include <cstdint>

#include "mace/tools/npy_io.h"

namespace mace {
namespace tools {
namespace {

std::string Flags(const std::vector<std::string>& args) {
  std::string payload(1, '\0');
  for (size_t i = 0; i < args.size(); ++i) payload += (i ? std::string(1, '\0') : "") + args[i];
  return payload;
}

std::string Npy(const std::vector<int64_t>& shape, int major) {
  std::vector<float> values(1);
  for (int64_t d : shape) values.resize(values.size() * d);
  for (size_t i = 0; i < values.size(); ++i) values[i] = 0.5f * static_cast<float>(i);
  std::string bytes;
  std::string error;
  EncodeNpy(shape, values.data(), &bytes, &error);
  if (major == 2) {
    // Version 2.0 widens the header length from 2 to 4 bytes.
    bytes[6] = '\x02';
    bytes.insert(10, 2, '\0');
  }
  return std::string(1, '\x01') + bytes;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> RunFlagsFuzzSeeds() {
  return {
      {"flags_full",
       Flags({"--model_file=m.pb", "--model_data_file=m.data", "--input_node=x,y",
              "--input_shape=1,2,4,4:1,10", "--output_node=z", "--output_shape=1,10", "--round=3",
              "--benchmark", "--memory_strategy=optimal", "--soak_rounds=10"})},
      {"flags_one_input", Flags({"--model_file=m.pb", "--input_node=x", "--input_shape=1,2,4,4",
                                 "--input_file=in", "--restart_round=2"})},
      {"flags_huge_shape",
       Flags({"--model_file=m.pb", "--input_node=x", "--input_shape=1,3,224,2147483648"})},
      {"npy_v1", Npy({1, 2, 4, 4}, 1)},
      {"npy_v2", Npy({2, 3}, 2)},
      {"npy_scalar", Npy({}, 1)},
  };
}

}  // namespace tools
}  // namespace mace
