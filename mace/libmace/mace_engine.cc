#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <set>

#include "mace/core/net.h"
#include "mace/libmace/context_impl.h"
#include "mace/libmace/custom_op_adapter.h"
#include "mace/libmace/op_set_check.h"
#include "mace/libmace/runtime_providers.h"
#include "mace/runtimes/cpu/cpu_runtime.h"
#include "mace/utils/logging.h"
#include "mace/utils/run_control.h"

namespace mace {

namespace {

// The layout and fusion choices of an engine's CPU runtime, which its Init
// and Run make current on their thread.
const CpuTunables* TunablesOf(Runtime* cpu) {
  const CpuRuntime* runtime = AsCpuRuntime(cpu);
  return runtime != nullptr ? &runtime->tunables() : nullptr;
}

TensorDataType PublicType(DataType type) {
  switch (type) {
    case DT_INT32:
      return TensorDataType::INT32;
    case DT_UINT8:
      return TensorDataType::UINT8;
    default:
      return TensorDataType::FLOAT32;
  }
}

bool HasPublicType(DataType type) {
  return type == DT_FLOAT || type == DT_INT32 || type == DT_UINT8;
}

// The type an app exchanges for a model input or output: the model's
// app_data_type when set, else that of the engine's own type.
TensorDataType AppType(const InputOutputInfo& info, DataType engine_type) {
  switch (info.app_data_type()) {
    case IO_FLOAT32:
      return TensorDataType::FLOAT32;
    case IO_INT32:
      return TensorDataType::INT32;
    case IO_UINT8:
      return TensorDataType::UINT8;
    case IO_INT64:
      return TensorDataType::INT64;
    case IO_BOOL:
      return TensorDataType::BOOL;
    default:
      return PublicType(engine_type);
  }
}

// Integers from -2^24 to 2^24 are exactly float32 values; the next ones are not.
constexpr int64_t kExactFloatInteger = int64_t{1} << 24;

// Reads element `i` of an integer-like app tensor.
int64_t ReadInteger(const void* data, TensorDataType type, int64_t i) {
  switch (type) {
    case TensorDataType::INT32:
      return static_cast<const int32_t*>(data)[i];
    case TensorDataType::INT64:
      return static_cast<const int64_t*>(data)[i];
    default:  // UINT8, BOOL
      return static_cast<const uint8_t*>(data)[i];
  }
}

// Converts the `count` elements of an int32/int64/uint8/bool app input into
// the engine's tensor of type `engine_type` (float, int32 or uint8),
// refusing any value the engine's type cannot hold exactly.
MaceStatus ConvertInput(const std::string& name, const void* given, TensorDataType type,
                        int64_t count, DataType engine_type, void* out) {
  for (int64_t i = 0; i < count; ++i) {
    const int64_t value = ReadInteger(given, type, i);
    MACE_CHECK_ARG(type != TensorDataType::BOOL || value == 0 || value == 1, "input '", name,
                   "' is bool but element ", i, " is the byte ", value, "; bool elements are 0 or 1");
    switch (engine_type) {
      case DT_FLOAT:
        MACE_CHECK_ARG(value >= -kExactFloatInteger && value <= kExactFloatInteger, "input '",
                       name, "' holds ", value, " (element ", i, "): the model computes it in ",
                       "float32, which holds integers exactly only within +-16777216 (2^24)");
        static_cast<float*>(out)[i] = static_cast<float>(value);
        break;
      case DT_INT32:
        MACE_CHECK_ARG(value >= INT32_MIN && value <= INT32_MAX, "input '", name, "' holds ", value,
                       " (element ", i, "), beyond the int32 the model computes it in");
        static_cast<int32_t*>(out)[i] = static_cast<int32_t>(value);
        break;
      default:  // DT_UINT8
        MACE_CHECK_ARG(value >= 0 && value <= 255, "input '", name, "' holds ", value,
                       " (element ", i, "), beyond the uint8 the model computes it in");
        static_cast<uint8_t*>(out)[i] = static_cast<uint8_t>(value);
        break;
    }
  }
  return MaceStatus();
}

// Converts the engine's output tensor into the app's integer-like `type`,
// refusing a value that is not an integer or that the type cannot hold.
MaceStatus ConvertOutput(const std::string& name, const Tensor& tensor, TensorDataType type,
                         void* out) {
  double low = INT32_MIN, high = INT32_MAX;
  if (type == TensorDataType::INT64) low = -9223372036854775808.0, high = 9223372036854775807.0;
  if (type == TensorDataType::UINT8) low = 0, high = 255;
  if (type == TensorDataType::BOOL) low = 0, high = 1;
  const int64_t count = tensor.size();
  for (int64_t i = 0; i < count; ++i) {
    double value;
    switch (tensor.dtype()) {
      case DT_FLOAT:
        value = tensor.data<float>()[i];
        break;
      case DT_INT32:
        value = tensor.data<int32_t>()[i];
        break;
      default:  // DT_UINT8
        value = tensor.data<uint8_t>()[i];
        break;
    }
    // high for int64 is 2^63 as a double: equal to it is already too large.
    const bool in_range = value >= low && (type == TensorDataType::INT64 ? value < high
                                                                         : value <= high);
    MACE_CHECK_ARG(std::trunc(value) == value && in_range, "output '", name, "' is ",
                   TensorDataTypeName(type), " but element ", i, " is ", value,
                   ", which is not ", type == TensorDataType::BOOL ? "0 or 1" : "an integer",
                   type == TensorDataType::BOOL ? "" : StrCat(" within ", TensorDataTypeName(type)));
    switch (type) {
      case TensorDataType::INT32:
        static_cast<int32_t*>(out)[i] = static_cast<int32_t>(value);
        break;
      case TensorDataType::INT64:
        static_cast<int64_t*>(out)[i] = static_cast<int64_t>(value);
        break;
      default:  // UINT8, BOOL
        static_cast<uint8_t*>(out)[i] = static_cast<uint8_t>(value);
        break;
    }
  }
  return MaceStatus();
}

// The field number in the first tag of `unknown`, protobuf's wire-format bytes
// of the fields a message did not know.
uint64_t FirstFieldNumber(const std::string& unknown) {
  uint64_t tag = 0;
  for (size_t i = 0; i < unknown.size() && i < 10; ++i) {
    tag |= static_cast<uint64_t>(unknown[i] & 0x7f) << (7 * i);
    if ((unknown[i] & 0x80) == 0) break;
  }
  return tag >> 3;
}

// A flipped bit in a field tag turns the field into one the message does not
// know, which protobuf keeps aside: the op then silently loses an argument, a
// shape or a plan. Such a graph is corrupt (or from a newer converter), and
// is refused naming where the field was.
MaceStatus RefuseUnknownFields(const NetDef& net) {
  auto check = [](const std::string& unknown, const std::string& where) {
    MACE_CHECK_ARG(unknown.empty(), "the model graph has a field this engine does not know (",
                   "field ", FirstFieldNumber(unknown), " in ", where,
                   "): a corrupt .pb, or a model from a newer converter");
    return MaceStatus();
  };
  MACE_RETURN_IF_ERROR(check(net.unknown_fields(), "the NetDef"));
  for (const Argument& arg : net.arg()) {
    MACE_RETURN_IF_ERROR(check(arg.unknown_fields(), StrCat("net argument '", arg.name(), "'")));
  }
  for (const ConstTensor& tensor : net.tensors()) {
    MACE_RETURN_IF_ERROR(check(tensor.unknown_fields(), StrCat("weight '", tensor.name(), "'")));
  }
  for (const ConstTensor& tensor : net.state_tensors()) {
    MACE_RETURN_IF_ERROR(
        check(tensor.unknown_fields(), StrCat("state tensor '", tensor.name(), "'")));
  }
  for (const auto* infos : {&net.input_info(), &net.output_info()}) {
    for (const InputOutputInfo& info : *infos) {
      MACE_RETURN_IF_ERROR(check(info.unknown_fields(), StrCat("tensor info '", info.name(), "'")));
    }
  }
  for (const OperatorDef& op : net.op()) {
    const std::string where = StrCat("op '", op.name(), "'");
    MACE_RETURN_IF_ERROR(check(op.unknown_fields(), where));
    for (const Argument& arg : op.arg()) {
      MACE_RETURN_IF_ERROR(check(arg.unknown_fields(), StrCat(where, " argument '", arg.name(), "'")));
    }
    for (const OutputShape& shape : op.output_shape()) {
      MACE_RETURN_IF_ERROR(check(shape.unknown_fields(), StrCat(where, " output_shape")));
    }
    for (const QuantizeActivationInfo& info : op.quantize_info()) {
      MACE_RETURN_IF_ERROR(check(info.unknown_fields(), StrCat(where, " quantize_info")));
    }
  }
  // Subgraphs (only the top graph has a list; the net refuses nested ones).
  for (const NetDef& subgraph : net.subgraphs()) {
    MACE_CHECK_ARG(subgraph.state_tensors_size() == 0, "subgraph '", subgraph.name(),
                   "' has state tensors; only the model's top graph may have them");
    MACE_RETURN_IF_ERROR(RefuseUnknownFields(subgraph));
  }
  return MaceStatus();
}

}  // namespace

class MaceEngine::Impl {
 public:
  explicit Impl(const MaceEngineConfig& config) : config_(config) {}
  // The shared arena's member leaves first: the net's tensors it binds die
  // with the executor.
  ~Impl() { arena_member_.reset(); }

