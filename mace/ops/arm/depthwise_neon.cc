// NEON bands of a 3x3 depthwise convolution over a zero-padded input: 4
// outputs per vector, four output rows per pass on arm64 (two on armv7) so
// that the input rows they share are loaded once. Stride 2 uses vld2q_f32, which splits 8 inputs into
// even and odd lanes as it loads.
//
// A row's ragged end is one more whole vector ending at the last output: it
// recomputes a few outputs instead of storing lane by lane. Only rows
// narrower than a vector go through a staging vector.
#if defined(__aarch64__) || defined(__ARM_NEON)

#include <arm_neon.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <utility>

#include "mace/ops/arm/neon_epilogue.h"
#include "mace/ops/arm/neon_kernels.h"

namespace mace {
namespace ops {
namespace arm {
namespace {

constexpr int kLanes = 4;

// Loaded once per band into three vectors (taps 0-3, 4-7 and 8), which the
// multiply-adds read by lane. The output may alias the taps as far as the
// compiler knows, so taps read inside the loop would be reloaded after every
// store; and taps held as floats cost armv7 a move from a core register into
// a NEON lane per multiply-add.
struct Taps {
  float32x4_t q[3];
  explicit Taps(const float* taps)
      : q{vld1q_f32(taps), vld1q_f32(taps + 4), vdupq_n_f32(taps[8])} {}
};

template <int kTap>
[[gnu::always_inline]] inline float32x4_t MulAddTap(float32x4_t acc, float32x4_t x,
                                                    const Taps& taps) {
  const float32x4_t q = taps.q[kTap / 4];
#if defined(__aarch64__)
  return vfmaq_laneq_f32(acc, x, q, kTap % 4);
#else
  return vmlaq_lane_f32(acc, x, kTap % 4 < 2 ? vget_low_f32(q) : vget_high_f32(q), kTap % 2);
#endif
}

// The inputs of taps kw = 0, 1, 2 for 4 outputs whose first window starts
// at `in`.
template <int kStrideW>
inline void LoadWindows(const float* in, float32x4_t x[3]) {
  if constexpr (kStrideW == 1) {
    x[0] = vld1q_f32(in);
    x[1] = vld1q_f32(in + 1);
    x[2] = vld1q_f32(in + 2);
  } else {
    const float32x4x2_t pairs = vld2q_f32(in);
    x[0] = pairs.val[0];
    x[1] = pairs.val[1];
    x[2] = vld2q_f32(in + 2).val[0];
  }
}

// Tap row kRow of the filter over one input row's windows.
template <int kRow>
[[gnu::always_inline]] inline float32x4_t TapRow(const float32x4_t x[3], const Taps& taps,
                                                 float32x4_t acc) {
  acc = MulAddTap<3 * kRow>(acc, x[0], taps);
  acc = MulAddTap<3 * kRow + 1>(acc, x[1], taps);
  return MulAddTap<3 * kRow + 2>(acc, x[2], taps);
}

// Tap row kRow, if it is one (0 to 2), over one input row's windows.
template <int kRow>
[[gnu::always_inline]] inline void MaybeTapRow(const float32x4_t x[3], const Taps& taps,
                                               float32x4_t& acc) {
  if constexpr (kRow >= 0 && kRow < 3) acc = TapRow<kRow>(x, taps, acc);
}

template <int kK, int kStrideH, int... kI>
[[gnu::always_inline]] inline void InputRowTaps(std::integer_sequence<int, kI...>,
                                                const float32x4_t x[3], const Taps& taps,
                                                float32x4_t acc[]) {
  (MaybeTapRow<kK - kI * kStrideH>(x, taps, acc[kI]), ...);
}

// Input row kK feeds tap row kK - i * kStrideH of output row i.
template <int kK, int kStrideW, int kStrideH, int kRows>
[[gnu::always_inline]] inline void InputRow(const float* in, int64_t pitch, const Taps& taps,
                                            float32x4_t acc[kRows]) {
  float32x4_t x[3];
  LoadWindows<kStrideW>(in + kK * pitch, x);
  InputRowTaps<kK, kStrideH>(std::make_integer_sequence<int, kRows>(), x, taps, acc);
}

template <int kStrideW, int kStrideH, int kRows, int... kK>
[[gnu::always_inline]] inline void InputRows(std::integer_sequence<int, kK...>, const float* in,
                                             int64_t pitch, const Taps& taps,
                                             float32x4_t acc[kRows]) {
  (InputRow<kK, kStrideW, kStrideH, kRows>(in, pitch, taps, acc), ...);
}

// The fused activation, chosen once per band rather than per vector. No
// activation is a clamp to [-inf, inf], which costs two cheap instructions a
// vector but a third of the code (NEON's max and min propagate NaN).
template <bool kHardSwish>
struct Activate {
  static constexpr bool kClamps = !kHardSwish;  // a clamp to [lo, hi]
  float32x4_t lo, hi;
  explicit Activate(const TileEpilogue& epilogue) {
    const bool clamp = epilogue.activation == kTileActClamp;
    lo = vdupq_n_f32(clamp ? epilogue.lo : -std::numeric_limits<float>::infinity());
    hi = vdupq_n_f32(clamp ? epilogue.hi : std::numeric_limits<float>::infinity());
  }
  float32x4_t operator()(float32x4_t v) const {
    if constexpr (kHardSwish) {
      TileEpilogue epilogue;
      epilogue.activation = kTileActHardSwish;
      return NeonActivate(v, epilogue);
    } else {
      return vminq_f32(vmaxq_f32(v, lo), hi);
    }
  }
};

// kRows output vectors at the same column of consecutive rows, whose first
// windows start at `in`. Always inlined: a call per vector, with the
// accumulators passed through memory, would cost as much as the vector.
template <int kStrideW, int kStrideH, int kRows, typename Activation>
[[gnu::always_inline]] inline void OutputVectors(const float* in, int64_t pitch, const Taps& taps,
                                                 float bias, const Activation& activate,
                                                 float32x4_t acc[kRows]) {
  constexpr int kInputRows = (kRows - 1) * kStrideH + 3;
  #pragma GCC unroll 4
  for (int i = 0; i < kRows; ++i) acc[i] = vdupq_n_f32(bias);
  InputRows<kStrideW, kStrideH, kRows>(std::make_integer_sequence<int, kInputRows>(), in, pitch,
                                       taps, acc);
  #pragma GCC unroll 4
  for (int i = 0; i < kRows; ++i) acc[i] = activate(acc[i]);
}

#if !defined(__aarch64__)
// armv7, stride 1: the windows of 4 outputs slide along each input row.
// A vector's three windows are the row's vector at the output column (kept
// from the previous vector) and two vext of it with the next vector, which
// is the row's only load (its pointer increment folded in): 3 instructions
// per input row, where GCC's three loads at offsets 0, 1 and 2 took 5
// (armv7's vld1 has no immediate offset) and it spent 4 more on a 64-bit
// loop count. The accumulators start from the bias, duplicated from a core
// register. A step of the loop is two vectors, the kept vectors alternating
// between q7-q10 and q11-q14 so that none is moved: two output rows take 19
// instructions per output vector, where GCC's loop took about 28.
// Registers: taps 0-8 in d0[0]-d4[0], the bounds in q3 and q4, the
// accumulators q5 (row 0) and q6 (row 1), q15 the window being formed.
// clang-format off
#define MACE_DW_EXT(c, n, k) "vext.32 q15, " c ", " n ", #" #k "\n"
// An input row that feeds tap row (a) of output row 0 only.
#define MACE_DW_ROW_A(r, c, n, nd, a0, a1, a2)                              \
  "vld1.32 {" nd "}, [%[" r "]]!\n"                                        \
  "vmla.f32 q5, " c ", " a0 "\n"                                           \
  MACE_DW_EXT(c, n, 1) "vmla.f32 q5, q15, " a1 "\n"                        \
  MACE_DW_EXT(c, n, 2) "vmla.f32 q5, q15, " a2 "\n"
// An input row that feeds tap rows (a) of output row 0 and (b) of row 1.
#define MACE_DW_ROW_AB(r, c, n, nd, a0, a1, a2, b0, b1, b2)                 \
  "vld1.32 {" nd "}, [%[" r "]]!\n"                                        \
  "vmla.f32 q5, " c ", " a0 "\n"                                           \
  "vmla.f32 q6, " c ", " b0 "\n"                                           \
  MACE_DW_EXT(c, n, 1) "vmla.f32 q5, q15, " a1 "\n"                        \
  "vmla.f32 q6, q15, " b1 "\n"                                             \
  MACE_DW_EXT(c, n, 2) "vmla.f32 q5, q15, " a2 "\n"                        \
  "vmla.f32 q6, q15, " b2 "\n"
// An input row that feeds tap row 2 of output row 1 only.
#define MACE_DW_ROW_B(r, c, n, nd)                                          \
  "vld1.32 {" nd "}, [%[" r "]]!\n"                                        \
  "vmla.f32 q6, " c ", d3[0]\n"                                            \
  MACE_DW_EXT(c, n, 1) "vmla.f32 q6, q15, d3[1]\n"                         \
  MACE_DW_EXT(c, n, 2) "vmla.f32 q6, q15, d4[0]\n"
// Calls with argument lists that come from the macros below.
#define MACE_DW_EXPAND(m, ...) m(__VA_ARGS__)
#define MACE_DW_EXPAND_ROW(m, ...) m(__VA_ARGS__)
#define MACE_DW_TAPS0 "d0[0]", "d0[1]", "d1[0]"
#define MACE_DW_TAPS1 "d1[1]", "d2[0]", "d2[1]"
#define MACE_DW_TAPS2 "d3[0]", "d3[1]", "d4[0]"
// One output vector of both rows, from the kept vectors c0-c3 and the next
// ones n0-n3 (d registers nd0-nd3).
#define MACE_DW_TWO(c0, c1, c2, c3, n0, n1, n2, n3, nd0, nd1, nd2, nd3)     \
  "vdup.32 q5, %[bias]\n"                                                  \
  "vdup.32 q6, %[bias]\n"                                                  \
  MACE_DW_EXPAND_ROW(MACE_DW_ROW_A, "r0", c0, n0, nd0, MACE_DW_TAPS0)                          \
  MACE_DW_EXPAND_ROW(MACE_DW_ROW_AB, "r1", c1, n1, nd1, MACE_DW_TAPS1, MACE_DW_TAPS0)          \
  MACE_DW_EXPAND_ROW(MACE_DW_ROW_AB, "r2", c2, n2, nd2, MACE_DW_TAPS2, MACE_DW_TAPS1)          \
  MACE_DW_ROW_B("r3", c3, n3, nd3)                                          \
  "vmax.f32 q5, q5, q3\n"                                                  \
  "vmax.f32 q6, q6, q3\n"                                                  \
  "vmin.f32 q5, q5, q4\n"                                                  \
  "vmin.f32 q6, q6, q4\n"                                                  \
  "vst1.32 {d10-d11}, [%[o0]]!\n"                                          \
  "vst1.32 {d12-d13}, [%[o1]]!\n"
// One output vector of one row (input rows r0-r2).
#define MACE_DW_ONE(c0, c1, c2, n0, n1, n2, nd0, nd1, nd2)                  \
  "vdup.32 q5, %[bias]\n"                                                  \
  MACE_DW_EXPAND_ROW(MACE_DW_ROW_A, "r0", c0, n0, nd0, MACE_DW_TAPS0)                          \
  MACE_DW_EXPAND_ROW(MACE_DW_ROW_A, "r1", c1, n1, nd1, MACE_DW_TAPS1)                          \
  MACE_DW_EXPAND_ROW(MACE_DW_ROW_A, "r2", c2, n2, nd2, MACE_DW_TAPS2)                          \
  "vmax.f32 q5, q5, q3\n"                                                  \
  "vmin.f32 q5, q5, q4\n"                                                  \
  "vst1.32 {d10-d11}, [%[o0]]!\n"

#define MACE_DW_A "q7", "q8", "q9", "q10"
#define MACE_DW_B "q11", "q12", "q13", "q14"
#define MACE_DW_AD "d14-d15", "d16-d17", "d18-d19", "d20-d21"
#define MACE_DW_BD "d22-d23", "d24-d25", "d26-d27", "d28-d29"
// Loads the taps and bounds, and the first vector of each input row into
// the A set (the rows not used load from r0 again, harmlessly).
#define MACE_DW_START                                                       \
  "vld1.32 {d0-d3}, [%[taps]]!\n"                                          \
  "vld1.32 {d4[], d5[]}, [%[taps]]\n"                                      \
  "vld1.32 {d6[], d7[]}, [%[bounds]]!\n"                                   \
  "vld1.32 {d8[], d9[]}, [%[bounds]]\n"                                    \
  "vld1.32 {d14-d15}, [%[r0]]!\n"                                          \
  "vld1.32 {d16-d17}, [%[r1]]!\n"                                          \
  "vld1.32 {d18-d19}, [%[r2]]!\n"                                          \
  "vld1.32 {d20-d21}, [%[r3]]!\n"
// Pairs of vectors (n of them), then one more if odd is set.
#define MACE_DW_LOOP(vector_ab, vector_ba)                                  \
  "cmp %[n], #0\n"                                                         \
  "beq 2f\n"                                                               \
  "1:\n"                                                                   \
  vector_ab vector_ba                                                      \
  "subs %[n], %[n], #1\n"                                                  \
  "bne 1b\n"                                                               \
  "2:\n"                                                                   \
  "cmp %[odd], #0\n"                                                       \
  "beq 3f\n"                                                               \
  vector_ab                                                                \
  "3:\n"

// Writes the first outputs of kRows (1 or 2) rows (`width` apart at `out`),
// a vector at a time while the next input vector lies inside the row (which
// holds at least width + 2 inputs), clamped to [lo, hi]; returns how many
// of each row it wrote.
// Below about this width the call and its set-up (about 50 instructions
// a pass) cost more than the vectors save. A band of 3 rows under qemu,
// sliding against the intrinsics: 28 outputs 822 instructions against 805,
// 36 948 against 988, 56 1259 against 1441, 112 2139 against 2713.
constexpr int64_t kSlidingMinWidth = 40;

template <int kRows>
[[gnu::noinline]] int64_t SlidingVectors(const float* in, int64_t pitch, const float* taps,
                                         float bias, float lo, float hi, float* out,
                                         int64_t width) {
  const int vectors = static_cast<int>((width - 2) / kLanes);
  if (vectors <= 0) return 0;
  const float bounds_values[2] = {lo, hi};
  uint32_t bias_bits;
  std::memcpy(&bias_bits, &bias, sizeof(bias_bits));
  const float* r0 = in;
  const float* r1 = in + pitch;
  const float* r2 = r1 + pitch;
  const float* r3 = kRows == 2 ? r2 + pitch : in;
  float* o0 = out;
  float* o1 = out + width;
  int n = vectors / 2;
  const float* bounds = bounds_values;
  if constexpr (kRows == 2) {
    __asm__ volatile(
        MACE_DW_START
        MACE_DW_LOOP(MACE_DW_EXPAND(MACE_DW_TWO, MACE_DW_A, MACE_DW_B, MACE_DW_BD),
                     MACE_DW_EXPAND(MACE_DW_TWO, MACE_DW_B, MACE_DW_A, MACE_DW_AD))
        : [r0] "+r"(r0), [r1] "+r"(r1), [r2] "+r"(r2), [r3] "+r"(r3), [o0] "+r"(o0),
          [o1] "+r"(o1), [n] "+r"(n), [bounds] "+r"(bounds), [taps] "+r"(taps)
        : [bias] "r"(bias_bits), [odd] "r"(vectors & 1)
        : "cc", "memory", "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8", "d9", "d10",
          "d11", "d12", "d13", "d14", "d15", "d16", "d17", "d18", "d19", "d20", "d21", "d22",
          "d23", "d24", "d25", "d26", "d27", "d28", "d29", "d30", "d31");
  } else {
    __asm__ volatile(
        MACE_DW_START
        MACE_DW_LOOP(MACE_DW_ONE("q7", "q8", "q9", "q11", "q12", "q13",
                                 "d22-d23", "d24-d25", "d26-d27"),
                     MACE_DW_ONE("q11", "q12", "q13", "q7", "q8", "q9",
                                 "d14-d15", "d16-d17", "d18-d19"))
        : [r0] "+r"(r0), [r1] "+r"(r1), [r2] "+r"(r2), [r3] "+r"(r3), [o0] "+r"(o0),
          [n] "+r"(n), [bounds] "+r"(bounds), [taps] "+r"(taps)
        : [bias] "r"(bias_bits), [odd] "r"(vectors & 1)
        : "cc", "memory", "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8", "d9", "d10",
          "d11", "d12", "d13", "d14", "d15", "d16", "d17", "d18", "d19", "d20", "d21", "d22",
          "d23", "d24", "d25", "d26", "d27", "d28", "d29", "d30", "d31");
  }
  return int64_t{vectors} * kLanes;
}
// clang-format on
#undef MACE_DW_LOOP
#undef MACE_DW_START
#undef MACE_DW_BD
#undef MACE_DW_AD
#undef MACE_DW_B
#undef MACE_DW_A
#undef MACE_DW_ONE
#undef MACE_DW_TWO
#undef MACE_DW_TAPS2
#undef MACE_DW_TAPS1
#undef MACE_DW_TAPS0
#undef MACE_DW_ROW_B
#undef MACE_DW_ROW_AB
#undef MACE_DW_ROW_A
#undef MACE_DW_EXT
#undef MACE_DW_EXPAND
#undef MACE_DW_EXPAND_ROW
#endif

#if defined(__aarch64__)
// arm64, stride 1, four output rows: the whole vectors of a pass in
// assembly. Each of the 6 input rows is three loads (at 0, 4 and 8 bytes,
// the last post-incremented), which feed the 3 tap rows they meet; the taps
// stay in three registers, read by lane, and the loop walks the 10 row
// pointers by post-increment. 72 instructions per 4 output vectors, where
// GCC's loop of OutputVectors took 77 (its address arithmetic). The sums
// are the same, in the same order. Returns the outputs written per row.
// clang-format off
#define MACE_DW4_LOAD(r)                                                     \
  "ldur q21, [%[" r "], #4]\n"                                              \
  "ldur q22, [%[" r "], #8]\n"                                              \
  "ldr q20, [%[" r "]], #16\n"
#define MACE_DW4_TAPS(acc, t0, t1, t2)                                       \
  "fmla " acc ".4s, v20.4s, " t0 "\n"                                        \
  "fmla " acc ".4s, v21.4s, " t1 "\n"                                        \
  "fmla " acc ".4s, v22.4s, " t2 "\n"
#define MACE_DW4_ROW0 "%[t0].s[0]", "%[t0].s[1]", "%[t0].s[2]"
#define MACE_DW4_ROW1 "%[t0].s[3]", "%[t1].s[0]", "%[t1].s[1]"
#define MACE_DW4_ROW2 "%[t1].s[2]", "%[t1].s[3]", "%[t2].s[0]"
#define MACE_DW4_EXPAND(m, ...) m(__VA_ARGS__)
inline int64_t AsmFourRowsS1(const float* in, int64_t pitch, const Taps& taps, float bias,
                             float32x4_t lo, float32x4_t hi, float* out, int64_t width) {
  int64_t n = width / kLanes;
  if (n == 0) return 0;
  const float* r0 = in;
  const float* r1 = r0 + pitch;
  const float* r2 = r1 + pitch;
  const float* r3 = r2 + pitch;
  const float* r4 = r3 + pitch;
  const float* r5 = r4 + pitch;
  float* o0 = out;
  float* o1 = o0 + width;
  float* o2 = o1 + width;
  float* o3 = o2 + width;
  const float32x4_t b = vdupq_n_f32(bias);
  __asm__ volatile(
      "1:\n"
      "mov v16.16b, %[b].16b\n"
      "mov v17.16b, %[b].16b\n"
      "mov v18.16b, %[b].16b\n"
      "mov v19.16b, %[b].16b\n"
      MACE_DW4_LOAD("r0")
      MACE_DW4_EXPAND(MACE_DW4_TAPS, "v16", MACE_DW4_ROW0)
      MACE_DW4_LOAD("r1")
      MACE_DW4_EXPAND(MACE_DW4_TAPS, "v16", MACE_DW4_ROW1)
      MACE_DW4_EXPAND(MACE_DW4_TAPS, "v17", MACE_DW4_ROW0)
      MACE_DW4_LOAD("r2")
      MACE_DW4_EXPAND(MACE_DW4_TAPS, "v16", MACE_DW4_ROW2)
      MACE_DW4_EXPAND(MACE_DW4_TAPS, "v17", MACE_DW4_ROW1)
      MACE_DW4_EXPAND(MACE_DW4_TAPS, "v18", MACE_DW4_ROW0)
      MACE_DW4_LOAD("r3")
      MACE_DW4_EXPAND(MACE_DW4_TAPS, "v17", MACE_DW4_ROW2)
      MACE_DW4_EXPAND(MACE_DW4_TAPS, "v18", MACE_DW4_ROW1)
      MACE_DW4_EXPAND(MACE_DW4_TAPS, "v19", MACE_DW4_ROW0)
      MACE_DW4_LOAD("r4")
      MACE_DW4_EXPAND(MACE_DW4_TAPS, "v18", MACE_DW4_ROW2)
      MACE_DW4_EXPAND(MACE_DW4_TAPS, "v19", MACE_DW4_ROW1)
      MACE_DW4_LOAD("r5")
      MACE_DW4_EXPAND(MACE_DW4_TAPS, "v19", MACE_DW4_ROW2)
      "fmax v16.4s, v16.4s, %[lo].4s\n"
      "fmax v17.4s, v17.4s, %[lo].4s\n"
      "fmax v18.4s, v18.4s, %[lo].4s\n"
      "fmax v19.4s, v19.4s, %[lo].4s\n"
      "fmin v16.4s, v16.4s, %[hi].4s\n"
      "fmin v17.4s, v17.4s, %[hi].4s\n"
      "fmin v18.4s, v18.4s, %[hi].4s\n"
      "fmin v19.4s, v19.4s, %[hi].4s\n"
      "subs %[n], %[n], #1\n"
      "str q16, [%[o0]], #16\n"
      "str q17, [%[o1]], #16\n"
      "str q18, [%[o2]], #16\n"
      "str q19, [%[o3]], #16\n"
      "b.ne 1b\n"
      : [r0] "+r"(r0), [r1] "+r"(r1), [r2] "+r"(r2), [r3] "+r"(r3), [r4] "+r"(r4),
        [r5] "+r"(r5), [o0] "+r"(o0), [o1] "+r"(o1), [o2] "+r"(o2), [o3] "+r"(o3), [n] "+r"(n)
      : [t0] "w"(taps.q[0]), [t1] "w"(taps.q[1]), [t2] "w"(taps.q[2]), [lo] "w"(lo),
        [hi] "w"(hi), [b] "w"(b)
      : "cc", "memory", "v16", "v17", "v18", "v19", "v20", "v21", "v22");
  return width / kLanes * kLanes;
}
#undef MACE_DW4_LOAD
#undef MACE_DW4_TAPS
#undef MACE_DW4_ROW0
#undef MACE_DW4_ROW1
#undef MACE_DW4_ROW2
#undef MACE_DW4_EXPAND
// clang-format on
#endif

#if defined(__aarch64__)
// arm64, stride 2 (both ways), four output rows: as AsmFourRowsS1, but
// each of the 9 input rows is two ld2 (the even and odd inputs from the
// window's start, then the even ones from 2 on), post-incremented by 8
// and then 24 bytes. 72 instructions per 4 output vectors, GCC's loop 94
// (an address per row and a spill). Nine row pointers leave too few asm
// operands for the taps, bounds and bias in registers of the compiler's
// choice: taps 0-8 go to v24-v26 and the bounds and bias to v27-v29 from
// memory before the loop, and one pointer stores the four output rows.
// clang-format off
#define MACE_DW4_TAPS(acc, t0, t1, t2)                                       \
  "fmla " acc ".4s, v20.4s, " t0 "\n"                                        \
  "fmla " acc ".4s, v21.4s, " t1 "\n"                                        \
  "fmla " acc ".4s, v22.4s, " t2 "\n"
#define MACE_DW4_ROW0 "v24.s[0]", "v24.s[1]", "v24.s[2]"
#define MACE_DW4_ROW1 "v24.s[3]", "v25.s[0]", "v25.s[1]"
#define MACE_DW4_ROW2 "v25.s[2]", "v25.s[3]", "v26.s[0]"
#define MACE_DW4_EXPAND(m, ...) m(__VA_ARGS__)
// Output row `acc` += tap row `row` over the windows in v20-v22.
#define MACE_DW4(acc, row) MACE_DW4_EXPAND(MACE_DW4_TAPS, #acc, MACE_DW4_ROW##row)
#define MACE_DW4_START                                                       \
  "ld1 {v24.4s, v25.4s, v26.4s}, [%[taps]]\n"                                \
  "ld3r {v27.4s, v28.4s, v29.4s}, [%[consts]]\n"                             \
  "1:\n"                                                                     \
  "mov v16.16b, v29.16b\n"                                                   \
  "mov v17.16b, v29.16b\n"                                                   \
  "mov v18.16b, v29.16b\n"                                                   \
  "mov v19.16b, v29.16b\n"
// The four accumulators clamped and stored (rows wb, 2 wb and 3 wb bytes
// after the first), and the loop's end.
#define MACE_DW4_CLAMP_STORE                                                 \
  "fmax v16.4s, v16.4s, v27.4s\n"                                            \
  "fmax v17.4s, v17.4s, v27.4s\n"                                            \
  "fmax v18.4s, v18.4s, v27.4s\n"                                            \
  "fmax v19.4s, v19.4s, v27.4s\n"                                            \
  "fmin v16.4s, v16.4s, v28.4s\n"                                            \
  "fmin v17.4s, v17.4s, v28.4s\n"                                            \
  "fmin v18.4s, v18.4s, v28.4s\n"                                            \
  "fmin v19.4s, v19.4s, v28.4s\n"                                            \
  "subs %[n], %[n], #1\n"                                                    \
  "str q17, [%[o], %[wb]]\n"                                                 \
  "str q18, [%[o], %[wb2]]\n"                                                \
  "str q19, [%[o], %[wb3]]\n"                                                \
  "str q16, [%[o]], #16\n"                                                   \
  "b.ne 1b\n"
#define MACE_DW4_CLOBBERS                                                    \
  "cc", "memory", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23",    \
  "v24", "v25", "v26", "v27", "v28", "v29"
#define MACE_DW4_LOAD2(r)                                                    \
  "ld2 {v20.4s, v21.4s}, [%[" r "]], %[eight]\n"                            \
  "ld2 {v22.4s, v23.4s}, [%[" r "]], %[rest]\n"

inline int64_t AsmFourRowsS2(const float* in, int64_t pitch, const Taps& taps, float bias,
                             float32x4_t lo, float32x4_t hi, float* out, int64_t width) {
  int64_t n = width / kLanes;
  if (n == 0) return 0;
  alignas(16) float tap_values[12];
  vst1q_f32(tap_values, taps.q[0]);
  vst1q_f32(tap_values + 4, taps.q[1]);
  vst1q_f32(tap_values + 8, taps.q[2]);
  const float consts[3] = {vgetq_lane_f32(lo, 0), vgetq_lane_f32(hi, 0), bias};
  const float* r[9];
  for (int k = 0; k < 9; ++k) r[k] = in + k * pitch;
  float* o = out;
  const int64_t wb = width * static_cast<int64_t>(sizeof(float));
  const int64_t eight = 2 * sizeof(float), rest = 6 * sizeof(float);
  __asm__ volatile(
      MACE_DW4_START
      MACE_DW4_LOAD2("r0") MACE_DW4(v16, 0)
      MACE_DW4_LOAD2("r1") MACE_DW4(v16, 1)
      MACE_DW4_LOAD2("r2") MACE_DW4(v16, 2) MACE_DW4(v17, 0)
      MACE_DW4_LOAD2("r3") MACE_DW4(v17, 1)
      MACE_DW4_LOAD2("r4") MACE_DW4(v17, 2) MACE_DW4(v18, 0)
      MACE_DW4_LOAD2("r5") MACE_DW4(v18, 1)
      MACE_DW4_LOAD2("r6") MACE_DW4(v18, 2) MACE_DW4(v19, 0)
      MACE_DW4_LOAD2("r7") MACE_DW4(v19, 1)
      MACE_DW4_LOAD2("r8") MACE_DW4(v19, 2)
      MACE_DW4_CLAMP_STORE
      : [r0] "+r"(r[0]), [r1] "+r"(r[1]), [r2] "+r"(r[2]), [r3] "+r"(r[3]), [r4] "+r"(r[4]),
        [r5] "+r"(r[5]), [r6] "+r"(r[6]), [r7] "+r"(r[7]), [r8] "+r"(r[8]), [o] "+r"(o),
        [n] "+r"(n)
      : [taps] "r"(tap_values), [consts] "r"(consts), [wb] "r"(wb), [wb2] "r"(2 * wb),
        [wb3] "r"(3 * wb), [eight] "r"(eight), [rest] "r"(rest)
      : MACE_DW4_CLOBBERS);
  return width / kLanes * kLanes;
}
#undef MACE_DW4_TAPS
#undef MACE_DW4_ROW0
#undef MACE_DW4_ROW1
#undef MACE_DW4_ROW2
#undef MACE_DW4_EXPAND
#undef MACE_DW4
#undef MACE_DW4_START
#undef MACE_DW4_CLAMP_STORE
#undef MACE_DW4_CLOBBERS
#undef MACE_DW4_LOAD2
// clang-format on
#endif

// Writes kRows output rows (of `width`, one after the other at `out`) whose
// windows start at input row `in`.
template <int kStrideW, int kStrideH, int kRows, typename Activation, bool kSlide = false>
[[gnu::always_inline]] inline void OutputRows(const float* in, int64_t pitch, const Taps& taps,
                                              float bias, const Activation& activate, float* out,
                                              int64_t width, const float* tap_values = nullptr) {
  float32x4_t acc[kRows];
  if (width < kLanes) {
    OutputVectors<kStrideW, kStrideH, kRows>(in, pitch, taps, bias, activate, acc);
    for (int i = 0; i < kRows; ++i) {
      float staged[kLanes];
      vst1q_f32(staged, acc[i]);
      for (int64_t j = 0; j < width; ++j) out[i * width + j] = staged[j];
    }
    return;
  }
  int64_t j = 0;
#if defined(__aarch64__)
  if constexpr (kStrideW == 1 && kStrideH == 1 && kRows == 4 && Activation::kClamps) {
    j = AsmFourRowsS1(in, pitch, taps, bias, activate.lo, activate.hi, out, width);
  }
  if constexpr (kStrideW == 2 && kStrideH == 2 && kRows == 4 && Activation::kClamps) {
    j = AsmFourRowsS2(in, pitch, taps, bias, activate.lo, activate.hi, out, width);
  }
#else
  if constexpr (kSlide) {
    j = SlidingVectors<kRows>(in, pitch, tap_values, bias, vgetq_lane_f32(activate.lo, 0),
                              vgetq_lane_f32(activate.hi, 0), out, width);
  }
#endif
  for (; j + kLanes <= width; j += kLanes) {
    OutputVectors<kStrideW, kStrideH, kRows>(in + j * kStrideW, pitch, taps, bias, activate, acc);
    #pragma GCC unroll 4
    for (int i = 0; i < kRows; ++i) vst1q_f32(out + i * width + j, acc[i]);
  }
  if (j < width) {
    j = width - kLanes;
    OutputVectors<kStrideW, kStrideH, kRows>(in + j * kStrideW, pitch, taps, bias, activate, acc);
    #pragma GCC unroll 4
    for (int i = 0; i < kRows; ++i) vst1q_f32(out + i * width + j, acc[i]);
  }
}

// Output rows per pass. Stride 1 reads kRows + 2 input rows for kRows
// output rows: 3 loads per output vector at 4 rows, 4.5 at 2. The arm64
// loop of 4 rows holds 4 accumulators, 9 taps, 3 windows and the bounds in
// its 32 registers; armv7 has 16 and stays at 2.
#if defined(__aarch64__)
constexpr int kPassRows = 4;
#else
constexpr int kPassRows = 2;
#endif

// On armv7 each band is a function of its own: inlined next to the
// sliding band, GCC's code for narrow rows took 2-6 % more instructions.
#if defined(__aarch64__)
#define MACE_DW_BAND_ATTRIBUTES
#else
#define MACE_DW_BAND_ATTRIBUTES [[gnu::noinline]]
#endif
template <int kStrideW, int kStrideH, bool kHardSwish, bool kSlide = false>
MACE_DW_BAND_ATTRIBUTES void Band(const DepthwiseBand& band) {
  const Taps taps(band.taps);
  const Activate<kHardSwish> activate(band.epilogue);
  const int64_t pitch = band.in_pitch, width = band.out_w;
  int64_t r = 0;
  if constexpr (kPassRows == 4) {
    for (; r + 4 <= band.rows; r += 4) {
      OutputRows<kStrideW, kStrideH, 4>(band.in + r * kStrideH * pitch, pitch, taps, band.bias,
                                        activate, band.out + r * width, width);
    }
  }
  for (; r + 2 <= band.rows; r += 2) {
    OutputRows<kStrideW, kStrideH, 2, Activate<kHardSwish>, kSlide>(
        band.in + r * kStrideH * pitch, pitch, taps, band.bias, activate, band.out + r * width,
        width, band.taps);
  }
  if (r < band.rows) {
    OutputRows<kStrideW, kStrideH, 1, Activate<kHardSwish>, kSlide>(
        band.in + r * kStrideH * pitch, pitch, taps, band.bias, activate, band.out + r * width,
        width, band.taps);
  }
}

#undef MACE_DW_BAND_ATTRIBUTES

template <int kStrideW, int kStrideH>
void Band(const DepthwiseBand& band) {
  if (band.epilogue.activation == kTileActHardSwish) {
    Band<kStrideW, kStrideH, true>(band);
  } else {
#if !defined(__aarch64__)
    if (kStrideW == 1 && kStrideH == 1 && band.out_w >= kSlidingMinWidth) {
      return Band<1, 1, false, true>(band);
    }
#endif
    Band<kStrideW, kStrideH, false>(band);
  }
}

}  // namespace

void NeonDepthwise3x3S1(const DepthwiseBand& band) {
  if (band.stride_h == 1) {
    Band<1, 1>(band);
  } else {
    Band<1, 2>(band);
  }
}

void NeonDepthwise3x3S2(const DepthwiseBand& band) {
  if (band.stride_h == 1) {
    Band<2, 1>(band);
  } else {
    Band<2, 2>(band);
  }
}

}  // namespace arm
}  // namespace ops
}  // namespace mace

#endif  // __aarch64__ || __ARM_NEON
