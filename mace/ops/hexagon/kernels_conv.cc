// Conv2D, DepthwiseConv2d (channel multiplier 1) and FullyConnected over
// uint8 NCHW activations and uint8 per-tensor weights, with one or one per
// output channel requantization multipliers.
//
// Every output is bias + sum((x - zx) * (w - zw)), saturated to int32 and
// requantized. The 1x1 stride-1 convolution (and FullyConnected) runs on
// HVX: the sum expands to
//   sum(x * w) - zw * sum(x) - zx * sum(w) + K * zx * zw,
// whose first two terms are vrmpy reductions of four channels per 32-bit
// lane (32 pixels per vector), computed exactly in uint32; the rest is
// per-channel scalar work. DepthwiseConv2d with kernels up to 4 wide runs
// on HVX too (strides up to 4; any dilation, with stride 1 across when
// dilated across): each plane is copied into a
// scratch plane padded with the input zero point (so padded taps add
// nothing, as in the reference, and the expansion above holds for every
// tap), a 32-bit lane holds the 4 bytes of one output's window row, and
// four byte shifts (valign) of each row cover 128 outputs with vrmpy.
// A dilation d across is undone by the copy: the padded row's columns go
// to d phases (column x to phase x mod d, place x / d), so that the taps
// of output ox = q d + r are the adjacent columns q.. of phase r; the
// outputs come out phase by phase and are put back in order per row.
// A dilation down only changes which rows a window reads. Other shapes use
// the scalar loop.
#include "mace/dsp/hvx.h"
#include "mace/ops/hexagon/kernels.h"
#include "mace/dsp/sys.h"

