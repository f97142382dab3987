#include "mace/runtimes/hexagon/hexagon_executor.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "mace/ops/common/activation.h"
#include "mace/ops/common/conv_geometry.h"
#include "mace/ops/common/quantize.h"
#include "mace/ops/common/resize_geometry.h"
#include "mace/ops/ref/quantized/softmax.h"
#include "mace/utils/logging.h"
#include "mace/utils/run_control.h"
#include "mace/utils/status.h"
#include "mace/utils/timer.h"

namespace mace {
namespace hexagon {
namespace {

namespace refq = ops::ref::quantized;

// Zero points, fused activation clamp and per-channel multipliers of a
// convolution or fully connected op, as its CPU kernel computes them.
MaceStatus Quantization(const Operation& op, const Tensor& in, const Tensor& weight,
                        const Tensor& out, refq::ConvQuantization* quant) {
  ops::Activation activation;
  MACE_RETURN_IF_ERROR(ops::ParseActivation(op, false, &activation));
  quant->input_zero_point = in.zero_point();
  quant->filter_zero_point = weight.zero_point();
  MACE_RETURN_IF_ERROR(ops::MakeOutputClamp(activation, out.quant(), op.Describe(), &quant->output));
  return ops::MakeChannelMultipliers(in.scale(), weight, out.scale(), out.dim(1),
                                     &quant->multipliers);
}

// Builds the DSP graph from the CPU net's initialized ops.
class Translator {
 public:
  explicit Translator(DspGraphBuilder* builder) : builder_(builder) {}

  // The DSP id of an activation written by an earlier op or a DSP input.
  bool Known(const Tensor* t) const { return ids_.count(t) > 0; }
  uint32_t Activation(const Tensor* t) {
    auto it = ids_.find(t);
    if (it != ids_.end()) return it->second;
    const uint32_t id = builder_->AddTensor(dsp::kUint8, t->shape(), t->scale(), t->zero_point());
    ids_[t] = id;
    return id;
  }
  uint32_t Constant(const Tensor* t) {
    auto it = ids_.find(t);
    if (it != ids_.end()) return it->second;
    const dsp::DataType type = t->dtype() == DT_INT32  ? dsp::kInt32
                               : t->dtype() == DT_INT8 ? dsp::kInt8
                                                       : dsp::kUint8;
    const uint32_t id = builder_->AddConstant(type, t->shape(), t->scale(), t->zero_point(),
                                              t->raw_data(), t->raw_size());
    ids_[t] = id;
    return id;
  }

  MaceStatus Conv(Operation* op, dsp::OpType type) {
    const Tensor* in = op->Input(0);
    const Tensor* filter = op->Input(1);
    const Tensor* bias = op->InputSize() > 2 ? op->Input(2) : nullptr;
    const Tensor* out = op->Output(0);
    MACE_CHECK_ARG(filter->dtype() == DT_UINT8 || filter->dtype() == DT_INT8, op->Describe(),
                   ": the DSP takes uint8 or int8 weights, not ", DataTypeName(filter->dtype()));
    MACE_CHECK_ARG(op->GetInt("group", 1) == 1, op->Describe(), ": grouped convolution");
    MACE_CHECK_ARG(type != dsp::kDepthwiseConv2D || filter->dim(0) == 1, op->Describe(),
                   ": the DSP takes a depthwise channel multiplier of 1");
    ops::WindowArgs args;
    MACE_RETURN_IF_ERROR(ops::ParseWindowArgs(*op, &args));
    ops::WindowGeometry geometry;
    MACE_RETURN_IF_ERROR(ops::ComputeWindow(*op, args, in->dim(2), in->dim(3), filter->dim(2),
                                            filter->dim(3), &geometry));
    refq::ConvQuantization quant;
    MACE_RETURN_IF_ERROR(Quantization(*op, *in, *filter, *out, &quant));
    const uint32_t in_id = Activation(in);
    const uint32_t filter_id = Constant(filter);
    const uint32_t bias_id = bias != nullptr ? Constant(bias) : dsp::kNoTensor;
    builder_->AddOp(type, {in_id, filter_id, bias_id}, {Activation(out)},
                    ConvParams(args.stride_h, args.stride_w, args.dilation_h, args.dilation_w,
                               geometry.pad_top, geometry.pad_left, quant));
    return MaceStatus();
  }

