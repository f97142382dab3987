#include "mace/core/net.h"

#include "mace/utils/checked_math.h"
#include "mace/utils/logging.h"
#include "mace/utils/timer.h"

namespace mace {
namespace {

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
MaceStatus CheckModelInfo(const NetDef& net_def, const Workspace& workspace) {
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
    // No dims leaves the shape to the graph.
    if (info.dims_size() == 0) continue;
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

Net::Net(const OpRegistry* registry, Runtime* runtime, Workspace* workspace, NetOptions options)
    : registry_(registry), runtime_(runtime), workspace_(workspace), options_(options) {}

MaceStatus Net::Init(const NetDef& net_def, const std::vector<std::string>& output_names) {
  MACE_CHECK_ARG(net_def.op_size() > 0, "the model has no operators");
  std::vector<std::string> input_names;
  for (const InputOutputInfo& info : net_def.input_info()) {
    MACE_CHECK_ARG(!info.name().empty(), "a model input has no name");
    const int element_size = DataTypeSize(info.data_type());
    MACE_CHECK_ARG(element_size > 0, "model input '", info.name(), "' has unsupported type");
    Tensor* tensor = workspace_->CreateTensor(info.name(), info.data_type());
    MACE_CHECK_ARG(tensor != nullptr, "model input '", info.name(),
                   "' clashes with a weight of the same name");
    std::vector<int64_t> dims(info.dims().begin(), info.dims().end());
    for (int64_t d : dims) {
      MACE_CHECK_ARG(d > 0 && d < (int64_t{1} << 31), "model input '", info.name(),
                     "' has an invalid dimension ", d);
    }
    MACE_CHECK_ARG(CheckedElementCount(dims, kMaxByteCount / element_size) >= 0, "model input '",
                   info.name(), "' has shape ", ShapeToString(dims), ", more than ", kMaxByteCount,
                   " bytes");
    tensor->Reshape(std::move(dims));
    input_names.push_back(info.name());
  }
  MACE_RETURN_IF_ERROR(CreateOps(net_def));
  MACE_RETURN_IF_ERROR(CheckModelInfo(net_def, *workspace_));
  for (const std::string& output : output_names) {
    const Tensor* tensor = workspace_->GetTensor(output);
    MACE_CHECK_ARG(tensor != nullptr && !tensor->is_weight(), "output '", output,
                   "' is not produced by any op of the model");
  }
  MACE_RETURN_IF_ERROR(PlanBlockedLayout(output_names));
  return PlanMemory(input_names, output_names);
}

MaceStatus Net::CreateOps(const NetDef& net_def) {
  OpContext context;
  context.runtime = runtime_;
  context.workspace = workspace_;
  context.layout_planned = BlockedLayoutEnabled();
  for (int i = 0; i < net_def.op_size(); ++i) {
    const OperatorDef& def = net_def.op(i);
    const DataType dtype = net_def.data_type() == DT_HALF ? DT_FLOAT : net_def.data_type();
    std::unique_ptr<Operation> op = registry_->Create(def.type(), runtime_->device_type(), dtype);
    if (op == nullptr && runtime_->device_type() != DeviceType::CPU) {
      op = registry_->Create(def.type(), DeviceType::CPU, dtype);
    }
    if (op == nullptr) {
      return MaceStatus(
          MaceStatus::MACE_UNSUPPORTED,
          StrCat("op #", i, " '", def.name(), "' has unknown type '", def.type(), "' (no ",
                 DataTypeName(dtype), " kernel for ", runtime_->name(), ")"));
    }
    // Packing weights allocates; running out of memory there is a status
    // that names the op, not an exception into the app.
    MACE_RETURN_IF_ERROR(CatchExceptions(
        [&] {
          MACE_RETURN_IF_ERROR(op->Construct(def, workspace_));
          return op->Prepare(&context);
        },
        [&] { return StrCat("op #", i, " '", def.name(), "' (", def.type(), ")"); }));
    for (int k = 0; k < op->OutputSize(); ++k) {
      const Tensor* output = op->Output(k);
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
    VLOG(2) << "prepared " << op->Describe();
    ops_.push_back(std::move(op));
  }
  return MaceStatus();
}

MaceStatus Net::Run(RunMetadata* run_metadata) {
  OpContext context;
  context.runtime = runtime_;
  context.workspace = workspace_;
  MACE_RETURN_IF_ERROR(runtime_->BeforeRun());
  if (run_metadata != nullptr) run_metadata->op_stats.clear();
  for (auto& op : ops_) {
    const int64_t start = run_metadata != nullptr ? NowMicros() : 0;
    MaceStatus status =
        CatchExceptions([&] { return op->Run(&context); }, [&] { return op->Describe(); });
    if (!status.ok()) return status;
    if (run_metadata != nullptr) {
      OperatorStats stats;
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
  }
  return runtime_->AfterRun();
}

}  // namespace mace
