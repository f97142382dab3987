// The whole-graph executor of DeviceType::HEXAGON. The engine first builds
// the ordinary CPU net for the uint8 model (it checks the model, infers
// every shape and binds the weights); this executor offers each of its ops
// to the DSP, in order, and an op the DSP cannot run falls back to the CPU
// net's own kernel (placement.h). Consecutive DSP ops become one DSP graph,
// each set up once in a slot of the engine's DSP session (and again in a
// new session after a stopped Run abandoned a DSP call); consecutive CPU
// ops run with the CPU net's kernels. The session may be shared with the
// other Hexagon engines of a MaceContext (dsp_session.h). The model's Quantize and Dequantize ops run on the CPU,
// so float app inputs and outputs are converted on the host exactly as the
// CPU engine converts them. Tensors between segments live in the CPU
// net's host memory: uint8 bytes with their scale and zero point.
#ifndef MACE_RUNTIMES_HEXAGON_HEXAGON_EXECUTOR_H_
#define MACE_RUNTIMES_HEXAGON_HEXAGON_EXECUTOR_H_

#include <memory>
#include <string>
#include <vector>

#include "mace/core/executor.h"
#include "mace/core/net.h"
#include "mace/runtimes/hexagon/dsp_session.h"
#include "mace/runtimes/hexagon/hexagon_control.h"
#include "mace/runtimes/hexagon/placement.h"

namespace mace {
namespace hexagon {

class HexagonExecutor : public Executor {
 public:
  // `cpu_net` is initialized for the model. `session`: the DSP session to
  // use, shared with other engines; null: a session of the engine's own.
  HexagonExecutor(std::unique_ptr<Net> cpu_net, DspChannelConfig config,
                  std::shared_ptr<DspSession> session = nullptr);
  ~HexagonExecutor() override;

  // Places the CPU net's ops, builds one DSP graph per DSP segment and sets
  // them up in the DSP session, each in a slot of its own. A model with no op the DSP runs fails,
  // naming why for each op.
  MaceStatus Init(const NetDef& net_def, const std::vector<std::string>& output_names) override;
  MaceStatus Run(RunMetadata* run_metadata) override;
  Tensor* InputTensor(const std::string& name) override { return net_->InputTensor(name); }
  const Tensor* OutputTensor(const std::string& name) const override {
    return net_->OutputTensor(name);
  }
  const MemoryReport& memory_report() const override { return net_->memory_report(); }
  // Where each op runs: "N op(s) on the DSP in S segment(s), M on the
  // CPU", then one line per CPU op with the reason.
  const std::string& placement() const { return placement_; }

 private:
  struct Stage {
    bool on_dsp = false;
    std::vector<Operation*> ops;  // a CPU stage's ops, in order
    // A DSP stage: its graph's slot in the session, the host tensors sent
    // as the graph's inputs, and for each graph output the host tensors
    // that receive it (a renamed tensor may be read under two names).
    uint32_t slot = 0;
    std::vector<const Tensor*> inputs;
    std::vector<std::vector<Tensor*>> outputs;
    std::vector<std::vector<uint8_t>> output_bytes;
    // A DSP stage in RunMetadata: an entry for the graph (the host's time
    // for the call, and the DSP time outside its ops), then one per op of
    // the graph, with the DSP's time for it.
    std::string name;
    std::vector<Operation*> dsp_ops;  // the CPU net's ops behind the graph's ops
    std::vector<dsp::OpProfile> profile;
    uint32_t dsp_time_us = 0;  // of the last call, as the DSP measured it
    // The graph as set up, to set it up again in a new session.
    SerializedGraph graph;
  };

  MaceStatus RunDsp(Stage* stage, bool profile, HexagonControl* control);
  // Every DSP graph set up again, in a new session if the session is
  // closed: after a stopped Run abandoned a DSP call (which ends the
  // session), this engine's or another's of the shared session.
  MaceStatus Reopen(DspSession::Locked* session);

  std::unique_ptr<Net> net_;
  DspChannelConfig config_;
  std::shared_ptr<DspSession> session_;  // one DSP session for every DSP graph
  std::vector<uint32_t> slots_;          // the session's slots this engine holds
  // The session's generation the graphs were last set up in.
  uint64_t generation_ = 0;
  std::vector<Stage> stages_;
  std::string placement_;
  // Why the DSP session ended during a run, or "" while it lives.
  std::string session_error_;
};

}  // namespace hexagon
}  // namespace mace

#endif  // MACE_RUNTIMES_HEXAGON_HEXAGON_EXECUTOR_H_