  // Weight [out, in]; the input [N, in] or [N, in, 1, 1] (the DSP does
  // not flatten larger planes yet).
  MaceStatus Conv2D(Operation* op) { return Conv(op, dsp::kConv2D); }
  MaceStatus DepthwiseConv2D(Operation* op) { return Conv(op, dsp::kDepthwiseConv2D); }

  MaceStatus FullyConnected(Operation* op) {
    const Tensor* in = op->Input(0);
    const Tensor* weight = op->Input(1);
    const Tensor* bias = op->InputSize() > 2 ? op->Input(2) : nullptr;
    const Tensor* out = op->Output(0);
    MACE_CHECK_ARG(weight->dtype() == DT_UINT8 || weight->dtype() == DT_INT8, op->Describe(),
                   ": the DSP takes uint8 or int8 weights, not ", DataTypeName(weight->dtype()));
    MACE_CHECK_ARG(in->dim_size() == 2 || (in->dim(2) == 1 && in->dim(3) == 1), op->Describe(),
                   ": the DSP takes a [N, K] or [N, K, 1, 1] input");
    refq::ConvQuantization quant;
    MACE_RETURN_IF_ERROR(Quantization(*op, *in, *weight, *out, &quant));
    const uint32_t in_id = Activation(in);
    const uint32_t weight_id = Constant(weight);
    const uint32_t bias_id = bias != nullptr ? Constant(bias) : dsp::kNoTensor;
    builder_->AddOp(dsp::kFullyConnected, {in_id, weight_id, bias_id}, {Activation(out)},
                    ConvParams(1, 1, 1, 1, 0, 0, quant));
    return MaceStatus();
  }

  MaceStatus Pooling(Operation* op) {
    const Tensor* in = op->Input(0);
    const Tensor* out = op->Output(0);
    MACE_CHECK_ARG(op->GetInt("ceil_mode", 0) == 0, op->Describe(), ": ceil_mode on the DSP");
    ops::ref::PoolingParams p;
    p.type = static_cast<ops::ref::PoolingType>(op->GetInt("pooling_type", 1));
    p.batch = in->dim(0), p.channels = in->dim(1), p.in_h = in->dim(2), p.in_w = in->dim(3);
    p.out_h = out->dim(2), p.out_w = out->dim(3);
    p.count_include_pad = op->GetInt("count_include_pad", 0) != 0;
    if (op->GetInt("global", 0) != 0) {
      p.kernel_h = p.in_h, p.kernel_w = p.in_w;
    } else {
      ops::WindowArgs args;
      MACE_RETURN_IF_ERROR(ops::ParseWindowArgs(*op, &args));
      MACE_CHECK_ARG(!p.count_include_pad || args.explicit_pads, op->Describe(),
                     ": count_include_pad needs explicit pads on the DSP");
      const std::vector<int64_t> kernels = op->GetInts("kernels");
      MACE_CHECK_ARG(kernels.size() == 2, op->Describe(), ": kernels");
      ops::WindowGeometry geometry;
      MACE_RETURN_IF_ERROR(ops::ComputeWindow(*op, args, p.in_h, p.in_w, kernels[0], kernels[1],
                                              &geometry));
      p.kernel_h = kernels[0], p.kernel_w = kernels[1];
      p.stride_h = args.stride_h, p.stride_w = args.stride_w;
      p.dilation_h = args.dilation_h, p.dilation_w = args.dilation_w;
      p.pad_top = geometry.pad_top, p.pad_left = geometry.pad_left;
      p.pad_bottom = args.pad_bottom, p.pad_right = args.pad_right;
    }
    builder_->AddOp(dsp::kPooling, {Activation(in)}, {Activation(out)},
                    PoolingParams(p, in->zero_point()));
    return MaceStatus();
  }

