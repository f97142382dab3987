// The C API (mace/public/mace_c.h) over the C++ engine. Each entry point
// clears the thread's error, checks its handles and arguments, and turns
// every MaceStatus and every exception into a code plus a message.
#include "mace/public/mace_c.h"

#include <cstdio>
#include <cstring>
#include <exception>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include "mace/public/mace.h"
#include "mace/utils/file_read.h"

struct MaceCConfig {
  mace::MaceEngineConfig config;
};

struct MaceCContext {
  std::shared_ptr<mace::MaceContext> context;
};

struct MaceCCancellation {
  mace::CancellationFlag flag;
};

struct MaceCEngine {
  std::shared_ptr<mace::MaceEngine> engine;
  std::vector<std::string> input_names;
  std::vector<std::string> output_names;
  std::map<std::string, std::vector<int64_t>> input_shapes;
  std::map<std::string, std::vector<int64_t>> input_max_shapes;
  // The inputs set since the last run; mace_c_engine_run consumes them, and
  // a failed set_input or run drops them, so no value outlives its run.
  std::map<std::string, mace::MaceTensor> inputs;
  std::map<std::string, mace::MaceTensor> outputs;
  std::string report_json;
};

namespace {

thread_local std::string last_error;

MaceCStatus Fail(MaceCStatus code, const std::string& message) {
  last_error = message;
  return code;
}

MaceCStatus FromStatus(const mace::MaceStatus& status) {
  if (status.ok()) return MACE_C_OK;
  last_error = status.information().empty() ? status.ToString() : status.information();
  return static_cast<MaceCStatus>(status.code());
}

// Runs `body` with the thread's error cleared; an exception becomes a code.
// The handlers are compiled once: every entry point reaches them through
// this function and a plain function pointer to its own body.
MaceCStatus GuardCall(const char* what, MaceCStatus (*call)(void*), void* body) noexcept {
  last_error.clear();
  try {
    return call(body);
  } catch (const std::bad_alloc&) {
    return Fail(MACE_C_OUT_OF_RESOURCES, std::string(what) + ": out of memory");
  } catch (const std::exception& error) {
    return Fail(MACE_C_RUNTIME_ERROR, std::string(what) + ": " + error.what());
  } catch (...) {
    return Fail(MACE_C_RUNTIME_ERROR, std::string(what) + ": unknown error");
  }
}

template <typename Body>
MaceCStatus Guard(const char* what, Body&& body) noexcept {
  using BodyType = std::remove_reference_t<Body>;
  return GuardCall(
      what, [](void* callable) { return (*static_cast<BodyType*>(callable))(); },
      const_cast<void*>(static_cast<const void*>(&body)));
}

#define MACE_C_REQUIRE(condition, message)                         \
  do {                                                             \
    if (!(condition)) return Fail(MACE_C_INVALID_ARGS, (message)); \
  } while (0)

// The most threads a CPU engine takes (MaceEngineConfig::SetCPUThreadPolicy).
constexpr int kMaxCpuThreads = 256;

bool ValidType(MaceCDataType type) {
  return type == MACE_C_FLOAT32 || type == MACE_C_INT32 || type == MACE_C_UINT8 ||
         type == MACE_C_INT64 || type == MACE_C_BOOL;
}

std::string ShapeText(const int64_t* dims, size_t rank) {
  std::string text = "[";
  for (size_t i = 0; i < rank; ++i) text += (i ? "," : "") + std::to_string(dims[i]);
  return text + "]";
}

// The graph file; only a regular file is read, and at most as much as a
// graph may hold (mace/utils/file_read.h).
MaceCStatus ReadFile(const char* path, const char* what, std::string* bytes) {
  return FromStatus(mace::ReadRegularFile(path, what, mace::kMaxFileReadBytes, bytes));
}

// Fills the names and shapes of a freshly created engine.
MaceCStatus Describe(std::unique_ptr<MaceCEngine> handle, MaceCEngine** engine) {
  MaceCStatus code = FromStatus(handle->engine->GetInputNames(&handle->input_names));
  if (code != MACE_C_OK) return code;
  code = FromStatus(handle->engine->GetOutputNames(&handle->output_names));
  if (code != MACE_C_OK) return code;
  code = FromStatus(handle->engine->GetInputShapes(&handle->input_shapes));
  if (code != MACE_C_OK) return code;
  code = FromStatus(handle->engine->GetInputMaxShapes(&handle->input_max_shapes));
  if (code != MACE_C_OK) return code;
  *engine = handle.release();
  return MACE_C_OK;
}

MaceCStatus Create(const std::string& graph, const char* weights_path, const void* weights,
                   size_t weights_size, const MaceCConfig* config, MaceCEngine** engine) {
  auto handle = std::make_unique<MaceCEngine>();
  const auto* graph_bytes = reinterpret_cast<const unsigned char*>(graph.data());
  const mace::MaceEngineConfig& engine_config = config->config;
  mace::MaceStatus status;
  if (weights_path != nullptr) {
    status = mace::CreateMaceEngineFromProto(graph_bytes, graph.size(), weights_path, {}, {},
                                             engine_config, &handle->engine);
  } else {
    static const unsigned char kNoWeights = 0;
    const auto* bytes = weights != nullptr ? static_cast<const unsigned char*>(weights)
                                           : &kNoWeights;
    status = mace::CreateMaceEngineFromProto(graph_bytes, graph.size(), bytes, weights_size, {},
                                             {}, engine_config, &handle->engine);
  }
  const MaceCStatus code = FromStatus(status);
  if (code != MACE_C_OK) return code;
  return Describe(std::move(handle), engine);
}

void JsonString(const std::string& text, std::string* out) {
  out->push_back('"');
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(c);
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\u%04x", static_cast<unsigned char>(c));
      out->append(escaped);
    } else {
      out->push_back(c);
    }
  }
  out->push_back('"');
}

