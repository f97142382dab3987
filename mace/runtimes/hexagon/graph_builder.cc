#include "mace/runtimes/hexagon/graph_builder.h"

#include <cstring>

#include "mace/utils/status.h"

namespace mace {
namespace hexagon {
namespace {

size_t ElementBytes(dsp::DataType type) { return type == dsp::kInt32 ? 4 : 1; }

uint32_t FloatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return bits;
}

size_t RoundUp(size_t value, size_t to) { return (value + to - 1) / to * to; }

}  // namespace

uint32_t DspGraphBuilder::AddTensor(dsp::DataType type, const std::vector<int64_t>& dims,
                                    float scale, int32_t zero_point) {
  Tensor tensor;
  std::memset(&tensor.record, 0, sizeof(tensor.record));
  tensor.record.data_type = type;
  tensor.record.zero_point = zero_point;
  tensor.record.scale_bits = FloatBits(scale);
  if (dims.size() > 4 && error_.ok()) {
    error_ = MaceStatus(MaceStatus::MACE_INVALID_ARGS,
                        StrCat("DSP graph: tensor ", tensors_.size(), " has ", dims.size(),
                               " dims; the DSP takes at most 4"));
  }
  for (size_t d = 0; d < 4; ++d) {
    const int64_t dim = d < dims.size() ? dims[d] : 1;
    if ((dim < 1 || dim > 0x7fffffff) && error_.ok()) {
      error_ = MaceStatus(MaceStatus::MACE_INVALID_ARGS,
                          StrCat("DSP graph: tensor ", tensors_.size(), " has dim ", dim));
    }
    tensor.record.dims[d] = static_cast<uint32_t>(dim);
  }
  tensors_.push_back(std::move(tensor));
  return static_cast<uint32_t>(tensors_.size() - 1);
}

uint32_t DspGraphBuilder::AddConstant(dsp::DataType type, const std::vector<int64_t>& dims,
                                      float scale, int32_t zero_point, const void* data,
                                      size_t bytes) {
  const uint32_t id = AddTensor(type, dims, scale, zero_point);
  Tensor& tensor = tensors_[id];
  tensor.record.flags = dsp::kConstant;
  size_t expected = ElementBytes(type);
  for (uint32_t d : tensor.record.dims) expected *= d;
  if (expected != bytes && error_.ok()) {
    error_ = MaceStatus(MaceStatus::MACE_INVALID_ARGS,
                        StrCat("DSP graph: constant ", id, " has ", bytes, " bytes, its dims need ",
                               expected));
  }
  const uint8_t* begin = static_cast<const uint8_t*>(data);
  tensor.data.assign(begin, begin + bytes);
  return id;
}

void DspGraphBuilder::AddOp(dsp::OpType type, const std::vector<uint32_t>& inputs,
                            const std::vector<uint32_t>& outputs,
                            const std::vector<int32_t>& params) {
  op_words_.push_back(type);
  op_words_.push_back(static_cast<uint32_t>(inputs.size()));
  op_words_.push_back(static_cast<uint32_t>(outputs.size()));
  op_words_.push_back(static_cast<uint32_t>(params.size()));
  op_words_.insert(op_words_.end(), inputs.begin(), inputs.end());
  op_words_.insert(op_words_.end(), outputs.begin(), outputs.end());
  for (int32_t p : params) op_words_.push_back(static_cast<uint32_t>(p));
  ++num_ops_;
}

MaceStatus DspGraphBuilder::Serialize(SerializedGraph* graph) const {
  MACE_RETURN_IF_ERROR(error_);
  graph->input_bytes.clear();
  graph->output_bytes.clear();
  graph->num_ops = num_ops_;
  auto tensor_bytes = [&](uint32_t id) {
    size_t bytes = ElementBytes(static_cast<dsp::DataType>(tensors_[id].record.data_type));
    for (uint32_t d : tensors_[id].record.dims) bytes *= d;
    return bytes;
  };
  for (uint32_t id : inputs_) {
    MACE_CHECK_ARG(id < tensors_.size(), "DSP graph: input tensor ", id, " does not exist");
    graph->input_bytes.push_back(tensor_bytes(id));
  }
  for (uint32_t id : outputs_) {
    MACE_CHECK_ARG(id < tensors_.size(), "DSP graph: output tensor ", id, " does not exist");
    graph->output_bytes.push_back(tensor_bytes(id));
  }
  // Constants, each aligned.
  std::vector<dsp::TensorRecord> records;
  size_t const_bytes = 0;
  for (const Tensor& tensor : tensors_) {
    dsp::TensorRecord record = tensor.record;
    if (record.flags & dsp::kConstant) {
      record.const_offset = static_cast<uint32_t>(const_bytes);
      const_bytes = RoundUp(const_bytes + tensor.data.size(), dsp::kConstAlignment);
    }
    records.push_back(record);
  }
  dsp::GraphHeader header;
  header.magic = dsp::kGraphMagic;
  header.version = dsp::kGraphVersion;
  header.num_tensors = static_cast<uint32_t>(tensors_.size());
  header.num_ops = num_ops_;
  header.num_inputs = static_cast<uint32_t>(inputs_.size());
  header.num_outputs = static_cast<uint32_t>(outputs_.size());
  header.num_op_words = static_cast<uint32_t>(op_words_.size());
  header.const_bytes = static_cast<uint32_t>(const_bytes);
  const size_t fixed = sizeof(header) + records.size() * sizeof(dsp::TensorRecord) +
                       4 * (inputs_.size() + outputs_.size() + op_words_.size());
  const size_t const_start = RoundUp(fixed, dsp::kConstAlignment);
  MACE_CHECK_ARG(const_start + const_bytes <= dsp::kMaxPayloadBytes, "DSP graph: ",
                 const_start + const_bytes, " bytes is more than one request carries");
  std::vector<uint8_t>& blob = graph->blob;
  blob.assign(const_start + const_bytes, 0);
  uint8_t* cursor = blob.data();
  auto put = [&cursor](const void* data, size_t size) {
    if (size > 0) std::memcpy(cursor, data, size);
    cursor += size;
  };
  put(&header, sizeof(header));
  put(records.data(), records.size() * sizeof(dsp::TensorRecord));
  put(inputs_.data(), inputs_.size() * 4);
  put(outputs_.data(), outputs_.size() * 4);
  put(op_words_.data(), op_words_.size() * 4);
  for (size_t i = 0; i < tensors_.size(); ++i) {
    if (records[i].flags & dsp::kConstant && !tensors_[i].data.empty()) {
      std::memcpy(blob.data() + const_start + records[i].const_offset, tensors_[i].data.data(),
                  tensors_[i].data.size());
    }
  }
  return MaceStatus::MACE_SUCCESS;
}

std::vector<int32_t> ConvParams(int64_t stride_h, int64_t stride_w, int64_t dilation_h,
                                int64_t dilation_w, int64_t pad_top, int64_t pad_left,
                                const ops::ref::quantized::ConvQuantization& quant) {
  std::vector<int32_t> params(dsp::kConvParamCount);
  params[dsp::kStrideH] = static_cast<int32_t>(stride_h);
  params[dsp::kStrideW] = static_cast<int32_t>(stride_w);
  params[dsp::kDilationH] = static_cast<int32_t>(dilation_h);
  params[dsp::kDilationW] = static_cast<int32_t>(dilation_w);
  params[dsp::kPadTop] = static_cast<int32_t>(pad_top);
  params[dsp::kPadLeft] = static_cast<int32_t>(pad_left);
  params[dsp::kInputZeroPoint] = quant.input_zero_point;
  params[dsp::kFilterZeroPoint] = quant.filter_zero_point;
  params[dsp::kOutputZeroPoint] = quant.output.zero_point;
  params[dsp::kOutputMin] = quant.output.min;
  params[dsp::kOutputMax] = quant.output.max;
  params[dsp::kNumMultipliers] = static_cast<int32_t>(quant.multipliers.size());
  for (const ops::QuantizedMultiplier& m : quant.multipliers) {
    params.push_back(m.multiplier);
    params.push_back(m.right_shift);
  }
  return params;
}

std::vector<int32_t> PoolingParams(const ops::ref::PoolingParams& p, int32_t zero_point) {
  std::vector<int32_t> params(dsp::kPoolParamCount);
  params[dsp::kPoolType] = static_cast<int32_t>(p.type);
  params[dsp::kPoolKernelH] = static_cast<int32_t>(p.kernel_h);
  params[dsp::kPoolKernelW] = static_cast<int32_t>(p.kernel_w);
  params[dsp::kPoolStrideH] = static_cast<int32_t>(p.stride_h);
  params[dsp::kPoolStrideW] = static_cast<int32_t>(p.stride_w);
  params[dsp::kPoolDilationH] = static_cast<int32_t>(p.dilation_h);
  params[dsp::kPoolDilationW] = static_cast<int32_t>(p.dilation_w);
  params[dsp::kPoolPadTop] = static_cast<int32_t>(p.pad_top);
  params[dsp::kPoolPadLeft] = static_cast<int32_t>(p.pad_left);
  params[dsp::kPoolPadBottom] = static_cast<int32_t>(p.pad_bottom);
  params[dsp::kPoolPadRight] = static_cast<int32_t>(p.pad_right);
  params[dsp::kPoolCountIncludePad] = p.count_include_pad ? 1 : 0;
  params[dsp::kPoolZeroPoint] = zero_point;
  return params;
}

std::vector<int32_t> EltwiseParams(const ops::ref::quantized::EltwiseQuantization& q) {
  std::vector<int32_t> params(dsp::kEltwiseParamCount);
  params[dsp::kEltwiseKind] = static_cast<int32_t>(q.kind);
  params[dsp::kEltwiseZeroPoint0] = q.zero_point0;
  params[dsp::kEltwiseZeroPoint1] = q.zero_point1;
  params[dsp::kEltwiseMultiplier0] = q.multiplier0.multiplier;
  params[dsp::kEltwiseShift0] = q.multiplier0.right_shift;
  params[dsp::kEltwiseMultiplier1] = q.multiplier1.multiplier;
  params[dsp::kEltwiseShift1] = q.multiplier1.right_shift;
  params[dsp::kEltwiseOutputMultiplier] = q.output_multiplier.multiplier;
  params[dsp::kEltwiseOutputShift] = q.output_multiplier.right_shift;
  params[dsp::kEltwiseOutputZeroPoint] = q.output.zero_point;
  params[dsp::kEltwiseOutputMin] = q.output.min;
  params[dsp::kEltwiseOutputMax] = q.output.max;
  return params;
}

std::vector<int32_t> ResizeBilinearTaps(const ops::ref::ResizeBilinearParams& p) {
  std::vector<int32_t> taps;
  auto add = [&taps](const ops::ref::quantized::FixedTaps& t) {
    taps.push_back(static_cast<int32_t>(t.low));
    taps.push_back(static_cast<int32_t>(t.high));
    taps.push_back(static_cast<int32_t>(t.frac));
  };
  for (int64_t y = 0; y < p.out_h; ++y) {
    add(ops::ref::quantized::ResizeTaps(p.mode, y, p.in_h, p.out_h, p.scale_h));
  }
  for (int64_t x = 0; x < p.out_w; ++x) {
    add(ops::ref::quantized::ResizeTaps(p.mode, x, p.in_w, p.out_w, p.scale_w));
  }
  return taps;
}

}  // namespace hexagon
}  // namespace mace
