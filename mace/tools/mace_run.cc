// mace_run: loads a MACE model, runs it on the chosen runtime and reports
// outputs, latency, a per-op benchmark table and the memory plan.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <random>

#include "mace/public/mace.h"
#include "mace/tools/npy_io.h"
#include "mace/tools/run_flags.h"
#include "mace/tools/run_report.h"
#include "mace/utils/timer.h"

namespace mace {
namespace tools {
namespace {

constexpr uint32_t kInputSeed = 20240611;

int Fail(const std::string& message) {
  std::fprintf(stderr, "mace_run: error: %s\n", message.c_str());
  return 1;
}

bool ParseDevice(const std::string& name, DeviceType* device) {
  if (name == "CPU" || name == "cpu") *device = DeviceType::CPU;
  else if (name == "GPU" || name == "gpu") *device = DeviceType::GPU;
  else if (name == "HEXAGON" || name == "DSP" || name == "dsp") *device = DeviceType::HEXAGON;
  else return false;
  return true;
}

std::string SafeName(std::string name) {
  for (char& c : name) {
    if (c == '/' || c == ':' || c == ' ') c = '_';
  }
  return name;
}

MaceStatus MakeInputs(const RunFlags& flags, const std::map<std::string, std::vector<int64_t>>& shapes,
                      std::map<std::string, MaceTensor>* inputs) {
  std::mt19937 engine(kInputSeed);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  for (const auto& [name, model_shape] : shapes) {
    std::vector<int64_t> shape = model_shape;
    for (size_t i = 0; i < flags.input_nodes.size(); ++i) {
      if (flags.input_nodes[i] == name) shape = flags.input_shapes[i];
    }
    const int64_t count = MaceTensor(shape, nullptr).size();
    std::shared_ptr<float> data(new float[count], std::default_delete<float[]>());
    if (flags.input_file.empty()) {
      for (int64_t k = 0; k < count; ++k) data.get()[k] = dist(engine);
    } else {
      std::string path = flags.input_file;
      if (shapes.size() > 1 || !std::ifstream(path).good()) {
        path = flags.input_file + "_" + SafeName(name);
        if (!std::ifstream(path).good()) path += ".npy";
      }
      std::vector<float> values;
      std::vector<int64_t> file_shape;
      std::string error;
      if (!ReadFloatTensor(path, count, &values, &file_shape, &error)) {
        return MaceStatus(MaceStatus::MACE_INVALID_ARGS, "input '" + name + "': " + error);
      }
      std::copy(values.begin(), values.end(), data.get());
    }
    (*inputs)[name] = MaceTensor(shape, data);
  }
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
    return Fail("unknown --memory_strategy " + flags.memory_strategy + " (one of " + names +
                ")");
  }
  std::ifstream model_stream(flags.model_file, std::ios::binary);
  if (!model_stream) return Fail("cannot open --model_file " + flags.model_file);
  const std::vector<unsigned char> graph((std::istreambuf_iterator<char>(model_stream)),
                                         std::istreambuf_iterator<char>());

  MaceEngineConfig config(device);
  MaceStatus status = config.SetCPUThreadPolicy(
      flags.omp_num_threads, static_cast<CPUAffinityPolicy>(flags.cpu_affinity_policy));
  if (!status.ok()) return Fail(status.ToString());
  config.SetGPUHints(static_cast<GPUPerfHint>(flags.gpu_perf_hint),
                     static_cast<GPUPriorityHint>(flags.gpu_priority_hint));
  config.SetMemoryStrategy(strategy);
  config.SetMemoryPlanTimeLimitMs(flags.plan_time_limit_ms);
  config.SetVerifyWeights(flags.verify_weights);

  auto create = [&](const MaceEngineConfig& engine_config, std::shared_ptr<MaceEngine>* engine) {
    if (flags.model_data_file.empty()) {
      return CreateMaceEngineFromProto(graph.data(), graph.size(), nullptr, 0, flags.input_nodes,
                                       flags.output_nodes, engine_config, engine);
    }
    return CreateMaceEngineFromProto(graph.data(), graph.size(), flags.model_data_file,
                                     flags.input_nodes, flags.output_nodes, engine_config, engine);
  };

  LatencyStats stats;
  std::map<std::string, MaceTensor> outputs;
  RunMetadata metadata;
  std::shared_ptr<MaceEngine> engine;
  for (int restart = 0; restart < flags.restart_round; ++restart) {
    engine.reset();
    const int64_t init_start = NowMicros();
    status = create(config, &engine);
    if (!status.ok()) {
      return Fail(status.ToString() + " (--model_file " + flags.model_file +
                  (flags.model_data_file.empty() ? "" : ", --model_data_file " +
                                                            flags.model_data_file) + ")");
    }
    stats.init_ms.push_back((NowMicros() - init_start) / 1000.0);

    std::map<std::string, std::vector<int64_t>> shapes;
    status = engine->GetInputShapes(&shapes);
    std::map<std::string, MaceTensor> inputs;
    if (status.ok()) status = MakeInputs(flags, shapes, &inputs);
    if (!status.ok()) return Fail(status.ToString());
    for (int r = 0; r <= flags.round; ++r) {
      outputs.clear();
      const int64_t start = NowMicros();
      status = engine->Run(inputs, &outputs, flags.benchmark ? &metadata : nullptr);
      if (!status.ok()) return Fail(status.ToString());
      const double ms = (NowMicros() - start) / 1000.0;
      // The first run warms caches; it is reported on its own.
      if (r == 0) stats.first_run_ms.push_back(ms);
      else stats.run_ms.push_back(ms);
      if (flags.benchmark && r > 0) stats.AddOpStats(metadata);
    }
  }
  if (flags.input_file.empty()) {
    std::printf("inputs: uniform random in [-1, 1), seed %u\n", kInputSeed);
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
    if (!WriteNpy(path, tensor.shape(), tensor.data().get(), &error)) return Fail(error);
    std::printf("wrote %s\n", path.c_str());
  }
  PrintLatency(stats);
  if (flags.benchmark) PrintOpTable(stats);
  if (flags.memory_report) {
    MemoryReport report;
    status = engine->GetMemoryReport(&report);
    if (!status.ok()) return Fail(status.ToString());
    PrintMemoryReport(report);
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

int main(int argc, char** argv) { return mace::tools::RunMain(argc, argv); }
