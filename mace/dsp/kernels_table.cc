// Kernels whose float parts the host turns into integer tables (sent as
// constants): Softmax's exp table and ResizeBilinear's taps. The rest is
// integer arithmetic, as in ref::quantized.
#include "mace/dsp/kernels.h"

namespace mace {
namespace dsp {
namespace {

constexpr int32_t kResizeOne = 1 << 11;

uint32_t Count(const DspTensor& t) { return t.dims[0] * t.dims[1] * t.dims[2] * t.dims[3]; }

bool Fail(Text* error, const char* what) {
  *error << what;
  return false;
}

__attribute__((noinline)) void RunSoftmax(const OpArgs& op) {
  const uint32_t outer = op.params[0], axis = op.params[1], inner = op.params[2];
  const uint8_t* input = op.inputs[0]->data;
  const uint32_t* table = reinterpret_cast<const uint32_t*>(op.inputs[1]->data);
  uint8_t* output = op.outputs[0]->data;
  for (uint32_t o = 0; o < outer; ++o) {
    for (uint32_t i = 0; i < inner; ++i) {
      const uint32_t base = o * axis * inner + i;
      uint8_t max = 0;
      for (uint32_t a = 0; a < axis; ++a) {
        if (input[base + a * inner] > max) max = input[base + a * inner];
      }
      uint64_t sum = 0;
      for (uint32_t a = 0; a < axis; ++a) sum += table[max - input[base + a * inner]];
      for (uint32_t a = 0; a < axis; ++a) {
        const uint64_t term = table[max - input[base + a * inner]];
        const uint64_t value = (term * 512 + sum) / (2 * sum);
        output[base + a * inner] = static_cast<uint8_t>(value > 255 ? 255 : value);
      }
    }
  }
}

__attribute__((noinline)) void RunResizeBilinear(const OpArgs& op) {
  const DspTensor& input = *op.inputs[0];
  const DspTensor& output = *op.outputs[0];
  const int32_t* taps = reinterpret_cast<const int32_t*>(op.inputs[1]->data);
  const uint32_t in_h = input.dims[2], in_w = input.dims[3];
  const uint32_t out_h = output.dims[2], out_w = output.dims[3];
  const int32_t* column_taps = taps + 3 * out_h;
  for (uint32_t plane = 0; plane < input.dims[0] * input.dims[1]; ++plane) {
    const uint8_t* in = input.data + plane * in_h * in_w;
    uint8_t* out = output.data + plane * out_h * out_w;
    for (uint32_t oy = 0; oy < out_h; ++oy) {
      const int32_t* y = taps + 3 * oy;
      const uint8_t* low_row = in + y[0] * in_w;
      const uint8_t* high_row = in + y[1] * in_w;
      for (uint32_t ox = 0; ox < out_w; ++ox) {
        const int32_t* x = column_taps + 3 * ox;
        // At most 255 * 2^22: fits in uint32 with the rounding half.
        const uint32_t top = low_row[x[0]] * (kResizeOne - x[2]) + low_row[x[1]] * x[2];
        const uint32_t bottom = high_row[x[0]] * (kResizeOne - x[2]) + high_row[x[1]] * x[2];
        const uint32_t sum = top * (kResizeOne - y[2]) + bottom * y[2];
        out[oy * out_w + ox] = static_cast<uint8_t>((sum + (1u << 21)) >> 22);
      }
    }
  }
}

bool CheckSoftmax(const OpArgs& op, Text* error) {
  if (op.num_inputs != 2 || op.num_outputs != 1 || op.num_params != 3)
    return Fail(error, "needs input, table, 1 output and (outer, axis, inner)");
  const DspTensor& table = *op.inputs[1];
  if (!table.constant || table.data_type != kInt32 || Count(table) != 256)
    return Fail(error, "the table must be a constant int32 [256]");
  const uint32_t* entries = reinterpret_cast<const uint32_t*>(table.data);
  for (uint32_t d = 0; d < 256; ++d) {
    // entries[0] = 2^24 keeps the sum positive; none may exceed it.
    if (entries[d] > (1u << 24) || (d == 0 && entries[d] != (1u << 24)))
      return Fail(error, "the table is not an exp table");
  }
  const int32_t* p = op.params;
  if (p[0] < 1 || p[1] < 1 || p[2] < 1) return Fail(error, "bad softmax extents");
  const uint64_t total = uint64_t{static_cast<uint32_t>(p[0])} * p[1] * p[2];
  if (total != Count(*op.inputs[0]) || total != Count(*op.outputs[0]))
    return Fail(error, "outer * axis * inner differs from the tensor sizes");
  if (op.inputs[0]->data_type != kUint8 || op.outputs[0]->data_type != kUint8)
    return Fail(error, "needs uint8 input and output");
  return true;
}

bool CheckResizeBilinear(const OpArgs& op, Text* error) {
  if (op.num_inputs != 2 || op.num_outputs != 1 || op.num_params != 0)
    return Fail(error, "needs input, taps and 1 output");
  const DspTensor& input = *op.inputs[0];
  const DspTensor& output = *op.outputs[0];
  const DspTensor& taps = *op.inputs[1];
  if (input.data_type != kUint8 || output.data_type != kUint8)
    return Fail(error, "needs uint8 input and output");
  if (input.dims[0] != output.dims[0] || input.dims[1] != output.dims[1])
    return Fail(error, "resizing keeps N and C");
  const uint32_t rows = output.dims[2], columns = output.dims[3];
  if (!taps.constant || taps.data_type != kInt32 || Count(taps) != 3 * (rows + columns))
    return Fail(error, "the taps must be a constant int32 [out_h + out_w, 3]");
  const int32_t* t = reinterpret_cast<const int32_t*>(taps.data);
  for (uint32_t i = 0; i < rows + columns; ++i) {
    const int32_t limit = static_cast<int32_t>(i < rows ? input.dims[2] : input.dims[3]);
    const int32_t* tap = t + 3 * i;
    if (tap[0] < 0 || tap[0] >= limit || tap[1] < 0 || tap[1] >= limit || tap[2] < 0 ||
        tap[2] > kResizeOne)
      return Fail(error, "a tap lies outside the input");
  }
  return true;
}

}  // namespace

bool CheckTableOp(const OpArgs& op, Text* error) {
  if (!op.inputs[0] || !op.inputs[1]) return Fail(error, "missing input");
  return op.type == kSoftmax ? CheckSoftmax(op, error) : CheckResizeBilinear(op, error);
}

void RunTableOp(const OpArgs& op) {
  if (op.type == kSoftmax) {
    RunSoftmax(op);
  } else {
    RunResizeBilinear(op);
  }
}

}  // namespace dsp
}  // namespace mace