  MaceStatus Eltwise(Operation* op) {
    MACE_CHECK_ARG(op->InputSize() == 2 && !op->HasArg("coeff"), op->Describe(),
                   ": the DSP takes two inputs and no coefficients");
    const int64_t type = op->GetInt("type", -1);
    MACE_CHECK_ARG(type >= 0 && type <= 2, op->Describe(),
                   ": the DSP has SUM, SUB and PROD only");
    const Tensor* a = op->Input(0);
    const Tensor* b = op->Input(1);
    MACE_CHECK_ARG(b->size() == 1 || b->shape() == a->shape(), op->Describe(),
                   ": the DSP broadcasts only a single value");
    refq::EltwiseQuantization quant;
    MACE_RETURN_IF_ERROR(refq::MakeEltwiseQuantization(static_cast<refq::EltwiseKind>(type),
                                                       a->quant(), b->quant(),
                                                       op->Output(0)->quant(), op->Describe(),
                                                       &quant));
    const uint32_t a_id = Operand(a), b_id = Operand(b);
    builder_->AddOp(dsp::kEltwise, {a_id, b_id}, {Activation(op->Output(0))}, EltwiseParams(quant));
    return MaceStatus();
  }

  MaceStatus Concat(Operation* op) {
    const int64_t rank = op->Output(0)->dim_size();
    int64_t axis = op->GetInt("axis", 1);
    if (axis < 0) axis += rank;
    MACE_CHECK_ARG(rank == 4 && axis == 1, op->Describe(), ": the DSP concatenates channels only");
    const Tensor* out = op->Output(0);
    for (int i = 0; i < op->InputSize(); ++i) {
      const Tensor* in = op->Input(i);
      MACE_CHECK_ARG(in->scale() == out->scale() && in->zero_point() == out->zero_point(),
                     op->Describe(), ": the DSP concatenates inputs quantized as the output only");
    }
    std::vector<uint32_t> inputs;
    for (int i = 0; i < op->InputSize(); ++i) inputs.push_back(Operand(op->Input(i)));
    builder_->AddOp(dsp::kConcat, inputs, {Activation(op->Output(0))}, {});
    return MaceStatus();
  }

  MaceStatus Softmax(Operation* op) {
    MACE_CHECK_ARG(op->GetInt("use_log", 0) == 0, op->Describe(), ": log-softmax on the DSP");
    const Tensor* in = op->Input(0);
    const std::vector<int64_t>& shape = in->shape();
    const int64_t rank = static_cast<int64_t>(shape.size());
    int64_t axis = op->GetInt("axis", -1);
    if (axis < 0) axis += rank;
    MACE_CHECK_ARG(axis >= 0 && axis < rank, op->Describe(), ": axis out of range");
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= shape[d];
    for (int64_t d = axis + 1; d < rank; ++d) inner *= shape[d];
    // The DSP gets the reference's exp table, the only float step.
    const refq::SoftmaxTable table = refq::MakeSoftmaxTable(in->scale());
    const uint32_t table_id =
        builder_->AddConstant(dsp::kInt32, {256}, 1.f, 0, table.data(), sizeof(table));
    builder_->AddOp(dsp::kSoftmax, {Activation(in), table_id}, {Activation(op->Output(0))},
                    {static_cast<int32_t>(outer), static_cast<int32_t>(shape[axis]),
                     static_cast<int32_t>(inner)});
    return MaceStatus();
  }

  // The taps come from the reference's own coordinate code, on the host.
  MaceStatus ResizeBilinear(Operation* op) {
    const Tensor* in = op->Input(0);
    const Tensor* size = op->InputSize() > 1 ? op->Input(1) : nullptr;
    ops::ResizeArgs args;
    MACE_RETURN_IF_ERROR(ops::ParseResizeArgs(*op, size != nullptr,
                                              ops::CoordinateMode::HALF_PIXEL, &args));
    ops::ResizeGeometry geometry;
    MACE_RETURN_IF_ERROR(
        ops::ComputeResizeGeometry(*op, args, size, in->dim(2), in->dim(3), &geometry));
    ops::ref::ResizeBilinearParams p;
    p.batch = in->dim(0), p.channels = in->dim(1), p.in_h = in->dim(2), p.in_w = in->dim(3);
    p.out_h = op->Output(0)->dim(2), p.out_w = op->Output(0)->dim(3);
    p.mode = args.mode, p.scale_h = geometry.scale_h, p.scale_w = geometry.scale_w;
    const std::vector<int32_t> taps = ResizeBilinearTaps(p);
    const uint32_t taps_id = builder_->AddConstant(dsp::kInt32, {p.out_h + p.out_w, 3}, 1.f, 0,
                                                   taps.data(), taps.size() * 4);
    builder_->AddOp(dsp::kResizeBilinear, {Activation(in), taps_id}, {Activation(op->Output(0))},
                    {});
    return MaceStatus();
  }

