#include "mace/runtimes/hexagon/hexagon_executor.h"

#include <map>
#include <set>
#include <utility>

#include "mace/ops/common/activation.h"
#include "mace/ops/common/conv_geometry.h"
#include "mace/ops/common/quantize.h"
#include "mace/ops/common/resize_geometry.h"
#include "mace/ops/ref/quantized/softmax.h"
#include "mace/utils/status.h"

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

}  // namespace

HexagonExecutor::HexagonExecutor(std::unique_ptr<Net> cpu_net, DspChannelConfig config)
    : net_(std::move(cpu_net)), config_(std::move(config)) {}

HexagonExecutor::~HexagonExecutor() { control_.Finalize(); }

MaceStatus HexagonExecutor::Init(const NetDef& net_def,
                                 const std::vector<std::string>& output_names) {
  DspGraphBuilder builder;
  Translator translator(&builder);
  std::vector<uint32_t> dsp_inputs, dsp_outputs;
  std::vector<std::string> unsupported;
  std::set<const Tensor*> app_inputs, app_outputs;
  // Float tensors the host computes after the DSP: Dequantize outputs and
  // what the float ops after them write.
  std::set<const Tensor*> host_side;
  for (const InputOutputInfo& info : net_def.input_info()) {
    app_inputs.insert(net_->InputTensor(info.name()));
  }
  for (const std::string& name : output_names) app_outputs.insert(net_->OutputTensor(name));
  // uint8 inputs the app gives directly.
  for (const Tensor* t : app_inputs) {
    if (t->dtype() != DT_UINT8) continue;
    Binding binding;
    binding.host = const_cast<Tensor*>(t);
    binding.bytes = t->size();
    inputs_.push_back(binding);
    dsp_inputs.push_back(translator.Activation(t));
  }
  for (const std::unique_ptr<Operation>& owned : net_->ops()) {
    Operation* op = owned.get();
    const std::string& type = op->type();
    if (type == "Quantize" && app_inputs.count(op->Input(0)) == 0) {
      unsupported.push_back(StrCat(op->Describe(), " inside the graph"));
      continue;
    }
    if (type == "Quantize") {
      // Host side: the app's float input becomes a DSP input.
      Binding binding;
      binding.host = const_cast<Tensor*>(op->Input(0));
      binding.convert = true;
      binding.scale = op->Output(0)->scale();
      binding.zero_point = op->Output(0)->zero_point();
      binding.bytes = op->Output(0)->size();
      inputs_.push_back(binding);
      dsp_inputs.push_back(translator.Activation(op->Output(0)));
      continue;
    }
    if (type == "Dequantize") {
      Binding binding;
      binding.host = op->Output(0);
      binding.convert = true;
      binding.scale = op->Input(0)->scale();
      binding.zero_point = op->Input(0)->zero_point();
      binding.bytes = op->Input(0)->size();
      outputs_.push_back(binding);
      dsp_outputs.push_back(translator.Activation(op->Input(0)));
      host_side.insert(op->Output(0));
      continue;
    }
    bool reads_host = false, reads_device = false;
    for (int i = 0; i < op->InputSize(); ++i) {
      const Tensor* t = op->Input(i);
      if (t == nullptr || t->is_weight()) continue;
      (host_side.count(t) > 0 ? reads_host : reads_device) = true;
    }
    if (reads_host) {
      // The float tail after the DSP's outputs (a Softmax kept in float,
      // say) runs on the CPU with the CPU net's own kernels.
      if (op->kernel_dtype() == DT_UINT8 || reads_device) {
        unsupported.push_back(StrCat(op->Describe(), " reads a tensor the CPU computes "
                                     "after the DSP"));
        continue;
      }
      host_ops_.push_back(op);
      for (int k = 0; k < op->OutputSize(); ++k) host_side.insert(op->Output(k));
      continue;
    }
    if (op->kernel_dtype() != DT_UINT8) {
      unsupported.push_back(StrCat(op->Describe(), " (", DataTypeName(op->kernel_dtype()), ")"));
      continue;
    }
    MaceStatus status;
    if (type == "Conv2D") {
      status = translator.Conv(op, dsp::kConv2D);
    } else if (type == "DepthwiseConv2d") {
      status = translator.Conv(op, dsp::kDepthwiseConv2D);
    } else if (type == "Pooling") {
      status = translator.Pooling(op);
    } else if (type == "Eltwise") {
      status = translator.Eltwise(op);
    } else if (type == "Concat") {
      status = translator.Concat(op);
    } else if (type == "FullyConnected") {
      status = translator.FullyConnected(op);
    } else if (type == "ResizeBilinear") {
      status = translator.ResizeBilinear(op);
    } else if (type == "Softmax") {
      status = translator.Softmax(op);
    } else if (type == "Reshape" || type == "Squeeze" || type == "Identity") {
      status = translator.Alias(op);
    } else {
      unsupported.push_back(op->Describe());
      continue;
    }
    if (!status.ok()) unsupported.push_back(status.information());
  }
  if (!unsupported.empty()) {
    std::string list;
    for (const std::string& item : unsupported) list += (list.empty() ? "" : "; ") + item;
    return MaceStatus(MaceStatus::MACE_UNSUPPORTED,
                      StrCat("the Hexagon DSP cannot run: ", list));
  }
  // uint8 outputs the app reads directly.
  for (const Tensor* t : app_outputs) {
    if (t->dtype() != DT_UINT8) continue;
    Binding binding;
    binding.host = const_cast<Tensor*>(t);
    binding.bytes = t->size();
    outputs_.push_back(binding);
    dsp_outputs.push_back(translator.Activation(t));
  }
  MACE_CHECK_ARG(!dsp_inputs.empty() && !dsp_outputs.empty(),
                 "the Hexagon DSP runs uint8 models with Quantize inputs and outputs");
  builder.SetInputs(dsp_inputs);
  builder.SetOutputs(dsp_outputs);
  SerializedGraph graph;
  MACE_RETURN_IF_ERROR(builder.Serialize(&graph));
  control_.Config(config_);
  MACE_RETURN_IF_ERROR(control_.Init());
  MACE_RETURN_IF_ERROR(control_.SetupGraph(graph));
  input_bytes_.resize(inputs_.size());
  for (size_t i = 0; i < inputs_.size(); ++i) input_bytes_[i].resize(inputs_[i].bytes);
  return MaceStatus();
}

