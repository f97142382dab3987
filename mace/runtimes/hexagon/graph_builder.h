// Builds the serialized quantized graph (mace/dsp/graph_format.h) that
// HexagonControl::SetupGraph sends to the DSP, and the op params from the
// same quantization structures the CPU reference kernels take, so that
// both sides compute the same thing.
#ifndef MACE_RUNTIMES_HEXAGON_GRAPH_BUILDER_H_
#define MACE_RUNTIMES_HEXAGON_GRAPH_BUILDER_H_

#include <cstdint>
#include <vector>

#include "mace/dsp/graph_format.h"
#include "mace/dsp/protocol.h"
#include "mace/ops/ref/pooling.h"
#include "mace/ops/ref/quantized/conv_2d.h"
#include "mace/ops/ref/quantized/eltwise.h"
#include "mace/ops/ref/quantized/resize_bilinear.h"
#include "mace/public/mace.h"

namespace mace {
namespace hexagon {

struct SerializedGraph {
  std::vector<uint8_t> blob;
  std::vector<size_t> input_bytes, output_bytes;  // per graph input / output
  uint32_t num_ops = 0;
};

class DspGraphBuilder {
 public:
  // An activation; dims are NCHW, up to 4 (missing trailing dims are 1).
  uint32_t AddTensor(dsp::DataType type, const std::vector<int64_t>& dims, float scale,
                     int32_t zero_point);
  // A constant with `bytes` of data, which must match the dims.
  uint32_t AddConstant(dsp::DataType type, const std::vector<int64_t>& dims, float scale,
                       int32_t zero_point, const void* data, size_t bytes);
  void AddOp(dsp::OpType type, const std::vector<uint32_t>& inputs,
             const std::vector<uint32_t>& outputs, const std::vector<int32_t>& params);
  void SetInputs(const std::vector<uint32_t>& ids) { inputs_ = ids; }
  void SetOutputs(const std::vector<uint32_t>& ids) { outputs_ = ids; }

  // Fails (naming the problem) for bad dims, sizes or ids.
  MaceStatus Serialize(SerializedGraph* graph) const;

 private:
  struct Tensor {
    dsp::TensorRecord record;
    std::vector<uint8_t> data;  // constants
  };
  std::vector<Tensor> tensors_;
  std::vector<uint32_t> op_words_;
  uint32_t num_ops_ = 0;
  std::vector<uint32_t> inputs_, outputs_;
  MaceStatus error_;  // the first error from an Add call
};

// Params of kConv2D / kDepthwiseConv2D / kFullyConnected.
std::vector<int32_t> ConvParams(int64_t stride_h, int64_t stride_w, int64_t dilation_h,
                                int64_t dilation_w, int64_t pad_top, int64_t pad_left,
                                const ops::ref::quantized::ConvQuantization& quant);
// Params of kPooling (the output keeps the input's zero point).
std::vector<int32_t> PoolingParams(const ops::ref::PoolingParams& params, int32_t zero_point);
std::vector<int32_t> EltwiseParams(const ops::ref::quantized::EltwiseQuantization& quant);
// The taps constant of kResizeBilinear: (low, high, fraction) per output
// row, then per output column, as the uint8 reference computes them.
std::vector<int32_t> ResizeBilinearTaps(const ops::ref::ResizeBilinearParams& params);

}  // namespace hexagon
}  // namespace mace

#endif  // MACE_RUNTIMES_HEXAGON_GRAPH_BUILDER_H_
