// Kernels whose float parts the host turns into integer tables (sent as
// constants): Softmax's exp table and ResizeBilinear's taps. The rest is
// integer arithmetic, as in ref::quantized.
#include "mace/dsp/hvx.h"
#include "mace/ops/hexagon/kernels.h"
#include "mace/dsp/sys.h"

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

// ResizeBilinear on HVX. The reference's sum
//   (in[y0][x0] (1 - fx) + in[y0][x1] fx) (1 - fy) + (in[y1][x0] (1 - fx) + in[y1][x1] fx) fy
// (fractions in 1/2048) is the same integer blended rows first: per
// output row, v[c] = in[y0][c] (2048 - fy) + in[y1][c] fy (below 2^19) for
// every input column, 128 columns a step; then per 32 output columns the
// two taps' words are gathered (vgather) from v and blended by
// v[x0] (2048 - fx) + v[x1] fx (below 2^30), rounded and shifted by 22.
//
// Scratch: v (input columns rounded to 128, as words), two gather
// vectors, and per 32 output columns the vectors of x0 and x1 byte
// offsets, 2048 - fx and fx.
uint32_t ResizeColumnGroups(const OpArgs& op) { return (op.outputs[0]->dims[3] + 31) / 32; }

uint32_t ResizeScratchBytes(const OpArgs& op) {
  const uint64_t words = (uint64_t{op.inputs[0]->dims[3]} + 127) / 128 * 128 * 4;
  const uint64_t bytes = words + 2 * 128 + uint64_t{ResizeColumnGroups(op)} * 4 * 128;
  return bytes > (1u << 30) ? 0xffffffffu : static_cast<uint32_t>(bytes);
}

// The bytes [0, n) of `row` (n <= 128) as a vector; the rest 0.
HvxVector LoadRowBytes(const uint8_t* row, uint32_t n, HvxVector* spill) {
  if (n == 128) return *reinterpret_cast<const UnalignedHvxVector*>(row);
  *spill = Splat(0);
  memcpy(spill, row, n);
  return *spill;
}

__attribute__((noinline)) void RunHvxResizeBilinear(const OpArgs& op, uint8_t* scratch) {
  const DspTensor& input = *op.inputs[0];
  const DspTensor& output = *op.outputs[0];
  const int32_t* taps = reinterpret_cast<const int32_t*>(op.inputs[1]->data);
  const uint32_t in_h = input.dims[2], in_w = input.dims[3];
  const uint32_t out_h = output.dims[2], out_w = output.dims[3];
  const uint32_t groups = ResizeColumnGroups(op);
  HvxVector* blended = reinterpret_cast<HvxVector*>(scratch);
  const uint32_t blended_vectors = (in_w + 127) / 128 * 4;
  HvxVector* gathered = blended + blended_vectors;
  HvxVector* columns = gathered + 2;  // [group][x0 offset, x1 offset, 2048 - fx, fx]
  const int32_t* column_taps = taps + 3 * out_h;
  for (uint32_t g = 0; g < groups; ++g) {
    int32_t* lanes = reinterpret_cast<int32_t*>(columns + 4 * g);
    for (uint32_t i = 0; i < 32; ++i) {
      const uint32_t ox = g * 32 + i;
      const int32_t* x = column_taps + 3 * (ox < out_w ? ox : out_w - 1);
      lanes[i] = 4 * x[0];
      lanes[32 + i] = 4 * x[1];
      lanes[64 + i] = kResizeOne - x[2];
      lanes[96 + i] = x[2];
    }
  }
  const uint32_t region = 4 * in_w - 1;  // the gathers' bytes
  for (uint32_t plane = 0; plane < input.dims[0] * input.dims[1]; ++plane) {
    const uint8_t* in = input.data + plane * in_h * in_w;
    uint8_t* out = output.data + plane * out_h * out_w;
    for (uint32_t oy = 0; oy < out_h; ++oy) {
      const int32_t* y = taps + 3 * oy;
      const int32_t low_weight = (kResizeOne - y[2]) * 0x10001, high_weight = y[2] * 0x10001;
      const uint8_t* low_row = in + y[0] * in_w;
      const uint8_t* high_row = in + y[1] * in_w;
      for (uint32_t c = 0; c < in_w; c += 128) {
        const uint32_t n = in_w - c < 128 ? in_w - c : 128;
        HvxVector low[4], high[4];
        const HvxPair low_halves = Q6_Wuh_vunpack_Vub(LoadRowBytes(low_row + c, n, gathered));
        const HvxPair high_halves = Q6_Wuh_vunpack_Vub(LoadRowBytes(high_row + c, n, gathered));
        const HvxPair l0 = Q6_Wuw_vunpack_Vuh(Q6_V_lo_W(low_halves));
        const HvxPair l1 = Q6_Wuw_vunpack_Vuh(Q6_V_hi_W(low_halves));
        const HvxPair h0 = Q6_Wuw_vunpack_Vuh(Q6_V_lo_W(high_halves));
        const HvxPair h1 = Q6_Wuw_vunpack_Vuh(Q6_V_hi_W(high_halves));
        low[0] = Q6_V_lo_W(l0), low[1] = Q6_V_hi_W(l0), low[2] = Q6_V_lo_W(l1), low[3] = Q6_V_hi_W(l1);
        high[0] = Q6_V_lo_W(h0), high[1] = Q6_V_hi_W(h0), high[2] = Q6_V_lo_W(h1);
        high[3] = Q6_V_hi_W(h1);
        for (uint32_t j = 0; j < 4; ++j) {
          blended[c / 32 + j] = Q6_Vw_vadd_VwVw(Q6_Vw_vmpyi_VwRh(low[j], low_weight),
                                                Q6_Vw_vmpyi_VwRh(high[j], high_weight));
        }
      }
      uint8_t* row = out + oy * out_w;
      const HvxVector half = Splat(1 << 21);
      for (uint32_t g = 0; g < groups; ++g) {
        const HvxVector* col = columns + 4 * g;
        Q6_vgather_ARMVw(gathered, reinterpret_cast<uint32_t>(blended), region, col[0]);
        Q6_vgather_ARMVw(gathered + 1, reinterpret_cast<uint32_t>(blended), region, col[1]);
        const HvxVector sum = Q6_Vw_vadd_VwVw(Q6_Vw_vmpyie_VwVuh(gathered[0], col[2]),
                                              Q6_Vw_vmpyie_VwVuh(gathered[1], col[3]));
        const HvxVector result = Q6_Vuw_vlsr_VuwR(Q6_Vw_vadd_VwVw(sum, half), 22);
        const uint32_t n = out_w - 32 * g < 32 ? out_w - 32 * g : 32;
        StoreBytes(row + 32 * g, PackWordsToBytes(result, result, result, result), n);
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

uint32_t TableOpScratchBytes(const OpArgs& op) {
  return op.type == kResizeBilinear ? ResizeScratchBytes(op) : 0;
}

void RunTableOp(const OpArgs& op, uint8_t* scratch) {
  if (op.type == kSoftmax) {
    RunSoftmax(op);
  } else {
    RunHvxResizeBilinear(op, scratch);
  }
}

}  // namespace dsp
}  // namespace mace