  MaceStatus Init(const unsigned char* graph, size_t graph_size,
                  const std::vector<std::string>& input_nodes,
                  const std::vector<std::string>& output_nodes,
                  std::shared_ptr<WeightsBlob> weights);
  MaceStatus Run(const std::map<std::string, MaceTensor>& inputs,
                 std::map<std::string, MaceTensor>* outputs, RunMetadata* run_metadata,
                 const RunOptions& options);
  // Maps the weights file, or copies it with SetCopyWeightsFile.
  MaceStatus LoadWeightsFile(const std::string& path, std::shared_ptr<WeightsBlob>* blob) const {
    return config_.copy_weights_file() ? ReadWeightsFile(path, blob) : MapWeightsFile(path, blob);
  }
  MaceStatus GetMemoryReport(MemoryReport* report) const;
  MaceStatus ResetState() {
    MACE_CHECK_ARG(executor_ != nullptr, "ResetState called before a successful Init");
    workspace_.ResetStates();
    return MaceStatus();
  }
  MaceStatus GetInputShapes(std::map<std::string, std::vector<int64_t>>* shapes) const {
    MACE_CHECK_ARG(executor_ != nullptr, "GetInputShapes called before a successful Init");
    MACE_CHECK_ARG(shapes != nullptr, "GetInputShapes needs a map");
    shapes->clear();
    for (const std::string& name : input_names_) {
      (*shapes)[name] = executor_->InputTensor(name)->shape();
    }
    return MaceStatus();
  }

