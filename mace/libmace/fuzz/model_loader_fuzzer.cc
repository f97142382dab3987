// Fuzz target for model loading: arbitrary bytes become a graph and a weights
// blob; the engine must reject them with a status or run them, never crash.
//
// Input layout: [4-byte little-endian graph length][graph bytes][weights].
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "mace/public/mace.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  uint32_t graph_size = 0;
  std::memcpy(&graph_size, data, 4);
  data += 4;
  size -= 4;
  if (graph_size > size) graph_size = static_cast<uint32_t>(size);
  const uint8_t* weights = data + graph_size;
  const size_t weights_size = size - graph_size;

  std::shared_ptr<mace::MaceEngine> engine;
  mace::MaceStatus status = mace::CreateMaceEngineFromProto(
      data, graph_size, weights, weights_size, {}, {}, mace::MaceEngineConfig(), &engine);
  if (!status.ok()) return 0;
  std::map<std::string, std::vector<int64_t>> shapes;
  if (!engine->GetInputShapes(&shapes).ok()) return 0;
  std::map<std::string, mace::MaceTensor> inputs;
  for (const auto& [name, shape] : shapes) {
    int64_t count = 1;
    for (int64_t d : shape) count *= d;
    // Huge inputs are legal but make fuzzing slow; they exercise nothing new.
    if (count > (1 << 16)) return 0;
    std::shared_ptr<float> buffer(new float[count](), std::default_delete<float[]>());
    inputs[name] = mace::MaceTensor(shape, buffer);
  }
  std::map<std::string, mace::MaceTensor> outputs;
  engine->Run(inputs, &outputs);
  return 0;
}
