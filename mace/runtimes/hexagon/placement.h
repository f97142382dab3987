// Splitting a placed graph into segments for DeviceType::HEXAGON. Each op
// is first offered to the DSP; an op the DSP cannot run falls back to the
// CPU, as Net::Place falls back from a device. Consecutive ops on the same
// side form a segment; segments run in model order, each DSP segment as
// one graph on the DSP, each CPU segment with the CPU net's own kernels.
// A tensor that crosses from one segment to another passes through the
// host in its own type (uint8 activations keep their scale and zero
// point).
//
// The planning here is independent of ops and tensors: ids only, so that
// it can be tested on its own.
#ifndef MACE_RUNTIMES_HEXAGON_PLACEMENT_H_
#define MACE_RUNTIMES_HEXAGON_PLACEMENT_H_

#include <set>
#include <string>
#include <vector>

namespace mace {
namespace hexagon {

struct PlacedOp {
  bool on_dsp = false;
  std::vector<int> inputs;   // activation ids it reads (weights left out)
  std::vector<int> outputs;  // activation ids it writes
};

struct Segment {
  bool on_dsp = false;
  std::vector<int> ops;  // op indices, in model order
  // Activations the segment reads that an earlier segment or the app
  // wrote, in order of first use.
  std::vector<int> inputs;
  // Activations the segment writes that a later segment reads, or that
  // the app reads, in order of writing.
  std::vector<int> outputs;
};

// Segments of `ops` (in model order); `app_outputs` are the activations
// the app reads.
std::vector<Segment> PlanSegments(const std::vector<PlacedOp>& ops,
                                  const std::set<int>& app_outputs);

// "N ops on the DSP in S segments, M on the CPU" and one line per CPU op,
// from `names` and `reasons` (one per op; a reason for each CPU op).
std::string DescribePlacement(const std::vector<Segment>& segments,
                              const std::vector<std::string>& names,
                              const std::vector<std::string>& reasons);

}  // namespace hexagon
}  // namespace mace

#endif  // MACE_RUNTIMES_HEXAGON_PLACEMENT_H_