  MaceStatus GetInputMaxShapes(std::map<std::string, std::vector<int64_t>>* shapes) const {
    MACE_CHECK_ARG(executor_ != nullptr, "GetInputMaxShapes called before a successful Init");
    MACE_CHECK_ARG(shapes != nullptr, "GetInputMaxShapes needs a map");
    shapes->clear();
    for (const std::string& name : input_names_) (*shapes)[name] = executor_->InputMaxShape(name);
    return MaceStatus();
  }

  MaceStatus GetInputDataTypes(std::map<std::string, TensorDataType>* types) const {
    MACE_CHECK_ARG(executor_ != nullptr, "GetInputDataTypes called before a successful Init");
    MACE_CHECK_ARG(types != nullptr, "GetInputDataTypes needs a map");
    types->clear();
    for (const std::string& name : input_names_) {
      (*types)[name] = AppTypeOf(name, executor_->InputTensor(name)->dtype());
    }
    return MaceStatus();
  }

  MaceStatus GetNames(bool outputs, std::vector<std::string>* names) const {
    MACE_CHECK_ARG(executor_ != nullptr, "GetInputNames/GetOutputNames called before a "
                   "successful Init");
    MACE_CHECK_ARG(names != nullptr, "GetInputNames/GetOutputNames needs a vector");
    *names = outputs ? output_names_ : input_names_;
    return MaceStatus();
  }

 private:
  MaceStatus CreateRuntimes();
  MaceStatus CheckNames(const NetDef& net_def, const std::vector<std::string>& input_nodes,
                        const std::vector<std::string>& output_nodes);
  MaceStatus ReadAppTypes(const NetDef& net_def);
  TensorDataType AppTypeOf(const std::string& name, DataType engine_type) const;
  MaceStatus CopyInputs(const std::map<std::string, MaceTensor>& inputs);
  MaceStatus CopyOutputs(std::map<std::string, MaceTensor>* outputs);