namespace mace {
namespace dsp {
namespace {

constexpr uint32_t kLanes = kHvxLanes;

struct ConvShape {
  uint32_t batch, in_c, in_h, in_w, out_c, out_h, out_w, k_h, k_w;
};

ConvShape ShapeOf(const OpArgs& op) {
  const DspTensor& in = *op.inputs[0];
  const DspTensor& filter = *op.inputs[1];
  const DspTensor& out = *op.outputs[0];
  ConvShape s;
  s.batch = in.dims[0];
  s.in_c = in.dims[1], s.in_h = in.dims[2], s.in_w = in.dims[3];
  s.out_c = out.dims[1], s.out_h = out.dims[2], s.out_w = out.dims[3];
  s.k_h = filter.dims[2], s.k_w = filter.dims[3];
  return s;
}

constexpr uint32_t kMaxDepthwiseKernelH = 16;

bool UsesHvxDepthwise(const OpArgs& op) {
  if (op.type != kDepthwiseConv2D) return false;
  const ConvShape s = ShapeOf(op);
  const int32_t* p = op.params;
  return s.k_w <= 4 && s.k_h <= kMaxDepthwiseKernelH && p[kStrideH] <= 4 && p[kStrideW] <= 4 &&
         (p[kDilationW] == 1 || p[kStrideW] == 1);
}

// Conv2D and FullyConnected run as one product of the (filter) matrix
// [out_c][K] and the input's [K][out pixels], K = in_c * k_h * k_w: the
// input is read in place for a 1x1 stride-1 convolution, else gathered
// (im2col), with padded taps holding the input zero point.
uint64_t ReductionOf(const ConvShape& s) { return uint64_t{s.in_c} * s.k_h * s.k_w; }

bool UsesHvxGemm(const OpArgs& op) {
  return op.type != kDepthwiseConv2D && ReductionOf(ShapeOf(op)) <= 65536;
}

bool IsPlain1x1(const OpArgs& op) {
  const ConvShape s = ShapeOf(op);
  const int32_t* p = op.params;
  return op.type == kFullyConnected ||
         (s.k_h == 1 && s.k_w == 1 && p[kStrideH] == 1 && p[kStrideW] == 1 && p[kPadTop] == 0 &&
          p[kPadLeft] == 0 && s.in_h == s.out_h && s.in_w == s.out_w);
}

uint32_t Round(uint32_t value, uint32_t to) { return (value + to - 1) / to * to; }

// int8 (symmetric, zero point 0, usually per channel) or uint8 weights.
bool SignedFilter(const OpArgs& op) { return op.inputs[1]->data_type == kInt8; }

int32_t FilterValue(const uint8_t* filter, uint64_t i, bool is_signed) {
  return is_signed ? int32_t{static_cast<int8_t>(filter[i])} : int32_t{filter[i]};
}

// acc += 4-tap dot products of the bytes of x (unsigned) with the 4 bytes
// of w, unsigned or signed.
template <bool kSigned>
inline HvxVector DotAccumulate(HvxVector acc, HvxVector x, uint32_t w) {
  return kSigned ? __builtin_HEXAGON_V6_vrmpybus_acc_128B(acc, x, static_cast<int32_t>(w))
                 : __builtin_HEXAGON_V6_vrmpyub_acc_128B(acc, x, static_cast<int32_t>(w));
}

// A lane of dot products as its exact value: uint32 for uint8 weights,
// int32 for int8 (whose sums stay below 2^31 in magnitude).
int64_t LaneValue(int32_t lane, bool is_signed) {
  return is_signed ? int64_t{lane} : int64_t{static_cast<uint32_t>(lane)};
}

const int32_t* Multiplier(const OpArgs& op, uint32_t channel) {
  const int32_t count = op.params[kNumMultipliers];
  return op.params + kConvParamCount + 2 * (count == 1 ? 0 : channel);
}

uint8_t Finish(const OpArgs& op, uint32_t channel, int64_t sum) {
  const int32_t* m = Multiplier(op, channel);
  const int32_t* p = op.params;
  return ClampToUint8(p[kOutputZeroPoint] + Requantize(SaturateToInt32(sum), m[0], m[1]),
                      p[kOutputMin], p[kOutputMax]);
}

VectorRequantizer RequantizerFor(const OpArgs& op, uint32_t channel) {
  const int32_t* m = Multiplier(op, channel);
  const int32_t* p = op.params;
  return VectorRequantizer(m[0], m[1], p[kOutputZeroPoint], p[kOutputMin], p[kOutputMax]);
}

// `value` (16 bits) in both halfwords of a word, for vmpyi(Vu.w, Rt.h).
int32_t BothHalfwords(int32_t value) {
  return static_cast<int32_t>((static_cast<uint32_t>(value) & 0xffff) * 0x10001u);
}

// Whether every sum of `taps` products (x - zx) * (w - zw) plus the bias
// fits in int32 (and each uint32 lane sum of x * w cannot wrap): then the
// lane arithmetic modulo 2^32 is exact and needs no saturation before the
// vector requantization.
bool SumsFitInt32(const OpArgs& op, uint64_t taps) {
  uint64_t bias_bound = 0;
  if (op.inputs[2]) {
    const int32_t* bias = reinterpret_cast<const int32_t*>(op.inputs[2]->data);
    for (uint32_t c = 0; c < op.inputs[2]->dims[0]; ++c) {
      const uint64_t magnitude = bias[c] < 0 ? 0 - static_cast<int64_t>(bias[c]) : bias[c];
      if (magnitude > bias_bound) bias_bound = magnitude;
    }
  }
  return taps * 255 * 255 + bias_bound <= 0x7fffffffu;
}

__attribute__((noinline)) void RunScalar(const OpArgs& op) {
  const ConvShape s = ShapeOf(op);
  const int32_t* p = op.params;
  const bool depthwise = op.type == kDepthwiseConv2D;
  const uint32_t taps_c = depthwise ? 1 : s.in_c;
  const uint8_t* input = op.inputs[0]->data;
  const uint8_t* filter = op.inputs[1]->data;
  const int32_t* bias = op.inputs[2] ? reinterpret_cast<const int32_t*>(op.inputs[2]->data) : nullptr;
  uint8_t* output = op.outputs[0]->data;
  const int32_t zx = p[kInputZeroPoint], zw = p[kFilterZeroPoint];
  const bool is_signed = SignedFilter(op);
  for (uint32_t n = 0; n < s.batch; ++n) {
    for (uint32_t oc = 0; oc < s.out_c; ++oc) {
      const uint32_t first_ic = depthwise ? oc : 0;
      for (uint32_t oh = 0; oh < s.out_h; ++oh) {
        for (uint32_t ow = 0; ow < s.out_w; ++ow) {
          int64_t sum = bias ? bias[oc] : 0;
          for (uint32_t i = 0; i < taps_c; ++i) {
            const uint8_t* plane = input + ((n * s.in_c + first_ic + i) * s.in_h) * s.in_w;
            const uint8_t* taps = filter + ((oc * taps_c + i) * s.k_h) * s.k_w;
            for (uint32_t kh = 0; kh < s.k_h; ++kh) {
              const int32_t ih = static_cast<int32_t>(oh) * p[kStrideH] - p[kPadTop] +
                                 static_cast<int32_t>(kh) * p[kDilationH];
              if (ih < 0 || ih >= static_cast<int32_t>(s.in_h)) continue;
              for (uint32_t kw = 0; kw < s.k_w; ++kw) {
                const int32_t iw = static_cast<int32_t>(ow) * p[kStrideW] - p[kPadLeft] +
                                   static_cast<int32_t>(kw) * p[kDilationW];
                if (iw < 0 || iw >= static_cast<int32_t>(s.in_w)) continue;
                sum += (int32_t{plane[ih * s.in_w + iw]} - zx) *
                       (FilterValue(taps, kh * s.k_w + kw, is_signed) - zw);
              }
            }
          }
          output[((n * s.out_c + oc) * s.out_h + oh) * s.out_w + ow] = Finish(op, oc, sum);
        }
      }
    }
  }
}

// Writes row k = (ic * k_h + kh) * k_w + kw of the im2col matrix of one
// image, byte 4 * i of `dst` for output pixel i.
void GatherRow(const OpArgs& op, const uint8_t* image, uint32_t k, uint8_t* dst) {
  const ConvShape s = ShapeOf(op);
  const int32_t* p = op.params;
  const uint32_t kw = k % s.k_w, kh = (k / s.k_w) % s.k_h, ic = k / (s.k_w * s.k_h);
  const uint8_t* plane = image + ic * s.in_h * s.in_w;
  const uint8_t zx = static_cast<uint8_t>(p[kInputZeroPoint]);
  const int32_t stride = p[kStrideW];
  const int32_t first_iw = static_cast<int32_t>(kw * p[kDilationW]) - p[kPadLeft];
  // Outputs [left, right) read inside the row; the others read padding.
  uint32_t left = 0;
  while (left < s.out_w && first_iw + static_cast<int32_t>(left) * stride < 0) ++left;
  uint32_t right = s.out_w;
  while (right > left &&
         first_iw + static_cast<int32_t>(right - 1) * stride >= static_cast<int32_t>(s.in_w)) {
    --right;
  }
  for (uint32_t oh = 0; oh < s.out_h; ++oh, dst += 4 * s.out_w) {
    const int32_t ih = static_cast<int32_t>(oh * p[kStrideH] + kh * p[kDilationH]) - p[kPadTop];
    if (ih < 0 || ih >= static_cast<int32_t>(s.in_h)) {
      for (uint32_t ow = 0; ow < s.out_w; ++ow) dst[4 * ow] = zx;
      continue;
    }
    const uint8_t* row = plane + ih * s.in_w;
    for (uint32_t ow = 0; ow < left; ++ow) dst[4 * ow] = zx;
    for (uint32_t ow = left; ow < right; ++ow) {
      dst[4 * ow] = row[first_iw + static_cast<int32_t>(ow) * stride];
    }
    for (uint32_t ow = right; ow < s.out_w; ++ow) dst[4 * ow] = zx;
  }
}

// What the HVX convolutions compute once, at graph set-up, from the
// constant filter and bias (op.prepared): a flag word (whether every sum
// fits in int32), per output channel the constant part of the
// zero-point expansion, bias - zx * sum(w) + taps * zx * zw, then the
// filter as words of 4 taps: the GEMM's [out_c][K / 4] (when K is not a
// multiple of 4; else the 128-byte aligned filter rows are those words
// already), depthwise's [channels][k_h] (one window row per word).
struct Prepared {
  bool vector_requantize;
  const int64_t* constants;
  const uint32_t* words;
};

uint32_t WordsPerChannel(const OpArgs& op) {
  const ConvShape s = ShapeOf(op);
  return op.type == kDepthwiseConv2D ? s.k_h : static_cast<uint32_t>((ReductionOf(s) + 3) / 4);
}

Prepared PreparedOf(const OpArgs& op) {
  Prepared prepared;
  prepared.vector_requantize = *reinterpret_cast<const uint32_t*>(op.prepared) != 0;
  prepared.constants = reinterpret_cast<const int64_t*>(op.prepared + 8);
  prepared.words = reinterpret_cast<const uint32_t*>(prepared.constants + op.outputs[0]->dims[1]);
  if (op.type != kDepthwiseConv2D && ReductionOf(ShapeOf(op)) % 4 == 0) {
    prepared.words = reinterpret_cast<const uint32_t*>(op.inputs[1]->data);
  }
  return prepared;
}

bool UsesHvxConv(const OpArgs& op) { return UsesHvxDepthwise(op) || UsesHvxGemm(op); }

void PrepareHvxConv(const OpArgs& op) {
  const ConvShape s = ShapeOf(op);
  const int32_t* p = op.params;
  const bool depthwise = op.type == kDepthwiseConv2D;
  const uint64_t taps = depthwise ? uint64_t{s.k_h} * s.k_w : ReductionOf(s);
  const uint32_t per_channel = WordsPerChannel(op);
  const uint32_t row_bytes = depthwise ? s.k_w : 4;  // filter bytes per word
  const uint8_t* filter = op.inputs[1]->data;
  const int32_t* bias = op.inputs[2] ? reinterpret_cast<const int32_t*>(op.inputs[2]->data) : nullptr;
  const int64_t zx = p[kInputZeroPoint], zw = p[kFilterZeroPoint];
  *reinterpret_cast<uint32_t*>(op.prepared) = SumsFitInt32(op, taps) ? 1 : 0;
  int64_t* constants = reinterpret_cast<int64_t*>(op.prepared + 8);
  uint32_t* words = reinterpret_cast<uint32_t*>(constants + s.out_c);
  const bool in_place = !depthwise && taps % 4 == 0;
  for (uint32_t oc = 0; oc < s.out_c; ++oc) {
    const uint8_t* row = filter + oc * taps;
    int64_t w_sum = 0;
    for (uint64_t t = 0; t < taps; ++t) w_sum += FilterValue(row, t, SignedFilter(op));
    constants[oc] = (bias ? bias[oc] : 0) - zx * w_sum + static_cast<int64_t>(taps) * zx * zw;
    for (uint32_t g = 0; g < per_channel && !in_place; ++g) {
      uint32_t word = 0;
      for (uint32_t j = 0; j < 4 && j < row_bytes && g * row_bytes + j < taps; ++j) {
        word |= uint32_t{row[g * row_bytes + j]} << (8 * j);
      }
      words[oc * per_channel + g] = word;
    }
  }
}

// Scratch layout for the HVX path: the input of one image repacked as
// [K / 4][pixels rounded to 32][4 taps], the weights as [out_c][K / 4]
// words, then 32 int32 lanes of results, 32 of input sums and the
// per-channel constants.
template <bool kSigned>
__attribute__((noinline)) void RunHvxGemm(const OpArgs& op, uint8_t* scratch) {
  const ConvShape s = ShapeOf(op);
  const int32_t* p = op.params;
  const uint32_t K = static_cast<uint32_t>(ReductionOf(s));
  const bool plain = IsPlain1x1(op);
  const uint32_t pixels = s.out_h * s.out_w;
  const uint32_t padded_pixels = Round(pixels, kLanes);
  const uint32_t groups = (K + 3) / 4;
  uint8_t* packed = scratch;
  int32_t* lanes = reinterpret_cast<int32_t*>(scratch + groups * padded_pixels * 4);
  uint32_t* lane_sums = reinterpret_cast<uint32_t*>(lanes + kLanes);
  const int64_t zw = p[kFilterZeroPoint];
  const Prepared prepared = PreparedOf(op);
  const int64_t* constants = prepared.constants;
  const uint32_t* weights = prepared.words;
  const bool vector_requantize = prepared.vector_requantize;
  const bool one_multiplier = p[kNumMultipliers] == 1;
  const VectorRequantizer shared = RequantizerFor(op, 0);
  const int32_t minus_zw = BothHalfwords(static_cast<int32_t>(-zw));
  for (uint32_t n = 0; n < s.batch; ++n) {
    const uint8_t* input = op.inputs[0]->data + n * s.in_c * s.in_h * s.in_w;
    uint8_t* output = op.outputs[0]->data + n * s.out_c * pixels;
    // Taps past K (in the last group) and pixels past the end stay 0.
    memset(packed, 0, groups * padded_pixels * 4);
    uint32_t first_c = 0;
    // A plain 1x1: four channel rows of 128 pixels a step interleaved into
    // 128 words of 4 taps by byte, then halfword shuffles.
    for (; plain && pixels >= 128 && first_c + 4 <= K; first_c += 4) {
      uint8_t* dst = packed + (first_c / 4) * padded_pixels * 4;
      const uint8_t* src = input + first_c * pixels;
      uint32_t i = 0;
      for (; i + 128 <= pixels; i += 128) {
        const uint8_t* x = src + i;
        const HvxPair p01 = Q6_W_vshuff_VVR(*reinterpret_cast<const UnalignedHvxVector*>(x + pixels),
                                            *reinterpret_cast<const UnalignedHvxVector*>(x), -1);
        const HvxPair p23 =
            Q6_W_vshuff_VVR(*reinterpret_cast<const UnalignedHvxVector*>(x + 3 * pixels),
                            *reinterpret_cast<const UnalignedHvxVector*>(x + 2 * pixels), -1);
        const HvxPair low = Q6_W_vshuff_VVR(Q6_V_lo_W(p23), Q6_V_lo_W(p01), -2);
        const HvxPair high = Q6_W_vshuff_VVR(Q6_V_hi_W(p23), Q6_V_hi_W(p01), -2);
        HvxVector* out = reinterpret_cast<HvxVector*>(dst + 4 * i);
        out[0] = Q6_V_lo_W(low), out[1] = Q6_V_hi_W(low);
        out[2] = Q6_V_lo_W(high), out[3] = Q6_V_hi_W(high);
      }
      for (; i < pixels; ++i) {
        for (uint32_t j = 0; j < 4; ++j) dst[4 * i + j] = src[j * pixels + i];
      }
    }
    for (uint32_t c = first_c; c < K; ++c) {
      uint8_t* dst = packed + (c / 4) * padded_pixels * 4 + (c % 4);
      if (!plain) {
        GatherRow(op, input, c, dst);
        continue;
      }
      const uint8_t* src = input + c * pixels;
      for (uint32_t i = 0; i < pixels; ++i) dst[4 * i] = src[i];
    }
    const HvxVector* rows = reinterpret_cast<const HvxVector*>(packed);
    const uint32_t vectors_per_group = padded_pixels / kLanes;
    for (uint32_t v = 0; v < vectors_per_group; ++v) {
      HvxVector x_sum = __builtin_HEXAGON_V6_vd0_128B();
      // int8 weights have zero point 0: no input sums needed.
      for (uint32_t g = 0; g < groups && !kSigned; ++g) {
        x_sum = __builtin_HEXAGON_V6_vrmpyub_acc_128B(x_sum, rows[g * vectors_per_group + v],
                                                     0x01010101);
      }
      *reinterpret_cast<HvxVector*>(lane_sums) = x_sum;
      // -zw * sum(x), modulo 2^32 (zw is 0..255, a halfword).
      const HvxVector x_term = Q6_Vw_vmpyi_VwRh(x_sum, minus_zw);
      const uint32_t count = pixels - v * kLanes < kLanes ? pixels - v * kLanes : kLanes;
      // The sums of one output channel: to bytes, stored.
      auto finish = [&](uint32_t oc, HvxVector acc) __attribute__((always_inline)) {
        const int64_t constant = constants[oc];
        uint8_t* out = output + oc * pixels + v * kLanes;
        if (vector_requantize) {
          const HvxVector sum = Q6_Vw_vadd_VwVw(Q6_Vw_vadd_VwVw(acc, x_term),
                                                Splat(static_cast<int32_t>(constant)));
          const HvxVector result =
              one_multiplier ? RequantizeVector(sum, shared) : RequantizeVector(sum, RequantizerFor(op, oc));
          StoreBytes(out, PackWordsToBytes(result, result, result, result), count);
          return;
        }
        *reinterpret_cast<HvxVector*>(lanes) = acc;
        for (uint32_t i = 0; i < count; ++i) {
          const int64_t sum = constant + LaneValue(lanes[i], kSigned) -
                              zw * static_cast<int64_t>(lane_sums[i]);
          out[i] = Finish(op, oc, sum);
        }
      };
      // Four output channels at a time share each load of the input.
      uint32_t oc = 0;
      for (; oc + 4 <= s.out_c; oc += 4) {
        HvxVector acc0 = __builtin_HEXAGON_V6_vd0_128B(), acc1 = acc0, acc2 = acc0, acc3 = acc0;
        const uint32_t* w = weights + oc * groups;
        const HvxVector* x = rows + v;
        for (uint32_t g = 0; g < groups; ++g, x += vectors_per_group) {
          acc0 = DotAccumulate<kSigned>(acc0, *x, w[g]);
          acc1 = DotAccumulate<kSigned>(acc1, *x, w[groups + g]);
          acc2 = DotAccumulate<kSigned>(acc2, *x, w[2 * groups + g]);
          acc3 = DotAccumulate<kSigned>(acc3, *x, w[3 * groups + g]);
        }
        finish(oc, acc0);
        finish(oc + 1, acc1);
        finish(oc + 2, acc2);
        finish(oc + 3, acc3);
      }
      for (; oc < s.out_c; ++oc) {
        HvxVector acc = __builtin_HEXAGON_V6_vd0_128B();
        for (uint32_t g = 0; g < groups; ++g) {
          acc = DotAccumulate<kSigned>(acc, rows[g * vectors_per_group + v], weights[oc * groups + g]);
        }
        finish(oc, acc);
      }
    }
  }
}


// The padded plane for one depthwise output: rows of `stride` bytes,
// (out_h - 1) * stride_h + (k_h - 1) * dilation_h + 1 of them. The vector
// steps compute the stride-1 outputs of each needed row, 128 a step, over
// the `columns` that the strided outputs pick from. Dilated across by d,
// a row holds d phases of `phase` columns (ceil(out_w / d) outputs and
// k_w - 1 more taps each), and a row of phase outputs (`row_bytes`)
// follows the plane in the scratch.
struct DepthwiseLayout {
  uint32_t columns, chunks, stride, rows, plane_bytes, phase, row_bytes;
};

// plane_bytes is 0 when the plane would not fit in 1 GB.
DepthwiseLayout LayoutOf(const ConvShape& s, const int32_t* p) {
  DepthwiseLayout l;
  const uint32_t dilation_w = p[kDilationW];
  l.phase = dilation_w > 1 ? (s.out_w + dilation_w - 1) / dilation_w + s.k_w - 1 : 0;
  const uint64_t columns =
      dilation_w > 1 ? uint64_t{dilation_w} * l.phase : uint64_t{s.out_w - 1} * p[kStrideW] + 1;
  l.columns = columns > (1u << 24) ? (1u << 24) : static_cast<uint32_t>(columns);
  l.chunks = (l.columns + 127) / 128;
  l.stride = 128 * (l.chunks + 1);
  l.row_bytes = dilation_w > 1 ? 128 * l.chunks : 0;
  const uint64_t rows =
      uint64_t{s.out_h - 1} * p[kStrideH] + uint64_t{s.k_h - 1} * p[kDilationH] + 1;
  const uint64_t bytes = rows * l.stride;
  l.rows = static_cast<uint32_t>(rows > (1u << 30) ? (1u << 30) : rows);
  l.plane_bytes = bytes > (1u << 30) || columns > (1u << 24) ? 0 : static_cast<uint32_t>(bytes);
  return l;
}

// KH is the kernel height when known at compile time (3: the loops over
// rows unroll and the sums stay in registers), else 0.
// kDilated: the dilated instantiation; the others are the plain kernel with
// the dilation code folded away.
template <uint32_t KH, bool kSigned, bool kDilated>
__attribute__((noinline)) void RunHvxDepthwise(const OpArgs& op, uint8_t* scratch) {
  const ConvShape s = ShapeOf(op);
  const uint32_t k_h = KH ? KH : s.k_h;
  const int32_t* p = op.params;
  const DepthwiseLayout l = LayoutOf(s, p);
  const uint32_t stride_h = p[kStrideH], stride_w = p[kStrideW];
  const uint32_t dilation_h = kDilated ? p[kDilationH] : 1;
  const uint32_t dilation_w = kDilated ? p[kDilationW] : 1;
  const uint32_t phase_columns = kDilated ? l.phase : 0;  // per phase; 0: no phases
  const int32_t zx = p[kInputZeroPoint], zw = p[kFilterZeroPoint];
  const uint32_t pad_top = p[kPadTop], pad_left = p[kPadLeft];
  uint8_t* plane = scratch;
  uint8_t* phase_row = scratch + l.plane_bytes;  // dilated across: one row's phase outputs
  // Where the outputs of a row go: the output row, or the phase row.
  const uint32_t row_w = phase_columns ? l.columns : s.out_w;
  const uint32_t row_step = phase_columns ? 1 : stride_w;
  int32_t* lanes = reinterpret_cast<int32_t*>(phase_row + l.row_bytes);  // [4][32] sums
  int32_t* x_sums = lanes + 4 * kLanes;                                  // [4][32]
  const Prepared prepared = PreparedOf(op);
  uint32_t tap_mask = 0;
  for (uint32_t kw = 0; kw < s.k_w; ++kw) tap_mask |= 1u << (8 * kw);
  const bool vector_requantize = prepared.vector_requantize;
  const int32_t minus_zw = BothHalfwords(-zw);
  for (uint32_t n = 0; n < s.batch; ++n) {
    for (uint32_t c = 0; c < s.in_c; ++c) {
      const uint8_t* in = op.inputs[0]->data + (n * s.in_c + c) * s.in_h * s.in_w;
      uint8_t* out = op.outputs[0]->data + (n * s.in_c + c) * s.out_h * s.out_w;
      memset(plane, zx, l.plane_bytes);
      for (uint32_t r = 0; r < s.in_h && r + pad_top < l.rows; ++r) {
        uint8_t* dst = plane + (r + pad_top) * l.stride;
        const uint8_t* src = in + r * s.in_w;
        if (phase_columns) {
          // Padded column x = pad_left + i goes to phase x mod d, place x / d.
          uint32_t phase = pad_left % dilation_w, place = pad_left / dilation_w;
          for (uint32_t i = 0; i < s.in_w && place < phase_columns; ++i) {
            dst[phase * phase_columns + place] = src[i];
            if (++phase == dilation_w) phase = 0, ++place;
          }
          continue;
        }
        if (pad_left >= l.stride) break;
        const uint32_t room = l.stride - pad_left;
        memcpy(dst + pad_left, src, s.in_w < room ? s.in_w : room);
      }
      const uint32_t* words = prepared.words + c * k_h;  // row kh's taps, one byte each
      const int64_t constant = prepared.constants[c];
      const HvxVector constant_v = Splat(static_cast<int32_t>(constant));
      const VectorRequantizer q = RequantizerFor(op, c);
      for (uint32_t oh = 0; oh < s.out_h; ++oh) {
        uint32_t ow = 0;  // the next output of the row
        for (uint32_t k = 0; k < l.chunks; ++k) {
          HvxVector accs[4], x_sum_vectors[4];
          for (uint32_t shift = 0; shift < 4; ++shift) {
            HvxVector acc = __builtin_HEXAGON_V6_vd0_128B();
            HvxVector x_sum = __builtin_HEXAGON_V6_vd0_128B();
            for (uint32_t kh = 0; kh < k_h; ++kh) {
              const HvxVector* row = reinterpret_cast<const HvxVector*>(
                                         plane + (oh * stride_h + kh * dilation_h) * l.stride) +
                                     k;
              const HvxVector window = __builtin_HEXAGON_V6_valignb_128B(row[1], row[0], shift);
              acc = DotAccumulate<kSigned>(acc, window, words[kh]);
              if (!kSigned) {  // int8 weights have zero point 0
                x_sum = __builtin_HEXAGON_V6_vrmpyub_acc_128B(x_sum, window,
                                                             static_cast<int32_t>(tap_mask));
              }
            }
            accs[shift] = acc;
            x_sum_vectors[shift] = x_sum;
          }
          uint8_t* row = phase_columns ? phase_row : out + oh * s.out_w;
          if (vector_requantize) {
            // Lane i of shift j is stride-1 column 4i + j of the chunk.
            HvxVector results[4];
            for (uint32_t shift = 0; shift < 4; ++shift) {
              const HvxVector x_term = Q6_Vw_vmpyi_VwRh(x_sum_vectors[shift], minus_zw);
              results[shift] = RequantizeVector(
                  Q6_Vw_vadd_VwVw(Q6_Vw_vadd_VwVw(accs[shift], x_term), constant_v), q);
            }
            // Bytes [shift 0 | 1 | 2 | 3] of 32 each; two byte shuffles
            // interleave them into column order.
            const HvxVector packed = PackWordsToBytes(results[0], results[1], results[2], results[3]);
            const HvxVector columns = Q6_Vb_vshuff_Vb(Q6_Vb_vshuff_Vb(packed));
            StoreStridedColumns(columns, k, row_step, row_w, row, &ow,
                                reinterpret_cast<HvxVector*>(lanes));
            continue;
          }
          for (uint32_t shift = 0; shift < 4; ++shift) {
            *reinterpret_cast<HvxVector*>(lanes + shift * kLanes) = accs[shift];
            *reinterpret_cast<HvxVector*>(x_sums + shift * kLanes) = x_sum_vectors[shift];
          }
          // Outputs ow of this step: stride-1 column ow * stride_w in
          // [128k, 128k + 128), whose lane is i of shift j for column 4i + j.
          for (; ow < row_w && ow * row_step < 128 * (k + 1); ++ow) {
            const uint32_t v = ow * row_step - 128 * k;
            const uint32_t lane = (v & 3) * kLanes + (v >> 2);
            const int64_t sum = constant + LaneValue(lanes[lane], kSigned) -
                                zw * static_cast<int64_t>(static_cast<uint32_t>(x_sums[lane]));
            row[ow] = Finish(op, c, sum);
          }
        }
        if (phase_columns) {
          // Output ox = q d + r is place q of phase r.
          uint8_t* dst = out + oh * s.out_w;
          uint32_t phase = 0, place = 0;
          for (uint32_t ox = 0; ox < s.out_w; ++ox) {
            dst[ox] = phase_row[phase * phase_columns + place];
            if (++phase == dilation_w) phase = 0, ++place;
          }
        }
      }
    }
  }
}

bool Fail(Text* error, const char* what) {
  *error << what;
  return false;
}

}  // namespace

bool CheckConv(const OpArgs& op, Text* error) {
  if (op.num_inputs != 3 || op.num_outputs != 1) return Fail(error, "needs 3 inputs, 1 output");
  if (!op.inputs[0] || !op.inputs[1]) return Fail(error, "input and filter are required");
  if (op.num_params < kConvParamCount) return Fail(error, "too few params");
  const int32_t* p = op.params;
  const int32_t multipliers = p[kNumMultipliers];
  const DspTensor& in = *op.inputs[0];
  const DspTensor& filter = *op.inputs[1];
  const DspTensor& out = *op.outputs[0];
  if (in.data_type != kUint8 || out.data_type != kUint8)
    return Fail(error, "input and output must be uint8");
  if (filter.data_type != kUint8 && filter.data_type != kInt8)
    return Fail(error, "the filter must be uint8 or int8");
  if (filter.data_type == kInt8 && p[kFilterZeroPoint] != 0)
    return Fail(error, "int8 filters are symmetric (zero point 0)");
  if (op.inputs[2] && (op.inputs[2]->data_type != kInt32 || op.inputs[2]->dims[0] != out.dims[1]))
    return Fail(error, "bias must be int32 [out_channels]");
  if (!filter.constant) return Fail(error, "the filter must be constant");
  if (multipliers != 1 && multipliers != static_cast<int32_t>(out.dims[1]))
    return Fail(error, "needs 1 or out_channels multipliers");
  if (op.num_params != kConvParamCount + 2 * static_cast<uint32_t>(multipliers))
    return Fail(error, "param count does not match the multipliers");
  for (int32_t i = 0; i < multipliers; ++i) {
    const int32_t m = p[kConvParamCount + 2 * i], shift = p[kConvParamCount + 2 * i + 1];
    if (m < 0 || shift < 1 || shift > 62) return Fail(error, "bad multiplier");
  }
  if (p[kOutputMin] < 0 || p[kOutputMax] > 255 || p[kOutputMin] > p[kOutputMax])
    return Fail(error, "bad output range");
  if (op.type == kFullyConnected) {
    if (filter.dims[0] != out.dims[1] || filter.dims[1] != in.dims[1] || in.dims[0] != out.dims[0])
      return Fail(error, "fully connected shapes do not match");
    return true;
  }
  if (p[kStrideH] < 1 || p[kStrideW] < 1 || p[kDilationH] < 1 || p[kDilationW] < 1 ||
      p[kPadTop] < 0 || p[kPadLeft] < 0)
    return Fail(error, "bad stride, dilation or padding");
  const bool depthwise = op.type == kDepthwiseConv2D;
  if (depthwise ? (filter.dims[0] != 1 || filter.dims[1] != in.dims[1] || out.dims[1] != in.dims[1])
                : (filter.dims[0] != out.dims[1] || filter.dims[1] != in.dims[1]))
    return Fail(error, "filter shape does not match the input and output channels");
  if (in.dims[0] != out.dims[0]) return Fail(error, "batch differs");
  // Every output needs a window that starts inside the padded input.
  const int64_t reach_h = static_cast<int64_t>(out.dims[2] - 1) * p[kStrideH] - p[kPadTop];
  const int64_t reach_w = static_cast<int64_t>(out.dims[3] - 1) * p[kStrideW] - p[kPadLeft];
  if (reach_h >= static_cast<int64_t>(in.dims[2]) + p[kPadTop] ||
      reach_w >= static_cast<int64_t>(in.dims[3]) + p[kPadLeft])
    return Fail(error, "output larger than the padded input");
  return true;
}

uint32_t ConvScratchBytes(const OpArgs& op) {
  // kUnplannable makes the allocation fail cleanly ("out of memory").
  constexpr uint32_t kUnplannable = 0xffffffffu;
  if (UsesHvxDepthwise(op)) {
    const DepthwiseLayout l = LayoutOf(ShapeOf(op), op.params);
    return l.plane_bytes == 0 ? kUnplannable : l.plane_bytes + l.row_bytes + 8 * 128;
  }
  if (!UsesHvxGemm(op)) return 0;
  const ConvShape s = ShapeOf(op);
  const uint64_t groups = (ReductionOf(s) + 3) / 4;
  const uint64_t bytes =
      groups * ((uint64_t{s.out_h} * s.out_w + kLanes - 1) / kLanes * kLanes) * 4 + 2 * 128;
  return bytes > (1u << 30) ? kUnplannable : static_cast<uint32_t>(bytes);
}

uint32_t ConvPreparedBytes(const OpArgs& op) {
  if (!UsesHvxConv(op)) return 0;
  const uint64_t bytes = 8 + uint64_t{op.outputs[0]->dims[1]} * (8 + 4 * WordsPerChannel(op));
  return bytes > (1u << 30) ? 0xffffffffu : static_cast<uint32_t>(bytes);
}

void PrepareConv(const OpArgs& op) {
  if (UsesHvxConv(op)) PrepareHvxConv(op);
}

void RunConv(const OpArgs& op, uint8_t* scratch) {
  if (UsesHvxDepthwise(op)) {
    const bool three = ShapeOf(op).k_h == 3;
    const bool dilated = op.params[kDilationH] != 1 || op.params[kDilationW] != 1;
    if (SignedFilter(op)) {
      dilated ? RunHvxDepthwise<0, true, true>(op, scratch)
      : three ? RunHvxDepthwise<3, true, false>(op, scratch)
              : RunHvxDepthwise<0, true, false>(op, scratch);
    } else {
      dilated ? RunHvxDepthwise<0, false, true>(op, scratch)
      : three ? RunHvxDepthwise<3, false, false>(op, scratch)
              : RunHvxDepthwise<0, false, false>(op, scratch);
    }
  } else if (UsesHvxGemm(op)) {
    SignedFilter(op) ? RunHvxGemm<true>(op, scratch) : RunHvxGemm<false>(op, scratch);
  } else {
    RunScalar(op);
  }
}

}  // namespace dsp
}  // namespace mace