void JsonField(const char* key, int64_t value, std::string* out) {
  JsonString(key, out);
  out->append(": " + std::to_string(value) + ", ");
}

std::string ReportJson(const mace::MemoryReport& report) {
  std::string out = "{";
  JsonString("strategy", &out);
  out += ": ";
  JsonString(report.strategy, &out);
  out += ", ";
  JsonField("arena_bytes", report.arena_bytes, &out);
  JsonField("persistent_bytes", report.persistent_bytes, &out);
  JsonField("scratch_bytes", report.scratch_bytes, &out);
  JsonField("weights_bytes", report.weights_bytes, &out);
  JsonField("state_bytes", report.state_bytes, &out);
  JsonField("op_bytes", report.op_bytes, &out);
  JsonField("app_input_bytes", report.app_input_bytes, &out);
  JsonField("input_copy_bytes", report.input_copy_bytes, &out);
  JsonField("naive_bytes", report.naive_bytes, &out);
  JsonField("lower_bound_bytes", report.lower_bound_bytes, &out);
  JsonField("plan_micros", report.plan_micros, &out);
  JsonField("replans", report.replans, &out);
  JsonString("memory_types", &out);
  out += ": [";
  for (size_t i = 0; i < report.memory_types.size(); ++i) {
    const mace::MemoryTypeReport& type = report.memory_types[i];
    out += i ? ", {" : "{";
    JsonString("memory_type", &out);
    out += ": ";
    JsonString(type.memory_type, &out);
    out += ", ";
    JsonString("runtime", &out);
    out += ": ";
    JsonString(type.runtime, &out);
    out += ", ";
    JsonField("bytes", type.bytes, &out);
    JsonField("naive_bytes", type.naive_bytes, &out);
    JsonField("lower_bound_bytes", type.lower_bound_bytes, &out);
    JsonString("blocks", &out);
    out += ": " + std::to_string(type.blocks) + "}";
  }
  out += "]}";
  return out;
}