  MaceEngineConfig config_;
  OpRegistry registry_;
  ConverterRegistry converters_;
  std::unique_ptr<Runtime> cpu_runtime_;
  std::unique_ptr<Runtime> device_runtime_;  // null on a CPU engine
  // The engine's part of its context's CPU arena; null without a context.
  std::unique_ptr<SharedArena::Member> arena_member_;
  Workspace workspace_;
  std::unique_ptr<Executor> executor_;
  std::vector<std::string> input_names_;
  std::vector<std::string> output_names_;
  // The type the app exchanges for each input and output (AppType).
  std::map<std::string, TensorDataType> app_types_;
  // Some input has a dynamic dimension, or some op's output shape depends on
  // the data: output shapes change between runs.
  bool dynamic_ = false;
  // Copies of inputs read in place whose app buffer could not be (CopyInputs).
  std::map<std::string, std::vector<uint64_t>> input_copies_;
  // The weights as Init got them. While some kernel still holds them (the
  // CPU's read them at every Run; a net whose weights all went to a device
  // dropped them), Run first checks that a mapped file has not changed.
  std::weak_ptr<WeightsBlob> weights_;
};

MaceStatus MaceEngine::Impl::CreateRuntimes() {
  const DeviceType device = config_.device_type();
  const RuntimeProvider* provider = FindRuntimeProvider(device);
  MACE_UNSUPPORTED_IF(provider == nullptr, "this library has no ",
                      device == DeviceType::GPU ? "GPU (OpenCL)" : "Hexagon DSP",
                      " runtime; use DeviceType::CPU");
  const RuntimeProvider* cpu = FindRuntimeProvider(DeviceType::CPU);
  MACE_CHECK_ARG(cpu != nullptr, "this library has no CPU runtime");
  MACE_RETURN_IF_ERROR(cpu->create(config_, &cpu_runtime_));
  MACE_RETURN_IF_ERROR(cpu_runtime_->Init());
  MACE_RETURN_IF_ERROR(cpu->register_kernels(&registry_, &converters_));
  if (device != DeviceType::CPU && !provider->wrap_net) {
    MACE_RETURN_IF_ERROR(provider->create(config_, &device_runtime_));
    MACE_RETURN_IF_ERROR(device_runtime_->Init());
    MACE_RETURN_IF_ERROR(provider->register_kernels(&registry_, &converters_));
  }
  return RegisterCustomOps(config_, &registry_);
}

MaceStatus MaceEngine::Impl::Init(const unsigned char* graph, size_t graph_size,
                                  const std::vector<std::string>& input_nodes,
                                  const std::vector<std::string>& output_nodes,
                                  std::shared_ptr<WeightsBlob> weights) {
  MACE_CHECK_ARG(executor_ == nullptr, "the engine is already initialized");
  MACE_CHECK_ARG(graph != nullptr && graph_size > 0, "the model graph is empty");
  MACE_CHECK_ARG(graph_size < static_cast<size_t>(INT_MAX), "the model graph is too large");
  NetDef net_def;
  MACE_CHECK_ARG(net_def.ParseFromArray(graph, static_cast<int>(graph_size)),
                 "the model graph is not a valid MACE NetDef (corrupt or truncated .pb)");
  MACE_RETURN_IF_ERROR(RefuseUnknownFields(net_def));
  MACE_RETURN_IF_ERROR(CheckNames(net_def, input_nodes, output_nodes));
  if (config_.verify_weights()) MACE_RETURN_IF_ERROR(VerifyWeights(net_def, weights.get()));
  MACE_RETURN_IF_ERROR(CreateRuntimes());
  MACE_RETURN_IF_ERROR(CheckModelOpSet(net_def, registry_));
  // Ops choose their layout and fusions as the net is built.
  ScopedCpuTunables tunables(TunablesOf(cpu_runtime_.get()));
  weights_ = weights;
  MACE_RETURN_IF_ERROR(workspace_.LoadWeights(net_def, std::move(weights)));
  MACE_RETURN_IF_ERROR(workspace_.LoadStates(net_def));
  NetOptions options;
  options.memory_strategy = config_.memory_strategy();
  options.plan_time_limit_ms = config_.memory_plan_time_limit_ms();
  options.plan_step_limit = PlanStepLimit(options.plan_time_limit_ms);
  options.preserve_intermediates = config_.preserve_intermediates();
  options.preserve_inputs = config_.preserve_inputs();
  options.blocked_layout = config_.layout_optimization() && !config_.output_observer();
  options.memory_limit = config_.memory_limit();
  options.output_observer = config_.output_observer();
  options.inputs_in_app_buffers = config_.device_type() == DeviceType::CPU;
  if (config_.context() != nullptr) {
    arena_member_ = config_.context()->impl()->arena->Join(
        config_.sequential_group(), net_def.name().empty() ? "model" : net_def.name());
    options.shared_arena = arena_member_.get();
  }
  const RuntimeProvider* provider = FindRuntimeProvider(config_.device_type());
  const bool whole_graph = provider != nullptr && provider->wrap_net != nullptr;
  // A whole-graph device reads the CPU net's tensors as plain NCHW.
  // ... and plans host memory only for the tensors it keeps on the host.
  if (whole_graph) options.blocked_layout = false, options.defer_memory_plan = true;
  NetRuntimes runtimes;
  runtimes.cpu = cpu_runtime_.get();
  runtimes.device = device_runtime_ != nullptr ? device_runtime_.get() : cpu_runtime_.get();
  auto net = std::make_unique<Net>(&registry_, &converters_, runtimes, &workspace_, options);
  MACE_RETURN_IF_ERROR(net->Init(net_def, output_names_));
  for (const std::string& name : output_names_) {
    const Tensor* tensor = net->OutputTensor(name);
    MACE_CHECK_ARG(tensor != nullptr && HasPublicType(tensor->dtype()), "output '", name, "' is ",
                   tensor != nullptr ? DataTypeName(tensor->dtype()) : "missing",
                   "; an app can read float32, int32 and uint8 outputs");
  }
  if (whole_graph) {
    std::unique_ptr<Executor> executor;
    MACE_RETURN_IF_ERROR(provider->wrap_net(config_, std::move(net), &executor));
    MACE_RETURN_IF_ERROR(executor->Init(net_def, output_names_));
    executor_ = std::move(executor);
  } else {
    executor_ = std::move(net);
  }
  for (const std::string& name : input_names_) {
    dynamic_ = dynamic_ || executor_->InputMaxShape(name) != executor_->InputTensor(name)->shape();
  }
  dynamic_ = dynamic_ || executor_->OutputShapesVary();
  return ReadAppTypes(net_def);
}
MaceStatus MaceEngine::Impl::CheckNames(const NetDef& net_def,
                                        const std::vector<std::string>& input_nodes,
                                        const std::vector<std::string>& output_nodes) {
  std::set<std::string> model_inputs;
  for (const InputOutputInfo& info : net_def.input_info()) model_inputs.insert(info.name());
  input_names_ = input_nodes;
  if (input_names_.empty()) {  // the model's inputs, in its order
    std::set<std::string> seen;
    for (const InputOutputInfo& info : net_def.input_info()) {
      if (seen.insert(info.name()).second) input_names_.push_back(info.name());
    }
  }
  for (const std::string& name : input_names_) {
    MACE_CHECK_ARG(model_inputs.count(name) > 0, "'", name, "' is not an input of the model");
  }
  MACE_CHECK_ARG(input_names_.size() == model_inputs.size(), "the model has ", model_inputs.size(),
                 " inputs but ", input_names_.size(), " were named");
  output_names_ = output_nodes;
  if (output_names_.empty()) {
    for (const InputOutputInfo& info : net_def.output_info()) output_names_.push_back(info.name());
  }
  MACE_CHECK_ARG(!output_names_.empty(), "no output names given and the model lists none");
  return MaceStatus();
}

MaceStatus MaceEngine::Impl::ReadAppTypes(const NetDef& net_def) {
  // A float32 app type over an integer engine tensor would hand the app
  // bytes of another type; the engine's own type is always allowed.
  auto check = [](const std::string& what, const std::string& name, TensorDataType app,
                  DataType engine) {
    MACE_CHECK_ARG(app == PublicType(engine) || app != TensorDataType::FLOAT32, "model ", what,
                   " '", name, "' is declared float32 for the app but the engine computes it as ",
                   DataTypeName(engine));
    return MaceStatus();
  };
  for (const InputOutputInfo& info : net_def.input_info()) {
    const Tensor* tensor = executor_->InputTensor(info.name());
    if (tensor == nullptr) continue;
    const TensorDataType app = AppType(info, tensor->dtype());
    MACE_RETURN_IF_ERROR(check("input", info.name(), app, tensor->dtype()));
    app_types_[info.name()] = app;
  }
  for (const InputOutputInfo& info : net_def.output_info()) {
    if (std::find(output_names_.begin(), output_names_.end(), info.name()) == output_names_.end()) {
      continue;
    }
    const Tensor* tensor = executor_->OutputTensor(info.name());
    const TensorDataType app = AppType(info, tensor->dtype());
    MACE_RETURN_IF_ERROR(check("output", info.name(), app, tensor->dtype()));
    app_types_[info.name()] = app;
  }
  return MaceStatus();
}

TensorDataType MaceEngine::Impl::AppTypeOf(const std::string& name, DataType engine_type) const {
  auto it = app_types_.find(name);
  return it != app_types_.end() ? it->second : PublicType(engine_type);
}

MaceStatus MaceEngine::Impl::CopyInputs(const std::map<std::string, MaceTensor>& inputs) {
  for (const auto& [name, tensor] : inputs) {
    MACE_CHECK_ARG(std::find(input_names_.begin(), input_names_.end(), name) != input_names_.end(),
                   "'", name, "' is not an input of the model");
  }
  std::map<std::string, std::vector<int64_t>> shapes;
  for (const std::string& name : input_names_) {
    auto it = inputs.find(name);
    MACE_CHECK_ARG(it != inputs.end(), "input '", name, "' is missing");
    shapes[name] = it->second.shape();
  }
  // A new shape of a dynamic input re-plans the net here (net.h); the
  // shapes of the last run cost nothing.
  MACE_RETURN_IF_ERROR(executor_->Reshape(shapes));
  for (const std::string& name : input_names_) {
    const MaceTensor& given = inputs.at(name);
    Tensor* tensor = executor_->InputTensor(name);
    // The declared type, or (as models without one are fed) the engine's own.
    const TensorDataType declared = AppTypeOf(name, tensor->dtype());
    const TensorDataType own = PublicType(tensor->dtype());
    MACE_CHECK_ARG(given.data_type() == declared || given.data_type() == own, "input '", name,
                   "' is ", TensorDataTypeName(given.data_type()), " but the model expects ",
                   TensorDataTypeName(declared),
                   declared != own ? StrCat(" (or ", TensorDataTypeName(own), ")") : "");
    MACE_CHECK_ARG(given.raw_data() != nullptr, "input '", name, "' has no data");
    // An empty tensor (a zero dimension) may have no memory at all.
    if (tensor->raw_size() == 0) continue;
    if (executor_->InputReadInPlace(name)) {
      // Read where the app keeps it, for this Run only; a buffer of another
      // type or not aligned to its elements is copied (and the copy kept).
      void* app = given.raw_data().get();
      if (given.data_type() == own &&
          reinterpret_cast<uintptr_t>(app) % DataTypeSize(tensor->dtype()) == 0) {
        tensor->SetBuffer(app, tensor->raw_size());
        continue;
      }
      std::vector<uint64_t>& copy = input_copies_[name];
      copy.resize((tensor->raw_size() + 7) / 8);
      tensor->SetBuffer(copy.data(), tensor->raw_size());
    }
    if (given.data_type() == own) {
      std::memcpy(tensor->raw_mutable_data(), given.raw_data().get(), tensor->raw_size());
    } else {
      MACE_RETURN_IF_ERROR(ConvertInput(name, given.raw_data().get(), given.data_type(),
                                        tensor->size(), tensor->dtype(),
                                        tensor->raw_mutable_data()));
    }
  }
  return MaceStatus();
}

MaceStatus MaceEngine::Impl::Run(const std::map<std::string, MaceTensor>& inputs,
                                 std::map<std::string, MaceTensor>* outputs,
                                 RunMetadata* run_metadata, const RunOptions& options) {
  MACE_CHECK_ARG(executor_ != nullptr, "Run called before a successful Init");
  MACE_CHECK_ARG(outputs != nullptr, "Run needs an output map");
  MACE_CHECK_ARG(options.timeout_micros >= 0, "RunOptions::timeout_micros is ",
                 options.timeout_micros, "; use 0 for no limit");
  // The deadline counts from here; no control at all for a Run without one.
  const bool controlled = options.timeout_micros > 0 || options.cancellation != nullptr;
  RunControl control(options.cancellation, options.timeout_micros);
  ScopedRunControl scope(controlled ? &control : nullptr);
  // A run may re-plan for new input shapes, which asks the ops again.
  ScopedCpuTunables tunables(TunablesOf(cpu_runtime_.get()));
  if (controlled && control.ShouldStop()) return control.Status();
  // The engine's region of a shared arena is its own from the inputs in to
  // the outputs out.
  if (arena_member_ != nullptr) MACE_RETURN_IF_ERROR(arena_member_->BeginRun());
  struct EndRun {
    SharedArena::Member* member;
    ~EndRun() {
      if (member != nullptr) member->EndRun();
    }
  } end_run{arena_member_.get()};
  if (const std::shared_ptr<WeightsBlob> weights = weights_.lock()) {
    MACE_RETURN_IF_ERROR(weights->CheckUnchanged());
  }
  MaceStatus status = CopyInputs(inputs);
  if (status.ok()) status = executor_->Run(run_metadata);
  // Inputs read in place point at the app's buffers only during the run.
  for (const std::string& name : input_names_) {
    if (executor_->InputReadInPlace(name)) executor_->InputTensor(name)->SetBuffer(nullptr, 0);
  }
  MACE_RETURN_IF_ERROR(status);
  return CopyOutputs(outputs);
}

MaceStatus MaceEngine::Impl::CopyOutputs(std::map<std::string, MaceTensor>* outputs) {
  for (const auto& [name, tensor] : *outputs) {
    MACE_CHECK_ARG(
        std::find(output_names_.begin(), output_names_.end(), name) != output_names_.end(), "'",
        name, "' is not an output of the engine");
  }
  for (const std::string& name : output_names_) {
    const Tensor* tensor = executor_->OutputTensor(name);
    const TensorDataType own = PublicType(tensor->dtype());
    auto it = outputs->find(name);
    // The declared type, unless the app's buffer has the engine's own type.
    TensorDataType type = AppTypeOf(name, tensor->dtype());
    if (it != outputs->end() && it->second.raw_data() != nullptr && it->second.data_type() == own) {
      type = own;
    }
    const int64_t bytes = tensor->size() * TensorDataTypeSize(type);
    // With dynamic inputs, the buffers of an earlier run (of another shape)
    // are replaced rather than refused.
    if (it == outputs->end() || it->second.raw_data() == nullptr ||
        (dynamic_ && it->second.data_type() == type && it->second.size() != tensor->size())) {
      std::shared_ptr<void> buffer(new uint8_t[std::max<int64_t>(bytes, 1)],
                                   std::default_delete<uint8_t[]>());
      (*outputs)[name] = MaceTensor(tensor->shape(), buffer, type);
    } else {
      MACE_CHECK_ARG(it->second.data_type() == type, "output '", name, "' buffer is ",
                     TensorDataTypeName(it->second.data_type()), " but the output is ",
                     TensorDataTypeName(type));
      MACE_CHECK_ARG(it->second.size() == tensor->size(), "output '", name, "' buffer holds ",
                     it->second.size(), " elements but the output has shape ",
                     ShapeToString(tensor->shape()));
      (*outputs)[name] = MaceTensor(tensor->shape(), it->second.raw_data(), type);
    }
    if (tensor->raw_size() == 0) continue;
    if (type == own) {
      std::memcpy((*outputs)[name].raw_data().get(), tensor->raw_data(), tensor->raw_size());
    } else {
      MACE_RETURN_IF_ERROR(ConvertOutput(name, *tensor, type, (*outputs)[name].raw_data().get()));
    }
  }
  return MaceStatus();
}

MaceStatus MaceEngine::Impl::GetMemoryReport(MemoryReport* report) const {
  MACE_CHECK_ARG(executor_ != nullptr, "GetMemoryReport called before a successful Init");
  MACE_CHECK_ARG(report != nullptr, "GetMemoryReport needs a report");
  *report = executor_->memory_report();
  report->state_bytes = workspace_.state_bytes();
  for (const auto& [name, copy] : input_copies_) {
    report->input_copy_bytes += static_cast<int64_t>(copy.capacity() * sizeof(uint64_t));
  }
  return MaceStatus();
}

MaceEngine::MaceEngine(const MaceEngineConfig& config) : impl_(new Impl(config)) {}
MaceEngine::~MaceEngine() = default;

MaceStatus MaceEngine::Init(const unsigned char* model_graph, size_t model_graph_size,
                            const std::vector<std::string>& input_nodes,
                            const std::vector<std::string>& output_nodes,
                            const unsigned char* model_weights, size_t model_weights_size) {
  MACE_CHECK_ARG(model_weights != nullptr || model_weights_size == 0,
                 "model weights pointer is null");
  return CatchExceptions(
      [&] {
        return impl_->Init(model_graph, model_graph_size, input_nodes, output_nodes,
                           CopyWeights(model_weights, static_cast<int64_t>(model_weights_size)));
      },
      [] { return std::string("loading the model"); });
}

MaceStatus MaceEngine::Init(const unsigned char* model_graph, size_t model_graph_size,
                            const std::vector<std::string>& input_nodes,
                            const std::vector<std::string>& output_nodes,
                            const std::string& model_weights_file) {
  return CatchExceptions(
      [&] {
        std::shared_ptr<WeightsBlob> blob;
        MACE_RETURN_IF_ERROR(impl_->LoadWeightsFile(model_weights_file, &blob));
        return impl_->Init(model_graph, model_graph_size, input_nodes, output_nodes,
                           std::move(blob));
      },
      [] { return std::string("loading the model"); });
}

MaceStatus MaceEngine::Run(const std::map<std::string, MaceTensor>& inputs,
                           std::map<std::string, MaceTensor>* outputs) {
  return Run(inputs, outputs, nullptr);
}

MaceStatus MaceEngine::Run(const std::map<std::string, MaceTensor>& inputs,
                           std::map<std::string, MaceTensor>* outputs, RunMetadata* run_metadata) {
  return Run(inputs, outputs, run_metadata, RunOptions());
}

MaceStatus MaceEngine::Run(const std::map<std::string, MaceTensor>& inputs,
                           std::map<std::string, MaceTensor>* outputs, RunMetadata* run_metadata,
                           const RunOptions& options) {
  return CatchExceptions([&] { return impl_->Run(inputs, outputs, run_metadata, options); },
                         [] { return std::string("running the model"); });
}

MaceStatus MaceEngine::GetInputShapes(std::map<std::string, std::vector<int64_t>>* shapes) const {
  return impl_->GetInputShapes(shapes);
}

MaceStatus MaceEngine::GetInputMaxShapes(
    std::map<std::string, std::vector<int64_t>>* shapes) const {
  return impl_->GetInputMaxShapes(shapes);
}

MaceStatus MaceEngine::GetInputDataTypes(std::map<std::string, TensorDataType>* types) const {
  return impl_->GetInputDataTypes(types);
}

MaceStatus MaceEngine::GetInputNames(std::vector<std::string>* names) const {
  return impl_->GetNames(false, names);
}

MaceStatus MaceEngine::GetOutputNames(std::vector<std::string>* names) const {
  return impl_->GetNames(true, names);
}

MaceStatus MaceEngine::GetMemoryReport(MemoryReport* report) const {
  return impl_->GetMemoryReport(report);
}

MaceStatus MaceEngine::ResetState() { return impl_->ResetState(); }

namespace {

MaceStatus NewEngine(const MaceEngineConfig& config, std::shared_ptr<MaceEngine>* engine) {
  return CatchExceptions(
      [&] {
        *engine = std::make_shared<MaceEngine>(config);
        return MaceStatus();
      },
      [] { return std::string("creating the engine"); });
}

}  // namespace

MaceStatus CreateMaceEngineFromProto(const unsigned char* model_graph, size_t model_graph_size,
                                     const std::string& model_weights_file,
                                     const std::vector<std::string>& input_nodes,
                                     const std::vector<std::string>& output_nodes,
                                     const MaceEngineConfig& config,
                                     std::shared_ptr<MaceEngine>* engine) {
  MACE_CHECK_ARG(engine != nullptr, "engine output pointer is null");
  std::shared_ptr<MaceEngine> created;
  MACE_RETURN_IF_ERROR(NewEngine(config, &created));
  MACE_RETURN_IF_ERROR(
      created->Init(model_graph, model_graph_size, input_nodes, output_nodes, model_weights_file));
  *engine = std::move(created);
  return MaceStatus();
}

MaceStatus CreateMaceEngineFromProto(const unsigned char* model_graph, size_t model_graph_size,
                                     const unsigned char* model_weights, size_t model_weights_size,
                                     const std::vector<std::string>& input_nodes,
                                     const std::vector<std::string>& output_nodes,
                                     const MaceEngineConfig& config,
                                     std::shared_ptr<MaceEngine>* engine) {
  MACE_CHECK_ARG(engine != nullptr, "engine output pointer is null");
  std::shared_ptr<MaceEngine> created;
  MACE_RETURN_IF_ERROR(NewEngine(config, &created));
  MACE_RETURN_IF_ERROR(created->Init(model_graph, model_graph_size, input_nodes, output_nodes,
                                     model_weights, model_weights_size));
  *engine = std::move(created);
  return MaceStatus();
}

}  // namespace mace
