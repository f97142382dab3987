#include "mace/tools/run_flags.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>

#include "mace/tools/run_report.h"

namespace mace {
namespace tools {
namespace {

bool ParseInt(const std::string& text, int64_t low, int64_t high, int64_t* value) {
  if (text.empty()) return false;
  char* end = nullptr;
  errno = 0;
  const long long parsed = std::strtoll(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || parsed < low || parsed > high) return false;
  *value = parsed;
  return true;
}

}  // namespace

std::vector<std::string> SplitString(const std::string& text, char separator) {
  std::vector<std::string> parts;
  if (text.empty()) return parts;
  size_t start = 0;
  while (true) {
    const size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return parts;
}

bool ParseShapes(const std::string& text, std::vector<std::vector<int64_t>>* shapes) {
  shapes->clear();
  // An empty shape is a scalar (rank 0): "--input_shape=" is one scalar and
  // "3,4::" is a [3,4] tensor followed by two scalars. A dimension may be 0.
  const std::vector<std::string> parts =
      text.empty() ? std::vector<std::string>{""} : SplitString(text, ':');
  for (const std::string& shape_text : parts) {
    std::vector<int64_t> shape;
    for (const std::string& dim : SplitString(shape_text, ',')) {
      int64_t value = 0;
      if (!ParseInt(dim, 0, int64_t{1} << 31, &value)) return false;
      shape.push_back(value);
    }
    shapes->push_back(shape);
  }
  return true;
}

bool ParseRanges(const std::string& text, std::vector<std::pair<double, double>>* ranges) {
  ranges->clear();
  for (const std::string& range_text : SplitString(text, ':')) {
    const std::vector<std::string> bounds = SplitString(range_text, ',');
    if (bounds.size() != 2) return false;
    double values[2];
    for (int k = 0; k < 2; ++k) {
      char* end = nullptr;
      values[k] = std::strtod(bounds[k].c_str(), &end);
      if (bounds[k].empty() || *end != '\0' || !std::isfinite(values[k])) return false;
    }
    if (!(values[0] < values[1])) return false;
    ranges->emplace_back(values[0], values[1]);
  }
  return !ranges->empty();
}

bool ParseRunFlags(int argc, const char* const* argv, RunFlags* flags, std::string* error) {
  using Setter = std::function<bool(const std::string&)>;
  auto int_flag = [](int* target, int64_t low, int64_t high) -> Setter {
    return [=](const std::string& v) {
      int64_t value = 0;
      if (!ParseInt(v, low, high, &value)) return false;
      *target = static_cast<int>(value);
      return true;
    };
  };
  auto bool_flag = [](bool* target) -> Setter {
    return [=](const std::string& v) {
      if (v == "" || v == "1" || v == "true")
        *target = true;
      else if (v == "0" || v == "false")
        *target = false;
      else
        return false;
      return true;
    };
  };
  auto string_flag = [](std::string* target) -> Setter {
    return [=](const std::string& v) {
      *target = v;
      return !v.empty();
    };
  };
  auto list_flag = [](std::vector<std::string>* target) -> Setter {
    return [=](const std::string& v) {
      *target = SplitString(v, ',');
      return !v.empty();
    };
  };
  auto mode_flag = [](std::string* target) -> Setter {
    return [=](const std::string& v) {
      *target = v;
      return v == "auto" || v == "on" || v == "off";
    };
  };
  auto shapes_flag = [](std::vector<std::vector<int64_t>>* target) -> Setter {
    return [=](const std::string& v) { return ParseShapes(v, target); };
  };
  const std::map<std::string, Setter> setters = {
      {"model_file", string_flag(&flags->model_file)},
      {"model_data_file", string_flag(&flags->model_data_file)},
      {"input_node", list_flag(&flags->input_nodes)},
      {"input_shape", shapes_flag(&flags->input_shapes)},
      {"output_node", list_flag(&flags->output_nodes)},
      {"output_shape", shapes_flag(&flags->output_shapes)},
      {"input_range",
       [flags](const std::string& v) { return ParseRanges(v, &flags->input_ranges); }},
      {"input_file", string_flag(&flags->input_file)},
      {"output_file", string_flag(&flags->output_file)},
      {"device", string_flag(&flags->device)},
      {"round", int_flag(&flags->round, 1, 1000000)},
      {"restart_round", int_flag(&flags->restart_round, 1, 10000)},
      {"omp_num_threads", int_flag(&flags->omp_num_threads, -1, 256)},
      {"cpu_affinity_policy", int_flag(&flags->cpu_affinity_policy, 0, 2)},
      {"gpu_perf_hint", int_flag(&flags->gpu_perf_hint, 0, 3)},
      {"gpu_priority_hint", int_flag(&flags->gpu_priority_hint, 0, 3)},
      {"gpu_data_type",
       [flags](const std::string& v) {
         flags->gpu_data_type = v;
         return v == "fp16_fp32" || v == "fp32_fp32";
       }},
      {"cpu_precision",
       [flags](const std::string& v) {
         flags->cpu_precision = v;
         return v == "fp32" || v == "fp16";
       }},
      {"cpu_blocked_layout", mode_flag(&flags->cpu_blocked_layout)},
      {"opencl_winograd", mode_flag(&flags->opencl_winograd)},
      {"opencl_cache_file", string_flag(&flags->opencl_cache_file)},
      {"opencl_binary_file", list_flag(&flags->opencl_binary_files)},
      {"opencl_parameter_file", string_flag(&flags->opencl_parameter_file)},
      {"tune", bool_flag(&flags->tune)},
      {"opencl_device_fallback", bool_flag(&flags->opencl_device_fallback)},
      {"limit_opencl_kernel_time", bool_flag(&flags->limit_opencl_kernel_time)},
      {"dsp_emulator", string_flag(&flags->dsp_emulator)},
      {"dsp_image", string_flag(&flags->dsp_image)},
      {"dsp_timeout_ms",
       [flags](const std::string& v) {
         return ParseInt(v, 1, int64_t{24} * 3600 * 1000, &flags->dsp_timeout_ms);
       }},
      {"benchmark", bool_flag(&flags->benchmark)},
      {"memory_report", bool_flag(&flags->memory_report)},
      {"memory_plan", string_flag(&flags->memory_plan)},
      {"memory_strategy", string_flag(&flags->memory_strategy)},
      {"plan_time_limit_ms",
       [flags](const std::string& v) {
         return ParseInt(v, 1, 3600000, &flags->plan_time_limit_ms);
       }},
      {"compare_strategies", bool_flag(&flags->compare_strategies)},
      {"verify_weights", bool_flag(&flags->verify_weights)},
      {"soak_rounds", int_flag(&flags->soak_rounds, 1, 10000000)},
      {"quantize_stat", string_flag(&flags->quantize_stat)},
      {"quantize_stat_percentile",
       [flags](const std::string& v) {
         char* end = nullptr;
         const double p = std::strtod(v.c_str(), &end);
         flags->quantize_stat_percentile = p;
         return !v.empty() && *end == '\0' && p >= 50.0 && p <= 100.0;
       }},
      {"quantize_stat_histogram", string_flag(&flags->quantize_stat_histogram)},
      {"quantize_stat_bins", int_flag(&flags->quantize_stat_bins, 2, 1 << 20)},
      {"help", bool_flag(&flags->help)},
  };
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-h") arg = "--help";
    if (arg.rfind("--", 0) != 0) {
      *error = "unexpected argument '" + arg + "' (flags look like --name=value)";
      return false;
    }
    const size_t equals = arg.find('=');
    const std::string name =
        arg.substr(2, equals == std::string::npos ? std::string::npos : equals - 2);
    const std::string value = equals == std::string::npos ? "" : arg.substr(equals + 1);
    auto it = setters.find(name);
    if (it == setters.end()) {
      *error = "unknown flag --" + name;
      return false;
    }
    if (!it->second(value)) {
      *error = "bad value '" + value + "' for --" + name;
      return false;
    }
  }
  if (flags->help) return true;
  if (flags->model_file.empty()) {
    *error = "--model_file is required";
    return false;
  }
  if (flags->input_nodes.size() != flags->input_shapes.size()) {
    *error = "--input_node names " + std::to_string(flags->input_nodes.size()) +
             " inputs but --input_shape gives " + std::to_string(flags->input_shapes.size()) +
             " shapes";
    return false;
  }
  if (flags->input_ranges.size() > 1 && flags->input_ranges.size() != flags->input_nodes.size()) {
    *error = "--input_range gives " + std::to_string(flags->input_ranges.size()) +
             " ranges; give one for every input, or one per --input_node";
    return false;
  }
  if (!flags->quantize_stat_histogram.empty() &&
      (flags->quantize_stat.empty() || flags->quantize_stat_percentile < 100)) {
    *error = "--quantize_stat_histogram needs --quantize_stat and no --quantize_stat_percentile";
    return false;
  }
  if (!flags->output_shapes.empty() && flags->output_shapes.size() != flags->output_nodes.size()) {
    *error = "--output_shape must give one shape per --output_node";
    return false;
  }
  return true;
}

std::string RunUsage() {
  return R"(usage: mace_run --model_file=M.pb [--model_data_file=M.data] [flags]
  --input_node=a,b            model inputs (default: all the model declares)
  --input_shape=1,3,8,8:1,4   one shape per input, checked against the model (a
                              dynamic dimension takes 1 to its declared maximum); an
                              empty shape is a scalar ("3,4:" ends with one, and
                              "--input_shape=" is one), a dimension may be 0
  --output_node=x,y           outputs to fetch (default: the model's outputs)
  --output_shape=1,10:...     expected output shapes, checked after the run
  --input_file=PREFIX         read PREFIX_<node> (.npy, or raw float32); default random,
                              in the type the model declares for each input
  --input_range=L,H:L,H       random inputs in [L, H): one range for every input, or
                              one per --input_node; integer inputs take the whole
                              numbers in it (default: float [-1, 1), uint8 [0, 256),
                              bool [0, 2), an integer input named *mask* all 1,
                              other integers [0, 2))
  --output_file=PREFIX        write PREFIX_<node>.npy
  --device=CPU|GPU|HEXAGON    runtime (default CPU)
  --round=N                   timed runs (default 1)
  --restart_round=N           engine re-creations (default 1)
  --omp_num_threads=N         CPU threads, -1 for the policy default
  --cpu_affinity_policy=N     0 NONE, 1 BIG_ONLY, 2 LITTLE_ONLY
  --gpu_perf_hint=N --gpu_priority_hint=N   0 DEFAULT 1 LOW 2 NORMAL 3 HIGH
  --gpu_data_type=T           GPU image storage: fp16_fp32 (default) or fp32_fp32
  --cpu_precision=P           CPU arithmetic: fp32 (default) or fp16 (ARMv8.2
                              half precision where the CPU has it, else fp32)
  --cpu_blocked_layout=M      CPU channel-blocked layout: auto (default, where it
                              pays), on (wherever blocked kernels exist) or off
  --opencl_winograd=M         GPU Winograd for 3x3 convolutions: auto (default),
                              on or off
  --opencl_cache_file=PATH    compiled-program cache of the GPU (read, else written)
  --opencl_binary_file=A,B    precompiled GPU programs to try first (only read)
  --opencl_parameter_file=P   tuned GPU work-group sizes (read; written with --tune)
  --tune                      time work-group sizes of each GPU kernel launch and
                              write them to --opencl_parameter_file
  --opencl_device_fallback    run the GPU engine on any OpenCL device when there
                              is no GPU (a CPU implementation such as PoCL)
  --limit_opencl_kernel_time=0|1  split long GPU kernels into ~1 ms pieces
  --dsp_image=PATH            the HEXAGON device's DSP image (default MACE_DSP_RUNTIME)
  --dsp_emulator=PATH         its qemu-hexagon (default MACE_QEMU_HEXAGON, else PATH)
  --dsp_timeout_ms=N          deadline of each DSP call (default MACE_DSP_TIMEOUT_MS,
                              else 30000)
  --benchmark                 per-op table: time, share, output shape, MACs
  --memory_report             arena, weights, naive and lower-bound bytes, placements
  --memory_plan=PREFIX        write the CPU arena's usage records (PREFIX.csv:
                              name,size,first,last) and their plan (PREFIX.json:
                              offsets, total, lower bound) for tools/plan_picture.py
  --memory_strategy=NAME      naive|equality|greedy_in_order|greedy_by_breadth|
                              greedy_by_size|greedy_best|mincostflow|optimal
                              (default optimal)
  --plan_time_limit_ms=N      budget of the optimal planner (default 10; also
                              1000 search steps per ms, docs/design/memory_planning.md)
  --compare_strategies        plan the model with every strategy, one table
  --verify_weights=false      skip the weights checksum at init
  --soak_rounds=N             then run the engine N more times; print resident
                              memory before and after, and the latency drift
  --quantize_stat=FILE        write each float tensor's range over the runs to
                              FILE, one "name@@min,max" line per tensor
  --quantize_stat_percentile=P  use the P-th and (100-P)-th percentiles of
                              each run instead of min/max (50..100, default 100)
  --quantize_stat_histogram=BOUNDS  write to the --quantize_stat FILE a histogram
                              of each tensor named in BOUNDS (a range file) over
                              its bounds: "name@@min,max@@c0,c1,..."
  --quantize_stat_bins=N      histogram bins (default 2048)
)";
}

bool CheckInputShapes(const RunFlags& flags,
                      const std::map<std::string, std::vector<int64_t>>& model_shapes,
                      std::string* error) {
  std::map<std::string, std::vector<int64_t>> run_shapes = model_shapes;
  return CheckInputShapes(flags, model_shapes, model_shapes, &run_shapes, error);
}

namespace {

// Whether `shape` fits an input planned at `planned` that takes up to `max`.
bool WithinRange(const std::vector<int64_t>& shape, const std::vector<int64_t>& planned,
                 const std::vector<int64_t>& max) {
  if (shape.size() != planned.size() || max.size() != planned.size()) return false;
  for (size_t d = 0; d < shape.size(); ++d) {
    const bool fits = max[d] == planned[d] ? shape[d] == planned[d]
                                           : shape[d] >= 1 && shape[d] <= max[d];
    if (!fits) return false;
  }
  return true;
}

}  // namespace

bool CheckInputShapes(const RunFlags& flags,
                      const std::map<std::string, std::vector<int64_t>>& model_shapes,
                      const std::map<std::string, std::vector<int64_t>>& max_shapes,
                      std::map<std::string, std::vector<int64_t>>* run_shapes,
                      std::string* error) {
  // ParseRunFlags pairs them up, except when it stops early for --help.
  if (flags.input_shapes.size() != flags.input_nodes.size()) {
    *error = "--input_shape must give one shape per --input_node";
    return false;
  }
  for (size_t i = 0; i < flags.input_nodes.size(); ++i) {
    const std::string& name = flags.input_nodes[i];
    auto it = model_shapes.find(name);
    if (it == model_shapes.end()) {
      std::string names;
      for (const auto& [model_name, shape] : model_shapes) {
        names += (names.empty() ? "" : ", ") + model_name;
      }
      *error =
          "--input_node '" + name + "' is not an input of the model (its inputs: " + names + ")";
      return false;
    }
    auto max = max_shapes.find(name);
    if (max != max_shapes.end() && max->second != it->second) {
      if (!WithinRange(flags.input_shapes[i], it->second, max->second)) {
        *error = "--input_shape " + ShapeText(flags.input_shapes[i]) + " for input '" + name +
                 "' is outside the model's range: shape " + ShapeText(it->second) +
                 ", dynamic dimensions from 1 up to " + ShapeText(max->second);
        return false;
      }
      (*run_shapes)[name] = flags.input_shapes[i];
      continue;
    }
    if (flags.input_shapes[i] != it->second) {
      *error = "--input_shape " + ShapeText(flags.input_shapes[i]) + " for input '" + name +
               "' differs from the model's shape " + ShapeText(it->second);
      return false;
    }
  }
  return true;
}

}  // namespace tools
}  // namespace mace