// Reads the engine's memory report and hands it to `use`.
template <typename Use>
MaceCStatus WithReport(const MaceCEngine* engine, Use&& use) {
  mace::MemoryReport report;
  const MaceCStatus code = FromStatus(engine->engine->GetMemoryReport(&report));
  if (code == MACE_C_OK) use(report);
  return code;
}

}  // namespace

extern "C" {

const char* mace_c_version(void) { return mace::MaceVersion(); }

const char* mace_c_last_error(void) { return last_error.c_str(); }

const char* mace_c_data_type_name(MaceCDataType type) {
  return ValidType(type) ? mace::TensorDataTypeName(static_cast<mace::TensorDataType>(type))
                         : "unknown";
}

size_t mace_c_data_type_size(MaceCDataType type) {
  return ValidType(type) ? mace::TensorDataTypeSize(static_cast<mace::TensorDataType>(type)) : 0;
}

MaceCStatus mace_c_config_create(MaceCDevice device, MaceCConfig** config) {
  return Guard("mace_c_config_create", [&] {
    MACE_C_REQUIRE(config != nullptr, "mace_c_config_create: config is null");
    *config = nullptr;
    MACE_C_REQUIRE(device == MACE_C_CPU || device == MACE_C_GPU || device == MACE_C_HEXAGON,
                   "mace_c_config_create: device " + std::to_string(device) +
                       " is not MACE_C_CPU, MACE_C_GPU or MACE_C_HEXAGON");
    auto handle = std::make_unique<MaceCConfig>();
    handle->config = mace::MaceEngineConfig(static_cast<mace::DeviceType>(device));
    *config = handle.release();
    return MACE_C_OK;
  });
}

void mace_c_config_destroy(MaceCConfig* config) { delete config; }

MaceCStatus mace_c_config_set_cpu_threads(MaceCConfig* config, int num_threads, int affinity) {
  return Guard("mace_c_config_set_cpu_threads", [&] {
    MACE_C_REQUIRE(config != nullptr, "mace_c_config_set_cpu_threads: config is null");
    MACE_C_REQUIRE(num_threads >= -1 && num_threads <= kMaxCpuThreads,
                   "mace_c_config_set_cpu_threads: num_threads " + std::to_string(num_threads) +
                       " is not -1, 0 (the default) or 1 to " + std::to_string(kMaxCpuThreads));
    MACE_C_REQUIRE(affinity >= 0 && affinity <= 2, "mace_c_config_set_cpu_threads: affinity " +
                                                       std::to_string(affinity) +
                                                       " is not 0, 1 or 2");
    return FromStatus(config->config.SetCPUThreadPolicy(
        num_threads, static_cast<mace::CPUAffinityPolicy>(affinity)));
  });
}

MaceCStatus mace_c_context_create(int num_threads, int affinity, MaceCContext** context) {
  return Guard("mace_c_context_create", [&] {
    MACE_C_REQUIRE(context != nullptr, "mace_c_context_create: context is null");
    *context = nullptr;
    MACE_C_REQUIRE(num_threads >= -1 && num_threads <= kMaxCpuThreads,
                   "mace_c_context_create: num_threads " + std::to_string(num_threads) +
                       " is not -1, 0 (the default) or 1 to " + std::to_string(kMaxCpuThreads));
    MACE_C_REQUIRE(affinity >= 0 && affinity <= 2, "mace_c_context_create: affinity " +
                                                       std::to_string(affinity) +
                                                       " is not 0, 1 or 2");
    auto handle = std::make_unique<MaceCContext>();
    const MaceCStatus code = FromStatus(mace::MaceContext::Create(
        num_threads, static_cast<mace::CPUAffinityPolicy>(affinity), &handle->context));
    if (code == MACE_C_OK) *context = handle.release();
    return code;
  });
}

void mace_c_context_destroy(MaceCContext* context) { delete context; }

MaceCStatus mace_c_context_num_threads(const MaceCContext* context, int* num_threads) {
  return Guard("mace_c_context_num_threads", [&] {
    MACE_C_REQUIRE(context != nullptr && num_threads != nullptr,
                   "mace_c_context_num_threads: context or num_threads is null");
    *num_threads = context->context->num_threads();
    return MACE_C_OK;
  });
}

MaceCStatus mace_c_cancellation_create(MaceCCancellation** cancellation) {
  return Guard("mace_c_cancellation_create", [&] {
    MACE_C_REQUIRE(cancellation != nullptr, "mace_c_cancellation_create: cancellation is null");
    *cancellation = new MaceCCancellation();
    return MACE_C_OK;
  });
}

void mace_c_cancellation_destroy(MaceCCancellation* cancellation) { delete cancellation; }

MaceCStatus mace_c_cancellation_cancel(MaceCCancellation* cancellation) {
  return Guard("mace_c_cancellation_cancel", [&] {
    MACE_C_REQUIRE(cancellation != nullptr, "mace_c_cancellation_cancel: cancellation is null");
    cancellation->flag.Cancel();
    return MACE_C_OK;
  });
}

MaceCStatus mace_c_cancellation_reset(MaceCCancellation* cancellation) {
  return Guard("mace_c_cancellation_reset", [&] {
    MACE_C_REQUIRE(cancellation != nullptr, "mace_c_cancellation_reset: cancellation is null");
    cancellation->flag.Reset();
    return MACE_C_OK;
  });
}

MaceCStatus mace_c_config_set_context(MaceCConfig* config, MaceCContext* context) {
  return Guard("mace_c_config_set_context", [&] {
    MACE_C_REQUIRE(config != nullptr, "mace_c_config_set_context: config is null");
    config->config.SetContext(context != nullptr ? context->context : nullptr);
    return MACE_C_OK;
  });
}

MaceCStatus mace_c_config_set_sequential_group(MaceCConfig* config, int group) {
  return Guard("mace_c_config_set_sequential_group", [&] {
    MACE_C_REQUIRE(config != nullptr, "mace_c_config_set_sequential_group: config is null");
    return FromStatus(config->config.SetSequentialGroup(group));
  });
}

MaceCStatus mace_c_context_arena_bytes(const MaceCContext* context, int64_t* bytes) {
  return Guard("mace_c_context_arena_bytes", [&] {
    MACE_C_REQUIRE(context != nullptr && bytes != nullptr,
                   "mace_c_context_arena_bytes: context or bytes is null");
    *bytes = context->context->arena_bytes();
    return MACE_C_OK;
  });
}

MaceCStatus mace_c_config_set_gpu_hints(MaceCConfig* config, int perf_hint, int priority_hint) {
  return Guard("mace_c_config_set_gpu_hints", [&] {
    MACE_C_REQUIRE(config != nullptr, "mace_c_config_set_gpu_hints: config is null");
    MACE_C_REQUIRE(perf_hint >= 0 && perf_hint <= 3 && priority_hint >= 0 && priority_hint <= 3,
                   "mace_c_config_set_gpu_hints: hints must be 0 to 3, got " +
                       std::to_string(perf_hint) + " and " + std::to_string(priority_hint));
    config->config.SetGPUHints(static_cast<mace::GPUPerfHint>(perf_hint),
                               static_cast<mace::GPUPriorityHint>(priority_hint));
    return MACE_C_OK;
  });
}

MaceCStatus mace_c_config_set_gpu_data_type(MaceCConfig* config, int data_type) {
  return Guard("mace_c_config_set_gpu_data_type", [&] {
    MACE_C_REQUIRE(config != nullptr, "mace_c_config_set_gpu_data_type: config is null");
    MACE_C_REQUIRE(data_type == 0 || data_type == 1,
                   "mace_c_config_set_gpu_data_type: data type " + std::to_string(data_type) +
                       " is not 0 (fp16_fp32) or 1 (fp32_fp32)");
    config->config.SetGPUDataType(static_cast<mace::GPUDataType>(data_type));
    return MACE_C_OK;
  });
}

MaceCStatus mace_c_config_set_opencl_device_fallback(MaceCConfig* config, int allow) {
  return Guard("mace_c_config_set_opencl_device_fallback", [&] {
    MACE_C_REQUIRE(config != nullptr, "mace_c_config_set_opencl_device_fallback: config is null");
    MACE_C_REQUIRE(allow == 0 || allow == 1, "mace_c_config_set_opencl_device_fallback: allow " +
                                                 std::to_string(allow) + " is not 0 or 1");
    config->config.SetOpenCLDeviceFallback(allow != 0);
    return MACE_C_OK;
  });
}

MaceCStatus mace_c_config_set_opencl_cache_file(MaceCConfig* config, const char* path) {
  return Guard("mace_c_config_set_opencl_cache_file", [&] {
    MACE_C_REQUIRE(config != nullptr, "mace_c_config_set_opencl_cache_file: config is null");
    config->config.SetOpenCLCacheFile(path != nullptr ? path : "");
    return MACE_C_OK;
  });
}

MaceCStatus mace_c_config_set_cpu_kernel_family(MaceCConfig* config, const char* family) {
  return Guard("mace_c_config_set_cpu_kernel_family", [&] {
    MACE_C_REQUIRE(config != nullptr, "mace_c_config_set_cpu_kernel_family: config is null");
    MACE_C_REQUIRE(family != nullptr, "mace_c_config_set_cpu_kernel_family: family is null");
    config->config.SetCPUKernelFamily(family);
    return MACE_C_OK;
  });
}

MaceCStatus mace_c_config_set_hexagon_options(MaceCConfig* config, const char* emulator_path,
                                              const char* image_path, int64_t call_timeout_ms) {
  return Guard("mace_c_config_set_hexagon_options", [&] {
    MACE_C_REQUIRE(config != nullptr, "mace_c_config_set_hexagon_options: config is null");
    mace::HexagonOptions options;
    options.emulator_path = emulator_path != nullptr ? emulator_path : "";
    options.image_path = image_path != nullptr ? image_path : "";
    options.call_timeout_ms = call_timeout_ms;
    const mace::MaceStatus status = config->config.SetHexagonOptions(options);
    if (!status.ok()) {
      return Fail(static_cast<MaceCStatus>(status.code()),
                  "mace_c_config_set_hexagon_options: " + status.information());
    }
    return MACE_C_OK;
  });
}

MaceCStatus mace_c_config_set_copy_weights_file(MaceCConfig* config, int copy) {
  return Guard("mace_c_config_set_copy_weights_file", [&] {
    MACE_C_REQUIRE(config != nullptr, "mace_c_config_set_copy_weights_file: config is null");
    config->config.SetCopyWeightsFile(copy != 0);
    return MACE_C_OK;
  });
}

MaceCStatus mace_c_engine_create_from_files(const char* graph_path, const char* weights_path,
                                            const MaceCConfig* config, MaceCEngine** engine) {
  return Guard("mace_c_engine_create_from_files", [&] {
    MACE_C_REQUIRE(engine != nullptr, "mace_c_engine_create_from_files: engine is null");
    *engine = nullptr;
    MACE_C_REQUIRE(graph_path != nullptr && weights_path != nullptr,
                   "mace_c_engine_create_from_files: a file path is null");
    MACE_C_REQUIRE(config != nullptr, "mace_c_engine_create_from_files: config is null");
    std::string graph;
    const MaceCStatus code = ReadFile(graph_path, "the model graph", &graph);
    if (code != MACE_C_OK) return code;
    return Create(graph, weights_path, nullptr, 0, config, engine);
  });
}

MaceCStatus mace_c_engine_create_from_buffers(const void* graph, size_t graph_size,
                                              const void* weights, size_t weights_size,
                                              const MaceCConfig* config, MaceCEngine** engine) {
  return Guard("mace_c_engine_create_from_buffers", [&] {
    MACE_C_REQUIRE(engine != nullptr, "mace_c_engine_create_from_buffers: engine is null");
    *engine = nullptr;
    MACE_C_REQUIRE(graph != nullptr && graph_size > 0,
                   "mace_c_engine_create_from_buffers: the graph buffer is null or empty");
    MACE_C_REQUIRE(weights != nullptr || weights_size == 0,
                   "mace_c_engine_create_from_buffers: weights is null but weights_size is " +
                       std::to_string(weights_size));
    MACE_C_REQUIRE(config != nullptr, "mace_c_engine_create_from_buffers: config is null");
    const std::string bytes(static_cast<const char*>(graph), graph_size);
    return Create(bytes, nullptr, weights, weights_size, config, engine);
  });
}

void mace_c_engine_destroy(MaceCEngine* engine) { delete engine; }

MaceCStatus mace_c_engine_input_count(const MaceCEngine* engine, size_t* count) {
  return Guard("mace_c_engine_input_count", [&] {
    MACE_C_REQUIRE(engine != nullptr && count != nullptr,
                   "mace_c_engine_input_count: engine or count is null");
    *count = engine->input_names.size();
    return MACE_C_OK;
  });
}

MaceCStatus mace_c_engine_output_count(const MaceCEngine* engine, size_t* count) {
  return Guard("mace_c_engine_output_count", [&] {
    MACE_C_REQUIRE(engine != nullptr && count != nullptr,
                   "mace_c_engine_output_count: engine or count is null");
    *count = engine->output_names.size();
    return MACE_C_OK;
  });
}

MaceCStatus mace_c_engine_input_name(const MaceCEngine* engine, size_t index, const char** name) {
  return Guard("mace_c_engine_input_name", [&] {
    MACE_C_REQUIRE(engine != nullptr && name != nullptr,
                   "mace_c_engine_input_name: engine or name is null");
    MACE_C_REQUIRE(index < engine->input_names.size(),
                   "mace_c_engine_input_name: index " + std::to_string(index) +
                       " is out of range; the model has " +
                       std::to_string(engine->input_names.size()) + " inputs");
    *name = engine->input_names[index].c_str();
    return MACE_C_OK;
  });
}

MaceCStatus mace_c_engine_output_name(const MaceCEngine* engine, size_t index, const char** name) {
  return Guard("mace_c_engine_output_name", [&] {
    MACE_C_REQUIRE(engine != nullptr && name != nullptr,
                   "mace_c_engine_output_name: engine or name is null");
    MACE_C_REQUIRE(index < engine->output_names.size(),
                   "mace_c_engine_output_name: index " + std::to_string(index) +
                       " is out of range; the model has " +
                       std::to_string(engine->output_names.size()) + " outputs");
    *name = engine->output_names[index].c_str();
    return MACE_C_OK;
  });
}

namespace {

// One input's shape from `shapes` (declared or largest), for `function`.
MaceCStatus InputShape(const char* function, const MaceCEngine* engine,
                       const std::map<std::string, std::vector<int64_t>> MaceCEngine::*shapes,
                       const char* name, const int64_t** dims, size_t* rank) {
  MACE_C_REQUIRE(engine != nullptr && name != nullptr && dims != nullptr && rank != nullptr,
                 std::string(function) + ": a pointer argument is null");
  const auto& table = engine->*shapes;
  auto it = table.find(name);
  MACE_C_REQUIRE(it != table.end(),
                 std::string(function) + ": '" + name + "' is not an input of the model");
  *dims = it->second.data();
  *rank = it->second.size();
  return MACE_C_OK;
}

}  // namespace

MaceCStatus mace_c_engine_input_shape(const MaceCEngine* engine, const char* name,
                                      const int64_t** dims, size_t* rank) {
  return Guard("mace_c_engine_input_shape", [&] {
    return InputShape("mace_c_engine_input_shape", engine, &MaceCEngine::input_shapes, name,
                      dims, rank);
  });
}

MaceCStatus mace_c_engine_input_max_shape(const MaceCEngine* engine, const char* name,
                                          const int64_t** dims, size_t* rank) {
  return Guard("mace_c_engine_input_max_shape", [&] {
    return InputShape("mace_c_engine_input_max_shape", engine, &MaceCEngine::input_max_shapes,
                      name, dims, rank);
  });
}

namespace {

// Checks one input against the model and keeps a copy of it until the run.
MaceCStatus SetInput(MaceCEngine* engine, const char* name, MaceCDataType type,
                     const int64_t* dims, size_t rank, const void* data, size_t data_size) {
  MACE_C_REQUIRE(engine != nullptr && name != nullptr,
                 "mace_c_engine_set_input: engine or name is null");
  auto declared = engine->input_shapes.find(name);
  MACE_C_REQUIRE(declared != engine->input_shapes.end(),
                 std::string("mace_c_engine_set_input: '") + name +
                     "' is not an input of the model");
  MACE_C_REQUIRE(ValidType(type), "mace_c_engine_set_input: input '" + std::string(name) +
                                      "': data type " + std::to_string(type) + " is unknown");
  MACE_C_REQUIRE(dims != nullptr || rank == 0,
                 "mace_c_engine_set_input: input '" + std::string(name) + "': dims is null");
  // Only the model's rank is read from dims; the run checks the values.
  MACE_C_REQUIRE(rank == declared->second.size(),
                 "mace_c_engine_set_input: input '" + std::string(name) + "' has rank " +
                     std::to_string(rank) + " but the model expects shape " +
                     ShapeText(declared->second.data(), declared->second.size()));
  size_t count = 1;
  for (size_t i = 0; i < rank; ++i) {
    MACE_C_REQUIRE(dims[i] >= 0 && (dims[i] == 0 || count <= SIZE_MAX / 16 /
                                                            static_cast<size_t>(dims[i])),
                   "mace_c_engine_set_input: input '" + std::string(name) + "' has shape " +
                       ShapeText(dims, rank) + ", which is negative or too large");
    count *= static_cast<size_t>(dims[i]);
  }
  const size_t bytes = count * mace_c_data_type_size(type);
  MACE_C_REQUIRE(data_size == bytes,
                 "mace_c_engine_set_input: input '" + std::string(name) + "' of shape " +
                     ShapeText(dims, rank) + " and type " + mace_c_data_type_name(type) +
                     " needs " + std::to_string(bytes) + " bytes, got " +
                     std::to_string(data_size));
  MACE_C_REQUIRE(data != nullptr || bytes == 0,
                 "mace_c_engine_set_input: input '" + std::string(name) + "': data is null");
  std::shared_ptr<void> copy(new unsigned char[bytes > 0 ? bytes : 1],
                             [](void* p) { delete[] static_cast<unsigned char*>(p); });
  if (bytes > 0) std::memcpy(copy.get(), data, bytes);
  engine->inputs[name] = mace::MaceTensor(std::vector<int64_t>(dims, dims + rank), copy,
                                          static_cast<mace::TensorDataType>(type));
  return MACE_C_OK;
}

}  // namespace

MaceCStatus mace_c_engine_set_input(MaceCEngine* engine, const char* name, MaceCDataType type,
                                    const int64_t* dims, size_t rank, const void* data,
                                    size_t data_size) {
  const MaceCStatus code = Guard("mace_c_engine_set_input", [&] {
    return SetInput(engine, name, type, dims, rank, data, data_size);
  });
  // A refused input drops the others set with it: the next run needs all.
  if (code != MACE_C_OK && engine != nullptr) engine->inputs.clear();
  return code;
}

MaceCStatus mace_c_engine_clear_inputs(MaceCEngine* engine) {
  return Guard("mace_c_engine_clear_inputs", [&] {
    MACE_C_REQUIRE(engine != nullptr, "mace_c_engine_clear_inputs: engine is null");
    engine->inputs.clear();
    return MACE_C_OK;
  });
}

MaceCStatus mace_c_engine_run(MaceCEngine* engine) {
  return mace_c_engine_run_with_options(engine, 0, nullptr);
}

MaceCStatus mace_c_engine_run_with_options(MaceCEngine* engine, int64_t timeout_us,
                                           const MaceCCancellation* cancellation) {
  const MaceCStatus code = Guard("mace_c_engine_run", [&] {
    MACE_C_REQUIRE(engine != nullptr, "mace_c_engine_run: engine is null");
    MACE_C_REQUIRE(timeout_us >= 0, "mace_c_engine_run_with_options: timeout_us " +
                                        std::to_string(timeout_us) + " is below 0");
    mace::RunOptions options;
    options.timeout_micros = timeout_us;
    options.cancellation = cancellation != nullptr ? &cancellation->flag : nullptr;
    std::map<std::string, mace::MaceTensor> inputs;
    inputs.swap(engine->inputs);  // consumed by this run, whatever its outcome
    engine->outputs.clear();
    for (const std::string& name : engine->input_names) {
      MACE_C_REQUIRE(inputs.count(name) > 0, "mace_c_engine_run: input '" + name +
                                                 "' has not been set since the last run");
    }
    return FromStatus(engine->engine->Run(inputs, &engine->outputs, nullptr, options));
  });
  // No output of a failed run is left to read.
  if (code != MACE_C_OK && engine != nullptr) engine->outputs.clear();
  return code;
}

MaceCStatus mace_c_engine_get_output(const MaceCEngine* engine, const char* name,
                                     MaceCDataType* type, const int64_t** dims, size_t* rank,
                                     const void** data, size_t* data_size) {
  return Guard("mace_c_engine_get_output", [&] {
    MACE_C_REQUIRE(engine != nullptr && name != nullptr,
                   "mace_c_engine_get_output: engine or name is null");
    auto it = engine->outputs.find(name);
    if (it == engine->outputs.end()) {
      bool known = false;
      for (const std::string& output : engine->output_names) known |= output == name;
      return Fail(MACE_C_INVALID_ARGS,
                  std::string("mace_c_engine_get_output: '") + name +
                      (known ? "' has no value: the engine has not run successfully yet"
                             : "' is not an output of the model"));
    }
    const mace::MaceTensor& tensor = it->second;
    if (type != nullptr) *type = static_cast<MaceCDataType>(tensor.data_type());
    if (dims != nullptr) *dims = tensor.shape().data();
    if (rank != nullptr) *rank = tensor.shape().size();
    if (data != nullptr) *data = tensor.raw_data().get();
    if (data_size != nullptr) {
      *data_size = static_cast<size_t>(tensor.size()) *
                   mace::TensorDataTypeSize(tensor.data_type());
    }
    return MACE_C_OK;
  });
}

MaceCStatus mace_c_engine_memory_report_json(MaceCEngine* engine, const char** json) {
  return Guard("mace_c_engine_memory_report_json", [&] {
    MACE_C_REQUIRE(engine != nullptr && json != nullptr,
                   "mace_c_engine_memory_report_json: engine or json is null");
    return WithReport(engine, [&](const mace::MemoryReport& report) {
      engine->report_json = ReportJson(report);
      *json = engine->report_json.c_str();
    });
  });
}

MaceCStatus mace_c_engine_replans(const MaceCEngine* engine, int64_t* replans) {
  return Guard("mace_c_engine_replans", [&] {
    MACE_C_REQUIRE(engine != nullptr && replans != nullptr,
                   "mace_c_engine_replans: engine or replans is null");
    return WithReport(engine, [&](const mace::MemoryReport& report) {
      *replans = report.replans;
    });
  });
}

MaceCStatus mace_c_engine_reset_state(MaceCEngine* engine) {
  return Guard("mace_c_engine_reset_state", [&] {
    MACE_C_REQUIRE(engine != nullptr, "mace_c_engine_reset_state: engine is null");
    return FromStatus(engine->engine->ResetState());
  });
}

}  // extern "C"