  uint32_t Operand(const Tensor* t) { return t->is_weight() ? Constant(t) : Activation(t); }

  // Adds `op` to the graph, or says why the DSP cannot run it (before
  // adding anything). The op types come from mace/dsp/ops.inc: each is
  // translated by the method of its name.
  MaceStatus Add(Operation* op) {
    const std::string& type = op->type();
#define MACE_DSP_OP(name, number, family, mace_type) \
  if (type == mace_type) return name(op);
#include "mace/dsp/ops.inc"
    if (IsRename(type)) return Alias(op);
    return MaceStatus(MaceStatus::MACE_UNSUPPORTED, "no DSP kernel");
  }

  static bool IsRename(const std::string& type) {
#define MACE_DSP_RENAME(mace_type) \
  if (type == mace_type) return true;
#include "mace/dsp/ops.inc"
    return false;
  }

  // Reshape, Squeeze and Identity move no bytes in a dense NCHW tensor:
  // the output is the input under another name (the DSP ops check the
  // shapes they read).
  MaceStatus Alias(Operation* op) {
    const Tensor* in = op->Input(0);
    const Tensor* out = op->Output(0);
    MACE_CHECK_ARG(!in->is_weight() && in->size() == out->size() &&
                       out->zero_point() == in->zero_point() && out->scale() == in->scale(),
                   op->Describe(), ": the DSP renames a tensor only with the same bytes");
    MACE_CHECK_ARG(ids_.count(out) == 0, op->Describe(), ": output already on the DSP");
    ids_[out] = Activation(in);
    return MaceStatus();
  }

