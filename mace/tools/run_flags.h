// Command-line flags of mace_run, parsed without global state so that bad
// flags become one clear message instead of an abort.
#ifndef MACE_TOOLS_RUN_FLAGS_H_
#define MACE_TOOLS_RUN_FLAGS_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace mace {
namespace tools {

struct RunFlags {
  std::string model_file;
  std::string model_data_file;
  std::vector<std::string> input_nodes;
  std::vector<std::vector<int64_t>> input_shapes;
  std::vector<std::string> output_nodes;
  std::vector<std::vector<int64_t>> output_shapes;
  // --input_range: [low, high) of random inputs, one for every input or
  // one per --input_node; empty: each input's default.
  std::vector<std::pair<double, double>> input_ranges;
  std::string input_file;   // prefix: <prefix>_<node> or a single file, .npy or raw
  std::string output_file;  // prefix for outputs
  std::string device = "CPU";
  int round = 1;
  int restart_round = 1;
  int omp_num_threads = -1;
  int cpu_affinity_policy = 1;
  int gpu_perf_hint = 3;
  int gpu_priority_hint = 3;
  std::string gpu_data_type = "fp16_fp32";
  std::string cpu_precision = "fp32";
  std::string cpu_blocked_layout = "auto";  // auto|on|off
  std::string opencl_winograd = "auto";     // auto|on|off
  std::string opencl_cache_file;
  std::vector<std::string> opencl_binary_files;
  std::string opencl_parameter_file;
  bool tune = false;
  bool opencl_device_fallback = false;
  bool limit_opencl_kernel_time = false;
  std::string dsp_emulator;  // HexagonOptions; empty: the environment's
  std::string dsp_image;
  int64_t dsp_timeout_ms = 0;
  bool benchmark = false;
  bool memory_report = false;
  std::string memory_plan;  // write PREFIX.csv and PREFIX.json (plan_picture.py)
  std::string memory_strategy = "optimal";
  int64_t plan_time_limit_ms = 0;  // 0: the engine's default
  bool compare_strategies = false;
  bool verify_weights = true;
  int soak_rounds = 0;  // 0: no soak run
  std::string quantize_stat;            // write activation ranges to this file
  double quantize_stat_percentile = 100;  // 100: min/max
  std::string quantize_stat_histogram;  // bounds file: write histograms instead
  int quantize_stat_bins = 2048;
  bool help = false;
};

// Parses argv[1..]. On failure returns false and sets `error` to a message
// naming the flag.
bool ParseRunFlags(int argc, const char* const* argv, RunFlags* flags, std::string* error);
std::string RunUsage();

// Checks each --input_node and its --input_shape against `model_shapes`, the
// shapes the model declares, before any input is allocated. On a mismatch
// returns false with `error` naming the input and both shapes.
bool CheckInputShapes(const RunFlags& flags,
                      const std::map<std::string, std::vector<int64_t>>& model_shapes,
                      std::string* error);
// As above for a model with dynamic inputs: `max_shapes` are the largest
// shapes each input takes (MaceEngine::GetInputMaxShapes). An --input_shape
// may differ from the model's shape in a dynamic dimension, from 1 to its
// maximum; `run_shapes` (the model's shapes to begin with) gets the shapes
// to run.
bool CheckInputShapes(const RunFlags& flags,
                      const std::map<std::string, std::vector<int64_t>>& model_shapes,
                      const std::map<std::string, std::vector<int64_t>>& max_shapes,
                      std::map<std::string, std::vector<int64_t>>* run_shapes, std::string* error);

// "0,30522:1,2" -> {{0,30522},{1,2}}: finite, each low below its high.
bool ParseRanges(const std::string& text, std::vector<std::pair<double, double>>* ranges);
// "1,224,224,3:1,10" -> {{1,224,224,3},{1,10}}.
bool ParseShapes(const std::string& text, std::vector<std::vector<int64_t>>* shapes);
std::vector<std::string> SplitString(const std::string& text, char separator);

}  // namespace tools
}  // namespace mace

#endif  // MACE_TOOLS_RUN_FLAGS_H_
