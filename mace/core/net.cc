#include "mace/core/net.h"

#include "mace/core/control_flow.h"
#include "mace/utils/checked_math.h"
#include "mace/utils/logging.h"
#include "mace/utils/run_control.h"
#include "mace/utils/timer.h"

namespace mace {
namespace {

// The data type of an op's kernel: its "T" argument (a DataType value), as
// the converter writes it where an op differs from the net, else the net's
// type. Half-precision nets compute in float on the CPU.
DataType OpDataType(const OperatorDef& def, DataType net_type) {
  for (const Argument& arg : def.arg()) {
    if (arg.name() == "T" && arg.has_i() && DataType_IsValid(static_cast<int>(arg.i()))) {
      return static_cast<DataType>(arg.i());
    }
  }
  return net_type == DT_HALF ? DT_FLOAT : net_type;
}

const char* DeviceName(DeviceType device) {
  switch (device) {
    case DeviceType::CPU:
      return "CPU";
    case DeviceType::GPU:
      return "GPU";
    case DeviceType::HEXAGON:
      return "HEXAGON";
  }
  return "unknown device";
}

bool IsDataFormat(int32_t value) {
  switch (static_cast<DataFormat>(value)) {
    case DataFormat::NONE:
    case DataFormat::NHWC:
    case DataFormat::NCHW:
    case DataFormat::OIHW:
      return true;
  }
  return false;
}

// The model's own description of itself must match the graph: input and
// output formats are DataFormat values, each output_info names a computed
// tensor of the declared type and (when dims are given) shape, and no op
// has more offline offsets than outputs. Runs once the ops are prepared.
MaceStatus CheckModelInfo(const NetDef& net_def, const Workspace& workspace,
                          const std::set<const Tensor*>& run_time_shaped) {
  for (const InputOutputInfo& info : net_def.input_info()) {
    MACE_CHECK_ARG(IsDataFormat(info.data_format()), "model input '", info.name(),
                   "' has data_format ", info.data_format(), ", which is not a DataFormat value");
  }
  for (const InputOutputInfo& info : net_def.output_info()) {
    MACE_CHECK_ARG(IsDataFormat(info.data_format()), "model output '", info.name(),
                   "' has data_format ", info.data_format(), ", which is not a DataFormat value");
    const Tensor* tensor = workspace.GetTensor(info.name());
    MACE_CHECK_ARG(tensor != nullptr && !tensor->is_weight(), "model output '", info.name(),
                   "' is not produced by any op of the model");
    MACE_CHECK_ARG(info.data_type() == tensor->dtype(), "model output '", info.name(),
                   "' is declared ", DataTypeName(info.data_type()), " but the model computes ",
                   DataTypeName(tensor->dtype()));
    // No dims leaves the shape to the graph, as does a shape known only at
    // run time.
    if (info.dims_size() == 0 || run_time_shaped.count(tensor) > 0) continue;
    const std::vector<int64_t> declared(info.dims().begin(), info.dims().end());
    MACE_CHECK_ARG(declared == tensor->shape(), "model output '", info.name(),
                   "' is declared with shape ", ShapeToString(declared), " but the model computes ",
                   ShapeToString(tensor->shape()));
  }
  for (const OperatorDef& def : net_def.op()) {
    MACE_CHECK_ARG(def.output_mem_offset_size() <= def.output_size(), def.type(), " '", def.name(),
                   "': ", def.output_mem_offset_size(), " output_mem_offset entries for ",
                   def.output_size(), " outputs");
  }
  return MaceStatus();
}

}  // namespace

Net::Net(const OpRegistry* registry, const ConverterRegistry* converters, NetRuntimes runtimes,
         Workspace* workspace, NetOptions options)
    : registry_(registry),
      converters_(converters),
      runtimes_(runtimes),
      workspace_(workspace),
      options_(options) {
  if (runtimes_.cpu == nullptr) runtimes_.cpu = runtimes_.device;
  if (runtimes_.device == nullptr) runtimes_.device = runtimes_.cpu;
}

MaceStatus Net::Init(const NetDef& net_def, const std::vector<std::string>& output_names) {
  MACE_CHECK_ARG(runtimes_.cpu != nullptr, "the net has no runtime");
  MACE_CHECK_ARG(net_def.op_size() > 0, "the model has no operators");
  net_type_ = net_def.data_type();
  if (!env_.stack.empty()) {
    MACE_CHECK_ARG(net_def.subgraphs_size() == 0, "subgraph ", env_.stack.back(),
                   " has a subgraph list of its own; only the model's top graph has one");
  } else {
    env_.subgraphs = &net_def.subgraphs();
    env_.weights = workspace_->weights_blob();
    env_.nets_built = std::make_shared<int64_t>(0);
  }
  MACE_RETURN_IF_ERROR(CreateInputs(net_def));
  // Blocked storages are chosen for the shapes at hand; a net whose shapes
  // change keeps every tensor plain (CreateOps turns them off when it meets
  // an op whose output shapes follow input values).
  if (dynamic_) options_.blocked_layout = false;
  MACE_RETURN_IF_ERROR(CreateOps(net_def));
  MACE_RETURN_IF_ERROR(CheckModelInfo(net_def, *workspace_, run_time_shaped_));
  for (const std::string& output : output_names) {
    const Tensor* tensor = workspace_->GetTensor(output);
    MACE_CHECK_ARG(tensor != nullptr && !tensor->is_weight(), "output '", output,
                   "' is not produced by any op of the model");
    MACE_CHECK_ARG(!workspace_->IsState(tensor), "output '", output,
                   "' is a state tensor; make the value assigned to it the output instead");
  }
  MACE_RETURN_IF_ERROR(PlanBlockedLayout(output_names));
  MACE_RETURN_IF_ERROR(ConvertOutputs(output_names));
  if (WeightsOnlyOnDevices()) workspace_->ReleaseWeights();
  // The subgraph list lives in the caller's NetDef: the control-flow ops
  // have built their nets from it by now. They keep the weights blob they
  // need; this net's own hold on it would keep a released file mapping.
  env_.subgraphs = nullptr;
  env_.weights.reset();
  output_names_ = output_names;
  if (dynamic_ || data_dependent_) {
    for (const auto& op : ops_) {
      if (prepared_at_run_only_.count(op.get()) > 0) {
        prepared_shapes_.emplace_back();
      } else {
        prepared_shapes_.push_back(InputShapes(*op));
      }
    }
  }
  if (options_.defer_memory_plan) return MaceStatus();
  MACE_RETURN_IF_ERROR(PlanMemory(input_names_, output_names));
  planned_ = true;
  return MaceStatus();
}

bool Net::ReadsRunTimeShape(const Operation& op) const {
  for (int k = 0; k < op.InputSize(); ++k) {
    if (run_time_shaped_.count(op.Input(k)) > 0) return true;
  }
  return false;
}

void Net::NoteVaryingOutputs(const Operation& op, bool unknown) {
  bool varying = ShapesFollowValues(op);
  for (int k = 0; k < op.InputSize() && !varying; ++k) varying = varying_.count(op.Input(k)) > 0;
  if (!varying) return;
  for (int k = 0; k < op.OutputSize(); ++k) {
    varying_.insert(op.Output(k));
    if (unknown) run_time_shaped_.insert(op.Output(k));
  }
}

MaceStatus Net::PrepareAtRun(size_t index, OpContext* context) {
  Operation* op = ops_[index].get();
  std::vector<std::vector<int64_t>> shapes = InputShapes(*op);
  if (ShapesFollowValues(*op) || prepared_shapes_[index] != shapes) {
    prepared_shapes_[index].reset();
    MACE_CHECK_ARG(op->runtime() == runtimes_.cpu, op->Describe(),
                   ": its input shapes depend on data the model computes, which only ops on the "
                   "CPU take; this op runs on ", op->runtime()->name());
    context->replanning = true;
    context->input_values = true;
    const MaceStatus status = op->Prepare(context);
    context->replanning = false;
    context->input_values = false;
    MACE_RETURN_IF_ERROR(status);
    prepared_shapes_[index] = std::move(shapes);
  }
  // Every run: a shared arena may have bound the tensor to its planned
  // bytes again since the last.
  for (int k = 0; k < op->OutputSize(); ++k) {
    Tensor* output = op->Output(k);
    if (output->raw_size() > output->capacity()) MACE_RETURN_IF_ERROR(OwnMemory(output, *op));
  }
  return MaceStatus();
}

MaceStatus Net::OwnMemory(Tensor* tensor, const Operation& op) {
  const int element_size = std::max(DataTypeSize(tensor->dtype()), 1);
  MACE_CHECK_ARG(varying_.count(tensor) > 0 &&
                     tensor->memory_type() == runtimes_.cpu->default_memory_type(),
                 op.Describe(), ": output '", tensor->name(), "' needs ", tensor->raw_size(),
                 " bytes for shape ", ShapeToString(tensor->shape()), "; memory was planned for ",
                 tensor->capacity());
  MACE_CHECK_ARG(CheckedElementCount(tensor->shape(), kMaxByteCount / element_size) >= 0,
                 op.Describe(), ": output '", tensor->name(), "' would have shape ",
                 ShapeToString(tensor->shape()), ", more than ", kMaxByteCount, " bytes");
  const int64_t bytes = AlignUp(tensor->raw_size(), options_.arena_alignment);
  auto held = own_memories_.find(tensor);
  const int64_t released = held != own_memories_.end() ? held->second->bytes() : 0;
  const int64_t total = reserved_bytes_ + own_bytes_ - released + bytes;
  if (options_.memory_limit > 0 && total > options_.memory_limit) {
    return MaceStatus(MaceStatus::MACE_OUT_OF_RESOURCES,
                      StrCat(op.Describe(), ": output '", tensor->name(), "' takes shape ",
                             ShapeToString(tensor->shape()), " in this run, which needs ", bytes,
                             " bytes beyond the plan (", total,
                             " in all), more than the engine's memory limit of ",
                             options_.memory_limit, " bytes"));
  }
  std::unique_ptr<Memory> memory;
  MACE_RETURN_IF_ERROR(runtimes_.cpu->Allocate(
      MemoryExtent::Buffer(tensor->memory_type(), bytes), &memory));
  tensor->Bind(memory.get(), 0, bytes);
  own_bytes_ += bytes - released;
  own_memories_[tensor] = std::move(memory);
  VLOG(1) << op.Describe() << ": output '" << tensor->name() << "' gets " << bytes
          << " bytes of its own for shape " << ShapeToString(tensor->shape());
  return MaceStatus();
}

std::vector<std::vector<int64_t>> Net::InputShapes(const Operation& op) {
  std::vector<std::vector<int64_t>> shapes;
  for (int k = 0; k < op.InputSize(); ++k) {
    shapes.push_back(op.Input(k) != nullptr ? op.Input(k)->shape() : std::vector<int64_t>{-1});
  }
  return shapes;
}

std::vector<int64_t> Net::InputMaxShape(const std::string& name) {
  auto it = input_ranges_.find(name);
  return it == input_ranges_.end() ? std::vector<int64_t>() : it->second.second;
}

MaceStatus Net::CheckInputShape(const std::string& name, const std::vector<int64_t>& shape) const {
  const auto& [planned, max] = input_ranges_.at(name);
  const std::string expected = StrCat(" but the model expects ", ShapeToString(planned));
  if (planned == max) {
    MACE_CHECK_ARG(shape == planned, "input '", name, "' has shape ", ShapeToString(shape),
                   expected);
    return MaceStatus();
  }
  MACE_CHECK_ARG(shape.size() == planned.size(), "input '", name, "' has shape ",
                 ShapeToString(shape), expected, " (", planned.size(), " dimensions)");
  for (size_t d = 0; d < shape.size(); ++d) {
    if (planned[d] == max[d]) {
      MACE_CHECK_ARG(shape[d] == planned[d], "input '", name, "' has shape ",
                     ShapeToString(shape), expected, ": dimension ", d, " is fixed at ",
                     planned[d]);
    } else {
      MACE_CHECK_ARG(shape[d] >= 1 && shape[d] <= max[d], "input '", name, "' has shape ",
                     ShapeToString(shape), ": dynamic dimension ", d, " takes 1 to ", max[d]);
    }
  }
  return MaceStatus();
}

std::string Net::ReplanBlocker() const {
  if (runtimes_.device != runtimes_.cpu) {
    return StrCat("the ", runtimes_.device->name(),
                  " runtime plans the model once, for fixed input shapes; only the CPU "
                  "runtime takes new input shapes");
  }
  for (const auto& op : ops_) {
    if (IsControlFlowOp(op->type())) {
      return StrCat("the model has control flow (", op->Describe(),
                    "), whose subgraphs are planned once, for fixed input shapes");
    }
  }
  return std::string();
}

MaceStatus Net::Reshape(const std::map<std::string, std::vector<int64_t>>& shapes) {
  bool changed = false;
  for (const auto& [name, shape] : shapes) {
    MACE_CHECK_ARG(input_ranges_.count(name) > 0, "'", name, "' is not an input of the model");
  }
  for (const std::string& name : input_names_) {
    auto it = shapes.find(name);
    MACE_CHECK_ARG(it != shapes.end(), "input '", name, "' is missing");
    MACE_RETURN_IF_ERROR(CheckInputShape(name, it->second));
    changed = changed || it->second != workspace_->GetTensor(name)->shape();
  }
  if (!changed && planned_) return MaceStatus();
  const std::string blocker = ReplanBlocker();
  if (!blocker.empty()) {
    for (const std::string& name : input_names_) {
      const std::vector<int64_t>& current = workspace_->GetTensor(name)->shape();
      if (shapes.at(name) == current) continue;
      return MaceStatus(MaceStatus::MACE_UNSUPPORTED,
                        StrCat("input '", name, "' has shape ", ShapeToString(shapes.at(name)),
                               " but the model expects ", ShapeToString(current), ": ", blocker));
    }
  }
  for (const std::string& name : input_names_) workspace_->GetTensor(name)->Reshape(shapes.at(name));
  return Replan();
}

MaceStatus Net::Replan() {
  // Until the plan is whole again, Run refuses and the next Reshape plans.
  planned_ = false;
  memories_.clear();
  own_memories_.clear();
  own_bytes_ = 0;
  reserved_bytes_ = 0;
  const int64_t start = NowMicros();
  OpContext context;
  context.workspace = workspace_;
  context.replanning = true;
  prepared_shapes_.resize(ops_.size());
  for (size_t i = 0; i < ops_.size(); ++i) {
    Operation* op = ops_[i].get();
    // Prepare depends on the input shapes only: an op whose inputs kept
    // theirs keeps its output shapes and its packed weights.
    std::vector<std::vector<int64_t>> shapes = InputShapes(*op);
    // A data-dependent op left its last run's shape: back to the largest
    // (or to empty outputs).
    if (prepared_shapes_[i] == shapes && !ShapesFollowValues(*op)) continue;
    prepared_shapes_[i].reset();
    if (prepared_at_run_only_.count(op) > 0) {
      for (int k = 0; k < op->OutputSize(); ++k) op->Output(k)->Reshape({0});
      continue;
    }
    context.runtime = op->runtime();
    MACE_RETURN_IF_ERROR(CatchExceptions([&] { return op->Prepare(&context); },
                                         [&] { return op->Describe(); }));
    prepared_shapes_[i] = std::move(shapes);
    for (int k = 0; k < op->OutputSize(); ++k) {
      const Tensor* output = op->Output(k);
      const int element_size = std::max(DataTypeSize(output->dtype()), 1);
      MACE_CHECK_ARG(CheckedElementCount(output->shape(), kMaxByteCount / element_size) >= 0,
                     op->Describe(), ": output '", output->name(), "' would have shape ",
                     ShapeToString(output->shape()), ", more than ", kMaxByteCount, " bytes");
    }
  }
  const int64_t prepare_micros = NowMicros() - start;
  MACE_RETURN_IF_ERROR(PlanMemory(input_names_, output_names_));
  memory_report_.plan_micros += prepare_micros;
  memory_report_.replans = ++replans_;
  planned_ = true;
  VLOG(1) << "re-planned for new input shapes in " << (NowMicros() - start) << " us";
  return MaceStatus();
}

MaceStatus Net::PlanHostMemory(const std::set<const Tensor*>& elsewhere,
                               const std::vector<std::string>& output_names) {
  MACE_CHECK_ARG(options_.defer_memory_plan && memories_.empty(),
                 "PlanHostMemory: the net's memory is planned already");
  for (const std::string& name : input_names_) {
    MACE_CHECK_ARG(elsewhere.count(workspace_->GetTensor(name)) == 0, "PlanHostMemory: input '",
                   name, "' must live on the host");
  }
  for (const std::string& name : output_names) {
    MACE_CHECK_ARG(elsewhere.count(OutputTensor(name)) == 0, "PlanHostMemory: output '", name,
                   "' must live on the host");
  }
  MACE_RETURN_IF_ERROR(PlanMemory(input_names_, output_names, elsewhere));
  planned_ = true;
  return MaceStatus();
}

MaceStatus Net::CreateInputs(const NetDef& net_def) {
  for (const InputOutputInfo& info : net_def.input_info()) {
    MACE_CHECK_ARG(!info.name().empty(), "a model input has no name");
    const int element_size = DataTypeSize(info.data_type());
    MACE_CHECK_ARG(element_size > 0, "model input '", info.name(), "' has unsupported type");
    Tensor* tensor = workspace_->CreateTensor(info.name(), info.data_type());
    MACE_CHECK_ARG(tensor != nullptr, "model input '", info.name(),
                   "' clashes with a weight of the same name");
    std::vector<int64_t> dims(info.dims().begin(), info.dims().end());
    for (int64_t d : dims) {
      MACE_CHECK_ARG(d >= 0 && d < (int64_t{1} << 31), "model input '", info.name(),
                     "' has an invalid dimension ", d);
    }
    MACE_CHECK_ARG(CheckedElementCount(dims, kMaxByteCount / element_size) >= 0, "model input '",
                   info.name(), "' has shape ", ShapeToString(dims), ", more than ", kMaxByteCount,
                   " bytes");
    std::vector<int64_t> max_dims(info.max_dims().begin(), info.max_dims().end());
    if (max_dims.empty()) max_dims = dims;
    MACE_CHECK_ARG(max_dims.size() == dims.size(), "model input '", info.name(), "' has ",
                   dims.size(), " dimensions but ", max_dims.size(), " max_dims");
    for (size_t d = 0; d < dims.size(); ++d) {
      MACE_CHECK_ARG(max_dims[d] >= dims[d] && max_dims[d] < (int64_t{1} << 31) &&
                         (max_dims[d] == dims[d] || dims[d] >= 1),
                     "model input '", info.name(), "' has shape ", ShapeToString(dims),
                     " and max_dims ", ShapeToString(max_dims),
                     ": a dynamic dimension needs 1 <= dims <= max_dims < 2^31");
      dynamic_ = dynamic_ || max_dims[d] != dims[d];
    }
    MACE_CHECK_ARG(CheckedElementCount(max_dims, kMaxByteCount / element_size) >= 0,
                   "model input '", info.name(), "' may take shape ", ShapeToString(max_dims),
                   ", more than ", kMaxByteCount, " bytes");
    input_ranges_[info.name()] = {dims, max_dims};
    tensor->Reshape(std::move(dims));
    tensor->SetQuantization(info.scale(), info.zero_point());
    input_names_.push_back(info.name());
  }
  return MaceStatus();
}

bool Net::WeightsOnlyOnDevices() const {
  bool uploaded = false;
  for (const auto& op : ops_) {
    for (int k = 0; k < op->InputSize(); ++k) {
      if (op->Input(k) == nullptr || !op->Input(k)->is_weight()) continue;
      if (op->ReadsHostWeights()) return false;
      uploaded = true;
    }
  }
  return uploaded;
}

Runtime* Net::RuntimeFor(DeviceType device) const {
  return device == runtimes_.device->device_type() ? runtimes_.device : runtimes_.cpu;
}

MaceStatus Net::Place(const OperatorDef& def, int index, std::unique_ptr<Operation>* op) {
  const DataType dtype = OpDataType(def, net_type_);
  DeviceType requested = runtimes_.device->device_type();
  if (def.has_device_type()) {
    const int value = def.device_type();
    MACE_CHECK_ARG(value == static_cast<int>(DeviceType::CPU) ||
                       value == static_cast<int>(DeviceType::GPU) ||
                       value == static_cast<int>(DeviceType::HEXAGON),
                   "op #", index, " '", def.name(), "' asks for device ", value,
                   ", which is not a DeviceType");
    requested = static_cast<DeviceType>(value);
  }
  Runtime* runtime = RuntimeFor(requested);
  // Only whether the device has a kernel for the type: the kernel itself
  // may still refuse the op when prepared (CreateOps).
  if (registry_->Has(def.type(), runtime->device_type(), dtype)) {
    *op = registry_->Create(def.type(), runtime->device_type(), dtype);
  } else if (runtime != runtimes_.cpu) {
    VLOG(1) << "op '" << def.name() << "' (" << def.type() << ") falls back from "
            << runtime->name() << " to the CPU: no kernel";
    runtime = runtimes_.cpu;
    *op = registry_->Create(def.type(), DeviceType::CPU, dtype);
  }
  if (*op == nullptr) {
    return MaceStatus(
        MaceStatus::MACE_UNSUPPORTED,
        StrCat("op #", index, " '", def.name(), "' has unknown type '", def.type(), "' (no ",
               DataTypeName(dtype), " kernel for ", runtime->name(),
               requested != runtime->device_type() ? StrCat(" or ", DeviceName(requested))
                                                   : std::string(),
               ")"));
  }
  (*op)->set_runtime(runtime);
  return MaceStatus();
}

MaceStatus Net::Converted(const Tensor* tensor, const Storage& storage, const Tensor** converted) {
  if (tensor->storage() == storage) {
    *converted = tensor;
    return MaceStatus();
  }
  const auto key = std::make_pair(tensor, storage.ToString());
  auto done = converted_.find(key);
  if (done != converted_.end()) {
    *converted = done->second;
    return MaceStatus();
  }
  const Converter* converter =
      converters_ != nullptr ? converters_->Find(tensor->storage(), storage) : nullptr;
  const Storage host = Storage::Plain(tensor->dtype());
  if (converter == nullptr && tensor->storage() != host && storage != host &&
      converters_ != nullptr && converters_->Find(tensor->storage(), host) != nullptr &&
      converters_->Find(host, storage) != nullptr) {
    // No direct way: through the host's plain storage, which every runtime
    // converts to and from.
    const Tensor* plain = nullptr;
    MACE_RETURN_IF_ERROR(Converted(tensor, host, &plain));
    MACE_RETURN_IF_ERROR(Converted(plain, storage, converted));
    converted_.emplace(key, *converted);
    return MaceStatus();
  }
  MACE_UNSUPPORTED_IF(converter == nullptr, "tensor '", tensor->name(), "' is stored as ",
                      tensor->storage().ToString(), " but a reader needs ", storage.ToString(),
                      ", and no converter does that");
  std::unique_ptr<Operation> op;
  MACE_RETURN_IF_ERROR(
      MakeConverter(*converter, tensor, storage, tensor->name() + "#" + storage.ToString(), &op));
  *converted = op->Output(0);
  converted_.emplace(key, *converted);
  ops_.push_back(std::move(op));
  ++converter_count_;
  return MaceStatus();
}

MaceStatus Net::MakeConverter(const Converter& converter, const Tensor* tensor,
                              const Storage& storage, const std::string& name,
                              std::unique_ptr<Operation>* op) {
  OperatorDef def;
  def.set_type(converter.op_type);
  def.set_name(name);
  def.add_input(tensor->name());
  def.add_output(name);
  *op = converter.factory();
  (*op)->set_runtime(RuntimeFor(converter.device));
  OpContext context;
  context.runtime = (*op)->runtime();
  context.workspace = workspace_;
  MACE_RETURN_IF_ERROR((*op)->Construct(def, workspace_));
  // The converter reads the tensor where it is (the name may be bound to an
  // earlier conversion of the same tensor).
  (*op)->ReplaceInput(0, tensor);
  (*op)->Output(0)->set_storage(storage);
  (*op)->Output(0)->SetQuantization(tensor->quant());
  MACE_RETURN_IF_ERROR((*op)->Prepare(&context));
  MACE_CHECK_ARG((*op)->Output(0)->shape() == tensor->shape(), "converter ", converter.op_type,
                 " changed the shape of '", tensor->name(), "'");
  return MaceStatus();
}

MaceStatus Net::CreateOps(const NetDef& net_def) {
  // Ops prepared with the storage choice pending, which need UseStorage
  // once the blocked layout is off.
  std::vector<Operation*> choice_pending;
  for (int i = 0; i < net_def.op_size(); ++i) {
    const OperatorDef& def = net_def.op(i);
    std::unique_ptr<Operation> op;
    if (IsControlFlowOp(def.type())) {
      MACE_UNSUPPORTED_IF(registry_->control_flow() == nullptr, "op #", i, " '", def.name(),
                          "' (", def.type(),
                          "): this library leaves out control flow (If, Loop, Scan)");
      // Runs on the host: it only moves tensors in and out of subgraph nets.
      ControlFlowArgs args;
      args.registry = registry_;
      args.converters = converters_;
      args.runtimes = runtimes_;
      args.options = &options_;
      args.env = env_;
      op = registry_->control_flow()(args);
      op->set_runtime(runtimes_.cpu);
    } else {
      MACE_RETURN_IF_ERROR(Place(def, i, &op));
    }
    // Construct, converters for the activation inputs, Prepare (not for an
    // op that reads a tensor whose shape is known only at run time: Run
    // prepares it).
    bool at_run_only = false;
    auto set_up = [&]() {
      OpContext context;
      context.runtime = op->runtime();
      context.workspace = workspace_;
      context.storage_choice_pending = BlockedLayoutEnabled() && op->runtime() == runtimes_.cpu;
      // Packing weights allocates; running out of memory there is a status
      // that names the op, not an exception into the app.
      return CatchExceptions(
          [&] {
            MACE_RETURN_IF_ERROR(op->Construct(def, workspace_));
            // Run prepares these again, on the CPU only.
            MACE_UNSUPPORTED_IF(ShapesFollowValues(*op) && op->runtime() != runtimes_.cpu,
                                op->Describe(), ": its output shapes follow input values, "
                                "which only the CPU kernel takes");
            at_run_only = ReadsRunTimeShape(*op);
            if (at_run_only) {
              MACE_UNSUPPORTED_IF(op->runtime() != runtimes_.cpu || IsControlFlowOp(def.type()),
                                  op->Describe(), " reads a tensor whose shape is known only "
                                  "at run time, which only CPU ops outside control flow take");
              for (int k = 0; k < op->OutputSize(); ++k) {
                op->Output(k)->set_storage(op->OutputStorage(k));
                op->Output(k)->Reshape({0});
              }
              return MaceStatus();
            }
            // Activations reach the op in the storage it reads, through
            // converters placed right before it.
            for (int k = 0; k < op->InputSize(); ++k) {
              const Tensor* input = op->Input(k);
              if (input == nullptr || input->is_weight()) continue;
              const Tensor* converted = nullptr;
              MACE_RETURN_IF_ERROR(Converted(input, op->InputStorage(k), &converted));
              op->ReplaceInput(k, converted);
            }
            for (int k = 0; k < op->OutputSize(); ++k) {
              op->Output(k)->set_storage(op->OutputStorage(k));
            }
            return op->Prepare(&context);
          },
          [&] { return StrCat("op #", i, " '", def.name(), "' (", def.type(), ")"); });
    };
    const size_t ops_before = ops_.size();
    const int converters_before = converter_count_;
    MaceStatus status = set_up();
    // The one answer to whether a device runs the op beyond having a
    // kernel for its type: that kernel's Construct or Prepare returning
    // MACE_UNSUPPORTED (its arguments, its shapes). The op and the
    // converters made for it are then undone and the CPU's kernel takes it.
    const DataType dtype = OpDataType(def, net_type_);
    if (status.code() == MaceStatus::MACE_UNSUPPORTED && op->runtime() != runtimes_.cpu &&
        registry_->Has(def.type(), DeviceType::CPU, dtype)) {
      VLOG(1) << "op '" << def.name() << "' (" << def.type() << ") falls back from "
              << op->runtime()->name() << " to the CPU: " << status.information();
      for (int k = 0; k < op->OutputSize(); ++k) workspace_->RemoveTensor(op->Output(k)->name());
      for (size_t c = ops_before; c < ops_.size(); ++c) {
        const Tensor* made = ops_[c]->Output(0);
        for (auto it = converted_.begin(); it != converted_.end();) {
          it = it->second == made ? converted_.erase(it) : std::next(it);
        }
        workspace_->RemoveTensor(made->name());
      }
      ops_.resize(ops_before);
      converter_count_ = converters_before;
      op = registry_->Create(def.type(), DeviceType::CPU, dtype);
      op->set_runtime(runtimes_.cpu);
      status = set_up();
    }
    MACE_RETURN_IF_ERROR(status);
    if (at_run_only) prepared_at_run_only_.insert(op.get());
    NoteVaryingOutputs(*op, at_run_only ||
                                op->output_shape_source() == OutputShapeSource::kInputValues);
    if (BlockedLayoutEnabled() && op->runtime() == runtimes_.cpu && !at_run_only) {
      choice_pending.push_back(op.get());
    }
    if (ShapesFollowValues(*op)) {
      data_dependent_ = true;
      options_.blocked_layout = false;
    }
    for (int k = 0; k < op->OutputSize(); ++k) {
      const Tensor* output = op->Output(k);
      if (run_time_shaped_.count(output) > 0) continue;
      if (k < def.output_shape_size() && def.output_shape(k).dims_size() > 0) {
        const std::vector<int64_t> declared(def.output_shape(k).dims().begin(),
                                            def.output_shape(k).dims().end());
        if (declared != output->shape()) {
          return MaceStatus(MaceStatus::MACE_INVALID_ARGS,
                            StrCat(op->Describe(), ": output '", output->name(), "' has shape ",
                                   ShapeToString(output->shape()), " but the model declares ",
                                   ShapeToString(declared)));
        }
      }
    }
    VLOG(2) << "prepared " << op->Describe() << " on " << op->runtime()->name();
    ops_.push_back(std::move(op));
  }
  if (BlockedLayoutEnabled()) return MaceStatus();
  // Shapes follow values, so every op keeps its default storage.
  OpContext context;
  context.runtime = runtimes_.cpu;
  context.workspace = workspace_;
  for (Operation* op : choice_pending) {
    if (!op->AlternativeStorage().has_value()) continue;
    MACE_RETURN_IF_ERROR(
        CatchExceptions([&] { return op->UseStorage(op->OutputStorage(0), &context); },
                        [&] { return op->Describe(); }));
  }
  return MaceStatus();
}

MaceStatus Net::ConvertOutputs(const std::vector<std::string>& output_names) {
  for (const std::string& name : output_names) {
    const Tensor* tensor = workspace_->GetTensor(name);
    Storage host = Storage::Plain(tensor->dtype());
    const Tensor* converted = nullptr;
    MACE_RETURN_IF_ERROR(Converted(tensor, host, &converted));
    outputs_[name] = converted;
  }
  return MaceStatus();
}

Tensor* Net::InputTensor(const std::string& name) {
  for (const std::string& input : input_names_) {
    if (input == name) return workspace_->GetTensor(name);
  }
  return nullptr;
}

const Tensor* Net::OutputTensor(const std::string& name) const {
  auto it = outputs_.find(name);
  return it == outputs_.end() ? nullptr : it->second;
}

void Net::Observe(const Operation& op) const {
  if (op.runtime() != runtimes_.cpu) return;
  for (int k = 0; k < op.OutputSize(); ++k) {
    const Tensor* output = op.Output(k);
    if (output->storage() != Storage::Plain(DT_FLOAT)) continue;
    options_.output_observer(output->name(), output->shape(), output->data<float>());
  }
}

MaceStatus Net::Run(RunMetadata* run_metadata) {
  MACE_CHECK_ARG(planned_, "the last new input shape could not be planned; run with a shape "
                           "the model takes");
  MACE_RETURN_IF_ERROR(runtimes_.cpu->BeforeRun());
  if (runtimes_.device != runtimes_.cpu) MACE_RETURN_IF_ERROR(runtimes_.device->BeforeRun());
  if (run_metadata != nullptr) run_metadata->op_stats.clear();
  OpContext context;
  context.workspace = workspace_;
  const RunControl* control = CurrentRunControl();
  for (size_t i = 0; i < ops_.size(); ++i) {
    Operation* op = ops_[i].get();
    if (control != nullptr && control->ShouldStop()) return FinishStoppedRun(*control);
    const int64_t start = run_metadata != nullptr ? NowMicros() : 0;
    context.runtime = op->runtime();
    if (data_dependent_) {
      MACE_RETURN_IF_ERROR(CatchExceptions([&] { return PrepareAtRun(i, &context); },
                                           [&] { return op->Describe(); }));
    }
    // An op whose outputs are all empty (a zero dimension) has nothing to
    // write, so its kernel need not handle empty tensors.
    bool empty = op->OutputSize() > 0;
    for (int k = 0; k < op->OutputSize() && empty; ++k) empty = op->Output(k)->size() == 0;
    MaceStatus status =
        empty ? MaceStatus()
              : CatchExceptions([&] { return op->Run(&context); }, [&] { return op->Describe(); });
    if (!status.ok()) return status;
    // A loop of the op skipped pieces: its outputs are not to be used.
    if (control != nullptr && !control->Status().ok()) return FinishStoppedRun(*control);
    if (run_metadata != nullptr) {
      OperatorStats stats;
      // Waits for a device's work, so the host time covers it too.
      MACE_RETURN_IF_ERROR(op->runtime()->OpDeviceMicros(&stats.device_micros));
      stats.operator_name = op->name();
      stats.type = op->type();
      stats.start_micros = start;
      stats.end_micros = NowMicros();
      stats.macs = op->Macs();
      for (int k = 0; k < op->OutputSize(); ++k) {
        stats.output_shape.push_back(op->Output(k)->shape());
      }
      run_metadata->op_stats.push_back(std::move(stats));
    }
    if (options_.output_observer) Observe(*op);
  }
  if (runtimes_.device != runtimes_.cpu) MACE_RETURN_IF_ERROR(runtimes_.device->AfterRun());
  return runtimes_.cpu->AfterRun();
}

MaceStatus Net::FinishStoppedRun(const RunControl& control) {
  // The device finishes what was enqueued, so the next Run starts from an
  // idle queue; its own error, if any, is reported before the stop.
  if (runtimes_.device != runtimes_.cpu) MACE_RETURN_IF_ERROR(runtimes_.device->AfterRun());
  MACE_RETURN_IF_ERROR(runtimes_.cpu->AfterRun());
  return control.Status();
}

}  // namespace mace
