// The DSP's uint8 kernels. Each op type has a Check, run once at graph set
// up (arguments, shapes, params; an error text on failure), and a Run that
// only computes. Results are bit-identical to the host's reference kernels
// in mace/ops/ref/quantized.
#ifndef MACE_OPS_HEXAGON_KERNELS_H_
#define MACE_OPS_HEXAGON_KERNELS_H_

#include <stdint.h>

#include "mace/dsp/graph_format.h"
#include "mace/dsp/text.h"

namespace mace {
namespace dsp {

struct DspTensor {
  uint32_t data_type = kUint8;
  uint32_t dims[4] = {1, 1, 1, 1};
  int32_t zero_point = 0;
  uint32_t scale_bits = 0;
  bool constant = false;
  uint8_t* data = nullptr;
  uint32_t bytes = 0;
  int32_t first_use = 0, last_use = 0;  // op indices, for the memory plan
  uint32_t arena_offset = 0;
};

struct OpArgs {
  uint32_t type;
  uint32_t num_inputs, num_outputs, num_params;
  const DspTensor* const* inputs;  // null entries for kNoTensor
  DspTensor* const* outputs;
  const int32_t* params;
  // PreparedBytes(op) bytes, 128-byte aligned, filled by PrepareOp at set
  // up from the op's constants; null when it needs none.
  uint8_t* prepared = nullptr;
};

// (x * M) for the (multiplier, right shift) pair, one rounding, half away
// from zero: common/quantize.h's Requantize.
inline int64_t Requantize(int32_t x, int32_t multiplier, int32_t right_shift) {
  const uint64_t magnitude =
      x < 0 ? uint64_t{0} - static_cast<uint64_t>(static_cast<int64_t>(x)) : static_cast<uint64_t>(x);
  const uint64_t product = magnitude * static_cast<uint32_t>(multiplier);
  const int64_t rounded =
      static_cast<int64_t>((product + (uint64_t{1} << (right_shift - 1))) >> right_shift);
  return x < 0 ? -rounded : rounded;
}

inline uint8_t ClampToUint8(int64_t value, int32_t min, int32_t max) {
  if (value < min) value = min;
  if (value > max) value = max;
  return static_cast<uint8_t>(value);
}

inline int32_t SaturateToInt32(int64_t value) {
  if (value > 0x7fffffffll) return 0x7fffffff;
  if (value < -0x80000000ll) return -0x7fffffff - 1;
  return static_cast<int32_t>(value);
}

bool CheckOp(const OpArgs& op, Text* error);
// Scratch: at least ScratchBytes(op) bytes, 128-byte aligned.
uint32_t ScratchBytes(const OpArgs& op);
// What an op computes once from its constants at graph set-up.
uint32_t PreparedBytes(const OpArgs& op);
void PrepareOp(const OpArgs& op);
void RunOp(const OpArgs& op, uint8_t* scratch);
const char* OpName(uint32_t type);

// Per kernel family.
bool CheckConv(const OpArgs& op, Text* error);
uint32_t ConvScratchBytes(const OpArgs& op);
uint32_t ConvPreparedBytes(const OpArgs& op);
void PrepareConv(const OpArgs& op);
void RunConv(const OpArgs& op, uint8_t* scratch);
bool CheckPooling(const OpArgs& op, Text* error);
uint32_t PoolingScratchBytes(const OpArgs& op);
void RunPooling(const OpArgs& op, uint8_t* scratch);
bool CheckElementwise(const OpArgs& op, Text* error);
void RunElementwise(const OpArgs& op);
bool CheckTableOp(const OpArgs& op, Text* error);  // Softmax, ResizeBilinear
uint32_t TableOpScratchBytes(const OpArgs& op);
void RunTableOp(const OpArgs& op, uint8_t* scratch);

}  // namespace dsp
}  // namespace mace

#endif  // MACE_OPS_HEXAGON_KERNELS_H_
