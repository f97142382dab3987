#include "mace/core/control_flow.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

#include "mace/utils/checked_math.h"
#include "mace/utils/logging.h"

namespace mace {
namespace {

bool IsScalarType(DataType dtype) {
  return dtype == DT_FLOAT || dtype == DT_INT32 || dtype == DT_UINT8 || dtype == DT_INT8;
}

// The one value of a one-element tensor of a scalar type (checked at Prepare).
double ScalarValue(const Tensor* tensor) {
  switch (tensor->dtype()) {
    case DT_FLOAT:
      return tensor->data<float>()[0];
    case DT_INT32:
      return tensor->data<int32_t>()[0];
    case DT_UINT8:
      return tensor->data<uint8_t>()[0];
    case DT_INT8:
      return tensor->data<int8_t>()[0];
    default:
      return 0;
  }
}

void SetScalar(Tensor* tensor, double value) {
  switch (tensor->dtype()) {
    case DT_FLOAT:
      tensor->mutable_data<float>()[0] = static_cast<float>(value);
      break;
    case DT_INT32:
      tensor->mutable_data<int32_t>()[0] = static_cast<int32_t>(value);
      break;
    case DT_UINT8:
      tensor->mutable_data<uint8_t>()[0] = static_cast<uint8_t>(value);
      break;
    case DT_INT8:
      tensor->mutable_data<int8_t>()[0] = static_cast<int8_t>(value);
      break;
    default:
      break;
  }
}

// Copies a plain tensor's bytes onto another of the same shape and type.
MaceStatus CopyTensor(const Tensor* from, Tensor* to) {
  MACE_CHECK_ARG(from->shape() == to->shape() && from->dtype() == to->dtype() &&
                     from->raw_size() == to->raw_size(),
                 "cannot copy '", from->name(), "' ", ShapeToString(from->shape()), " onto '",
                 to->name(), "' ", ShapeToString(to->shape()));
  const int64_t bytes = from->raw_size();
  if (bytes == 0 || from->raw_data() == to->raw_data()) return MaceStatus();
  MACE_CHECK_ARG(from->raw_data() != nullptr && to->raw_mutable_data() != nullptr,
                 "'", from->name(), "' or '", to->name(), "' has no host memory");
  std::memmove(to->raw_mutable_data(), from->raw_data(), bytes);
  return MaceStatus();
}

}  // namespace

bool IsControlFlowOp(const std::string& type) {
  return type == "If" || type == "Loop" || type == "Scan";
}

MaceStatus RegisterControlFlow(OpRegistry* registry) {
  registry->set_control_flow([](const ControlFlowArgs& args) -> std::unique_ptr<Operation> {
    return std::make_unique<ControlFlowOp>(args.registry, args.converters, args.runtimes,
                                           *args.options, args.env);
  });
  return MaceStatus();
}

ControlFlowOp::ControlFlowOp(const OpRegistry* registry, const ConverterRegistry* converters,
                             NetRuntimes runtimes, const NetOptions& options, SubgraphEnv env)
    : registry_(registry),
      converters_(converters),
      runtimes_(runtimes),
      options_(options),
      env_(std::move(env)) {
  // The op reads its subgraphs' outputs after they run, and feeds their
  // inputs before: both stay where the op put them.
  options_.preserve_inputs = true;
  // The op copies its subgraphs' inputs into their tensors: they need bytes.
  options_.inputs_in_app_buffers = false;
  // Names inside a subgraph are its own; the app observes the top net.
  options_.output_observer = nullptr;
}

DataType ControlFlowOp::OutputType(int index) const {
  if (index < def().output_type_size()) return def().output_type(index);
  return DT_FLOAT;
}

MaceStatus ControlFlowOp::Init() {
  is_loop_ = type() == "Loop";
  is_scan_ = type() == "Scan";
  if (is_scan_) {
    body_ = GetInt("body", -1);
    carried_ = GetInt("loop_carried", 0);
    scan_inputs_ = GetInt("num_scan_inputs", 0);
    MACE_RETURN_IF_ERROR(ArgTypeError());
    if (!HasArg("body")) return Invalid("needs the argument 'body' (a subgraph index)");
    if (carried_ < 0 || scan_inputs_ < 1 || carried_ > OutputSize() ||
        carried_ + scan_inputs_ > InputSize()) {
      return Invalid(StrCat("loop_carried ", carried_, " and num_scan_inputs ", scan_inputs_,
                            " do not fit ", InputSize(), " inputs and ", OutputSize(),
                            " outputs"));
    }
    return MaceStatus();
  }
  if (is_loop_) {
    body_ = GetInt("body", -1);
    carried_ = GetInt("loop_carried", 0);
    max_iterations_ = GetInt("max_iterations", kDefaultMaxLoopIterations);
    MACE_RETURN_IF_ERROR(ArgTypeError());
    if (!HasArg("body")) return Invalid("needs the argument 'body' (a subgraph index)");
    if (carried_ < 0 || carried_ > OutputSize() || InputSize() < 2 + carried_) {
      return Invalid(StrCat("loop_carried ", carried_, " does not fit ", InputSize(),
                            " inputs and ", OutputSize(), " outputs"));
    }
    if (max_iterations_ < 1 || max_iterations_ > kMaxLoopIterations) {
      return Invalid(StrCat("max_iterations ", max_iterations_, " is not in [1, ",
                            kMaxLoopIterations, "]"));
    }
    return MaceStatus();
  }
  then_branch_ = GetInt("then_branch", -1);
  else_branch_ = GetInt("else_branch", -1);
  MACE_RETURN_IF_ERROR(ArgTypeError());
  if (!HasArg("then_branch") || !HasArg("else_branch")) {
    return Invalid("needs the arguments 'then_branch' and 'else_branch' (subgraph indices)");
  }
  if (InputSize() < 1 || Input(0) == nullptr) return Invalid("has no condition input");
  return MaceStatus();
}

MaceStatus ControlFlowOp::Build(const char* what, int64_t index,
                                const std::vector<InputSpec>& inputs, int outputs,
                                std::unique_ptr<Subnet>* subnet) {
  const int count = env_.subgraphs == nullptr ? 0 : env_.subgraphs->size();
  if (index < 0 || index >= count) {
    return Invalid(StrCat(what, " is subgraph ", index, " but the model has ", count,
                          " subgraphs"));
  }
  if (std::find(env_.stack.begin(), env_.stack.end(), index) != env_.stack.end()) {
    return Invalid(StrCat(what, " is subgraph ", index,
                          ", which encloses this op: subgraphs cannot recurse"));
  }
  if (static_cast<int>(env_.stack.size()) >= kMaxSubgraphDepth) {
    return Invalid(StrCat(what, " is subgraph ", index, ", nested ", env_.stack.size() + 1,
                          " deep; at most ", kMaxSubgraphDepth, " levels are allowed"));
  }
  if (env_.nets_built == nullptr || ++*env_.nets_built > kMaxSubgraphNets) {
    return Invalid(StrCat(what, " (subgraph ", index, ") would be one more than the ",
                          kMaxSubgraphNets, " subgraph nets a model may build"));
  }
  const NetDef& source = env_.subgraphs->Get(static_cast<int>(index));
  if (source.input_info_size() != static_cast<int>(inputs.size()) ||
      source.output_info_size() != outputs) {
    return Invalid(StrCat(what, " (subgraph ", index, ") has ", source.input_info_size(),
                          " inputs and ", source.output_info_size(), " outputs; the op binds ",
                          inputs.size(), " and ", outputs));
  }
  // The subgraph's inputs get the shapes the op feeds them.
  NetDef def = source;
  for (size_t k = 0; k < inputs.size(); ++k) {
    InputOutputInfo* info = def.mutable_input_info(static_cast<int>(k));
    if (inputs[k].scalar) {
      int64_t elements = 1;
      for (int64_t d : info->dims()) elements *= d >= 0 && d <= 1 ? d : 2;
      if (elements != 1 || !IsScalarType(info->data_type())) {
        return Invalid(StrCat(what, " input '", info->name(), "' must be one int32 or float ",
                              "value, not ", ShapeToString({info->dims().begin(),
                                                            info->dims().end()})));
      }
      continue;
    }
    if (info->data_type() != inputs[k].dtype) {
      return Invalid(StrCat(what, " input '", info->name(), "' is declared ",
                            DataTypeName(info->data_type()), " but the op feeds it ",
                            DataTypeName(inputs[k].dtype)));
    }
    info->clear_dims();
    for (int64_t d : inputs[k].shape) info->add_dims(d);
  }
  auto built = std::make_unique<Subnet>();
  built->workspace = std::make_unique<Workspace>();
  // Every weight offset of the subgraph is checked against the blob here.
  MaceStatus status = built->workspace->LoadWeights(def, env_.weights);
  if (!status.ok()) {
    return Invalid(StrCat(what, " (subgraph ", index, "): ", status.information()));
  }
  SubgraphEnv env;
  env.subgraphs = env_.subgraphs;
  env.weights = env_.weights;
  env.stack = env_.stack;
  env.stack.push_back(index);
  env.nets_built = env_.nets_built;
  NetOptions options = options_;
  options.shared_arena = nullptr;  // a subgraph runs inside its parent's run
  built->net = std::make_unique<Net>(registry_, converters_, runtimes_, built->workspace.get(),
                                     options);
  built->net->set_subgraph_env(std::move(env));
  std::vector<std::string> output_names;
  for (const InputOutputInfo& info : def.output_info()) output_names.push_back(info.name());
  status = built->net->Init(def, output_names);
  if (!status.ok()) {
    return MaceStatus(status.code(), StrCat(Describe(), ": ", what, " (subgraph ", index,
                                            "): ", status.information()));
  }
  for (const InputOutputInfo& info : def.input_info()) {
    Tensor* tensor = built->net->InputTensor(info.name());
    if (tensor == nullptr || !tensor->has_buffer()) {
      return Invalid(StrCat(what, " input '", info.name(), "' has no memory"));
    }
    built->inputs.push_back(tensor);
  }
  for (const std::string& name : output_names) built->outputs.push_back(built->net->OutputTensor(name));
  *subnet = std::move(built);
  return MaceStatus();
}

MaceStatus ControlFlowOp::Prepare(OpContext* /*context*/) {
  for (int k = 0; k < OutputSize(); ++k) {
    if (!IsScalarType(OutputType(k))) {
      return Invalid(StrCat("output ", k, " has type ", DataTypeName(OutputType(k)),
                            "; control-flow values are float32, int32, uint8 or int8"));
    }
  }
  for (int k = 0; k < InputSize(); ++k) {
    if (Input(k) != nullptr && !IsScalarType(Input(k)->dtype())) {
      return Invalid(StrCat("input '", Input(k)->name(), "' has type ",
                            DataTypeName(Input(k)->dtype()),
                            "; control-flow values are float32, int32, uint8 or int8"));
    }
  }
  if (is_scan_) return PrepareScan();
  return is_loop_ ? PrepareLoop() : PrepareIf();
}

MaceStatus ControlFlowOp::CheckCarried(int first_input, int count) {
  for (int k = 0; k < count; ++k) {
    const Tensor* in = body_net_->inputs[first_input + k];
    const Tensor* out = body_net_->outputs[(is_loop_ ? 1 : 0) + k];
    if (in->shape() != out->shape() || in->dtype() != out->dtype()) {
      return Invalid(StrCat("loop-carried value ", k, " enters the body as ",
                            ShapeToString(in->shape()), " ", DataTypeName(in->dtype()),
                            " but leaves it as ", ShapeToString(out->shape()), " ",
                            DataTypeName(out->dtype()),
                            "; memory is planned once, so it must keep its shape and type"));
    }
    if (OutputType(k) != in->dtype()) {
      return Invalid(StrCat("output ", k, " is declared ", DataTypeName(OutputType(k)),
                            " but the loop carries ", DataTypeName(in->dtype())));
    }
    Output(k)->Reshape(in->shape());
  }
  return MaceStatus();
}

MaceStatus ControlFlowOp::PrepareScan() {
  std::vector<InputSpec> inputs;
  int64_t steps = -1;
  for (int k = 0; k < InputSize(); ++k) {
    const Tensor* input = Input(k);
    if (input == nullptr) return Invalid(StrCat("input ", k, " is empty"));
    std::vector<int64_t> shape = input->shape();
    if (k >= carried_ && k < carried_ + scan_inputs_) {
      if (shape.empty() || (steps >= 0 && shape[0] != steps)) {
        return Invalid(StrCat("scanned input '", input->name(), "' has shape ",
                              ShapeToString(shape), "; scanned inputs need one first "
                              "dimension in common"));
      }
      steps = shape[0];
      shape.erase(shape.begin());
    }
    inputs.push_back({shape, input->dtype(), false});
  }
  MACE_RETURN_IF_ERROR(Build("body", body_, inputs, OutputSize(), &body_net_));
  MACE_RETURN_IF_ERROR(CheckCarried(0, static_cast<int>(carried_)));
  planned_iterations_ = steps;
  for (int k = static_cast<int>(carried_); k < OutputSize(); ++k) {
    const Tensor* slice = body_net_->outputs[k];
    if (slice->dtype() != OutputType(k)) {
      return Invalid(StrCat("scan output ", k - carried_, " is declared ",
                            DataTypeName(OutputType(k)), " but the body gives ",
                            DataTypeName(slice->dtype())));
    }
    std::vector<int64_t> shape = {steps};
    shape.insert(shape.end(), slice->shape().begin(), slice->shape().end());
    if (CheckedElementCount(shape, kMaxByteCount / 4) < 0) {
      return Invalid(StrCat("scan output would have shape ", ShapeToString(shape)));
    }
    Output(k)->Reshape(std::move(shape));
  }
  return MaceStatus();
}

MaceStatus ControlFlowOp::RunScan() {
  Subnet* body = body_net_.get();
  for (int k = 0; k < InputSize(); ++k) {
    if (k >= carried_ && k < carried_ + scan_inputs_) continue;
    MACE_RETURN_IF_ERROR(CopyTensor(Input(k), body->inputs[k]));
  }
  for (int64_t step = 0; step < planned_iterations_; ++step) {
    for (int k = static_cast<int>(carried_); k < carried_ + scan_inputs_; ++k) {
      Tensor* slice = body->inputs[k];
      const int64_t bytes = slice->raw_size();
      if (bytes == 0) continue;
      std::memcpy(slice->raw_mutable_data(),
                  static_cast<const unsigned char*>(Input(k)->raw_data()) + step * bytes, bytes);
    }
    MACE_RETURN_IF_ERROR(body->net->Run(nullptr));
    for (int k = 0; k < carried_; ++k) {
      MACE_RETURN_IF_ERROR(CopyTensor(body->outputs[k], body->inputs[k]));
    }
    for (int k = static_cast<int>(carried_); k < OutputSize(); ++k) {
      const Tensor* slice = body->outputs[k];
      const int64_t bytes = slice->raw_size();
      if (bytes == 0) continue;
      std::memcpy(static_cast<unsigned char*>(Output(k)->raw_mutable_data()) + step * bytes,
                  slice->raw_data(), bytes);
    }
  }
  for (int k = 0; k < carried_; ++k) {
    MACE_RETURN_IF_ERROR(CopyTensor(body->inputs[k], Output(k)));
  }
  return MaceStatus();
}

MaceStatus ControlFlowOp::PrepareIf() {
  const Tensor* cond = Input(0);
  if (cond->size() != 1 || !IsScalarType(cond->dtype())) {
    return Invalid(StrCat("condition '", cond->name(), "' has shape ",
                          ShapeToString(cond->shape()), "; it must be one value"));
  }
  std::vector<InputSpec> captured;
  for (int k = 1; k < InputSize(); ++k) {
    if (Input(k) == nullptr) return Invalid(StrCat("input ", k, " is empty"));
    captured.push_back({Input(k)->shape(), Input(k)->dtype(), false});
  }
  MACE_RETURN_IF_ERROR(Build("then_branch", then_branch_, captured, OutputSize(), &then_net_));
  MACE_RETURN_IF_ERROR(Build("else_branch", else_branch_, captured, OutputSize(), &else_net_));
  for (int k = 0; k < OutputSize(); ++k) {
    const Tensor* a = then_net_->outputs[k];
    const Tensor* b = else_net_->outputs[k];
    if (a->shape() != b->shape()) {
      return Invalid(StrCat("output ", k, " is ", ShapeToString(a->shape()),
                            " in then_branch but ", ShapeToString(b->shape()),
                            " in else_branch; memory is planned once, so both branches must "
                            "give the same shapes"));
    }
    if (a->dtype() != OutputType(k) || b->dtype() != OutputType(k)) {
      return Invalid(StrCat("output ", k, " is declared ", DataTypeName(OutputType(k)),
                            " but the branches give ", DataTypeName(a->dtype()), " and ",
                            DataTypeName(b->dtype())));
    }
    Output(k)->Reshape(a->shape());
  }
  return MaceStatus();
}

MaceStatus ControlFlowOp::PrepareLoop() {
  const Tensor* trip = Input(0);
  const Tensor* cond = Input(1);
  for (const Tensor* scalar : {trip, cond}) {
    if (scalar != nullptr && (scalar->size() != 1 || !IsScalarType(scalar->dtype()))) {
      return Invalid(StrCat("'", scalar->name(), "' has shape ", ShapeToString(scalar->shape()),
                            "; a trip count or condition is one value"));
    }
  }
  std::vector<InputSpec> inputs(2);
  inputs[0].scalar = inputs[1].scalar = true;
  for (int k = 2; k < InputSize(); ++k) {
    if (Input(k) == nullptr) return Invalid(StrCat("input ", k, " is empty"));
    inputs.push_back({Input(k)->shape(), Input(k)->dtype(), false});
  }
  const int scans = OutputSize() - static_cast<int>(carried_);
  MACE_RETURN_IF_ERROR(Build("body", body_, inputs, 1 + OutputSize(), &body_net_));
  const Tensor* cond_out = body_net_->outputs[0];
  if (cond_out->size() != 1 || !IsScalarType(cond_out->dtype())) {
    return Invalid(StrCat("body condition output '", cond_out->name(), "' has shape ",
                          ShapeToString(cond_out->shape()), "; it must be one value"));
  }
  MACE_RETURN_IF_ERROR(CheckCarried(2, static_cast<int>(carried_)));
  if (scans == 0) return MaceStatus();
  // Scan outputs stack one slice per iteration: planned for the count the
  // model declares, or for a constant trip count.
  planned_iterations_ = -1;
  for (int j = 0; j < scans; ++j) {
    const int k = static_cast<int>(carried_) + j;
    if (k < def().output_shape_size() && def().output_shape(k).dims_size() > 0) {
      planned_iterations_ = def().output_shape(k).dims(0);
      break;
    }
  }
  if (planned_iterations_ < 0 && trip != nullptr && trip->is_weight() && cond == nullptr) {
    planned_iterations_ = static_cast<int64_t>(std::max(0.0, ScalarValue(trip)));
  }
  if (planned_iterations_ < 0 || planned_iterations_ > max_iterations_) {
    return Invalid(StrCat("has scan outputs but no declared number of iterations (",
                          planned_iterations_, ") within max_iterations ", max_iterations_));
  }
  for (int j = 0; j < scans; ++j) {
    const Tensor* slice = body_net_->outputs[1 + carried_ + j];
    const int k = static_cast<int>(carried_) + j;
    if (slice->dtype() != OutputType(k)) {
      return Invalid(StrCat("scan output ", j, " is declared ", DataTypeName(OutputType(k)),
                            " but the body gives ", DataTypeName(slice->dtype())));
    }
    std::vector<int64_t> shape = {planned_iterations_};
    shape.insert(shape.end(), slice->shape().begin(), slice->shape().end());
    if (CheckedElementCount(shape, kMaxByteCount / 4) < 0) {
      return Invalid(StrCat("scan output ", j, " would have shape ", ShapeToString(shape)));
    }
    Output(k)->Reshape(std::move(shape));
  }
  return MaceStatus();
}

MaceStatus ControlFlowOp::Run(OpContext* /*context*/) {
  if (is_scan_) return RunScan();
  return is_loop_ ? RunLoop() : RunIf();
}

MaceStatus ControlFlowOp::RunIf() {
  Subnet* branch = ScalarValue(Input(0)) != 0 ? then_net_.get() : else_net_.get();
  for (int k = 1; k < InputSize(); ++k) {
    MACE_RETURN_IF_ERROR(CopyTensor(Input(k), branch->inputs[k - 1]));
  }
  MACE_RETURN_IF_ERROR(branch->net->Run(nullptr));
  for (int k = 0; k < OutputSize(); ++k) {
    MACE_RETURN_IF_ERROR(CopyTensor(branch->outputs[k], Output(k)));
  }
  return MaceStatus();
}

MaceStatus ControlFlowOp::RunLoop() {
  Subnet* body = body_net_.get();
  const Tensor* trip = Input(0);
  const Tensor* cond = Input(1);
  // A trip count past max_iterations (or NaN) is capped there: the guard
  // below then reports the runaway loop.
  double limit = static_cast<double>(kMaxLoopIterations) + 1;
  if (trip != nullptr) {
    const double value = ScalarValue(trip);
    limit = std::isnan(value) ? limit : std::min(limit, std::max(0.0, value));
  }
  const int64_t trips = static_cast<int64_t>(limit);
  bool running = cond == nullptr || ScalarValue(cond) != 0;
  // The carried values live in the body's inputs between iterations.
  for (int k = 2; k < InputSize(); ++k) {
    MACE_RETURN_IF_ERROR(CopyTensor(Input(k), body->inputs[k]));
  }
  const int scans = OutputSize() - static_cast<int>(carried_);
  int64_t iteration = 0;
  for (; iteration < trips && running; ++iteration) {
    if (iteration >= max_iterations_) {
      return MaceStatus(MaceStatus::MACE_INVALID_ARGS,
                        StrCat(Describe(), ": ran ", max_iterations_,
                               " iterations (max_iterations) without ending; the model's loop "
                               "does not stop, or needs a larger max_iterations"));
    }
    if (scans > 0 && iteration >= planned_iterations_) {
      return MaceStatus(MaceStatus::MACE_INVALID_ARGS,
                        StrCat(Describe(), ": runs more than the ", planned_iterations_,
                               " iterations its scan outputs are planned for"));
    }
    SetScalar(body->inputs[0], static_cast<double>(iteration));
    SetScalar(body->inputs[1], running ? 1 : 0);
    MACE_RETURN_IF_ERROR(body->net->Run(nullptr));
    running = ScalarValue(body->outputs[0]) != 0;
    for (int k = 0; k < carried_; ++k) {
      MACE_RETURN_IF_ERROR(CopyTensor(body->outputs[1 + k], body->inputs[2 + k]));
    }
    for (int j = 0; j < scans; ++j) {
      const Tensor* slice = body->outputs[1 + carried_ + j];
      Tensor* out = Output(static_cast<int>(carried_) + j);
      const int64_t bytes = slice->raw_size();
      if (bytes > 0) {
        std::memcpy(static_cast<unsigned char*>(out->raw_mutable_data()) + iteration * bytes,
                    slice->raw_data(), bytes);
      }
    }
  }
  if (scans > 0 && iteration != planned_iterations_) {
    return MaceStatus(MaceStatus::MACE_INVALID_ARGS,
                      StrCat(Describe(), ": ran ", iteration, " iterations but its scan outputs ",
                             "are planned for ", planned_iterations_));
  }
  for (int k = 0; k < carried_; ++k) {
    MACE_RETURN_IF_ERROR(CopyTensor(body->inputs[2 + k], Output(k)));
  }
  return MaceStatus();
}

}  // namespace mace
