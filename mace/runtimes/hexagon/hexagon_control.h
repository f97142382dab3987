// The host's control interface to the DSP, in the shape of MACE's Hexagon
// control wrapper: configure, start a session, set up a graph once,
// execute it many times, tear it down, and read performance data, the
// DSP's log and a description of its graph.
//
// The DSP here is emulated: the session is a qemu-hexagon process running
// our own DSP image (mace/dsp), reached through DspChannel. Every call
// returns a MaceStatus; after a transport failure the session is closed
// and Init starts a new one.
#ifndef MACE_RUNTIMES_HEXAGON_HEXAGON_CONTROL_H_
#define MACE_RUNTIMES_HEXAGON_HEXAGON_CONTROL_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "mace/dsp/protocol.h"
#include "mace/public/mace.h"
#include "mace/runtimes/hexagon/dsp_channel.h"
#include "mace/runtimes/hexagon/graph_builder.h"

namespace mace {
namespace hexagon {

struct DspBuffer {
  const void* data = nullptr;
  size_t size = 0;
};

class HexagonControl {
 public:
  // Where the emulator and the image are, and the deadline of each call.
  void Config(const DspChannelConfig& config) { config_ = config; }
  // Starts the DSP session (a new one if one is open).
  MaceStatus Init();
  // Ends the session.
  void Finalize();
  bool initialized() const { return channel_.is_open(); }

  // A session holds up to dsp::kMaxGraphs graphs, each in its slot;
  // setting a graph up in a used slot replaces that graph.
  MaceStatus SetupGraph(const SerializedGraph& graph, uint32_t slot = 0);
  // One buffer per graph input, in order, of the graph's input sizes;
  // `outputs` receives one buffer per graph output. With `profile`, the DSP
  // times each op and `profile` receives one record per op of the graph.
  MaceStatus ExecuteGraph(const std::vector<DspBuffer>& inputs,
                          std::vector<std::vector<uint8_t>>* outputs, uint32_t slot = 0,
                          std::vector<dsp::OpProfile>* profile = nullptr);
  MaceStatus TeardownGraph(uint32_t slot = 0);

  MaceStatus GetPerfInfo(dsp::PerfInfo* info);
  MaceStatus ResetPerfInfo();
  // The DSP's log since the last call.
  MaceStatus PrintLog(std::string* log);
  MaceStatus PrintGraph(std::string* text, uint32_t slot = 0);
  // 0 quiet, 1 set-up messages, 2 per-execution timing.
  MaceStatus SetDebugLevel(int level);

  // The DSP time of the last call, as the DSP measured it.
  uint32_t last_dsp_time_us() const { return last_dsp_time_us_; }
  // For tests of the runtime itself (self tests, fault injection).
  DspChannel* channel() { return &channel_; }

 private:
  // Call, then turn a non-OK reply status into an error naming `what`.
  MaceStatus Request(const char* what, uint32_t type, const std::vector<uint32_t>& params,
                     const void* payload, size_t size, DspReply* reply);

  DspChannelConfig config_;
  DspChannel channel_;
  struct GraphSizes {
    std::vector<size_t> input_bytes, output_bytes;
    uint32_t num_ops = 0;
  };
  std::map<uint32_t, GraphSizes> graphs_;  // by slot
  uint32_t last_dsp_time_us_ = 0;
};

}  // namespace hexagon
}  // namespace mace

#endif  // MACE_RUNTIMES_HEXAGON_HEXAGON_CONTROL_H_
