// Max and average pooling with ref::quantized::Pooling's rules: average is
// (sum + divisor / 2) / divisor, padded taps counted toward the divisor
// hold the zero point, an empty window gives the zero point.
//
// Max pooling with windows up to 8 wide, no dilation and strides up to 4
// runs on HVX when every window holds an input tap: each plane is copied
// into a scratch plane padded with 0 (which never beats a tap), and vmaxub
// over the byte shifts (valign) of the window's rows gives 128 stride-1
// outputs a step, from which a strided layer picks its columns.
#include "mace/dsp/hvx.h"
#include "mace/ops/hexagon/kernels.h"
#include "mace/dsp/sys.h"

namespace mace {
namespace dsp {
namespace {

struct PoolShape {
  uint32_t in_h, in_w, out_h, out_w;
  uint32_t columns, chunks, stride, rows;  // the padded plane, as depthwise's
  uint64_t plane_bytes;
};

PoolShape PoolShapeOf(const OpArgs& op) {
  const int32_t* p = op.params;
  PoolShape s;
  s.in_h = op.inputs[0]->dims[2], s.in_w = op.inputs[0]->dims[3];
  s.out_h = op.outputs[0]->dims[2], s.out_w = op.outputs[0]->dims[3];
  s.columns = (s.out_w - 1) * p[kPoolStrideW] + 1;
  s.chunks = (s.columns + 127) / 128;
  s.stride = 128 * (s.chunks + 1);
  s.rows = (s.out_h - 1) * p[kPoolStrideH] + p[kPoolKernelH];
  s.plane_bytes = uint64_t{s.rows} * s.stride;
  return s;
}

// Average pooling's per-window constants, per stride-1 column: the
// window's result is floor((sum + add) * m >> shift), where add is
// (divisor - valid taps) * zero point + divisor / 2 and (m, shift) divide
// exactly by the divisor: shift = 15 + ceil(log2 d), m = ceil(2^shift / d)
// (at most 2^16 - 1, or 2^15 for a power of two), exact for every
// numerator below 2^15 (Granlund and Montgomery). Numerators stay below
// 2^15 because a window has at most 128 taps.
constexpr uint32_t kMaxAvgTaps = 128;

struct AxisCounts {
  uint32_t valid, padded;  // taps inside the input, inside the padded input
};

AxisCounts CountTaps(int32_t start, int32_t kernel, int32_t length, int32_t pad_before,
                     int32_t pad_after) {
  AxisCounts c = {0, 0};
  for (int32_t k = 0; k < kernel; ++k) {
    const int32_t i = start + k;
    c.valid += i >= 0 && i < length;
    c.padded += i >= -pad_before && i < length + pad_after;
  }
  return c;
}

// Words per row class in the table: per 128-column step, add, m and shift
// for 4 x 32 lanes.
uint32_t ClassTableBytes(uint32_t chunks) { return chunks * 3 * 4 * 128; }

bool UsesHvxPool(const OpArgs& op) {
  const int32_t* p = op.params;
  if (p[kPoolKernelW] > 8 || p[kPoolKernelH] > 64 || p[kPoolDilationH] != 1 ||
      p[kPoolDilationW] != 1 || p[kPoolStrideH] > 4 || p[kPoolStrideW] > 4)
    return false;
  if (p[kPoolType] == 1 && p[kPoolKernelH] * p[kPoolKernelW] > static_cast<int32_t>(kMaxAvgTaps))
    return false;
  const PoolShape s = PoolShapeOf(op);
  if (s.out_h == 0 || s.out_w == 0 || s.plane_bytes > (1u << 30)) return false;
  if (p[kPoolType] == 1 && uint64_t{s.out_h} * ClassTableBytes(s.chunks) > (1u << 30)) return false;
  // The first and last windows of each axis reach the input.
  return p[kPoolPadTop] < p[kPoolKernelH] && p[kPoolPadLeft] < p[kPoolKernelW] &&
         static_cast<int64_t>(s.out_h - 1) * p[kPoolStrideH] - p[kPoolPadTop] <
             static_cast<int64_t>(s.in_h) &&
         static_cast<int64_t>(s.out_w - 1) * p[kPoolStrideW] - p[kPoolPadLeft] <
             static_cast<int64_t>(s.in_w);
}

// Scratch: the padded plane, one spill vector, the row classes (out_h
// words, rounded to a vector) and the average's tables (out_h classes at
// most).
uint64_t HvxPoolScratchBytes(const OpArgs& op) {
  const PoolShape s = PoolShapeOf(op);
  uint64_t bytes = s.plane_bytes + 128;
  if (op.params[kPoolType] == 1) {
    bytes += (uint64_t{s.out_h} * 4 + 127) / 128 * 128 + uint64_t{s.out_h} * ClassTableBytes(s.chunks);
  }
  return bytes;
}

// Fills the row classes of average pooling (rows whose windows have the
// same vertical tap counts share one) and their tables; returns the
// number of classes.
uint32_t BuildAverageTables(const OpArgs& op, const PoolShape& s, uint32_t* row_class,
                            int32_t* tables) {
  const int32_t* p = op.params;
  const int32_t zero_point = p[kPoolZeroPoint];
  // As a window slides down, each count rises, stays and falls: at most
  // 4 k_h + 1 distinct pairs.
  AxisCounts classes[4 * 64 + 1];
  uint32_t count = 0;
  for (uint32_t oh = 0; oh < s.out_h; ++oh) {
    const AxisCounts h = CountTaps(static_cast<int32_t>(oh) * p[kPoolStrideH] - p[kPoolPadTop],
                                   p[kPoolKernelH], s.in_h, p[kPoolPadTop], p[kPoolPadBottom]);
    uint32_t c = 0;
    while (c < count && (classes[c].valid != h.valid || classes[c].padded != h.padded)) ++c;
    if (c == count) {
      classes[count++] = h;
      int32_t* table = tables + c * ClassTableBytes(s.chunks) / 4;
      for (uint32_t column = 0; column < s.chunks * 128; ++column) {
        const AxisCounts w = CountTaps(static_cast<int32_t>(column) - p[kPoolPadLeft],
                                       p[kPoolKernelW], s.in_w, p[kPoolPadLeft], p[kPoolPadRight]);
        const uint32_t valid = h.valid * w.valid;
        uint32_t divisor = p[kPoolCountIncludePad] ? h.padded * w.padded : valid;
        if (divisor == 0) divisor = 1;  // a column no output reads
        uint32_t log = 0;
        while ((1u << log) < divisor) ++log;
        const uint32_t shift = 15 + log;
        const uint32_t m = static_cast<uint32_t>(((uint64_t{1} << shift) + divisor - 1) / divisor);
        const uint32_t k = column / 128, lane = column % 128;
        int32_t* step = table + k * 3 * 128;
        step[lane] = static_cast<int32_t>((divisor - valid) * zero_point + divisor / 2);
        step[128 + lane] = static_cast<int32_t>(m);
        step[256 + lane] = static_cast<int32_t>(shift);
      }
    }
    row_class[oh] = c;
  }
  return count;
}

__attribute__((noinline)) void RunHvxPool(const OpArgs& op, uint8_t* scratch) {
  const int32_t* p = op.params;
  const PoolShape s = PoolShapeOf(op);
  const bool average = p[kPoolType] == 1;
  const uint32_t pad_top = p[kPoolPadTop], pad_left = p[kPoolPadLeft];
  const uint32_t stride_h = p[kPoolStrideH], stride_w = p[kPoolStrideW];
  const uint32_t k_h = p[kPoolKernelH], k_w = p[kPoolKernelW];
  uint8_t* plane = scratch;
  HvxVector* spill = reinterpret_cast<HvxVector*>(scratch + s.plane_bytes);
  uint32_t* row_class = reinterpret_cast<uint32_t*>(spill + 1);
  const HvxVector* tables =
      reinterpret_cast<const HvxVector*>(row_class + (s.out_h + 31) / 32 * 32);
  if (average) {
    BuildAverageTables(op, s, row_class, reinterpret_cast<int32_t*>(const_cast<HvxVector*>(tables)));
  }
  const uint32_t planes = op.inputs[0]->dims[0] * op.inputs[0]->dims[1];
  for (uint32_t c = 0; c < planes; ++c) {
    const uint8_t* in = op.inputs[0]->data + c * s.in_h * s.in_w;
    uint8_t* out = op.outputs[0]->data + c * s.out_h * s.out_w;
    // Padding 0: below every tap of a maximum, nothing in a sum.
    memset(plane, 0, static_cast<uint32_t>(s.plane_bytes));
    const uint32_t room = s.stride - pad_left;  // pad_left < k_w <= 8
    for (uint32_t r = 0; r < s.in_h && r + pad_top < s.rows; ++r) {
      memcpy(plane + (r + pad_top) * s.stride + pad_left, in + r * s.in_w,
             s.in_w < room ? s.in_w : room);
    }
    for (uint32_t oh = 0; oh < s.out_h; ++oh) {
      uint32_t ow = 0;
      uint8_t* row_out = out + oh * s.out_w;
      for (uint32_t k = 0; k < s.chunks; ++k) {
        HvxVector columns;
        if (!average) {
          HvxVector best = __builtin_HEXAGON_V6_vd0_128B();
          for (uint32_t kh = 0; kh < k_h; ++kh) {
            const HvxVector* row =
                reinterpret_cast<const HvxVector*>(plane + (oh * stride_h + kh) * s.stride) + k;
            for (uint32_t kw = 0; kw < k_w; ++kw) {
              best = __builtin_HEXAGON_V6_vmaxub_128B(
                  best, __builtin_HEXAGON_V6_valignb_128B(row[1], row[0], kw));
            }
          }
          columns = best;
        } else {
          // Window sums of 128 columns as halfwords (at most 128 * 255).
          HvxPair sums = Q6_W_vcombine_VV(Splat(0), Splat(0));
          for (uint32_t kh = 0; kh < k_h; ++kh) {
            const HvxVector* row =
                reinterpret_cast<const HvxVector*>(plane + (oh * stride_h + kh) * s.stride) + k;
            for (uint32_t kw = 0; kw < k_w; ++kw) {
              sums = Q6_Wh_vadd_WhWh(
                  sums, Q6_Wuh_vunpack_Vub(__builtin_HEXAGON_V6_valignb_128B(row[1], row[0], kw)));
            }
          }
          const HvxVector* table = tables + (row_class[oh] * s.chunks + k) * 12;
          const HvxPair low = Q6_Wuw_vunpack_Vuh(Q6_V_lo_W(sums));
          const HvxPair high = Q6_Wuw_vunpack_Vuh(Q6_V_hi_W(sums));
          const HvxVector words[4] = {Q6_V_lo_W(low), Q6_V_hi_W(low), Q6_V_lo_W(high),
                                      Q6_V_hi_W(high)};
          HvxVector quotients[4];
          for (uint32_t j = 0; j < 4; ++j) {
            const HvxVector numerator = Q6_Vw_vadd_VwVw(words[j], table[j]);
            quotients[j] = Q6_Vw_vlsr_VwVw(Q6_Vw_vmpyie_VwVuh(numerator, table[4 + j]),
                                           table[8 + j]);
          }
          columns = PackWordsToBytes(quotients[0], quotients[1], quotients[2], quotients[3]);
        }
        StoreStridedColumns(columns, k, stride_w, s.out_w, row_out, &ow, spill);
      }
    }
  }
}

}  // namespace

uint32_t PoolingScratchBytes(const OpArgs& op) {
  return UsesHvxPool(op) ? static_cast<uint32_t>(HvxPoolScratchBytes(op)) : 0;
}

bool CheckPooling(const OpArgs& op, Text* error) {
  if (op.num_inputs != 1 || op.num_outputs != 1 || op.num_params != kPoolParamCount) {
    *error << "needs 1 input, 1 output and its params";
    return false;
  }
  const int32_t* p = op.params;
  if ((p[kPoolType] != 1 && p[kPoolType] != 2) || p[kPoolKernelH] < 1 || p[kPoolKernelW] < 1 ||
      p[kPoolStrideH] < 1 || p[kPoolStrideW] < 1 || p[kPoolDilationH] < 1 ||
      p[kPoolDilationW] < 1 || p[kPoolPadTop] < 0 || p[kPoolPadLeft] < 0 ||
      p[kPoolPadBottom] < 0 || p[kPoolPadRight] < 0 || p[kPoolZeroPoint] < 0 ||
      p[kPoolZeroPoint] > 255) {
    *error << "bad pooling params";
    return false;
  }
  const DspTensor& in = *op.inputs[0];
  const DspTensor& out = *op.outputs[0];
  if (in.dims[0] != out.dims[0] || in.dims[1] != out.dims[1]) {
    *error << "pooling keeps N and C";
    return false;
  }
  return true;
}

void RunPooling(const OpArgs& op, uint8_t* scratch) {
  if (UsesHvxPool(op)) {
    RunHvxPool(op, scratch);
    return;
  }
  const int32_t* p = op.params;
  const DspTensor& input = *op.inputs[0];
  const DspTensor& output = *op.outputs[0];
  const int32_t in_h = input.dims[2], in_w = input.dims[3];
  const int32_t out_h = output.dims[2], out_w = output.dims[3];
  const int32_t zero_point = p[kPoolZeroPoint];
  const bool is_max = p[kPoolType] == 2;
  for (uint32_t plane = 0; plane < input.dims[0] * input.dims[1]; ++plane) {
    const uint8_t* in = input.data + plane * in_h * in_w;
    uint8_t* out = output.data + plane * out_h * out_w;
    for (int32_t oh = 0; oh < out_h; ++oh) {
      for (int32_t ow = 0; ow < out_w; ++ow) {
        int32_t valid = 0, padded = 0, sum = 0, max = 0;
        for (int32_t kh = 0; kh < p[kPoolKernelH]; ++kh) {
          const int32_t ih = oh * p[kPoolStrideH] - p[kPoolPadTop] + kh * p[kPoolDilationH];
          const bool h_in_padded = ih >= -p[kPoolPadTop] && ih < in_h + p[kPoolPadBottom];
          for (int32_t kw = 0; kw < p[kPoolKernelW]; ++kw) {
            const int32_t iw = ow * p[kPoolStrideW] - p[kPoolPadLeft] + kw * p[kPoolDilationW];
            if (h_in_padded && iw >= -p[kPoolPadLeft] && iw < in_w + p[kPoolPadRight]) ++padded;
            if (ih < 0 || ih >= in_h || iw < 0 || iw >= in_w) continue;
            const int32_t value = in[ih * in_w + iw];
            max = valid == 0 || value > max ? value : max;
            sum += value;
            ++valid;
          }
        }
        int32_t result = zero_point;
        if (valid > 0 && is_max) {
          result = max;
        } else if (valid > 0) {
          const int32_t divisor = p[kPoolCountIncludePad] ? padded : valid;
          sum += (divisor - valid) * zero_point;
          result = static_cast<int32_t>(static_cast<uint32_t>(sum + divisor / 2) /
                                        static_cast<uint32_t>(divisor));
        }
        out[oh * out_w + ow] = static_cast<uint8_t>(result);
      }
    }
  }
}

}  // namespace dsp
}  // namespace mace