MaceStatus HexagonExecutor::Run(RunMetadata* /*run_metadata*/) {
  std::vector<DspBuffer> buffers;
  for (size_t i = 0; i < inputs_.size(); ++i) {
    const Binding& in = inputs_[i];
    if (!in.convert) {
      buffers.push_back({in.host->raw_data(), in.bytes});
      continue;
    }
    std::vector<uint8_t>& bytes = input_bytes_[i];
    const float* values = in.host->data<float>();
    for (size_t j = 0; j < bytes.size(); ++j) {
      bytes[j] = ops::QuantizeValue(values[j], in.scale, in.zero_point);
    }
    buffers.push_back({bytes.data(), bytes.size()});
  }
  MACE_RETURN_IF_ERROR(control_.ExecuteGraph(buffers, &output_bytes_));
  for (size_t i = 0; i < outputs_.size(); ++i) {
    const Binding& out = outputs_[i];
    const std::vector<uint8_t>& bytes = output_bytes_[i];
    if (out.convert) {
      float* values = out.host->mutable_data<float>();
      for (size_t j = 0; j < bytes.size(); ++j) {
        values[j] = ops::DequantizeValue(bytes[j], out.scale, out.zero_point);
      }
    } else {
      std::copy(bytes.begin(), bytes.end(), out.host->mutable_data<uint8_t>());
    }
  }
  for (Operation* op : host_ops_) {
    OpContext context;
    context.runtime = op->runtime();
    MACE_RETURN_IF_ERROR(op->Run(&context));
  }
  return MaceStatus();
}

}  // namespace hexagon
}  // namespace mace
