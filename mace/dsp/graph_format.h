// The serialized quantized graph the host sends with kSetupGraph, shared by
// the host's builder (mace/runtimes/hexagon/graph_builder.h) and the DSP's
// executor. All fields are 32-bit words:
//
//   GraphHeader
//   TensorRecord[num_tensors]
//   uint32 input tensor ids[num_inputs], output tensor ids[num_outputs]
//   ops, num_op_words words: per op {type, num_inputs, num_outputs,
//        num_params, input ids, output ids, int32 params}
//   zero padding to a multiple of 128 bytes
//   constant data (const_bytes), each tensor at its const_offset, 128-byte
//        aligned
//
// Quantization is resolved on the host: ops carry integer zero points and
// (multiplier, right shift) pairs of common/quantize.h, so the DSP needs no
// float arithmetic. Activations are NCHW.
#ifndef MACE_DSP_GRAPH_FORMAT_H_
#define MACE_DSP_GRAPH_FORMAT_H_

#include <stdint.h>

namespace mace {
namespace dsp {

constexpr uint32_t kGraphMagic = 0x4753444du;  // "MDSG"
constexpr uint32_t kGraphVersion = 1;
constexpr uint32_t kNoTensor = 0xffffffffu;  // an absent optional input (bias)
constexpr uint32_t kConstAlignment = 128;

struct GraphHeader {
  uint32_t magic;
  uint32_t version;
  uint32_t num_tensors;
  uint32_t num_ops;
  uint32_t num_inputs;
  uint32_t num_outputs;
  uint32_t num_op_words;
  uint32_t const_bytes;
};

// kInt8: symmetric convolution weights (zero point 0), usually with one
// multiplier per output channel.
enum DataType : uint32_t { kUint8 = 0, kInt32 = 1, kInt8 = 2 };

enum TensorFlags : uint32_t { kConstant = 1 };

struct TensorRecord {
  uint32_t data_type;
  uint32_t dims[4];      // NCHW; unused trailing dims are 1
  int32_t zero_point;
  uint32_t scale_bits;   // float bits, for printing only
  uint32_t flags;
  uint32_t const_offset;  // constants: offset in the constant data
};

// Op types (kConv2D, ...) with their wire numbers, inputs and params: ops.inc.
enum OpType : uint32_t {
#define MACE_DSP_OP(name, number, family, mace_type) k##name = number,
#define MACE_DSP_KERNEL_ONLY(name, number, family) k##name = number,
#include "mace/dsp/ops.inc"
};

enum ConvParam : uint32_t {
  kStrideH, kStrideW, kDilationH, kDilationW, kPadTop, kPadLeft,
  kInputZeroPoint, kFilterZeroPoint, kOutputZeroPoint, kOutputMin, kOutputMax,
  kNumMultipliers, kConvParamCount,
};

enum PoolParam : uint32_t {
  kPoolType,  // 1 average, 2 max (ref::PoolingType)
  kPoolKernelH, kPoolKernelW, kPoolStrideH, kPoolStrideW, kPoolDilationH, kPoolDilationW,
  kPoolPadTop, kPoolPadLeft, kPoolPadBottom, kPoolPadRight, kPoolCountIncludePad,
  kPoolZeroPoint, kPoolParamCount,
};

enum EltwiseParam : uint32_t {
  kEltwiseKind,  // 0 add, 1 subtract, 2 multiply (ref::quantized::EltwiseKind)
  kEltwiseZeroPoint0, kEltwiseZeroPoint1,
  kEltwiseMultiplier0, kEltwiseShift0, kEltwiseMultiplier1, kEltwiseShift1,
  kEltwiseOutputMultiplier, kEltwiseOutputShift,
  kEltwiseOutputZeroPoint, kEltwiseOutputMin, kEltwiseOutputMax, kEltwiseParamCount,
};

static_assert(sizeof(GraphHeader) == 32, "wire layout");
static_assert(sizeof(TensorRecord) == 36, "wire layout");

}  // namespace dsp
}  // namespace mace

#endif  // MACE_DSP_GRAPH_FORMAT_H_
