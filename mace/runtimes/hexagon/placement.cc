#include "mace/runtimes/hexagon/placement.h"

#include <algorithm>
#include <map>

#include "mace/utils/status.h"

namespace mace {
namespace hexagon {

std::vector<Segment> PlanSegments(const std::vector<PlacedOp>& ops,
                                  const std::set<int>& app_outputs) {
  std::vector<Segment> segments;
  std::vector<int> segment_of(ops.size(), -1);
  for (size_t i = 0; i < ops.size(); ++i) {
    if (segments.empty() || segments.back().on_dsp != ops[i].on_dsp) {
      segments.emplace_back();
      segments.back().on_dsp = ops[i].on_dsp;
    }
    segments.back().ops.push_back(static_cast<int>(i));
    segment_of[i] = static_cast<int>(segments.size()) - 1;
  }
  // The last segment that reads each activation.
  std::map<int, int> last_reader;
  for (size_t i = 0; i < ops.size(); ++i) {
    for (int id : ops[i].inputs) last_reader[id] = std::max(last_reader[id], segment_of[i]);
  }
  for (size_t s = 0; s < segments.size(); ++s) {
    Segment& segment = segments[s];
    std::set<int> written, listed_inputs;
    for (int i : segment.ops) {
      for (int id : ops[i].inputs) {
        if (written.count(id) == 0 && listed_inputs.insert(id).second) {
          segment.inputs.push_back(id);
        }
      }
      for (int id : ops[i].outputs) written.insert(id);
    }
    std::set<int> listed_outputs;
    for (int i : segment.ops) {
      for (int id : ops[i].outputs) {
        auto reader = last_reader.find(id);
        const bool read_later = reader != last_reader.end() && reader->second > static_cast<int>(s);
        if ((read_later || app_outputs.count(id) > 0) && listed_outputs.insert(id).second) {
          segment.outputs.push_back(id);
        }
      }
    }
  }
  return segments;
}

std::string DescribePlacement(const std::vector<Segment>& segments,
                              const std::vector<std::string>& names,
                              const std::vector<std::string>& reasons) {
  size_t dsp_ops = 0, cpu_ops = 0, dsp_segments = 0;
  std::string lines;
  for (const Segment& segment : segments) {
    if (segment.on_dsp) {
      ++dsp_segments;
      dsp_ops += segment.ops.size();
      continue;
    }
    cpu_ops += segment.ops.size();
    for (int i : segment.ops) {
      lines += StrCat("\n  CPU: ", names[i], ": ", reasons[i]);
    }
  }
  return StrCat(dsp_ops, " op(s) on the DSP in ", dsp_segments, " segment(s), ", cpu_ops,
                " on the CPU", lines);
}

}  // namespace hexagon
}  // namespace mace