 private:
  DspGraphBuilder* builder_;
  std::map<const Tensor*, uint32_t> ids_;
};

// Why `op` stays on the CPU before the DSP translation is tried, or "".
// `dsp_written` holds what the current DSP segment writes.
std::string CpuReason(const Operation& op, const std::set<const Tensor*>& dsp_written) {
  if (op.type() == "Quantize" || op.type() == "Dequantize") {
    return "converts between float and uint8 on the host";
  }
  if (op.kernel_dtype() != DT_UINT8) {
    return StrCat(DataTypeName(op.kernel_dtype()), " kernel");
  }
  if (Translator::IsRename(op.type())) {
    // A rename on the DSP moves no bytes; one of a CPU tensor stays there.
    const Tensor* in = op.Input(0);
    return in != nullptr && dsp_written.count(in) > 0 ? "" : "renames a tensor the CPU holds";
  }
  for (int i = 0; i < op.InputSize(); ++i) {
    const Tensor* t = op.Input(i);
    if (t == nullptr || t->is_weight() || t->dtype() == DT_UINT8) continue;
    return StrCat("reads ", DataTypeName(t->dtype()), " tensor '", t->name(), "'");
  }
  for (int k = 0; k < op.OutputSize(); ++k) {
    if (op.Output(k)->dtype() != DT_UINT8) {
      return StrCat("writes ", DataTypeName(op.Output(k)->dtype()), " tensor '",
                    op.Output(k)->name(), "'");
    }
  }
  return "";
}

}  // namespace

HexagonExecutor::HexagonExecutor(std::unique_ptr<Net> cpu_net, DspChannelConfig config,
                                 std::shared_ptr<DspSession> session)
    : net_(std::move(cpu_net)), config_(std::move(config)), session_(std::move(session)) {
  if (session_ == nullptr) session_ = std::make_shared<DspSession>(config_);
}

HexagonExecutor::~HexagonExecutor() {
  MaceStatus ignored;
  DspSession::Locked session(session_.get(), nullptr, &ignored);
  // A session that other engines (or the context) still hold keeps living:
  // this engine's graphs leave it and free the DSP's memory. A session of
  // the engine's own ends with it.
  if (session_.use_count() > 1 && session.failure().empty() &&
      session.control()->initialized() && session.generation() == generation_) {
    session.control()->channel()->set_timeout_ms(config_.timeout_ms);
    for (const Stage& stage : stages_) {
      if (stage.on_dsp) session.control()->TeardownGraph(stage.slot);
    }
  }
  session.GiveBack(slots_);
}

MaceStatus HexagonExecutor::Init(const NetDef& /*net_def*/,
                                 const std::vector<std::string>& output_names) {
  // A missing emulator or image is reported first, whatever the model.
  std::string emulator, image;
  MACE_RETURN_IF_ERROR(ResolveDspPaths(config_, &emulator, &image));
  // Activation ids for the planning.
  std::map<const Tensor*, int> ids;
  std::vector<const Tensor*> tensors;
  auto id_of = [&](const Tensor* t) {
    auto it = ids.find(t);
    if (it != ids.end()) return it->second;
    const int id = static_cast<int>(tensors.size());
    tensors.push_back(t);
    ids[t] = id;
    return id;
  };
  const std::vector<std::unique_ptr<Operation>>& ops = net_->ops();
  std::vector<PlacedOp> placed(ops.size());
  std::vector<std::string> names(ops.size()), reasons(ops.size());
  // One graph builder per DSP segment, in order.
  std::vector<std::unique_ptr<DspGraphBuilder>> builders;
  std::vector<std::unique_ptr<Translator>> translators;
  std::vector<std::vector<Operation*>> dsp_ops;  // per builder, those that added a DSP op
  std::set<const Tensor*> dsp_written;  // by the current DSP segment
  bool in_dsp_segment = false;
  for (size_t i = 0; i < ops.size(); ++i) {
    Operation* op = ops[i].get();
    names[i] = op->Describe();
    for (int k = 0; k < op->InputSize(); ++k) {
      const Tensor* t = op->Input(k);
      if (t != nullptr && !t->is_weight()) placed[i].inputs.push_back(id_of(t));
    }
    for (int k = 0; k < op->OutputSize(); ++k) placed[i].outputs.push_back(id_of(op->Output(k)));
    std::string reason = CpuReason(*op, in_dsp_segment ? dsp_written : std::set<const Tensor*>());
    if (reason.empty()) {
      // Offered to the DSP: to the current segment's graph, or a new one.
      std::unique_ptr<DspGraphBuilder> builder;
      std::unique_ptr<Translator> translator;
      if (!in_dsp_segment) {
        builder = std::make_unique<DspGraphBuilder>();
        translator = std::make_unique<Translator>(builder.get());
      }
      Translator* target = in_dsp_segment ? translators.back().get() : translator.get();
      const MaceStatus status = target->Add(op);
      if (status.ok()) {
        if (!in_dsp_segment) {
          builders.push_back(std::move(builder));
          translators.push_back(std::move(translator));
          dsp_ops.emplace_back();
          dsp_written.clear();
          in_dsp_segment = true;
        }
        if (!Translator::IsRename(op->type())) dsp_ops.back().push_back(op);
        for (int k = 0; k < op->OutputSize(); ++k) dsp_written.insert(op->Output(k));
        placed[i].on_dsp = true;
        continue;
      }
      reason = status.information();
      // The translation's messages start with the op's own description.
      const std::string prefix = names[i] + ": ";
      if (reason.compare(0, prefix.size(), prefix) == 0) reason = reason.substr(prefix.size());
    }
    VLOG(1) << names[i] << " falls back from the Hexagon DSP to the CPU: " << reason;
    reasons[i] = reason;
    in_dsp_segment = false;
  }
  std::set<int> app_outputs;
  for (const std::string& name : output_names) app_outputs.insert(id_of(net_->OutputTensor(name)));
  const std::vector<Segment> segments = PlanSegments(placed, app_outputs);
  placement_ = DescribePlacement(segments, names, reasons);
  VLOG(1) << "Hexagon placement: " << placement_;
  if (builders.empty()) {
    return MaceStatus(MaceStatus::MACE_UNSUPPORTED,
                      StrCat("the Hexagon DSP can run no op of the model: ", placement_));
  }
  MACE_UNSUPPORTED_IF(builders.size() > dsp::kMaxGraphs, "the model needs ", builders.size(),
                      " DSP graphs; a DSP session holds ", dsp::kMaxGraphs, ". ", placement_);
  // Host memory only for what the CPU ops read and write, what crosses a
  // segment boundary, and the app's tensors: an activation that lives only
  // inside a DSP graph gets none.
  std::set<const Tensor*> on_host, elsewhere;
  for (const Segment& segment : segments) {
    for (int id : segment.inputs) on_host.insert(tensors[id]);
    for (int id : segment.outputs) on_host.insert(tensors[id]);
    if (segment.on_dsp) continue;
    for (int i : segment.ops) {
      for (int id : placed[i].inputs) on_host.insert(tensors[id]);
      for (int id : placed[i].outputs) on_host.insert(tensors[id]);
    }
  }
  for (const std::string& name : output_names) on_host.insert(net_->OutputTensor(name));
  for (const Tensor* t : tensors) {
    if (on_host.count(t) == 0 && net_->InputTensor(t->name()) != t) elsewhere.insert(t);
  }
  MACE_RETURN_IF_ERROR(net_->PlanHostMemory(elsewhere, output_names));
  MaceStatus unlocked;
  DspSession::Locked session(session_.get(), nullptr, &unlocked);
  MACE_RETURN_IF_ERROR(session.Open());
  session.control()->channel()->set_timeout_ms(config_.timeout_ms);
  MACE_RETURN_IF_ERROR(session.TakeSlots(builders.size(), &slots_));
  generation_ = session.generation();
  // Host tensors by id, writable (each activation is some op's output or an
  // app input, which a DSP segment never writes).
  std::map<int, Tensor*> writable;
  for (const std::unique_ptr<Operation>& op : ops) {
    for (int k = 0; k < op->OutputSize(); ++k) writable[ids.at(op->Output(k))] = op->Output(k);
  }
  size_t dsp_index = 0;
  for (const Segment& segment : segments) {
    Stage stage;
    stage.on_dsp = segment.on_dsp;
    if (!segment.on_dsp) {
      for (int i : segment.ops) stage.ops.push_back(ops[i].get());
      stages_.push_back(std::move(stage));
      continue;
    }
    DspGraphBuilder* builder = builders[dsp_index].get();
    Translator* translator = translators[dsp_index].get();
    const std::string where = StrCat("DSP segment ", dsp_index + 1, " of ", builders.size());
    stage.name = StrCat(where, " (", segment.ops.size(), " ops)");
    stage.dsp_ops = dsp_ops[dsp_index];
    ++dsp_index;
    std::vector<uint32_t> graph_inputs, graph_outputs;
    for (int id : segment.inputs) {
      const Tensor* t = tensors[id];
      MACE_CHECK_ARG(t->dtype() == DT_UINT8, where, " reads ", DataTypeName(t->dtype()),
                     " tensor '", t->name(), "'");
      stage.inputs.push_back(t);
      graph_inputs.push_back(translator->Activation(t));
    }
    std::map<uint32_t, size_t> output_index;
    for (int id : segment.outputs) {
      Tensor* t = writable.at(id);
      const uint32_t dsp_id = translator->Activation(t);
      auto found = output_index.find(dsp_id);
      if (found != output_index.end()) {
        stage.outputs[found->second].push_back(t);
        continue;
      }
      output_index[dsp_id] = graph_outputs.size();
      graph_outputs.push_back(dsp_id);
      stage.outputs.push_back({t});
    }
    MACE_CHECK_ARG(!graph_inputs.empty() && !graph_outputs.empty(), where,
                   " has no input or no output");
    builder->SetInputs(graph_inputs);
    builder->SetOutputs(graph_outputs);
    SerializedGraph graph;
    MACE_RETURN_IF_ERROR(builder->Serialize(&graph));
    stage.slot = slots_[dsp_index - 1];
    MACE_RETURN_IF_ERROR(session.control()->SetupGraph(graph, stage.slot));
    stage.graph = std::move(graph);
    stages_.push_back(std::move(stage));
  }
  return MaceStatus();
}

MaceStatus HexagonExecutor::RunDsp(Stage* stage, bool profile, HexagonControl* control) {
  std::vector<DspBuffer> buffers;
  for (const Tensor* t : stage->inputs) {
    buffers.push_back({t->raw_data(), static_cast<size_t>(t->size())});
  }
  MACE_RETURN_IF_ERROR(control->ExecuteGraph(buffers, &stage->output_bytes, stage->slot,
                                             profile ? &stage->profile : nullptr));
  stage->dsp_time_us = control->last_dsp_time_us();
  MACE_CHECK_ARG(!profile || stage->profile.size() == stage->dsp_ops.size(), "the DSP timed ",
                 stage->profile.size(), " ops of ", stage->dsp_ops.size());
  MACE_CHECK_ARG(stage->output_bytes.size() == stage->outputs.size(), "the DSP returned ",
                 stage->output_bytes.size(), " outputs for ", stage->outputs.size());
  for (size_t i = 0; i < stage->outputs.size(); ++i) {
    const std::vector<uint8_t>& bytes = stage->output_bytes[i];
    for (Tensor* t : stage->outputs[i]) {
      MACE_CHECK_ARG(bytes.size() == static_cast<size_t>(t->size()), "the DSP returned ",
                     bytes.size(), " bytes for '", t->name(), "' of ", t->size());
      std::copy(bytes.begin(), bytes.end(), t->mutable_data<uint8_t>());
    }
  }
  return MaceStatus();
}

MaceStatus HexagonExecutor::Reopen(DspSession::Locked* session) {
  MACE_RETURN_IF_ERROR(session->Open());
  session->control()->channel()->set_timeout_ms(config_.timeout_ms);
  for (const Stage& stage : stages_) {
    if (stage.on_dsp) {
      MACE_RETURN_IF_ERROR(session->control()->SetupGraph(stage.graph, stage.slot));
    }
  }
  generation_ = session->generation();
  return MaceStatus();
}

MaceStatus HexagonExecutor::Run(RunMetadata* run_metadata) {
  // A session that ended (the DSP process died, hung or replied garbage)
  // lost its graphs: every later run says so instead of running half the
  // model.
  if (!session_error_.empty()) {
    return MaceStatus(MaceStatus::MACE_RUNTIME_ERROR,
                      StrCat("the Hexagon DSP session ended in an earlier run (", session_error_,
                             "); destroy the engine and create it again"));
  }
  std::set<Runtime*> runtimes;
  for (const Stage& stage : stages_) {
    for (Operation* op : stage.ops) runtimes.insert(op->runtime());
  }
  for (Runtime* runtime : runtimes) MACE_RETURN_IF_ERROR(runtime->BeforeRun());
  if (run_metadata != nullptr) run_metadata->op_stats.clear();
  // One entry per CPU op, as Net::Run gives, and one per DSP graph (its
  // time on the DSP as the device time).
  auto record = [run_metadata](OperatorStats stats, int64_t start) {
    if (run_metadata == nullptr) return;
    stats.start_micros = start;
    stats.end_micros = NowMicros();
    run_metadata->op_stats.push_back(std::move(stats));
  };
  OpContext context;
  context.workspace = net_->workspace();
  // A Run stops before each DSP graph and each host op, while it waits for
  // the session another engine's call holds, and during a DSP graph call,
  // which it abandons by ending the DSP process (DspChannel): the next DSP
  // call of any engine of the session opens it again.
  const RunControl* control = CurrentRunControl();
  auto stopped = [&] { return control != nullptr && control->ShouldStop(); };
  auto finish_stopped = [&] {
    for (Runtime* runtime : runtimes) MACE_RETURN_IF_ERROR(runtime->AfterRun());
    return control->Status();
  };
  for (Stage& stage : stages_) {
    if (stopped()) return finish_stopped();
    if (stage.on_dsp) {
      const int64_t start = run_metadata != nullptr ? NowMicros() : 0;
      MaceStatus waited;
      DspSession::Locked session(session_.get(), control, &waited);
      if (!session.locked()) return finish_stopped();
      if (!session.failure().empty()) {
        session_error_ = session.failure();
        return MaceStatus(MaceStatus::MACE_RUNTIME_ERROR,
                          StrCat("the Hexagon DSP session ended in another engine's run (",
                                 session_error_, "); destroy the engine and create it again"));
      }
      // The session was closed by a stopped Run, or opened again since this
      // engine's graphs were set up: they are set up again (a stop during
      // that leaves it for the next Run).
      MaceStatus status;
      if (!session.control()->initialized() || session.generation() != generation_) {
        status = Reopen(&session);
      }
      if (status.ok()) {
        session.control()->channel()->set_timeout_ms(config_.timeout_ms);
        status = RunDsp(&stage, run_metadata != nullptr, session.control());
      }
      const bool abandoned = status.code() == MaceStatus::MACE_CANCELLED ||
                             status.code() == MaceStatus::MACE_DEADLINE_EXCEEDED;
      if (abandoned && control != nullptr) return finish_stopped();
      if (!status.ok()) {
        const std::string what = StrCat(stage.name, ": ", status.information());
        // The DSP died, hung or replied garbage during the graph's call:
        // the session failed for every engine of it.
        if (!session.control()->initialized() && session.generation() == generation_) {
          session_error_ = what;
          session.Fail(what);
        }
        return MaceStatus(status.code(), what);
      }
      if (run_metadata == nullptr) continue;
      // The graph's entry: the host's time for the call, and the DSP's
      // time outside its ops (the graph's input and output copies); then
      // one entry per op with the DSP's time for it and the host time spent
      // in the graph's entry.
      std::vector<OperatorStats> op_entries;
      uint64_t op_nanos = 0;
      for (size_t k = 0; k < stage.dsp_ops.size(); ++k) {
        const Operation* op = stage.dsp_ops[k];
        const dsp::OpProfile& p = stage.profile[k];
        const uint64_t nanos = (static_cast<uint64_t>(p.nanos_high) << 32) | p.nanos_low;
        op_nanos += nanos;
        OperatorStats stats;
        stats.operator_name = op->name();
        stats.type = op->type();
        stats.macs = op->Macs();
        stats.device_micros = static_cast<int64_t>((nanos + 500) / 1000);
        for (int j = 0; j < op->OutputSize(); ++j) {
          stats.output_shape.push_back(op->Output(j)->shape());
        }
        op_entries.push_back(std::move(stats));
      }
      OperatorStats stats;
      stats.operator_name = stage.name;
      stats.type = "HexagonGraph";
      const int64_t call_micros = stage.dsp_time_us;
      stats.device_micros =
          std::max<int64_t>(0, call_micros - static_cast<int64_t>((op_nanos + 500) / 1000));
      for (const auto& receivers : stage.outputs) {
        stats.output_shape.push_back(receivers[0]->shape());
      }
      record(std::move(stats), start);
      const int64_t end = run_metadata->op_stats.back().end_micros;
      for (OperatorStats& entry : op_entries) {
        entry.start_micros = entry.end_micros = end;
        run_metadata->op_stats.push_back(std::move(entry));
      }
      continue;
    }
    for (Operation* op : stage.ops) {
      if (stopped()) return finish_stopped();
      const int64_t start = run_metadata != nullptr ? NowMicros() : 0;
      bool empty = op->OutputSize() > 0;
      for (int k = 0; k < op->OutputSize() && empty; ++k) empty = op->Output(k)->size() == 0;
      if (!empty) {
        context.runtime = op->runtime();
        MACE_RETURN_IF_ERROR(
            CatchExceptions([&] { return op->Run(&context); }, [&] { return op->Describe(); }));
        // A loop of the op skipped pieces: its outputs are not to be used.
        if (control != nullptr && !control->Status().ok()) return finish_stopped();
      }
      OperatorStats stats;
      stats.operator_name = op->name();
      stats.type = op->type();
      stats.macs = op->Macs();
      for (int k = 0; k < op->OutputSize(); ++k) {
        stats.output_shape.push_back(op->Output(k)->shape());
      }
      record(std::move(stats), start);
    }
  }
  for (Runtime* runtime : runtimes) MACE_RETURN_IF_ERROR(runtime->AfterRun());
  return MaceStatus();
}

}  // namespace hexagon
}  // namespace mace
