// Tables that mace_run prints: latency, per-op benchmark and memory plans.
#ifndef MACE_TOOLS_RUN_REPORT_H_
#define MACE_TOOLS_RUN_REPORT_H_

#include <map>
#include <string>
#include <vector>

#include "mace/public/mace.h"

namespace mace {
namespace tools {

struct OpTiming {
  std::string name;
  std::string type;
  std::string output_shape;
  int64_t macs = 0;
  std::vector<double> ms;
  std::vector<double> device_ms;  // kernel time on the device, when measured
};

struct LatencyStats {
  std::vector<double> init_ms;
  std::vector<double> init_cpu_ms;  // process CPU time of each creation
  std::vector<double> init_sys_ms;  // of which in the kernel
  std::vector<double> init_faults;  // page faults (minor and major) of each creation
  std::vector<double> first_run_ms;
  std::vector<double> run_ms;
  std::vector<OpTiming> ops;  // execution order
  void AddOpStats(const RunMetadata& metadata);
};

double Median(std::vector<double> values);
std::string ShapeText(const std::vector<int64_t>& shape);
bool ParseMemoryStrategy(const std::string& name, MemoryStrategy* strategy);
std::string MemoryStrategyName(MemoryStrategy strategy);
std::vector<MemoryStrategy> AllMemoryStrategies();

// The elements of a float32, int32 or uint8 output as floats (int32 values
// beyond 2^24 are rounded), for printing.
std::vector<float> ValuesAsFloat(const MaceTensor& tensor);
// Each output's shape, first values and top-5 (printed as floats whatever
// the output's type).
void PrintOutputs(const std::map<std::string, MaceTensor>& outputs);
void PrintLatency(const LatencyStats& stats);
void PrintOpTable(const LatencyStats& stats);
// The report, with one row per memory type the net planned; each type in
// `shown` gets a row even when no tensor lives there (all zeros).
void PrintMemoryReport(const MemoryReport& report, const std::vector<std::string>& shown = {});
void PrintStrategyTable(const std::vector<MemoryReport>& reports);
// Writes the CPU arena's tensors (not aliases) as PREFIX.csv
// (name,size,first,last) and their plan as PREFIX.json ({"strategy", "mode":
// "offsets", "offsets": [...], "total", "lower_bound"}), the two files
// tools/plan_picture.py draws. False with *error set when a file cannot be
// written.
bool WriteMemoryPlan(const MemoryReport& report, const std::string& prefix, std::string* error);

}  // namespace tools
}  // namespace mace

#endif  // MACE_TOOLS_RUN_REPORT_H_
