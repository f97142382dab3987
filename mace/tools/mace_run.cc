// mace_run: loads a MACE model, runs it on the chosen runtime and reports
// outputs, latency, a per-op benchmark table and the memory plan.
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <limits>
#include <map>
#include <new>
#include <random>

#include "mace/public/mace.h"
#include "mace/tools/npy_io.h"
#include "mace/tools/quantize_histogram.h"
#include "mace/tools/quantize_stat.h"
#include "mace/tools/random_inputs.h"
#include "mace/tools/run_flags.h"
#include "mace/tools/run_report.h"
#include "mace/tools/soak.h"
#include "mace/utils/checked_math.h"
#include "mace/utils/file_read.h"
#include "mace/utils/timer.h"

namespace mace {
namespace tools {
namespace {

constexpr uint32_t kInputSeed = 20240611;
// The engine parses the graph with an int size and refuses INT_MAX and up.
constexpr int64_t kMaxGraphBytes = std::numeric_limits<int>::max() - 1;

int Fail(const std::string& message) {
  std::fprintf(stderr, "mace_run: error: %s\n", message.c_str());
  return 1;
}

bool ParseDevice(const std::string& name, DeviceType* device) {
  if (name == "CPU" || name == "cpu")
    *device = DeviceType::CPU;
  else if (name == "GPU" || name == "gpu")
    *device = DeviceType::GPU;
  else if (name == "HEXAGON" || name == "DSP" || name == "dsp")
    *device = DeviceType::HEXAGON;
  else
    return false;
  return true;
}

std::string SafeName(std::string name) {
  for (char& c : name) {
    if (c == '/' || c == ':' || c == ' ') c = '_';
  }
  return name;
}

bool Exists(const std::string& path) {
  struct stat info;
  return stat(path.c_str(), &info) == 0;
}

// The file for input `name`: --input_file itself when the model has one input
// and that path exists (even as a directory, which then gets a clear error),
// else PREFIX_<name>, else PREFIX_<name>.npy.
bool InputPath(const std::string& prefix, const std::string& name, bool single_input,
               std::string* path, std::string* error) {
  std::vector<std::string> candidates;
  if (single_input) candidates.push_back(prefix);
  candidates.push_back(prefix + "_" + SafeName(name));
  candidates.push_back(candidates.back() + ".npy");
  for (const std::string& candidate : candidates) {
    if (Exists(candidate)) {
      *path = candidate;
      return true;
    }
  }
  *error = "no such file; tried";
  for (size_t i = 0; i < candidates.size(); ++i) {
    *error += (i ? ", '" : " '") + candidates[i] + "'";
  }
  return false;
}

// The range --input_range gives input `name`, else its default.
InputRange RangeOf(const RunFlags& flags, const std::string& name, TensorDataType type) {
  if (flags.input_ranges.size() == 1) {
    return {flags.input_ranges[0].first, flags.input_ranges[0].second};
  }
  for (size_t i = 0; i < flags.input_ranges.size() && i < flags.input_nodes.size(); ++i) {
    if (flags.input_nodes[i] == name) {
      return {flags.input_ranges[i].first, flags.input_ranges[i].second};
    }
  }
  return DefaultInputRange(name, type);
}

// Call only after CheckInputShapes: `shapes` are then the model's shapes, or
// within the ranges its dynamic inputs declare, so no flag can size memory
// beyond what the model allows. Random inputs have the type the model
// declares for each input (`types`), in its range (RangeOf).
MaceStatus MakeInputs(const RunFlags& flags,
                      const std::map<std::string, std::vector<int64_t>>& shapes,
                      const std::map<std::string, TensorDataType>& types,
                      std::map<std::string, MaceTensor>* inputs) {
  std::mt19937 engine(kInputSeed);
  for (const auto& [name, shape] : shapes) {
    auto declared = types.find(name);
    const TensorDataType input_type =
        declared != types.end() ? declared->second : TensorDataType::FLOAT32;
    const int64_t count = CheckedElementCount(
        shape, kMaxByteCount / std::max<int64_t>(sizeof(float), TensorDataTypeSize(input_type)));
    if (count < 0) {
      return MaceStatus(MaceStatus::MACE_INVALID_ARGS,
                        "input '" + name + "' has an oversized shape " + ShapeText(shape));
    }
    if (flags.input_file.empty()) {
      MaceStatus status = RandomInput(name, shape, count, input_type,
                                      RangeOf(flags, name, input_type), &engine, &(*inputs)[name]);
      if (!status.ok()) return status;
      continue;
    }
    // A .npy file's dtype is the input's type (float32, int32, int64, bool
    // or uint8); the engine checks it against the model's.
    std::string path, descr, bytes, error;
    if (!InputPath(flags.input_file, name, shapes.size() == 1, &path, &error) ||
        !ReadTensorFile(path, shape, &descr, &bytes, &error)) {
      return MaceStatus(MaceStatus::MACE_INVALID_ARGS,
                        "input '" + name + "' (--input_file): " + error);
    }
    const TensorDataType type = descr == "<i4"   ? TensorDataType::INT32
                                : descr == "<i8" ? TensorDataType::INT64
                                : descr == "|b1" ? TensorDataType::BOOL
                                : descr == "|u1" ? TensorDataType::UINT8
                                                 : TensorDataType::FLOAT32;
    std::shared_ptr<void> typed(new (std::nothrow) uint8_t[std::max<size_t>(bytes.size(), 1)],
                                std::default_delete<uint8_t[]>());
    if (typed == nullptr) {
      return MaceStatus(MaceStatus::MACE_OUT_OF_RESOURCES,
                        "cannot allocate input '" + name + "' of shape " + ShapeText(shape));
    }
    std::memcpy(typed.get(), bytes.data(), bytes.size());
    (*inputs)[name] = MaceTensor(shape, typed, type);
  }
  return MaceStatus();
}

// Compares the flags' input shapes with the engine's before MakeInputs
// allocates anything.
MaceStatus PrepareInputs(const RunFlags& flags, const MaceEngine& engine,
                         std::map<std::string, MaceTensor>* inputs) {
  std::map<std::string, std::vector<int64_t>> shapes;
  MaceStatus status = engine.GetInputShapes(&shapes);
  if (!status.ok()) return status;
  std::map<std::string, TensorDataType> types;
  status = engine.GetInputDataTypes(&types);
  if (!status.ok()) return status;
  std::map<std::string, std::vector<int64_t>> max_shapes;
  status = engine.GetInputMaxShapes(&max_shapes);
  if (!status.ok()) return status;
  std::string error;
  std::map<std::string, std::vector<int64_t>> run_shapes = shapes;
  if (!CheckInputShapes(flags, shapes, max_shapes, &run_shapes, &error)) {
    return MaceStatus(MaceStatus::MACE_INVALID_ARGS, error);
  }
  return MakeInputs(flags, run_shapes, types, inputs);
}

// Runs `engine` `rounds` times, reusing its output buffers as an app would,
// and prints resident memory before and after and the latency drift.
MaceStatus Soak(MaceEngine* engine, const std::map<std::string, MaceTensor>& inputs, int rounds) {
  std::map<std::string, MaceTensor> outputs;
  // Written now, not as the rounds go: reserved pages would become resident
  // one by one and show as growth of 8 bytes a round.
  std::vector<double> round_ms(rounds, 0.0);
  const int64_t rss_start_kb = ProcessStatusKb("VmRSS");
  for (int r = 0; r < rounds; ++r) {
    const int64_t start = NowMicros();
    MaceStatus status = engine->Run(inputs, &outputs);
    if (!status.ok()) return status;
    round_ms[r] = (NowMicros() - start) / 1000.0;
  }
  const int64_t rss_end_kb = ProcessStatusKb("VmRSS");
  PrintSoak(round_ms.size(), rss_start_kb, rss_end_kb, ProcessStatusKb("VmHWM"),
            MeasureDrift(round_ms));
  return MaceStatus();
}

int RunMain(int argc, char** argv) {
  RunFlags flags;
  std::string error;
  if (!ParseRunFlags(argc, argv, &flags, &error)) {
    return Fail(error + "\n" + RunUsage());
  }
  if (flags.help) {
    std::printf("%s", RunUsage().c_str());
    return 0;
  }
  DeviceType device;
  if (!ParseDevice(flags.device, &device)) return Fail("unknown --device " + flags.device);
  MemoryStrategy strategy;
  if (!ParseMemoryStrategy(flags.memory_strategy, &strategy)) {
    std::string names;
    for (MemoryStrategy known : AllMemoryStrategies()) {
      names += (names.empty() ? "" : ", ") + MemoryStrategyName(known);
    }
    return Fail("unknown --memory_strategy " + flags.memory_strategy + " (one of " + names + ")");
  }
  // The file checks come first so that a bad path is named with its flag.
  std::string graph;
  const MaceStatus graph_status = ReadRegularFile(flags.model_file, "", kMaxGraphBytes, &graph);
  if (!graph_status.ok()) return Fail("--model_file: " + graph_status.information());
  if (!flags.model_data_file.empty()) {
    RegularFile weights_file;
    const MaceStatus opened = RegularFile::Open(flags.model_data_file, "", &weights_file);
    if (!opened.ok()) return Fail("--model_data_file: " + opened.information());
  }
  const auto* graph_bytes = reinterpret_cast<const unsigned char*>(graph.data());

  MaceEngineConfig config(device);
  MaceStatus status = config.SetCPUThreadPolicy(
      flags.omp_num_threads, static_cast<CPUAffinityPolicy>(flags.cpu_affinity_policy));
  if (!status.ok()) return Fail(status.ToString());
  config.SetGPUHints(static_cast<GPUPerfHint>(flags.gpu_perf_hint),
                     static_cast<GPUPriorityHint>(flags.gpu_priority_hint));
  config.SetGPUDataType(flags.gpu_data_type == "fp32_fp32" ? GPUDataType::FP32_FP32
                                                            : GPUDataType::FP16_FP32);
  config.SetCPUPrecision(flags.cpu_precision == "fp16" ? CPUPrecision::FP16 : CPUPrecision::FP32);
  config.SetCPUBlockedLayout(flags.cpu_blocked_layout);
  config.SetOpenCLWinograd(flags.opencl_winograd);
  config.SetOpenCLCacheFile(flags.opencl_cache_file);
  config.SetOpenCLBinaryPaths(flags.opencl_binary_files);
  config.SetOpenCLParameterPath(flags.opencl_parameter_file);
  config.SetOpenCLTuning(flags.tune);
  config.SetOpenCLProfiling(flags.benchmark);
  config.SetOpenCLDeviceFallback(flags.opencl_device_fallback);
  config.SetLimitOpenCLKernelTime(flags.limit_opencl_kernel_time);
  HexagonOptions hexagon;
  hexagon.emulator_path = flags.dsp_emulator;
  hexagon.image_path = flags.dsp_image;
  hexagon.call_timeout_ms = flags.dsp_timeout_ms;
  const MaceStatus hexagon_status = config.SetHexagonOptions(hexagon);
  if (!hexagon_status.ok()) return Fail(hexagon_status.information());
  config.SetMemoryStrategy(strategy);
  if (flags.plan_time_limit_ms > 0) config.SetMemoryPlanTimeLimitMs(flags.plan_time_limit_ms);
  config.SetVerifyWeights(flags.verify_weights);
  RangeCollector ranges(flags.quantize_stat_percentile);
  HistogramCollector histograms(flags.quantize_stat_bins);
  const bool histogram_mode = !flags.quantize_stat_histogram.empty();
  if (histogram_mode && !histograms.ReadBounds(flags.quantize_stat_histogram, &error)) {
    return Fail(error);
  }
  auto observe = [&](const std::string& name, const std::vector<int64_t>& shape,
                     const float* data) {
    if (histogram_mode)
      histograms.Observe(name, shape, data);
    else
      ranges.Observe(name, shape, data);
  };
  if (!flags.quantize_stat.empty()) config.SetOutputObserver(observe);

  auto create = [&](const MaceEngineConfig& engine_config, std::shared_ptr<MaceEngine>* engine) {
    if (flags.model_data_file.empty()) {
      return CreateMaceEngineFromProto(graph_bytes, graph.size(), nullptr, 0, flags.input_nodes,
                                       flags.output_nodes, engine_config, engine);
    }
    return CreateMaceEngineFromProto(graph_bytes, graph.size(), flags.model_data_file,
                                     flags.input_nodes, flags.output_nodes, engine_config, engine);
  };

  LatencyStats stats;
  std::map<std::string, MaceTensor> outputs;
  RunMetadata metadata;
  std::shared_ptr<MaceEngine> engine;
  std::map<std::string, MaceTensor> inputs;
  for (int restart = 0; restart < flags.restart_round; ++restart) {
    engine.reset();
    const int64_t init_start = NowMicros();
    const int64_t init_cpu_start = ProcessCpuMicros();
    const ProcessKernelUsage init_kernel_start = ProcessKernelNow();
    status = create(config, &engine);
    if (!status.ok()) {
      return Fail(
          status.ToString() + " (--model_file " + flags.model_file +
          (flags.model_data_file.empty() ? "" : ", --model_data_file " + flags.model_data_file) +
          ")");
    }
    stats.init_ms.push_back((NowMicros() - init_start) / 1000.0);
    const int64_t init_cpu_end = ProcessCpuMicros();
    if (init_cpu_start >= 0 && init_cpu_end >= 0) {
      stats.init_cpu_ms.push_back((init_cpu_end - init_cpu_start) / 1000.0);
    }
    const ProcessKernelUsage init_kernel_end = ProcessKernelNow();
    if (init_kernel_start.valid && init_kernel_end.valid) {
      stats.init_sys_ms.push_back(
          (init_kernel_end.system_micros - init_kernel_start.system_micros) / 1000.0);
      stats.init_faults.push_back(static_cast<double>(
          init_kernel_end.minor_faults + init_kernel_end.major_faults -
          init_kernel_start.minor_faults - init_kernel_start.major_faults));
    }

    // Every engine of the model has the same inputs: they are made once.
    if (restart == 0) {
      status = PrepareInputs(flags, *engine, &inputs);
      if (!status.ok()) return Fail(status.ToString());
      for (const auto& [name, tensor] : inputs) {
        if (!flags.quantize_stat.empty() && tensor.data() != nullptr) {
          observe(name, tensor.shape(), tensor.data().get());
        }
      }
    }
    for (int r = 0; r <= flags.round; ++r) {
      outputs.clear();
      const int64_t start = NowMicros();
      status = engine->Run(inputs, &outputs, flags.benchmark ? &metadata : nullptr);
      if (!status.ok()) return Fail(status.ToString());
      const double ms = (NowMicros() - start) / 1000.0;
      // The first run warms caches; it is reported on its own.
      if (r == 0)
        stats.first_run_ms.push_back(ms);
      else
        stats.run_ms.push_back(ms);
      if (flags.benchmark && r > 0) stats.AddOpStats(metadata);
    }
  }
  if (flags.input_file.empty()) {
    std::printf("inputs: random, seed %u\n", kInputSeed);
    for (const auto& [name, tensor] : inputs) {
      std::printf(
          "  input %s (%s): %s\n", name.c_str(), TensorDataTypeName(tensor.data_type()),
          DescribeInputRange(tensor.data_type(), RangeOf(flags, name, tensor.data_type())).c_str());
    }
  }
  for (size_t i = 0; i < flags.output_shapes.size(); ++i) {
    const std::vector<int64_t>& actual = outputs[flags.output_nodes[i]].shape();
    if (actual != flags.output_shapes[i]) {
      return Fail("output '" + flags.output_nodes[i] + "' has shape " + ShapeText(actual) +
                  " but --output_shape expects " + ShapeText(flags.output_shapes[i]));
    }
  }
  PrintOutputs(outputs);
  for (const auto& [name, tensor] : outputs) {
    if (flags.output_file.empty()) break;
    const std::string path = flags.output_file + "_" + SafeName(name) + ".npy";
    // Each output in its own type: ArgMax's int32 indices stay exact.
    const char* descr = tensor.data_type() == TensorDataType::INT32   ? "<i4"
                        : tensor.data_type() == TensorDataType::INT64 ? "<i8"
                        : tensor.data_type() == TensorDataType::BOOL  ? "|b1"
                        : tensor.data_type() == TensorDataType::UINT8 ? "|u1"
                                                                      : "<f4";
    if (!WriteNpy(path, tensor.shape(), tensor.raw_data().get(), descr,
                  TensorDataTypeSize(tensor.data_type()), &error)) {
      return Fail(error);
    }
    std::printf("wrote %s\n", path.c_str());
  }
  PrintLatency(stats);
  if (histogram_mode) {
    if (!histograms.Write(flags.quantize_stat, &error)) return Fail(error);
    std::printf("wrote tensor histograms to %s\n", flags.quantize_stat.c_str());
  } else if (!flags.quantize_stat.empty()) {
    if (!ranges.Write(flags.quantize_stat, &error)) return Fail(error);
    std::printf("wrote %zu tensor ranges to %s\n", ranges.ranges().size(),
                flags.quantize_stat.c_str());
  }
  if (flags.benchmark) PrintOpTable(stats);
  if (flags.memory_report) {
    MemoryReport report;
    status = engine->GetMemoryReport(&report);
    if (!status.ok()) return Fail(status.ToString());
    // A GPU engine shows both of the GPU's memory types, used or not.
    PrintMemoryReport(report, device == DeviceType::GPU
                                  ? std::vector<std::string>{"GPU_IMAGE", "GPU_BUFFER"}
                                  : std::vector<std::string>{});
  }
  if (!flags.memory_plan.empty()) {
    MemoryReport report;
    status = engine->GetMemoryReport(&report);
    if (!status.ok()) return Fail(status.ToString());
    std::string error;
    if (!WriteMemoryPlan(report, flags.memory_plan, &error)) return Fail(error);
    std::printf("wrote the memory plan to %s.csv and %s.json\n", flags.memory_plan.c_str(),
                flags.memory_plan.c_str());
  }
  if (flags.soak_rounds > 0) {
    status = Soak(engine.get(), inputs, flags.soak_rounds);
    if (!status.ok()) return Fail("soak: " + status.ToString());
  }
  if (flags.compare_strategies) {
    std::vector<MemoryReport> reports;
    for (MemoryStrategy each : AllMemoryStrategies()) {
      MaceEngineConfig each_config = config;
      each_config.SetMemoryStrategy(each);
      std::shared_ptr<MaceEngine> each_engine;
      status = create(each_config, &each_engine);
      if (!status.ok()) return Fail(status.ToString());
      MemoryReport report;
      each_engine->GetMemoryReport(&report);
      report.strategy = MemoryStrategyName(each) + " (" + report.strategy + ")";
      reports.push_back(report);
    }
    PrintStrategyTable(reports);
  }
  return 0;
}

}  // namespace
}  // namespace tools
}  // namespace mace

int main(int argc, char** argv) {
  // Bad input has its own messages above; this is the last line of defence,
  // so that nothing the libraries throw ends in an abort.
  try {
    return mace::tools::RunMain(argc, argv);
  } catch (const std::exception& e) {
    return mace::tools::Fail(std::string("unexpected ") + e.what());
  } catch (...) {
    return mace::tools::Fail("unexpected exception");
  }
}
