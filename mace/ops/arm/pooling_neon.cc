// NEON pooling: bands of 2x2 / 3x3 windows, and global pooling planes.
//
// As on AVX2 (see x86/pooling_avx2.cc), each output row reduces its input
// rows into the band's line column by column, then kernel_w neighbouring
// line cells per output, 4 outputs per vector; stride 2 splits the line into
// even and odd lanes with vld2q_f32 as it loads. A row's ragged end is one
// more whole vector ending at the last output.
#if defined(__aarch64__) || defined(__ARM_NEON)

#include <arm_neon.h>

#include "mace/ops/arm/neon_kernels.h"

namespace mace {
namespace ops {
namespace arm {
namespace {

constexpr int kLanes = 4;

struct MaxOp {
  static constexpr bool kAverage = false;
  static float32x4_t Apply(float32x4_t a, float32x4_t b) { return vmaxq_f32(a, b); }
  static float Apply(float a, float b) { return a > b ? a : b; }
};

struct SumOp {
  static constexpr bool kAverage = true;  // outputs are scaled
  static float32x4_t Apply(float32x4_t a, float32x4_t b) { return vaddq_f32(a, b); }
  static float Apply(float a, float b) { return a + b; }
};

#if !defined(__aarch64__)
// armv7: the columns [0, dst_end - dst) of ReduceRows, eight a step (at
// least one step). A row's 8 floats are one vld1 with its pointer increment
// folded in, the 8 results one vst1: 3 rows take 10 instructions a step,
// where GCC's code for the intrinsics took 23 (a load, and a pointer move
// or add, per 4 floats; it cannot pair two vld1q_f32 into one, and GCC's
// armv7 NEON has no vld1q_f32_x2). Rows combine in order, as the
// intrinsics do: row 0 with row 1, then with row 2.
// clang-format off
#define MACE_V7_POOL_LOOP(body)                  \
  "1:\n"                                         \
  "vld1.32 {d0-d3}, [%[r0]]!\n"                  \
  body                                           \
  "vst1.32 {d0-d3}, [%[d]]!\n"                   \
  "cmp %[d], %[end]\n"                           \
  "bne 1b\n"
#define MACE_V7_POOL_2(op)                                                \
  __asm__ volatile(MACE_V7_POOL_LOOP(                                     \
                       "vld1.32 {d4-d7}, [%[r1]]!\n"                     \
                       op " q0, q0, q2\n" op " q1, q1, q3\n")             \
                   : [d] "+r"(d), [r0] "+r"(r0), [r1] "+r"(r1)            \
                   : [end] "r"(dst_end)                                   \
                   : "cc", "memory", "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7")
#define MACE_V7_POOL_3(op)                                                \
  __asm__ volatile(MACE_V7_POOL_LOOP(                                     \
                       "vld1.32 {d4-d7}, [%[r1]]!\n"                     \
                       "vld1.32 {d16-d19}, [%[r2]]!\n"                   \
                       op " q0, q0, q2\n" op " q1, q1, q3\n"              \
                       op " q0, q0, q8\n" op " q1, q1, q9\n")             \
                   : [d] "+r"(d), [r0] "+r"(r0), [r1] "+r"(r1), [r2] "+r"(r2) \
                   : [end] "r"(dst_end)                                   \
                   : "cc", "memory", "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", \
                     "d16", "d17", "d18", "d19")
// clang-format on

template <class Op, int kRows>
void ReduceRowsArmv7(const float* in, int64_t in_w, float* d, float* dst_end) {
  const float* r0 = in;
  const float* r1 = kRows > 1 ? in + in_w : in;
  const float* r2 = kRows > 2 ? in + 2 * in_w : in;
  if constexpr (kRows == 1) {
    __asm__ volatile(MACE_V7_POOL_LOOP("")
                     : [d] "+r"(d), [r0] "+r"(r0)
                     : [end] "r"(dst_end)
                     : "cc", "memory", "d0", "d1", "d2", "d3");
  } else if constexpr (kRows == 2) {
    if constexpr (Op::kAverage) {
      MACE_V7_POOL_2("vadd.f32");
    } else {
      MACE_V7_POOL_2("vmax.f32");
    }
  } else {
    if constexpr (Op::kAverage) {
      MACE_V7_POOL_3("vadd.f32");
    } else {
      MACE_V7_POOL_3("vmax.f32");
    }
  }
  (void)r1;
  (void)r2;
}
#undef MACE_V7_POOL_3
#undef MACE_V7_POOL_2
#undef MACE_V7_POOL_LOOP
#endif

// dst[c] = reduction of in[r * in_w + c] over kRows rows, for c < width.
// armv7: eight columns a step in assembly (ReduceRowsArmv7).
template <class Op, int kRows>
void ReduceRows(const float* in, int64_t in_w, int64_t width, float* dst) {
  int64_t c = 0;
#if defined(__aarch64__)
  // 16 columns a pass in four-register loads and one store: 3 rows took 15
  // instructions where four passes of one vector took 36.
  for (; c + 4 * kLanes <= width; c += 4 * kLanes) {
    const float32x4x4_t first = vld1q_f32_x4(in + c);
    float32x4_t a0 = first.val[0], a1 = first.val[1], a2 = first.val[2], a3 = first.val[3];
#pragma GCC unroll 3
    for (int r = 1; r < kRows; ++r) {
      const float32x4x4_t row = vld1q_f32_x4(in + r * in_w + c);
      a0 = Op::Apply(a0, row.val[0]);
      a1 = Op::Apply(a1, row.val[1]);
      a2 = Op::Apply(a2, row.val[2]);
      a3 = Op::Apply(a3, row.val[3]);
    }
    vst1q_f32_x4(dst + c, float32x4x4_t{{a0, a1, a2, a3}});
  }
#else
  float* const dst_end = dst + (width & ~int64_t{2 * kLanes - 1});
  if (dst_end != dst) ReduceRowsArmv7<Op, kRows>(in, in_w, dst, dst_end);
  c = dst_end - dst;
#endif
  for (; c + kLanes <= width; c += kLanes) {
    float32x4_t acc = vld1q_f32(in + c);
    for (int r = 1; r < kRows; ++r) acc = Op::Apply(acc, vld1q_f32(in + r * in_w + c));
    vst1q_f32(dst + c, acc);
  }
  for (; c < width; ++c) {
    float acc = in[c];
    for (int r = 1; r < kRows; ++r) acc = Op::Apply(acc, in[r * in_w + c]);
    dst[c] = acc;
  }
}

// The reductions of 4 consecutive output windows, the first starting at
// line cell `p`.
template <class Op, int kKernel, int kStride>
float32x4_t Windows(const float* p) {
  if constexpr (kStride == 1) {
    float32x4_t acc = Op::Apply(vld1q_f32(p), vld1q_f32(p + 1));
    if constexpr (kKernel == 3) acc = Op::Apply(acc, vld1q_f32(p + 2));
    return acc;
  } else {
    const float32x4x2_t pairs = vld2q_f32(p);
    float32x4_t acc = Op::Apply(pairs.val[0], pairs.val[1]);
    if constexpr (kKernel == 3) acc = Op::Apply(acc, vld2q_f32(p + 2).val[0]);
    return acc;
  }
}

template <class Op, int kKernel, int kStride>
void OutputRow(const float* line, const float* scale, float* out, int64_t width) {
  if (width < kLanes) {
    float lanes[kLanes];
    vst1q_f32(lanes, Windows<Op, kKernel, kStride>(line));
    for (int64_t j = 0; j < width; ++j) out[j] = Op::kAverage ? lanes[j] * scale[j] : lanes[j];
    return;
  }
  const int64_t last = width - kLanes;
  for (int64_t j = 0; j < width; j += kLanes) {
    const int64_t column = j < last ? j : last;
    float32x4_t v = Windows<Op, kKernel, kStride>(line + column * kStride);
    if constexpr (Op::kAverage) v = vmulq_f32(v, vld1q_f32(scale + column));
    vst1q_f32(out + column, v);
  }
}

#if !defined(__aarch64__)
// armv7: one output row of a 3x3 stride-2 max straight from its three input
// rows, for n >= 4 outputs whose windows lie inside them (row + 2k, ...,
// row + 2k + 2 for output k; the row reads 2n + 1 floats). Each vld2q splits
// 8 columns into evens and odds; the rows' maxima of the evens one group
// on supply the windows' third column (vext). The line's path reduced
// every column of the three rows into the line and read it back: about 12
// instructions an output, this one 4. A maximum does not depend on the
// order it is taken in, so the outputs are the same.
inline void Max3x3S2Columns(const float* r0, const float* r1, const float* r2, int c,
                            float32x4_t* evens, float32x4_t* odds) {
  const float32x4x2_t a = vld2q_f32(r0 + c), b = vld2q_f32(r1 + c), d = vld2q_f32(r2 + c);
  *evens = vmaxq_f32(vmaxq_f32(a.val[0], b.val[0]), d.val[0]);
  *odds = vmaxq_f32(vmaxq_f32(a.val[1], b.val[1]), d.val[1]);
}

// The column maximum at c in lane 0 (the last window's third column, read
// alone: the group past it may run past the rows' end).
inline float32x4_t Max3x3S2Column(const float* r0, const float* r1, const float* r2, int c) {
  return vmaxq_f32(vmaxq_f32(vld1q_dup_f32(r0 + c), vld1q_dup_f32(r1 + c)), vld1q_dup_f32(r2 + c));
}

void Max3x3S2Row(const float* r0, int in_w, float* out, int n) {
  const float* r1 = r0 + in_w;
  const float* r2 = r1 + in_w;
  float32x4_t evens, odds;
  Max3x3S2Columns(r0, r1, r2, 0, &evens, &odds);
  int k = 0;
  for (; k + 8 <= n; k += 4) {
    float32x4_t next_evens, next_odds;
    Max3x3S2Columns(r0, r1, r2, 2 * k + 8, &next_evens, &next_odds);
    vst1q_f32(out + k, vmaxq_f32(vmaxq_f32(evens, odds), vextq_f32(evens, next_evens, 1)));
    evens = next_evens;
    odds = next_odds;
  }
  // The last whole group, then one more ending at the last output.
  vst1q_f32(out + k, vmaxq_f32(vmaxq_f32(evens, odds),
                               vextq_f32(evens, Max3x3S2Column(r0, r1, r2, 2 * k + 8), 1)));
  if (k + 4 < n) {
    k = n - 4;
    Max3x3S2Columns(r0, r1, r2, 2 * k, &evens, &odds);
    vst1q_f32(out + k, vmaxq_f32(vmaxq_f32(evens, odds),
                                 vextq_f32(evens, Max3x3S2Column(r0, r1, r2, 2 * k + 8), 1)));
  }
}
#endif

template <class Op, int kKernel, int kStride>
void Band(const PoolingBand& band) {
  const int64_t in_w = band.in_w, out_w = band.out_w;
  float* cells = band.line + band.pad_left;
#if !defined(__aarch64__)
  // 3x3 stride-2 max with at most one column of padding on the left (the
  // zoo's pooling layers), whose other outputs' windows lie inside the row:
  // full-height rows go straight from the input (Max3x3S2Row); output 0 of
  // a padded row is the maximum of the row's first two columns.
  const int64_t skip = band.pad_left, direct_w = out_w - skip;
  const bool direct = !Op::kAverage && kKernel == 3 && kStride == 2 && skip <= 1 &&
                      direct_w >= 4 && in_w - skip >= 2 * direct_w + 1 && in_w < (1 << 28);
#endif
  for (int64_t r = 0; r < band.rows; ++r) {
    const PoolingRowWindow& window = band.windows[r];
    float* out = band.out + r * out_w;
    const float* in = band.in + window.first_row * in_w;
#if !defined(__aarch64__)
    if (direct && window.row_count == 3) {
      if (skip == 1) {
        // vmax, as the vector path: a NaN in the window gives NaN.
        const float32x2_t m = vmax_f32(vmax_f32(vld1_f32(in), vld1_f32(in + in_w)),
                                       vld1_f32(in + 2 * in_w));
        out[0] = vget_lane_f32(vpmax_f32(m, m), 0);
      }
      Max3x3S2Row(in + skip, static_cast<int>(in_w), out + skip, static_cast<int>(direct_w));
      continue;
    }
#endif
    switch (window.row_count) {
      case 1:
        ReduceRows<Op, 1>(in, in_w, in_w, cells);
        break;
      case 2:
        ReduceRows<Op, 2>(in, in_w, in_w, cells);
        break;
      case 3:
        ReduceRows<Op, 3>(in, in_w, in_w, cells);
        break;
      default:
        for (int64_t j = 0; j < out_w; ++j) out[j] = 0.f;
        continue;
    }
    OutputRow<Op, kKernel, kStride>(band.line, window.scale, out, out_w);
  }
}

template <class Op>
void BandFor(const PoolingBand& band) {
  if (band.kernel_w == 2) {
    band.stride_w == 1 ? Band<Op, 2, 1>(band) : Band<Op, 2, 2>(band);
  } else {
    band.stride_w == 1 ? Band<Op, 3, 1>(band) : Band<Op, 3, 2>(band);
  }
}

float HorizontalSum(float32x4_t v) {
#if defined(__aarch64__)
  return vaddvq_f32(v);
#else
  const float32x2_t half = vadd_f32(vget_low_f32(v), vget_high_f32(v));
  return vget_lane_f32(vpadd_f32(half, half), 0);
#endif
}

float HorizontalMax(float32x4_t v) {
#if defined(__aarch64__)
  return vmaxvq_f32(v);
#else
  const float32x2_t half = vmax_f32(vget_low_f32(v), vget_high_f32(v));
  return vget_lane_f32(vpmax_f32(half, half), 0);
#endif
}

// Four accumulators hide the add/max latency.
template <class Op>
float ReducePlane(const float* data, int64_t count, float identity) {
  float32x4_t acc0 = vdupq_n_f32(identity), acc1 = acc0, acc2 = acc0, acc3 = acc0;
  int64_t i = 0;
  for (; i + 4 * kLanes <= count; i += 4 * kLanes) {
    acc0 = Op::Apply(acc0, vld1q_f32(data + i));
    acc1 = Op::Apply(acc1, vld1q_f32(data + i + kLanes));
    acc2 = Op::Apply(acc2, vld1q_f32(data + i + 2 * kLanes));
    acc3 = Op::Apply(acc3, vld1q_f32(data + i + 3 * kLanes));
  }
  for (; i + kLanes <= count; i += kLanes) acc0 = Op::Apply(acc0, vld1q_f32(data + i));
  const float32x4_t acc = Op::Apply(Op::Apply(acc0, acc1), Op::Apply(acc2, acc3));
  float result = Op::kAverage ? HorizontalSum(acc) : HorizontalMax(acc);
  for (; i < count; ++i) result = Op::Apply(result, data[i]);
  return result;
}

}  // namespace

void NeonPoolingBand(const PoolingBand& band) {
  if (band.average != 0) {
    BandFor<SumOp>(band);
  } else {
    BandFor<MaxOp>(band);
  }
}

float NeonPlaneSum(const float* data, int64_t count) {
  return ReducePlane<SumOp>(data, count, 0.f);
}

float NeonPlaneMax(const float* data, int64_t count) {
  return ReducePlane<MaxOp>(data, count, -__builtin_inff());
}

}  // namespace arm
}  // namespace ops
}  // namespace mace

#endif  // defined(__aarch64__) || defined(__ARM_NEON)
