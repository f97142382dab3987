// The whole-graph executor of DeviceType::HEXAGON. The engine first builds
// the ordinary CPU net for the uint8 model (it checks the model, infers
// every shape and binds the weights); this executor translates that net
// into the DSP's serialized graph, sends it once, and then runs every
// inference on the DSP: the app's float inputs are quantized on the host
// (the model's Quantize ops), the uint8 graph runs on the DSP, and its
// outputs are dequantized on the host (the model's Dequantize ops). Float
// ops that read only what the Dequantize ops give (a float Softmax after
// the last layer, say) run after that on the CPU, with the CPU net's own
// kernels. The CPU net's host tensors are the engine's input and output
// tensors; its other kernels never run.
#ifndef MACE_RUNTIMES_HEXAGON_HEXAGON_EXECUTOR_H_
#define MACE_RUNTIMES_HEXAGON_HEXAGON_EXECUTOR_H_

#include <memory>
#include <string>
#include <vector>

#include "mace/core/executor.h"
#include "mace/core/net.h"
#include "mace/runtimes/hexagon/hexagon_control.h"

namespace mace {
namespace hexagon {

class HexagonExecutor : public Executor {
 public:
  // `cpu_net` is initialized for the model.
  HexagonExecutor(std::unique_ptr<Net> cpu_net, DspChannelConfig config);
  ~HexagonExecutor() override;

  // Translates the CPU net and sets the graph up on a new DSP session. An
  // op the DSP lacks fails, naming every such op.
  MaceStatus Init(const NetDef& net_def, const std::vector<std::string>& output_names) override;
  MaceStatus Run(RunMetadata* run_metadata) override;
  Tensor* InputTensor(const std::string& name) override { return net_->InputTensor(name); }
  const Tensor* OutputTensor(const std::string& name) const override {
    return net_->OutputTensor(name);
  }
  const MemoryReport& memory_report() const override { return net_->memory_report(); }
  HexagonControl* control() { return &control_; }

 private:
  struct Binding {
    Tensor* host = nullptr;  // float (quantized on the way) or uint8
    bool convert = false;    // quantize an input, dequantize an output
    float scale = 1.f;
    int32_t zero_point = 0;
    size_t bytes = 0;        // on the DSP side
  };

  std::unique_ptr<Net> net_;
  DspChannelConfig config_;
  HexagonControl control_;
  std::vector<Binding> inputs_, outputs_;
  std::vector<std::vector<uint8_t>> input_bytes_, output_bytes_;
  // Float ops after the DSP's outputs, run on the CPU after each execution.
  std::vector<Operation*> host_ops_;
};

}  // namespace hexagon
}  // namespace mace

#endif  // MACE_RUNTIMES_HEXAGON_HEXAGON_EXECUTOR_H_
