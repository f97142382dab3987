// NEON bands of a 3x3 depthwise convolution over a zero-padded input: 4
// outputs per vector, four output rows per pass on arm64 (two on armv7) so
// that the input rows they share are loaded once. Stride 2 uses vld2q_f32, which splits 8 inputs
// into even and odd lanes as it loads. On arm64, rows of 8 or more outputs
// run in steps of 2 or 4 vectors a row (stride 2: ld4, 2), which load an
// input row's windows for all of them at once.
//
// A row's ragged end is one more whole vector (or step) ending at the last
// output: it recomputes a few outputs instead of storing lane by lane. Only
// rows narrower than a vector go through a staging vector.
#if defined(__aarch64__) || defined(__ARM_NEON)

#include <arm_neon.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <utility>

#include "mace/ops/arm/linked_variants.h"
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

// The fused activation, chosen once per band rather than per vector. On
// arm64 no activation and ReLU skip the clamp's min (and max) a vector; on
// armv7 every non-hard-swish band clamps, no activation to [-inf, inf]
// (NEON's max and min propagate NaN, so the results are the same).
enum : int { kActNone = 0, kActMax = 1, kActClamp = 2, kActHardSwish = 3 };
// The kind that runs each ChooseClamp kind in this build: a variant the
// build leaves out (linked_variants.h) is never named.
constexpr int kUnclampedAct = kLinksDepthwiseUnclamped ? kActNone : kActClamp;
constexpr int kLowerClampAct = kLinksDepthwiseLowerClamp ? kActMax : kActClamp;
template <int kActKind>
struct Activate {
  static constexpr int kAct = kActKind;
  static constexpr bool kClamps = kAct != kActHardSwish;  // none, max or [lo, hi]
  float32x4_t lo, hi;
  explicit Activate(const TileEpilogue& epilogue) {
    const bool clamp = epilogue.activation == kTileActClamp;
    lo = vdupq_n_f32(clamp ? epilogue.lo : -std::numeric_limits<float>::infinity());
    hi = vdupq_n_f32(clamp ? epilogue.hi : std::numeric_limits<float>::infinity());
  }
  float32x4_t operator()(float32x4_t v) const {
    if constexpr (kAct == kActHardSwish) {
      TileEpilogue epilogue;
      epilogue.activation = kTileActHardSwish;
      return NeonActivate(v, epilogue);
    } else if constexpr (kAct == kActNone) {
      return v;
    } else if constexpr (kAct == kActMax) {
      return vmaxq_f32(v, lo);
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
// loop count. The accumulators start from the bias (d5). A step of the
// loop is two vectors, the kept vectors alternating between q7-q10 and
// q11-q14 so that none is moved: two output rows take 19 instructions per
// output vector, where GCC's loop took about 28. A row's ragged end is one
// or two vectors ending at its last output, each input row's 6 floats in
// one vld1 (so nothing past the row is read). One call runs the whole band.
// Registers: taps 0-8 in d0[0]-d4[0], the bias in d5, the bounds in q3 and
// q4, the accumulators q5 (row 0) and q6 (row 1), q15 the window being
// formed.
// clang-format off
#define MACE_DW_EXT(c, n, k) "vext.32 q15, " c ", " n ", #" #k "\n"
// An input row (its next vector loaded by `load`) that feeds tap row (a)
// of output row 0 only.
#define MACE_DW_ROW_A(load, c, n, a0, a1, a2)                                \
  load                                                                     \
  "vmla.f32 q5, " c ", " a0 "\n"                                           \
  MACE_DW_EXT(c, n, 1) "vmla.f32 q5, q15, " a1 "\n"                        \
  MACE_DW_EXT(c, n, 2) "vmla.f32 q5, q15, " a2 "\n"
// An input row that feeds tap rows (a) of output row 0 and (b) of row 1.
#define MACE_DW_ROW_AB(load, c, n, a0, a1, a2, b0, b1, b2)                   \
  load                                                                     \
  "vmla.f32 q5, " c ", " a0 "\n"                                           \
  "vmla.f32 q6, " c ", " b0 "\n"                                           \
  MACE_DW_EXT(c, n, 1) "vmla.f32 q5, q15, " a1 "\n"                        \
  "vmla.f32 q6, q15, " b1 "\n"                                             \
  MACE_DW_EXT(c, n, 2) "vmla.f32 q5, q15, " a2 "\n"                        \
  "vmla.f32 q6, q15, " b2 "\n"
// An input row that feeds tap row 2 of output row 1 only.
#define MACE_DW_ROW_B(load, c, n)                                            \
  load                                                                     \
  "vmla.f32 q6, " c ", d3[0]\n"                                            \
  MACE_DW_EXT(c, n, 1) "vmla.f32 q6, q15, d3[1]\n"                         \
  MACE_DW_EXT(c, n, 2) "vmla.f32 q6, q15, d4[0]\n"
// The sliding load: row r's next vector into nd, the pointer advancing.
#define MACE_DW_NEXT(r, nd) "vld1.32 {" nd "}, [%[" r "]]!\n"
// Calls with argument lists that come from the macros below.
#define MACE_DW_EXPAND(m, ...) m(__VA_ARGS__)
#define MACE_DW_EXPAND_ROW(m, ...) m(__VA_ARGS__)
#define MACE_DW_TAPS0 "d0[0]", "d0[1]", "d1[0]"
#define MACE_DW_TAPS1 "d1[1]", "d2[0]", "d2[1]"
#define MACE_DW_TAPS2 "d3[0]", "d3[1]", "d4[0]"
// One output vector of both rows, from the kept vectors c0-c3 and the next
// ones n0-n3, which load0-load3 fill.
#define MACE_DW_TWO_LOADED(c0, c1, c2, c3, n0, n1, n2, n3, l0, l1, l2, l3)  \
  "vdup.32 q5, d5[0]\n"                                                    \
  "vdup.32 q6, d5[0]\n"                                                    \
  MACE_DW_EXPAND_ROW(MACE_DW_ROW_A, l0, c0, n0, MACE_DW_TAPS0)                                 \
  MACE_DW_EXPAND_ROW(MACE_DW_ROW_AB, l1, c1, n1, MACE_DW_TAPS1, MACE_DW_TAPS0)                 \
  MACE_DW_EXPAND_ROW(MACE_DW_ROW_AB, l2, c2, n2, MACE_DW_TAPS2, MACE_DW_TAPS1)                 \
  MACE_DW_ROW_B(l3, c3, n3)                                                 \
  "vmax.f32 q5, q5, q3\n"                                                  \
  "vmax.f32 q6, q6, q3\n"                                                  \
  "vmin.f32 q5, q5, q4\n"                                                  \
  "vmin.f32 q6, q6, q4\n"
// The sliding step: n0-n3 (d registers nd0-nd3) loaded as the next vectors.
#define MACE_DW_TWO(c0, c1, c2, c3, n0, n1, n2, n3, nd0, nd1, nd2, nd3)     \
  MACE_DW_TWO_LOADED(c0, c1, c2, c3, n0, n1, n2, n3, MACE_DW_NEXT("r0", nd0), \
                     MACE_DW_NEXT("r1", nd1), MACE_DW_NEXT("r2", nd2),      \
                     MACE_DW_NEXT("r3", nd3))                               \
  "vst1.32 {d10-d11}, [%[o0]]!\n"                                          \
  "vst1.32 {d12-d13}, [%[o1]]!\n"
// One output vector of one row (input rows r0-r2).
#define MACE_DW_ONE_LOADED(c0, c1, c2, n0, n1, n2, l0, l1, l2)              \
  "vdup.32 q5, d5[0]\n"                                                    \
  MACE_DW_EXPAND_ROW(MACE_DW_ROW_A, l0, c0, n0, MACE_DW_TAPS0)                                 \
  MACE_DW_EXPAND_ROW(MACE_DW_ROW_A, l1, c1, n1, MACE_DW_TAPS1)                                 \
  MACE_DW_EXPAND_ROW(MACE_DW_ROW_A, l2, c2, n2, MACE_DW_TAPS2)                                 \
  "vmax.f32 q5, q5, q3\n"                                                  \
  "vmin.f32 q5, q5, q4\n"
#define MACE_DW_ONE(c0, c1, c2, n0, n1, n2, nd0, nd1, nd2)                  \
  MACE_DW_ONE_LOADED(c0, c1, c2, n0, n1, n2, MACE_DW_NEXT("r0", nd0),       \
                     MACE_DW_NEXT("r1", nd1), MACE_DW_NEXT("r2", nd2))      \
  "vst1.32 {d10-d11}, [%[o0]]!\n"
// The ragged end's vectors: row r's 6 floats from the vector's first
// window into c (d registers d, d+1) and the low half of n (d+2), the
// pointers advancing one float (t holds 4), so that a vector reads and
// writes nothing past its row.
#define MACE_DW_SIX(r, d) "vld1.32 {" d "}, [%[" r "]], %[t]\n"
#define MACE_DW_TAIL_TWO                                                    \
  MACE_DW_TWO_LOADED("q7", "q9", "q11", "q13", "q8", "q10", "q12", "q14",   \
                     MACE_DW_SIX("r0", "d14-d16"), MACE_DW_SIX("r1", "d18-d20"), \
                     MACE_DW_SIX("r2", "d22-d24"), MACE_DW_SIX("r3", "d26-d28")) \
  "vst1.32 {d10-d11}, [%[o0]], %[t]\n"                                     \
  "vst1.32 {d12-d13}, [%[o1]], %[t]\n"
#define MACE_DW_TAIL_ONE                                                    \
  MACE_DW_ONE_LOADED("q7", "q9", "q11", "q8", "q10", "q12",                 \
                     MACE_DW_SIX("r0", "d14-d16"), MACE_DW_SIX("r1", "d18-d20"), \
                     MACE_DW_SIX("r2", "d22-d24"))                          \
  "vst1.32 {d10-d11}, [%[o0]], %[t]\n"

#define MACE_DW_A "q7", "q8", "q9", "q10"
#define MACE_DW_B "q11", "q12", "q13", "q14"
#define MACE_DW_AD "d14-d15", "d16-d17", "d18-d19", "d20-d21"
#define MACE_DW_BD "d22-d23", "d24-d25", "d26-d27", "d28-d29"
// Every NEON register, as the band loops' asm clobbers.
#define MACE_DW_CLOBBERS                                                    \
  "cc", "memory", "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8", "d9", "d10", "d11", \
      "d12", "d13", "d14", "d15", "d16", "d17", "d18", "d19", "d20", "d21", "d22", "d23",   \
      "d24", "d25", "d26", "d27", "d28", "d29", "d30", "d31"

// What the band's asm reads from memory, leaving it core registers (the
// asm names the fields by their offsets).
struct SlideParams {
  int32_t pitch_bytes;   // 0
  int32_t width_bytes;   // 4
  int32_t vector_pairs;  // 8: sliding vectors, in pairs
  int32_t odd_vector;    // 12: and one more
  int32_t back_in;       // 16: input bytes back to the first ragged vector
  int32_t back_out;      // 20: and output bytes
  int32_t tails;         // 24: ragged vectors, 1 or 2
  int32_t rewind;        // 28: bytes from where a row's pointer ends to its start
  const float* taps;     // 32
  float lo, hi, bias;    // 36, 40, 44
  int32_t passes_left;   // 48: stride 2 only
  // Four-row passes (FourRowPasses, FourRowStrideTwoPasses):
  int32_t in_back;       // 52: after a vector's last input row, up to the next vector
  int32_t out_back;      // 56: 16 bytes less three rows, after its last output row
  int32_t whole_vectors; // 60: a row's whole vectors, at least 1
  int32_t ragged_back;   // 64: output bytes back to the ragged vector, 0 if none
  int32_t in_next;       // 68: bytes from where a pass's input pointer ends to the next pass
  int32_t out_next;      // 72: and its output pointer
  int32_t in_step;       // 76: from one input row's load to the next row's
  // Column passes (ColumnPasses):
  int32_t column_loops;  // 80: three-row steps down a column
  int32_t column_rest;   // 84: and the steps after them, 0 to 2
  int32_t columns;       // 88: vector columns, the ragged one included
};
static_assert(sizeof(const float*) == 4, "the asm reads 32-bit pointers");

// Loads the taps (d0-d4[0]), the bounds (q3, q4) and the bias (d5).
#define MACE_DW_SETUP                                                       \
  "ldr %[t], [%[prm], #32]\n"                                              \
  "vld1.32 {d0-d3}, [%[t]]!\n"                                             \
  "vld1.32 {d4[]}, [%[t]]\n"                                               \
  "add %[t], %[prm], #36\n"                                                \
  "vld1.32 {d6[], d7[]}, [%[t]]!\n"                                        \
  "vld1.32 {d8[], d9[]}, [%[t]]!\n"                                        \
  "vld1.32 {d5[]}, [%[t]]\n"
// A pass's pointers from r0 and o0, and the first vector of each input row
// into the A set.
#define MACE_DW_PASS_START(rows23, loads)                                   \
  "ldr %[t], [%[prm]]\n"                                                   \
  "add %[r1], %[r0], %[t]\n"                                               \
  rows23                                                                   \
  "ldr %[t], [%[prm], #4]\n"                                               \
  "add %[o1], %[o0], %[t]\n"                                               \
  "vld1.32 {d14-d15}, [%[r0]]!\n"                                          \
  "vld1.32 {d16-d17}, [%[r1]]!\n"                                          \
  loads                                                                    \
  "ldr %[n], [%[prm], #8]\n"
#define MACE_DW_ROWS_3 "add %[r2], %[r1], %[t]\n"
#define MACE_DW_ROWS_4 MACE_DW_ROWS_3 "add %[r3], %[r2], %[t]\n"
#define MACE_DW_LOADS_3 "vld1.32 {d18-d19}, [%[r2]]!\n"
#define MACE_DW_LOADS_4 MACE_DW_LOADS_3 "vld1.32 {d20-d21}, [%[r3]]!\n"
// Pairs of sliding vectors (n of them), then one more if odd_vector is set.
#define MACE_DW_LOOP(vector_ab, vector_ba)                                  \
  "cmp %[n], #0\n"                                                         \
  "beq 2f\n"                                                               \
  "1:\n"                                                                   \
  vector_ab vector_ba                                                      \
  "subs %[n], %[n], #1\n"                                                  \
  "bne 1b\n"                                                               \
  "2:\n"                                                                   \
  "ldr %[t], [%[prm], #12]\n"                                              \
  "cmp %[t], #0\n"                                                         \
  "beq 3f\n"                                                               \
  vector_ab                                                                \
  "3:\n"
// The ragged vectors, ending at the row's last output; then r0 and o0 move
// to the next pass (two rows on).
#define MACE_DW_TAILS(vector)                                               \
  "ldr %[t], [%[prm], #16]\n"                                              \
  "sub %[r0], %[r0], %[t]\n"                                               \
  "sub %[r1], %[r1], %[t]\n"                                               \
  "sub %[r2], %[r2], %[t]\n"                                               \
  "sub %[r3], %[r3], %[t]\n"                                               \
  "ldr %[t], [%[prm], #20]\n"                                              \
  "sub %[o0], %[o0], %[t]\n"                                               \
  "sub %[o1], %[o1], %[t]\n"                                               \
  "ldr %[n], [%[prm], #24]\n"                                              \
  "mov %[t], #4\n"                                                         \
  "4:\n"                                                                   \
  vector                                                                   \
  "subs %[n], %[n], #1\n"                                                  \
  "bne 4b\n"                                                               \
  "ldr %[t], [%[prm], #28]\n"                                              \
  "sub %[r0], %[r2], %[t]\n"                                               \
  "add %[o0], %[o1], #12\n"

// `passes` passes of kRows (1 or 2) output rows of the band (input rows
// from `in`, output rows of width_bytes from `out`), clamped to [lo, hi]:
// a vector at a time while the next input vector lies inside the row
// (which holds at least width + 2 inputs), then one or two vectors that end
// at the row's last output, re-computing a few outputs. Every row of the
// band in one call: the taps, bounds and bias are loaded once, and a pass
// costs some 25 instructions besides its vectors (the sliding rows took
// about 50 a pass, and the intrinsics their ragged end).
template <int kRows>
[[gnu::noinline]] void SlidingPasses(const float* in, float* out, int passes,
                                     const SlideParams& params) {
  const float* r0 = in;
  const float* r1 = nullptr;
  const float* r2 = nullptr;
  const float* r3 = nullptr;
  float* o0 = out;
  float* o1 = nullptr;
  int n = 0, t = 0;
  const SlideParams* prm = &params;
  if constexpr (kRows == 2) {
    __asm__ volatile(
        MACE_DW_SETUP
        "5:\n"
        MACE_DW_PASS_START(MACE_DW_ROWS_4, MACE_DW_LOADS_4)
        MACE_DW_LOOP(MACE_DW_EXPAND(MACE_DW_TWO, MACE_DW_A, MACE_DW_B, MACE_DW_BD),
                     MACE_DW_EXPAND(MACE_DW_TWO, MACE_DW_B, MACE_DW_A, MACE_DW_AD))
        MACE_DW_TAILS(MACE_DW_TAIL_TWO)
        "subs %[passes], %[passes], #1\n"
        "bne 5b\n"
        : [r0] "+r"(r0), [r1] "+r"(r1), [r2] "+r"(r2), [r3] "+r"(r3), [o0] "+r"(o0),
          [o1] "+r"(o1), [n] "+r"(n), [t] "+r"(t), [passes] "+r"(passes)
        : [prm] "r"(prm)
        : MACE_DW_CLOBBERS);
  } else {
    __asm__ volatile(
        MACE_DW_SETUP
        "5:\n"
        MACE_DW_PASS_START(MACE_DW_ROWS_3, MACE_DW_LOADS_3)
        MACE_DW_LOOP(MACE_DW_ONE("q7", "q8", "q9", "q11", "q12", "q13",
                                 "d22-d23", "d24-d25", "d26-d27"),
                     MACE_DW_ONE("q11", "q12", "q13", "q7", "q8", "q9",
                                 "d14-d15", "d16-d17", "d18-d19"))
        MACE_DW_TAILS(MACE_DW_TAIL_ONE)
        "subs %[passes], %[passes], #1\n"
        "bne 5b\n"
        : [r0] "+r"(r0), [r1] "+r"(r1), [r2] "+r"(r2), [r3] "+r"(r3), [o0] "+r"(o0),
          [o1] "+r"(o1), [n] "+r"(n), [t] "+r"(t), [passes] "+r"(passes)
        : [prm] "r"(prm)
        : MACE_DW_CLOBBERS);
  }
}

// Four output rows a pass, 6 input rows. A vector's three windows come
// from one vld1 of the input row's 6 floats from the vector's first window
// (d registers c and c + 1, and the low half of n) and two vext, so no
// vector is kept between steps: the registers hold four accumulators
// (q5-q8) and two window sets (q9-q11 and q12-q14, alternate input rows)
// besides the taps, bias and bounds. The loads walk one pointer down the
// input rows by the pitch, the last one stepping back to the next vector
// (in_back); the stores walk the output rows alike (out_back). 6 input
// rows of 3 instructions for 4 vectors, where the two-row passes take 4
// rows for 2: with the bias, the 9 multiply-adds, the clamp and the store,
// 17.5 instructions per output vector (15.5 with no clamp) against 19.
#define MACE_DW4_TAP(r, j) MACE_DW4_TAP_##r##_##j
#define MACE_DW4_TAP_0_0 "d0[0]"
#define MACE_DW4_TAP_0_1 "d0[1]"
#define MACE_DW4_TAP_0_2 "d1[0]"
#define MACE_DW4_TAP_1_0 "d1[1]"
#define MACE_DW4_TAP_1_1 "d2[0]"
#define MACE_DW4_TAP_1_2 "d2[1]"
#define MACE_DW4_TAP_2_0 "d3[0]"
#define MACE_DW4_TAP_2_1 "d3[1]"
#define MACE_DW4_TAP_2_2 "d4[0]"
// Window j times tap (r, j) into accumulator acc.
#define MACE_DW4_MLA(acc, x, r, j) "vmla.f32 " acc ", " x ", " MACE_DW4_TAP(r, j) "\n"
// Window j of input row k into the output rows it feeds: output row
// k - r takes tap row r.
#define MACE_DW4_IN0(x, j) MACE_DW4_MLA("q5", x, 0, j)
#define MACE_DW4_IN1(x, j) MACE_DW4_MLA("q5", x, 1, j) MACE_DW4_MLA("q6", x, 0, j)
#define MACE_DW4_IN2(x, j) \
  MACE_DW4_MLA("q5", x, 2, j) MACE_DW4_MLA("q6", x, 1, j) MACE_DW4_MLA("q7", x, 0, j)
#define MACE_DW4_IN3(x, j) \
  MACE_DW4_MLA("q6", x, 2, j) MACE_DW4_MLA("q7", x, 1, j) MACE_DW4_MLA("q8", x, 0, j)
#define MACE_DW4_IN4(x, j) MACE_DW4_MLA("q7", x, 2, j) MACE_DW4_MLA("q8", x, 1, j)
#define MACE_DW4_IN5(x, j) MACE_DW4_MLA("q8", x, 2, j)
// One input row: its 6 floats into c (d registers d) and n, the pointer
// moving on by `step`; window 0 is c, windows 1 and 2 are formed in w.
#define MACE_DW4_ROW(d, c, n, w, step, macs)                                 \
  "vld1.32 {" d "}, [%[in]], %[" step "]\n"                                \
  macs(c, 0)                                                               \
  "vext.32 " w ", " c ", " n ", #1\n"                                      \
  macs(w, 1)                                                               \
  "vext.32 " w ", " c ", " n ", #2\n"                                      \
  macs(w, 2)
#define MACE_DW4_X "d18-d20", "q9", "q10", "q11"
#define MACE_DW4_Y "d24-d26", "q12", "q13", "q14"
#define MACE_DW4_MAX                                                        \
  "vmax.f32 q5, q5, q3\n" "vmax.f32 q6, q6, q3\n"                          \
  "vmax.f32 q7, q7, q3\n" "vmax.f32 q8, q8, q3\n"
#define MACE_DW4_CLAMP                                                      \
  MACE_DW4_MAX                                                             \
  "vmin.f32 q5, q5, q4\n" "vmin.f32 q6, q6, q4\n"                          \
  "vmin.f32 q7, q7, q4\n" "vmin.f32 q8, q8, q4\n"
// The accumulators started from the bias, and stored down the four rows
// (the last store moving the pointer back up to the next vector).
#define MACE_DW4_BIAS                                                       \
  "vdup.32 q5, d5[0]\n"                                                    \
  "vdup.32 q6, d5[0]\n"                                                    \
  "vdup.32 q7, d5[0]\n"                                                    \
  "vdup.32 q8, d5[0]\n"
#define MACE_DW4_STORE                                                      \
  "vst1.32 {d10-d11}, [%[out]], %[width]\n"                                \
  "vst1.32 {d12-d13}, [%[out]], %[width]\n"                                \
  "vst1.32 {d14-d15}, [%[out]], %[width]\n"                                \
  "vst1.32 {d16-d17}, [%[out]], %[out_back]\n"
// One output vector of each of the four rows, activated by `act`.
#define MACE_DW4_STEP(act)                                                  \
  MACE_DW4_BIAS                                                            \
  MACE_DW_EXPAND(MACE_DW4_ROW, MACE_DW4_X, "pitch", MACE_DW4_IN0)          \
  MACE_DW_EXPAND(MACE_DW4_ROW, MACE_DW4_Y, "pitch", MACE_DW4_IN1)          \
  MACE_DW_EXPAND(MACE_DW4_ROW, MACE_DW4_X, "pitch", MACE_DW4_IN2)          \
  MACE_DW_EXPAND(MACE_DW4_ROW, MACE_DW4_Y, "pitch", MACE_DW4_IN3)          \
  MACE_DW_EXPAND(MACE_DW4_ROW, MACE_DW4_X, "pitch", MACE_DW4_IN4)          \
  MACE_DW_EXPAND(MACE_DW4_ROW, MACE_DW4_Y, "in_back", MACE_DW4_IN5)        \
  act                                                                      \
  MACE_DW4_STORE
// `passes` passes of `step` (activated by `act`): the whole vectors, then
// the ragged one ending at the row's last output (both pointers moved back
// to it, the input's shifted by `in_scale` at stride 2), then both
// pointers on to the next pass. `inputs`: more input operands the steps
// read, each after a comma.
#define MACE_DW4_PASSES(step, act, in_scale, inputs)                        \
  __asm__ volatile(                                                        \
      MACE_DW_SETUP                                                        \
      "ldr %[pitch], [%[prm], #76]\n"                                      \
      "ldr %[width], [%[prm], #4]\n"                                       \
      "ldr %[in_back], [%[prm], #52]\n"                                    \
      "ldr %[out_back], [%[prm], #56]\n"                                   \
      "5:\n"                                                               \
      "ldr %[n], [%[prm], #60]\n"                                          \
      "1:\n"                                                               \
      step(act)                                                            \
      "subs %[n], %[n], #1\n"                                              \
      "bne 1b\n"                                                           \
      "ldr %[t], [%[prm], #64]\n"                                          \
      "cmp %[t], #0\n"                                                     \
      "beq 3f\n"                                                           \
      "sub %[in], %[in], %[t]" in_scale "\n"                               \
      "sub %[out], %[out], %[t]\n"                                         \
      step(act)                                                            \
      "3:\n"                                                               \
      "ldr %[t], [%[prm], #68]\n"                                          \
      "add %[in], %[in], %[t]\n"                                           \
      "ldr %[t], [%[prm], #72]\n"                                          \
      "add %[out], %[out], %[t]\n"                                         \
      "subs %[passes], %[passes], #1\n"                                    \
      "bne 5b\n"                                                           \
      : [in] "+r"(in), [out] "+r"(out), [n] "+r"(n), [t] "+r"(t),           \
        [passes] "+r"(passes), [pitch] "+r"(pitch), [width] "+r"(width),   \
        [in_back] "+r"(in_back), [out_back] "+r"(out_back)                 \
      : [prm] "r"(prm) inputs                                              \
      : MACE_DW_CLOBBERS)

// `passes` passes of four output rows, as SlidingPasses, activated as
// kAct says (none, a max with lo, or a clamp to [lo, hi]): ShuffleNet's
// depthwise layers have no activation, the MobileNets' ReLU6.
template <int kAct>
[[gnu::noinline]] void FourRowPasses(const float* in, float* out, int passes,
                                     const SlideParams& params) {
  int n = 0, t = 0, pitch = 0, width = 0, in_back = 0, out_back = 0;
  const SlideParams* prm = &params;
  if constexpr (kAct == kActNone) {
    MACE_DW4_PASSES(MACE_DW4_STEP, "", "", );
  } else if constexpr (kAct == kActMax) {
    MACE_DW4_PASSES(MACE_DW4_STEP, MACE_DW4_MAX, "", );
  } else {
    MACE_DW4_PASSES(MACE_DW4_STEP, MACE_DW4_CLAMP, "", );
  }
}

// Stride 1, one vector column at a time down every row of the band: an
// input row's three windows (one vld1 of 6 floats and two vext) feed the
// three output rows that read it, so each input row is loaded once per
// column where four-row passes load 6 rows for 4 (and 8 for 4 when the
// last pass overlaps). Three accumulators rotate: the oldest is finished
// by the row, activated and stored, and restarts from the bias as the
// newest. 16 instructions per output vector with a clamp (the bias, the
// load and two vext, 9 multiply-adds, the clamp and the store) where the
// four-row passes take 18, plus about 6 a column for its first two input
// rows and its last two output rows, which skip the unneeded sums.
#define MACE_DWC_X "d18-d20", "q9", "q10", "q11"
#define MACE_DWC_ACT_0(a)
#define MACE_DWC_ACT_1(a) "vmax.f32 " a ", " a ", q3\n"
#define MACE_DWC_ACT_2(a) MACE_DWC_ACT_1(a) "vmin.f32 " a ", " a ", q4\n"
// Window x of tap column j into a (tap row 2), b (row 1) and c (row 0).
#define MACE_DWC_MAC3(a, b, c, x, j)                                        \
  MACE_DW4_MLA(a, x, 2, j) MACE_DW4_MLA(b, x, 1, j) MACE_DW4_MLA(c, x, 0, j)
#define MACE_DWC_MAC2(a, b, x, j) MACE_DW4_MLA(a, x, 2, j) MACE_DW4_MLA(b, x, 1, j)
#define MACE_DWC_MAC1(a, x, j) MACE_DW4_MLA(a, x, 2, j)
// The next input row's windows: window 0 is c, windows 1 and 2 form in w,
// each passed to `macs`.
#define MACE_DWC_ROW(d, c, n, w, macs)                                       \
  "vld1.32 {" d "}, [%[in]], %[step]\n"                                   \
  macs(c, 0)                                                               \
  "vext.32 " w ", " c ", " n ", #1\n"                                      \
  macs(w, 1)                                                               \
  "vext.32 " w ", " c ", " n ", #2\n"                                      \
  macs(w, 2)
// Separate expanders: a macro does not expand inside its own expansion.
#define MACE_DWC_EXPAND_WINDOWS(m, ...) m(__VA_ARGS__)
#define MACE_DWC_EXPAND_ACCS(m, ...) m(__VA_ARGS__)
#define MACE_DWC_ROW_X(macs) MACE_DWC_EXPAND_WINDOWS(MACE_DWC_ROW, MACE_DWC_X, macs)
// One output row: a (its d registers ad) finished and stored, b one row
// from it, c started.
#define MACE_DWC_STEP3(act, a, as, ad, b, c, cs)                             \
  "vdup.32 " cs ", d5[0]\n"                                                \
  MACE_DWC_ROW_X(MACE_DWC_M3_##a##_##b##_##c)                              \
  act(as)                                                                  \
  "vst1.32 {" ad "}, [%[out]], %[width]\n"
#define MACE_DWC_STEP2(act, a, as, ad, b)                                    \
  MACE_DWC_ROW_X(MACE_DWC_M2_##a##_##b)                                    \
  act(as)                                                                  \
  "vst1.32 {" ad "}, [%[out]], %[width]\n"
#define MACE_DWC_STEP1(act, a, as, ad)                                       \
  MACE_DWC_ROW_X(MACE_DWC_M1_##a)                                          \
  act(as)                                                                  \
  "vst1.32 {" ad "}, [%[out]], %[width]\n"
// The accumulator rotations the steps take (macros named by them, since
// the window passes through as a macro argument).
#define MACE_DWC_M3_q5_q6_q7(x, j) MACE_DWC_MAC3("q5", "q6", "q7", x, j)
#define MACE_DWC_M3_q6_q7_q5(x, j) MACE_DWC_MAC3("q6", "q7", "q5", x, j)
#define MACE_DWC_M3_q7_q5_q6(x, j) MACE_DWC_MAC3("q7", "q5", "q6", x, j)
#define MACE_DWC_M2_q5_q6(x, j) MACE_DWC_MAC2("q5", "q6", x, j)
#define MACE_DWC_M2_q6_q7(x, j) MACE_DWC_MAC2("q6", "q7", x, j)
#define MACE_DWC_M2_q7_q5(x, j) MACE_DWC_MAC2("q7", "q5", x, j)
#define MACE_DWC_M1_q5(x, j) MACE_DWC_MAC1("q5", x, j)
#define MACE_DWC_M1_q6(x, j) MACE_DWC_MAC1("q6", x, j)
#define MACE_DWC_M1_q7(x, j) MACE_DWC_MAC1("q7", x, j)
// Input row 0 into q5 (tap row 0), row 1 into q5 (tap row 1) and q6 (row 0).
#define MACE_DWC_FIRST0(x, j) MACE_DW4_MLA("q5", x, 0, j)
#define MACE_DWC_FIRST1(x, j) MACE_DW4_MLA("q5", x, 1, j) MACE_DW4_MLA("q6", x, 0, j)
// An accumulator: its name, as a string, and its d registers.
#define MACE_DWC_A0 q5, "q5", "d10-d11"
#define MACE_DWC_A1 q6, "q6", "d12-d13"
#define MACE_DWC_A2 q7, "q7", "d14-d15"
#define MACE_DWC_S3(act, a, b, c) \
  MACE_DWC_EXPAND_ACCS(MACE_DWC_S3_, act, MACE_DWC_##a, MACE_DWC_##b, MACE_DWC_##c)
#define MACE_DWC_S3_(act, a, as, ad, b, bs, bd, c, cs, cd) \
  MACE_DWC_STEP3(act, a, as, ad, b, c, cs)
#define MACE_DWC_S2(act, a, b) MACE_DWC_EXPAND_ACCS(MACE_DWC_S2_, act, MACE_DWC_##a, MACE_DWC_##b)
#define MACE_DWC_S2_(act, a, as, ad, b, bs, bd) MACE_DWC_STEP2(act, a, as, ad, b)
#define MACE_DWC_S1(act, a) MACE_DWC_EXPAND_ACCS(MACE_DWC_S1_, act, MACE_DWC_##a)
#define MACE_DWC_S1_(act, a, as, ad) MACE_DWC_STEP1(act, a, as, ad)
// A column walk's set-up: the taps, bounds and bias, `step` read from the
// parameters at offset step_at and what the columns step by.
#define MACE_DW_COLUMN_HEAD(step_at)                                       \
  MACE_DW_SETUP                                                            \
  "ldr %[step], [%[prm], #" step_at "]\n"                                  \
  "ldr %[width], [%[prm], #4]\n"                                           \
  "ldr %[in_next], [%[prm], #68]\n"                                        \
  "ldr %[out_next], [%[prm], #72]\n"                                       \
  "ldr %[cols], [%[prm], #88]\n"
// The end of a column (label 9): both pointers on to the next column, the
// last, ragged one stepping back (the input by the output's bytes shifted
// by `in_scale`) to end at the row's last output; then the operands.
#define MACE_DW_COLUMN_TAIL(in_scale)                                      \
  "9:\n"                                                                   \
  "add %[in], %[in], %[in_next]\n"                                         \
  "add %[out], %[out], %[out_next]\n"                                      \
  "subs %[cols], %[cols], #1\n"                                            \
  "beq 8f\n"                                                               \
  "cmp %[cols], #1\n"                                                      \
  "bne 6b\n"                                                               \
  "ldr %[n], [%[prm], #64]\n"                                              \
  "sub %[in], %[in], %[n]" in_scale "\n"                                   \
  "sub %[out], %[out], %[n]\n"                                             \
  "b 6b\n"                                                                 \
  "8:\n"                                                                   \
  : [in] "+r"(in), [out] "+r"(out), [n] "+r"(n), [t] "+r"(t),              \
    [cols] "+r"(cols), [step] "+r"(step), [width] "+r"(width),             \
    [in_next] "+r"(in_next), [out_next] "+r"(out_next)                     \
  : [prm] "r"(prm)                                                         \
  : MACE_DW_CLOBBERS
// Every column of the band (kind c: MACE_DWC_ single vector columns or
// MACE_DWP_ pairs), `act` the activation: a column's first two input rows
// (c##START), its three-row steps, the 0 to 2 steps after them and the
// two last output rows (c##S3, c##S2, c##S1 on accumulators c##A0-A2);
// then both pointers on to the next column (the last, ragged one stepping
// back to end at the row's last output). `step` is read from the
// parameters at offset step_at, and c##INIT sets what the steps need
// besides.
#define MACE_DW_COLUMN_WALK(c, act, step_at)                                  \
  __asm__ volatile(                                                        \
      MACE_DW_COLUMN_HEAD(step_at)                                         \
      c##INIT                                                              \
      "6:\n"                                                               \
      c##START                                                             \
      "ldr %[n], [%[prm], #80]\n"                                          \
      "cmp %[n], #0\n"                                                     \
      "beq 2f\n"                                                           \
      "1:\n"                                                               \
      c##S3(act, A0, A1, A2)                                               \
      c##S3(act, A1, A2, A0)                                               \
      c##S3(act, A2, A0, A1)                                               \
      "subs %[n], %[n], #1\n"                                              \
      "bne 1b\n"                                                           \
      "2:\n"                                                               \
      "ldr %[n], [%[prm], #84]\n"                                          \
      "cmp %[n], #1\n"                                                     \
      "beq 11f\n"                                                          \
      "bgt 12f\n"                                                          \
      c##S2(act, A0, A1)                                                   \
      c##S1(act, A1)                                                       \
      "b 9f\n"                                                             \
      "11:\n"                                                              \
      c##S3(act, A0, A1, A2)                                               \
      c##S2(act, A1, A2)                                                   \
      c##S1(act, A2)                                                       \
      "b 9f\n"                                                             \
      "12:\n"                                                              \
      c##S3(act, A0, A1, A2)                                               \
      c##S3(act, A1, A2, A0)                                               \
      c##S2(act, A2, A0)                                                   \
      c##S1(act, A0)                                                       \
      MACE_DW_COLUMN_TAIL(""))
// Single columns: accumulators q5-q7; each input row's load steps on by
// the pitch (offset 0).
#define MACE_DWC_INIT
#define MACE_DWC_START                                                        \
  "vdup.32 q5, d5[0]\n"                                                    \
  "vdup.32 q6, d5[0]\n"                                                    \
  MACE_DWC_ROW_X(MACE_DWC_FIRST0)                                          \
  MACE_DWC_ROW_X(MACE_DWC_FIRST1)
#define MACE_DWC_COLUMNS(act) MACE_DW_COLUMN_WALK(MACE_DWC_, act, "0")

// A stride-1 band of at least 3 rows and kLanes outputs a row, by columns
// (see MACE_DWC_COLUMNS), activated as kAct says.
// Two vector columns at a time (ColumnPairPasses): an input row's 10
// floats in three overlapping loads give both vectors' windows, and the
// two accumulators of an output row are stored by one vst1, so a pair of
// output vectors takes 28 instructions (14 each) and a pair column's
// first rows, last rows and loop control are shared by both vectors.
// Pairs of accumulators: (q5, q6), (q7, q8), (q9, q10); the windows of a
// tap column in q11 and q12.
#define MACE_DWP_A0_0 "q5"
#define MACE_DWP_A0_1 "q6"
#define MACE_DWP_A1_0 "q7"
#define MACE_DWP_A1_1 "q8"
#define MACE_DWP_A2_0 "q9"
#define MACE_DWP_A2_1 "q10"
#define MACE_DWP_A0_D "d10-d13"
#define MACE_DWP_A1_D "d14-d17"
#define MACE_DWP_A2_D "d18-d21"
#define MACE_DWP_ACC(pair, v) MACE_DWP_##pair##_##v
// Window x of vector v, tap column j, into pairs a (tap row 2), b (row 1)
// and c (row 0); fewer pairs for the first rows and the last steps.
#define MACE_DWP_MAC3(a, b, c, x, v, j)                                      \
  MACE_DW4_MLA(MACE_DWP_ACC(a, v), x, 2, j)                                \
  MACE_DW4_MLA(MACE_DWP_ACC(b, v), x, 1, j)                                \
  MACE_DW4_MLA(MACE_DWP_ACC(c, v), x, 0, j)
#define MACE_DWP_M3_A0_A1_A2(x, v, j) MACE_DWP_MAC3(A0, A1, A2, x, v, j)
#define MACE_DWP_M3_A1_A2_A0(x, v, j) MACE_DWP_MAC3(A1, A2, A0, x, v, j)
#define MACE_DWP_M3_A2_A0_A1(x, v, j) MACE_DWP_MAC3(A2, A0, A1, x, v, j)
#define MACE_DWP_M2_A0_A1(x, v, j)                                           \
  MACE_DW4_MLA(MACE_DWP_ACC(A0, v), x, 2, j) MACE_DW4_MLA(MACE_DWP_ACC(A1, v), x, 1, j)
#define MACE_DWP_M2_A1_A2(x, v, j)                                           \
  MACE_DW4_MLA(MACE_DWP_ACC(A1, v), x, 2, j) MACE_DW4_MLA(MACE_DWP_ACC(A2, v), x, 1, j)
#define MACE_DWP_M2_A2_A0(x, v, j)                                           \
  MACE_DW4_MLA(MACE_DWP_ACC(A2, v), x, 2, j) MACE_DW4_MLA(MACE_DWP_ACC(A0, v), x, 1, j)
#define MACE_DWP_M1_A0(x, v, j) MACE_DW4_MLA(MACE_DWP_ACC(A0, v), x, 2, j)
#define MACE_DWP_M1_A1(x, v, j) MACE_DW4_MLA(MACE_DWP_ACC(A1, v), x, 2, j)
#define MACE_DWP_M1_A2(x, v, j) MACE_DW4_MLA(MACE_DWP_ACC(A2, v), x, 2, j)
#define MACE_DWP_FIRST0(x, v, j) MACE_DW4_MLA(MACE_DWP_ACC(A0, v), x, 0, j)
#define MACE_DWP_FIRST1(x, v, j)                                             \
  MACE_DW4_MLA(MACE_DWP_ACC(A0, v), x, 1, j) MACE_DW4_MLA(MACE_DWP_ACC(A1, v), x, 0, j)
// The next input row: tap column j's windows of both vectors are the 8
// floats from column j, so three loads one float apart (t holds 4, the
// last stepping on to the next row) give all six, where two loads and
// four vext took 6 instructions; each window to `macs`.
#define MACE_DWP_ROW(macs)                                                   \
  "vld1.32 {d22-d25}, [%[in]], %[t]\n"                                     \
  macs("q11", 0, 0) macs("q12", 1, 0)                                      \
  "vld1.32 {d22-d25}, [%[in]], %[t]\n"                                     \
  macs("q11", 0, 1) macs("q12", 1, 1)                                      \
  "vld1.32 {d22-d25}, [%[in]], %[step]\n"                                  \
  macs("q11", 0, 2) macs("q12", 1, 2)
#define MACE_DWP_BIAS(pair)                                                  \
  "vdup.32 " MACE_DWP_ACC(pair, 0) ", d5[0]\n"                             \
  "vdup.32 " MACE_DWP_ACC(pair, 1) ", d5[0]\n"
#define MACE_DWP_FINISH(act, pair)                                           \
  act(MACE_DWP_ACC(pair, 0)) act(MACE_DWP_ACC(pair, 1))                     \
  "vst1.32 {" MACE_DWP_##pair##_D "}, [%[out]], %[width]\n"
// The steps of a column of two vectors whose rows kind k loads (k##ROW)
// and stores (k##FINISH).
#define MACE_DW2V_S3(k, act, a, b, c)                                        \
  MACE_DWP_BIAS(c) k##ROW(MACE_DWP_M3_##a##_##b##_##c) k##FINISH(act, a)
#define MACE_DW2V_S2(k, act, a, b) k##ROW(MACE_DWP_M2_##a##_##b) k##FINISH(act, a)
#define MACE_DW2V_S1(k, act, a) k##ROW(MACE_DWP_M1_##a) k##FINISH(act, a)
#define MACE_DW2V_START(k)                                                    \
  MACE_DWP_BIAS(A0)                                                        \
  MACE_DWP_BIAS(A1)                                                        \
  k##ROW(MACE_DWP_FIRST0)                                                  \
  k##ROW(MACE_DWP_FIRST1)
#define MACE_DWP_S3(act, a, b, c) MACE_DW2V_S3(MACE_DWP_, act, a, b, c)
#define MACE_DWP_S2(act, a, b) MACE_DW2V_S2(MACE_DWP_, act, a, b)
#define MACE_DWP_S1(act, a) MACE_DW2V_S1(MACE_DWP_, act, a)
// Pairs of columns: accumulators A0-A2; each input row's third load
// steps on to the next row (in_step, offset 76), the first two by t.
#define MACE_DWP_INIT "mov %[t], #4\n"
#define MACE_DWP_START MACE_DW2V_START(MACE_DWP_)
#define MACE_DWP_COLUMNS(act) MACE_DW_COLUMN_WALK(MACE_DWP_, act, "76")
// The walk `columns` with the activation kAct says.
#define MACE_DW_ACT_WALK(columns)                                            \
  if constexpr (kAct == kActNone) {                                        \
    columns(MACE_DWC_ACT_0);                                               \
  } else if constexpr (kAct == kActMax) {                                  \
    columns(MACE_DWC_ACT_1);                                               \
  } else {                                                                 \
    columns(MACE_DWC_ACT_2);                                               \
  }

// A stride-1 band of at least 3 rows and 8 outputs a row, by pairs of
// vector columns (see MACE_DWP_COLUMNS), activated as kAct says.
template <int kAct>
[[gnu::noinline]] void ColumnPairPasses(const float* in, float* out,
                                        const SlideParams& params) {
  int n = 0, t = 0, cols = 0, step = 0, width = 0, in_next = 0, out_next = 0;
  const SlideParams* prm = &params;
  MACE_DW_ACT_WALK(MACE_DWP_COLUMNS)
}

// Rows of 7 outputs (the last maps of the MobileNets and ShuffleNet) as
// one pair of vectors, the second at output 3: its windows start 3 floats
// on, so the loads at 0 and 1 hold the first vector's windows 0 and 1 and
// the second's 1 and 2, and two of 4 floats at 2 and 3 the rest (t holds
// 4, the last stepping on to the next row); each vector is stored on its
// own (width holds 12, the second store stepping on to the next row). 4
// loads a row for both vectors where two single columns take 6, and one
// column's first rows, last rows and loop control instead of two.
#define MACE_DW7_ROW(macs)                                                   \
  "vld1.32 {d22-d25}, [%[in]], %[t]\n"                                     \
  macs("q11", 0, 0) macs("q12", 1, 1)                                      \
  "vld1.32 {d22-d25}, [%[in]], %[t]\n"                                     \
  macs("q11", 0, 1) macs("q12", 1, 2)                                      \
  "vld1.32 {d22-d23}, [%[in]], %[t]\n"                                     \
  macs("q11", 0, 2)                                                        \
  "vld1.32 {d24-d25}, [%[in]], %[step]\n"                                  \
  macs("q12", 1, 0)
#define MACE_DW7_FINISH(act, pair)                                           \
  act(MACE_DWP_ACC(pair, 0)) act(MACE_DWP_ACC(pair, 1))                     \
  "vst1.32 {" MACE_DWP_ACC(pair, 0) "}, [%[out]], %[width]\n"              \
  "vst1.32 {" MACE_DWP_ACC(pair, 1) "}, [%[out]]!\n"
#define MACE_DW7_S3(act, a, b, c) MACE_DW2V_S3(MACE_DW7_, act, a, b, c)
#define MACE_DW7_S2(act, a, b) MACE_DW2V_S2(MACE_DW7_, act, a, b)
#define MACE_DW7_S1(act, a) MACE_DW2V_S1(MACE_DW7_, act, a)
#define MACE_DW7_INIT "mov %[t], #4\n" "mov %[width], #12\n"
#define MACE_DW7_START MACE_DW2V_START(MACE_DW7_)
#define MACE_DW7_COLUMNS(act) MACE_DW_COLUMN_WALK(MACE_DW7_, act, "76")

// A stride-1 band of at least 3 rows of 7 outputs (see MACE_DW7_ROW),
// activated as kAct says.
template <int kAct>
[[gnu::noinline]] void ColumnSevenPasses(const float* in, float* out,
                                         const SlideParams& params) {
  int n = 0, t = 0, cols = 0, step = 0, width = 0, in_next = 0, out_next = 0;
  const SlideParams* prm = &params;
  MACE_DW_ACT_WALK(MACE_DW7_COLUMNS)
}

// Planes read in place at stride 1 (one row and column of zero padding on
// every side, dense rows of in_w floats): the walks skip the zero rows
// above and below the plane (a column starts from its first input row and
// its last output row takes no fourth row), and the columns at the plane's
// edges form their zero window lanes in registers (q15 holds zeros). The
// left pair (outputs 0 to 7) loads a row at columns 0 and 1 and forms the
// windows at -1 and 3 by vext; the right pair (its last 8 outputs) loads
// at in_w - 9 and in_w - 8 and forms the windows at in_w - 7 and in_w - 3:
// 4 instructions a row where an inner pair takes 3, and nothing outside a
// row is read. The inner pairs are MACE_DWP_ROW's, read where they lie.
#define MACE_DWE_INIT "mov %[t], #4\n" "vmov.i32 q15, #0\n"
#define MACE_DWL_ROW(macs)                                                   \
  "vld1.32 {d22-d25}, [%[in]], %[t]\n"                                     \
  "vext.32 q13, q15, q11, #3\n"                                            \
  "vext.32 q14, q11, q12, #3\n"                                            \
  macs("q13", 0, 0) macs("q14", 1, 0)                                      \
  macs("q11", 0, 1) macs("q12", 1, 1)                                      \
  "vld1.32 {d22-d25}, [%[in]], %[step]\n"                                  \
  macs("q11", 0, 2) macs("q12", 1, 2)
#define MACE_DWR_ROW(macs)                                                   \
  "vld1.32 {d22-d25}, [%[in]], %[t]\n"                                     \
  macs("q11", 0, 0) macs("q12", 1, 0)                                      \
  "vld1.32 {d22-d25}, [%[in]], %[step]\n"                                  \
  "vext.32 q13, q11, q12, #1\n"                                            \
  "vext.32 q14, q12, q15, #1\n"                                            \
  macs("q11", 0, 1) macs("q12", 1, 1)                                      \
  macs("q13", 0, 2) macs("q14", 1, 2)
#define MACE_DWL_FINISH MACE_DWP_FINISH
#define MACE_DWR_FINISH MACE_DWP_FINISH
#define MACE_DWI_FINISH MACE_DWP_FINISH
#define MACE_DWI_ROW MACE_DWP_ROW
// A walk of kind k over a plane read in place: its first input row feeds
// output rows 0 (tap row 1) and 1 (tap row 0), and its last output row
// is finished with no row after it.
#define MACE_DWZ_START(k)                                                    \
  MACE_DWP_BIAS(A0)                                                        \
  MACE_DWP_BIAS(A1)                                                        \
  k##ROW(MACE_DWP_FIRST1)
#define MACE_DWL_INIT MACE_DWE_INIT
#define MACE_DWL_START MACE_DWZ_START(MACE_DWL_)
#define MACE_DWL_S3(act, a, b, c) MACE_DW2V_S3(MACE_DWL_, act, a, b, c)
#define MACE_DWL_S2(act, a, b) MACE_DW2V_S2(MACE_DWL_, act, a, b)
#define MACE_DWL_S1(act, a) MACE_DWP_FINISH(act, a)
#define MACE_DWR_INIT MACE_DWE_INIT
#define MACE_DWR_START MACE_DWZ_START(MACE_DWR_)
#define MACE_DWR_S3(act, a, b, c) MACE_DW2V_S3(MACE_DWR_, act, a, b, c)
#define MACE_DWR_S2(act, a, b) MACE_DW2V_S2(MACE_DWR_, act, a, b)
#define MACE_DWR_S1(act, a) MACE_DWP_FINISH(act, a)
#define MACE_DWI_INIT MACE_DWP_INIT
#define MACE_DWI_START MACE_DWZ_START(MACE_DWI_)
#define MACE_DWI_S3(act, a, b, c) MACE_DW2V_S3(MACE_DWI_, act, a, b, c)
#define MACE_DWI_S2(act, a, b) MACE_DW2V_S2(MACE_DWI_, act, a, b)
#define MACE_DWI_S1(act, a) MACE_DWP_FINISH(act, a)
// Single inner columns (MACE_DWC_'s steps), read where they lie.
#define MACE_DWJ_INIT
#define MACE_DWJ_START                                                        \
  "vdup.32 q5, d5[0]\n"                                                    \
  "vdup.32 q6, d5[0]\n"                                                    \
  MACE_DWC_ROW_X(MACE_DWC_FIRST1)
#define MACE_DWJ_S3 MACE_DWC_S3
#define MACE_DWJ_S2 MACE_DWC_S2
#define MACE_DWJ_S1(act, a) MACE_DWC_EXPAND_ACCS(MACE_DWJ_S1_, act, MACE_DWC_##a)
#define MACE_DWJ_S1_(act, a, as, ad) act(as) "vst1.32 {" ad "}, [%[out]], %[width]\n"
#define MACE_DWJ_COLUMNS(act) MACE_DW_COLUMN_WALK(MACE_DWJ_, act, "0")
#define MACE_DWL_COLUMNS(act) MACE_DW_COLUMN_WALK(MACE_DWL_, act, "76")
#define MACE_DWR_COLUMNS(act) MACE_DW_COLUMN_WALK(MACE_DWR_, act, "76")
#define MACE_DWI_COLUMNS(act) MACE_DW_COLUMN_WALK(MACE_DWI_, act, "76")

constexpr int kColumnMinRows = 5;
constexpr int kColumnStrideTwoMinRows = 3;

template <int kAct>
[[gnu::noinline]] void ColumnPasses(const float* in, float* out, const SlideParams& params) {
  int n = 0, t = 0, cols = 0, step = 0, width = 0, in_next = 0, out_next = 0;
  const SlideParams* prm = &params;
  MACE_DW_ACT_WALK(MACE_DWC_COLUMNS)
}

// The band's pitch, width, taps, bounds and bias as the asm reads them.
// Left uninitialized: each band sets the fields its asm reads, and a zeroed
// struct of this size is a call to the library's memset.
SlideParams BandParams(const DepthwiseBand& band, float lo, float hi) {
  SlideParams params;
  params.pitch_bytes = static_cast<int32_t>(band.in_pitch * sizeof(float));
  params.width_bytes = static_cast<int32_t>(band.out_w * sizeof(float));
  params.taps = band.taps;
  params.lo = lo;
  params.hi = hi;
  params.bias = band.bias;
  return params;
}

// The rows of a stride-1 band that four-row passes leave (1 to 3 rows
// from output row `first`): a pass of two rows and one of one.
[[gnu::always_inline]] inline void SlidingRest(const DepthwiseBand& band, int first,
                                               SlideParams* params) {
  const int width = static_cast<int>(band.out_w);
  const int vectors = (width - 2) / kLanes;
  // Outputs after the sliding vectors: 2 to 5. The ragged vectors end at
  // the last output, two of them when one would leave a gap.
  const int rest = width - vectors * kLanes;
  const int tails = rest == 5 ? 2 : 1;
  params->vector_pairs = vectors / 2;
  params->odd_vector = vectors % 2;
  params->back_out = static_cast<int32_t>((kLanes + tails - 1 - rest) * sizeof(float));
  params->back_in = params->back_out + static_cast<int32_t>(kLanes * sizeof(float));
  params->tails = tails;
  params->rewind = static_cast<int32_t>((width - 3) * sizeof(float));
  const int left = static_cast<int>(band.rows) - first;
  const float* in = band.in + first * band.in_pitch;
  float* out = band.out + first * band.out_w;
  if (left >= 2) SlidingPasses<2>(in, out, 1, *params);
  if (left % 2 != 0) {
    SlidingPasses<1>(in + (left - 1) * band.in_pitch, out + (left - 1) * width, 1, *params);
  }
}

// Stride 2 on both axes: a vector's windows are the even and odd inputs
// of one vld2 and the even ones shifted by one, the ninth input loaded into
// lane 0 of the window register first: 6 instructions per input row, no
// vector kept from the previous one (the 16 registers hold no second set).
// Rows alternate between q7, q8, q15 and q9, q10, q11.
#define MACE_DW2_LOAD(r, e, ed, o, w, wd)                                   \
  "vld2.32 {" ed "}, [%[" r "]]!\n"                                        \
  "vld1.32 {" wd "[0]}, [%[" r "]]\n"                                      \
  "vext.32 " w ", " e ", " w ", #1\n"
#define MACE_DW2_MACS(acc, e, o, w, a0, a1, a2)                             \
  "vmla.f32 " acc ", " e ", " a0 "\n"                                      \
  "vmla.f32 " acc ", " o ", " a1 "\n"                                      \
  "vmla.f32 " acc ", " w ", " a2 "\n"
#define MACE_DW2_X "q7", "d14-d17", "q8", "q15", "d30"
#define MACE_DW2_Y "q9", "d18-d21", "q10", "q11", "d22"
#define MACE_DW2_XR "q7", "q8", "q15"
#define MACE_DW2_YR "q9", "q10", "q11"
#define MACE_DW2_CLAMP(acc) "vmax.f32 " acc ", " acc ", q3\n" "vmin.f32 " acc ", " acc ", q4\n"
// Input rows r0-r2 into output row 0 (q5), and `row2` more on row r2.
#define MACE_DW2_ROWS_0_2(row2)                                             \
  MACE_DW_EXPAND(MACE_DW2_LOAD, "r0", MACE_DW2_X)                          \
  MACE_DW_EXPAND(MACE_DW2_MACS, "q5", MACE_DW2_XR, MACE_DW_TAPS0)          \
  MACE_DW_EXPAND(MACE_DW2_LOAD, "r1", MACE_DW2_Y)                          \
  MACE_DW_EXPAND(MACE_DW2_MACS, "q5", MACE_DW2_YR, MACE_DW_TAPS1)          \
  MACE_DW_EXPAND(MACE_DW2_LOAD, "r2", MACE_DW2_X)                          \
  MACE_DW_EXPAND(MACE_DW2_MACS, "q5", MACE_DW2_XR, MACE_DW_TAPS2)          \
  row2
// Output vectors of rows 0 and 1 from input rows r0-r4.
#define MACE_DW2_TWO                                                        \
  "vdup.32 q5, d5[0]\n"                                                    \
  "vdup.32 q6, d5[0]\n"                                                    \
  MACE_DW2_ROWS_0_2(MACE_DW_EXPAND(MACE_DW2_MACS, "q6", MACE_DW2_XR, MACE_DW_TAPS0)) \
  MACE_DW_EXPAND(MACE_DW2_LOAD, "r3", MACE_DW2_Y)                          \
  MACE_DW_EXPAND(MACE_DW2_MACS, "q6", MACE_DW2_YR, MACE_DW_TAPS1)          \
  MACE_DW_EXPAND(MACE_DW2_LOAD, "r4", MACE_DW2_X)                          \
  MACE_DW_EXPAND(MACE_DW2_MACS, "q6", MACE_DW2_XR, MACE_DW_TAPS2)          \
  MACE_DW2_CLAMP("q5") MACE_DW2_CLAMP("q6")                                \
  "vst1.32 {d10-d11}, [%[o0]]!\n"                                          \
  "vst1.32 {d12-d13}, [%[o1]]!\n"
// An output vector of row 0 from input rows r0-r2.
#define MACE_DW2_ONE                                                        \
  "vdup.32 q5, d5[0]\n"                                                    \
  MACE_DW2_ROWS_0_2("")                                                    \
  MACE_DW2_CLAMP("q5")                                                     \
  "vst1.32 {d10-d11}, [%[o0]]!\n"
// Passes of output rows: the vectors at 0, 4, ..., then, if the width is
// no multiple of 4, one more ending at the row's last output; then r0 and
// o0 move to the next pass.
#define MACE_DW2_PASSES(rows_from_r1, vector)                               \
  MACE_DW_SETUP                                                            \
  "5:\n"                                                                   \
  "ldr %[t], [%[prm]]\n"                                                   \
  rows_from_r1                                                             \
  "ldr %[t], [%[prm], #4]\n"                                               \
  "add %[o1], %[o0], %[t]\n"                                               \
  "ldr %[n], [%[prm], #8]\n"                                               \
  "1:\n"                                                                   \
  vector                                                                   \
  "subs %[n], %[n], #1\n"                                                  \
  "bne 1b\n"                                                               \
  "ldr %[n], [%[prm], #24]\n"                                              \
  "cmp %[n], #0\n"                                                         \
  "beq 3f\n"                                                               \
  "ldr %[t], [%[prm], #16]\n"                                              \
  "sub %[r0], %[r0], %[t]\n"                                               \
  "sub %[r1], %[r1], %[t]\n"                                               \
  "sub %[r2], %[r2], %[t]\n"                                               \
  "sub %[r3], %[r3], %[t]\n"                                               \
  "sub %[r4], %[r4], %[t]\n"                                               \
  "ldr %[t], [%[prm], #20]\n"                                              \
  "sub %[o0], %[o0], %[t]\n"                                               \
  "sub %[o1], %[o1], %[t]\n"                                               \
  vector                                                                   \
  "3:\n"                                                                   \
  "ldr %[t], [%[prm], #28]\n"                                              \
  "sub %[r0], %[r4], %[t]\n"                                               \
  "mov %[o0], %[o1]\n"                                                     \
  "ldr %[t], [%[prm], #48]\n"                                              \
  "subs %[t], %[t], #1\n"                                                  \
  "str %[t], [%[prm], #48]\n"                                              \
  "bne 5b\n"
#define MACE_DW2_ROWS_3 "add %[r1], %[r0], %[t]\n" "add %[r2], %[r1], %[t]\n"
#define MACE_DW2_ROWS_5 MACE_DW2_ROWS_3 "add %[r3], %[r2], %[t]\n" "add %[r4], %[r3], %[t]\n"

// params.passes_left passes of kRows (1 or 2) output rows at stride 2 on
// both axes, as SlidingPasses.
template <int kRows>
[[gnu::noinline]] void StrideTwoPasses(const float* in, float* out, SlideParams* params) {
  const float* r0 = in;
  const float* r1 = nullptr;
  const float* r2 = nullptr;
  const float* r3 = nullptr;
  const float* r4 = nullptr;
  float* o0 = out;
  float* o1 = nullptr;
  int n = 0, t = 0;
  SlideParams* prm = params;
  if constexpr (kRows == 2) {
    __asm__ volatile(
        MACE_DW2_PASSES(MACE_DW2_ROWS_5, MACE_DW2_TWO)
        : [r0] "+r"(r0), [r1] "+r"(r1), [r2] "+r"(r2), [r3] "+r"(r3), [r4] "+r"(r4),
          [o0] "+r"(o0), [o1] "+r"(o1), [n] "+r"(n), [t] "+r"(t)
        : [prm] "r"(prm)
        : MACE_DW_CLOBBERS);
  } else {
    __asm__ volatile(
        MACE_DW2_PASSES(MACE_DW2_ROWS_3, MACE_DW2_ONE)
        : [r0] "+r"(r0), [r1] "+r"(r1), [r2] "+r"(r2), [r3] "+r"(r3), [r4] "+r"(r4),
          [o0] "+r"(o0), [o1] "+r"(o1), [n] "+r"(n), [t] "+r"(t)
        : [prm] "r"(prm)
        : MACE_DW_CLOBBERS);
  }
}

// Stride 2 on both axes, four output rows a pass (9 input rows), in
// FourRowPasses' loop: an input row's windows come from two vld2 one
// float apart, the first giving the even and odd inputs and the second
// the odd ones again and the even ones shifted by one, loaded through one
// pointer that steps to the next row after the second (in_step) and back
// up to the next vector after the last row (in_back). 9 input rows of 2
// instructions for 4 vectors: 17.5 instructions per output vector with
// the clamp (15.5 with none), where a vld2, the ninth input into a lane
// and a vext took 19.75.
#define MACE_DW4S2_IN0(x, j) MACE_DW4_MLA("q5", x, 0, j)
#define MACE_DW4S2_IN1(x, j) MACE_DW4_MLA("q5", x, 1, j)
#define MACE_DW4S2_IN2(x, j) MACE_DW4_MLA("q5", x, 2, j) MACE_DW4_MLA("q6", x, 0, j)
#define MACE_DW4S2_IN3(x, j) MACE_DW4_MLA("q6", x, 1, j)
#define MACE_DW4S2_IN4(x, j) MACE_DW4_MLA("q6", x, 2, j) MACE_DW4_MLA("q7", x, 0, j)
#define MACE_DW4S2_IN5(x, j) MACE_DW4_MLA("q7", x, 1, j)
#define MACE_DW4S2_IN6(x, j) MACE_DW4_MLA("q7", x, 2, j) MACE_DW4_MLA("q8", x, 0, j)
#define MACE_DW4S2_IN7(x, j) MACE_DW4_MLA("q8", x, 1, j)
#define MACE_DW4S2_IN8(x, j) MACE_DW4_MLA("q8", x, 2, j)
// One input row: even inputs into e and odd into o (d registers eo), the
// pointer moving on one float (`four` holds 4); then o again and the even
// inputs shifted by one into w (d registers ow), the pointer moving on by
// `step`.
#define MACE_DW4S2_ROW(eo, ow, e, o, w, step, macs)                         \
  "vld2.32 {" eo "}, [%[in]], %[four]\n"                                   \
  "vld2.32 {" ow "}, [%[in]], %[" step "]\n"                               \
  macs(e, 0) macs(o, 1) macs(w, 2)
#define MACE_DW4S2_X "d18-d21", "d20-d23", "q9", "q10", "q11"
#define MACE_DW4S2_Y "d24-d27", "d26-d29", "q12", "q13", "q14"
#define MACE_DW4S2_STEP(act)                                                \
  MACE_DW4_BIAS                                                            \
  MACE_DW_EXPAND(MACE_DW4S2_ROW, MACE_DW4S2_X, "pitch", MACE_DW4S2_IN0)    \
  MACE_DW_EXPAND(MACE_DW4S2_ROW, MACE_DW4S2_Y, "pitch", MACE_DW4S2_IN1)    \
  MACE_DW_EXPAND(MACE_DW4S2_ROW, MACE_DW4S2_X, "pitch", MACE_DW4S2_IN2)    \
  MACE_DW_EXPAND(MACE_DW4S2_ROW, MACE_DW4S2_Y, "pitch", MACE_DW4S2_IN3)    \
  MACE_DW_EXPAND(MACE_DW4S2_ROW, MACE_DW4S2_X, "pitch", MACE_DW4S2_IN4)    \
  MACE_DW_EXPAND(MACE_DW4S2_ROW, MACE_DW4S2_Y, "pitch", MACE_DW4S2_IN5)    \
  MACE_DW_EXPAND(MACE_DW4S2_ROW, MACE_DW4S2_X, "pitch", MACE_DW4S2_IN6)    \
  MACE_DW_EXPAND(MACE_DW4S2_ROW, MACE_DW4S2_Y, "pitch", MACE_DW4S2_IN7)    \
  MACE_DW_EXPAND(MACE_DW4S2_ROW, MACE_DW4S2_X, "in_back", MACE_DW4S2_IN8)  \
  act                                                                      \
  MACE_DW4_STORE
#define MACE_DW4S2_FOUR , [four] "r"(four)

template <int kAct>
[[gnu::noinline]] void FourRowStrideTwoPasses(const float* in, float* out, int passes,
                                              const SlideParams& params) {
  int n = 0, t = 0, pitch = 0, width = 0, in_back = 0, out_back = 0;
  const int four = 4;
  const SlideParams* prm = &params;
  if constexpr (kAct == kActNone) {
    MACE_DW4_PASSES(MACE_DW4S2_STEP, "", ", lsl #1", MACE_DW4S2_FOUR);
  } else if constexpr (kAct == kActMax) {
    MACE_DW4_PASSES(MACE_DW4S2_STEP, MACE_DW4_MAX, ", lsl #1", MACE_DW4S2_FOUR);
  } else {
    MACE_DW4_PASSES(MACE_DW4S2_STEP, MACE_DW4_CLAMP, ", lsl #1", MACE_DW4S2_FOUR);
  }
}

// Stride 2 on both axes, one or two vector columns at a time down every
// row of the band, as the stride-1 columns: output row i reads input rows
// 2i to 2i + 2, and row 2i + 2 is also the next output row's tap row 0, so
// two accumulators (pairs of them for two columns) alternate and each
// input row is loaded once a column, where four-row passes load 9 rows for
// 4 outputs. An input row's windows come from two vld2 one float apart, as
// in FourRowStrideTwoPasses; a pair's second vector takes the odd inputs
// and shifted even ones from a third vld2 eight floats on and its even
// inputs from one vext. 17 instructions per output vector with a clamp
// (single columns) and 16.5 (pairs), where four-row passes take 17.5.
// Accumulators: q5 (A) and q7 (B), and q6 and q8 for a pair's second
// vector; windows e, o, w in q9-q11 and the second vector's in q14, q12,
// q13.
#define MACE_DWS_ACC_A0 "q5"
#define MACE_DWS_ACC_A1 "q6"
#define MACE_DWS_ACC_B0 "q7"
#define MACE_DWS_ACC_B1 "q8"
#define MACE_DWS_ACC(a, v) MACE_DWS_ACC_##a##v
#define MACE_DWS_A_D "d10-d13"
#define MACE_DWS_B_D "d14-d17"
#define MACE_DWS_A_D1 "d10-d11"
#define MACE_DWS_B_D1 "d14-d15"
// Vector v's windows into tap row r of accumulator a.
#define MACE_DWS_MACS(a, v, r, e, o, w)                                       \
  MACE_DW4_MLA(MACE_DWS_ACC(a, v), e, r, 0)                                \
  MACE_DW4_MLA(MACE_DWS_ACC(a, v), o, r, 1)                                \
  MACE_DW4_MLA(MACE_DWS_ACC(a, v), w, r, 2)
// Vector v's windows of one input row into tap row r of a (and, if b is
// not NONE, tap row 0 of b).
#define MACE_DWS_TAPS(v, a, r, b, e, o, w) MACE_DWS_MACS(a, v, r, e, o, w) MACE_DWS_B_##b(v, e, o, w)
#define MACE_DWS_B_NONE(v, e, o, w)
#define MACE_DWS_B_A(v, e, o, w) MACE_DWS_MACS(A, v, 0, e, o, w)
#define MACE_DWS_B_B(v, e, o, w) MACE_DWS_MACS(B, v, 0, e, o, w)
// Single columns: the row's even and odd inputs, then the odd ones again
// and the even ones shifted by one, the pointer moving on one float (t
// holds 4) and then to the next row.
#define MACE_DWS1_ROW(a, r, b)                                               \
  "vld2.32 {d18-d21}, [%[in]], %[t]\n"                                     \
  "vld2.32 {d20-d23}, [%[in]], %[step]\n"                                  \
  MACE_DWS_TAPS(0, a, r, b, "q9", "q10", "q11")
// Pairs: the second load moves the pointer on to the second vector's odd
// inputs (nine floats from the row's start), whose load gives its odd and
// shifted even inputs; its even inputs come from the first vector's
// shifted ones and its own.
#define MACE_DWS2_ROW(a, r, b)                                               \
  "vld2.32 {d18-d21}, [%[in]], %[t]\n"                                     \
  "vld2.32 {d20-d23}, [%[in]]!\n"                                          \
  "vld2.32 {d24-d27}, [%[in]], %[step]\n"                                  \
  "vext.32 q14, q11, q13, #3\n"                                            \
  MACE_DWS_TAPS(0, a, r, b, "q9", "q10", "q11")                             \
  MACE_DWS_TAPS(1, a, r, b, "q14", "q12", "q13")
#define MACE_DWS1_BIAS(a) "vdup.32 " MACE_DWS_ACC(a, 0) ", d5[0]\n"
#define MACE_DWS2_BIAS(a) MACE_DWS1_BIAS(a) "vdup.32 " MACE_DWS_ACC(a, 1) ", d5[0]\n"
#define MACE_DWS1_FINISH(act, a) act(MACE_DWS_ACC(a, 0)) \
  "vst1.32 {" MACE_DWS_##a##_D1 "}, [%[out]], %[width]\n"
#define MACE_DWS2_FINISH(act, a) act(MACE_DWS_ACC(a, 0)) act(MACE_DWS_ACC(a, 1)) \
  "vst1.32 {" MACE_DWS_##a##_D "}, [%[out]], %[width]\n"
// Output row: a finished by its input rows 2i + 1 and 2i + 2, b started
// from the bias and row 2i + 2.
#define MACE_DWS_STEP(c, act, a, b)                                          \
  c##BIAS(b)                                                               \
  c##ROW(a, 1, NONE)                                                       \
  c##ROW(a, 2, b)                                                          \
  c##FINISH(act, a)
// Every column of the band (kind c: MACE_DWS1_ or MACE_DWS2_): input row 0
// into A, pairs of output rows (passes_left, offset 48, of them), and the
// last one if the row count is odd (tails, offset 24); then both pointers
// on to the next column, the last, ragged one stepping back to end at the
// row's last output.
#define MACE_DWS_WALK(c, act) MACE_DWS_WALK_FROM(c, act, c##ROW(A, 0, NONE))
// The same walk whose first input row is `row0` (nothing where the walk
// reads a plane in place, whose row above is zero padding).
#define MACE_DWS_WALK_FROM(c, act, row0)                                     \
  __asm__ volatile(                                                        \
      MACE_DW_COLUMN_HEAD("76")                                            \
      "mov %[t], #4\n"                                                     \
      c##INIT                                                              \
      "6:\n"                                                               \
      c##BIAS(A)                                                           \
      row0                                                                 \
      "ldr %[n], [%[prm], #48]\n"                                          \
      "cmp %[n], #0\n"                                                     \
      "beq 2f\n"                                                           \
      "1:\n"                                                               \
      MACE_DWS_STEP(c, act, A, B)                                          \
      MACE_DWS_STEP(c, act, B, A)                                          \
      "subs %[n], %[n], #1\n"                                              \
      "bne 1b\n"                                                           \
      "2:\n"                                                               \
      "ldr %[n], [%[prm], #24]\n"                                          \
      "cmp %[n], #0\n"                                                     \
      "beq 9f\n"                                                           \
      c##ROW(A, 1, NONE)                                                   \
      c##ROW(A, 2, NONE)                                                   \
      c##FINISH(act, A)                                                    \
      MACE_DW_COLUMN_TAIL(", lsl #1"))

#define MACE_DWS1_INIT
#define MACE_DWS2_INIT
#define MACE_DWS1_COLUMNS(act) MACE_DWS_WALK(MACE_DWS1_, act)
#define MACE_DWS2_COLUMNS(act) MACE_DWS_WALK(MACE_DWS2_, act)

// Planes read in place at stride 2 (one row and column of zero padding
// before the input, none read after it): the walks start from input row
// 0, and the first column forms the zero lane of its first vector's
// window at input column -1 in registers (q15 holds zeros). A row's even
// and odd inputs from column 0 are windows 1 and 2 of the first vector,
// and one vext of the odd ones after a zero gives window 0; a pair's
// second vector takes its even and odd inputs from one more vld2 and its
// window 0 from a vext of both vectors' odd inputs. 2 instructions a row
// for one vector and 4 for a pair, as the inner columns, which the
// existing walks read where they lie.
#define MACE_DWF1_ROW(a, r, b)                                               \
  "vld2.32 {d18-d21}, [%[in]], %[step]\n"                                  \
  "vext.32 q11, q15, q10, #3\n"                                            \
  MACE_DWS_TAPS(0, a, r, b, "q11", "q9", "q10")
#define MACE_DWF2_ROW(a, r, b)                                               \
  "vld2.32 {d18-d21}, [%[in]]!\n"                                          \
  "vld2.32 {d24-d27}, [%[in]], %[step]\n"                                  \
  "vext.32 q11, q15, q10, #3\n"                                            \
  "vext.32 q14, q10, q13, #3\n"                                            \
  MACE_DWS_TAPS(0, a, r, b, "q11", "q9", "q10")                             \
  MACE_DWS_TAPS(1, a, r, b, "q14", "q12", "q13")
#define MACE_DWF1_INIT "vmov.i32 q15, #0\n"
#define MACE_DWF2_INIT MACE_DWF1_INIT
#define MACE_DWF1_BIAS MACE_DWS1_BIAS
#define MACE_DWF2_BIAS MACE_DWS2_BIAS
#define MACE_DWF1_FINISH MACE_DWS1_FINISH
#define MACE_DWF2_FINISH MACE_DWS2_FINISH
#define MACE_DWF1_COLUMNS(act) MACE_DWS_WALK_FROM(MACE_DWF1_, act, )
#define MACE_DWF2_COLUMNS(act) MACE_DWS_WALK_FROM(MACE_DWF2_, act, )
#define MACE_DWT1_INIT
#define MACE_DWT2_INIT
#define MACE_DWT1_ROW MACE_DWS1_ROW
#define MACE_DWT2_ROW MACE_DWS2_ROW
#define MACE_DWT1_BIAS MACE_DWS1_BIAS
#define MACE_DWT2_BIAS MACE_DWS2_BIAS
#define MACE_DWT1_FINISH MACE_DWS1_FINISH
#define MACE_DWT2_FINISH MACE_DWS2_FINISH
#define MACE_DWT1_COLUMNS(act) MACE_DWS_WALK_FROM(MACE_DWT1_, act, )
#define MACE_DWT2_COLUMNS(act) MACE_DWS_WALK_FROM(MACE_DWT2_, act, )

// A band at stride 2 on both axes of kLanes outputs a row or more, by
// columns (pairs if kPairs), activated as kAct says.
template <bool kPairs, int kAct>
[[gnu::noinline]] void ColumnStrideTwoPasses(const float* in, float* out,
                                             const SlideParams& params) {
  int n = 0, t = 0, cols = 0, step = 0, width = 0, in_next = 0, out_next = 0;
  const SlideParams* prm = &params;
  if constexpr (kPairs) {
    MACE_DW_ACT_WALK(MACE_DWS2_COLUMNS)
  } else {
    MACE_DW_ACT_WALK(MACE_DWS1_COLUMNS)
  }
}

// The rows of a band at stride 2 on both axes that four-row passes leave
// (from output row `first`): passes of two rows and one of one.
[[gnu::always_inline]] inline void StrideTwoRest(const DepthwiseBand& band, int first,
                                                 SlideParams* params) {
  const int width = static_cast<int>(band.out_w);
  const int rest = width % kLanes;
  params->vector_pairs = width / kLanes;
  params->odd_vector = 0;
  params->back_out = static_cast<int32_t>((kLanes - rest) * sizeof(float));
  params->back_in = 2 * params->back_out;
  params->tails = rest != 0 ? 1 : 0;
  params->rewind = static_cast<int32_t>(2 * width * sizeof(float));
  const int left = static_cast<int>(band.rows) - first;
  const float* in = band.in + 2 * first * band.in_pitch;
  float* out = band.out + first * band.out_w;
  const int pairs = left / 2;
  if (pairs > 0) {
    params->passes_left = pairs;
    StrideTwoPasses<2>(in, out, params);
  }
  if (left % 2 != 0) {
    params->passes_left = 1;
    StrideTwoPasses<1>(in + 4 * pairs * band.in_pitch, out + 2 * pairs * width, params);
  }
}

// The four-row passes at this stride.
template <int kStride, int kAct>
void FourRowKernel(const float* in, float* out, int passes, const SlideParams& params) {
  if constexpr (kStride == 1) {
    FourRowPasses<kAct>(in, out, passes, params);
  } else {
    FourRowStrideTwoPasses<kAct>(in, out, passes, params);
  }
}

// `passes` four-row passes from output row `first`, `spacing` rows apart.
// This and the rest functions are inlined into the band: as calls of their
// own they cost a 14x14 band about 35 instructions.
template <int kStride>
[[gnu::always_inline]] inline void FourRows(const DepthwiseBand& band, int act, int first,
                                            int passes, int spacing, SlideParams* params) {
  params->in_next = kStride * (spacing * params->pitch_bytes - params->width_bytes);
  params->out_next = (spacing - 1) * params->width_bytes;
  const float* in = band.in + kStride * first * band.in_pitch;
  float* out = band.out + first * band.out_w;
  if (act == kActNone) {
    FourRowKernel<kStride, kActNone>(in, out, passes, *params);
  } else if (act == kActMax) {
    FourRowKernel<kStride, kActMax>(in, out, passes, *params);
  } else {
    FourRowKernel<kStride, kActClamp>(in, out, passes, *params);
  }
}

// A column walk: in and out point at its first column's first rows.
using ColumnWalk = void (*)(const float* in, float* out, const SlideParams& params);

// The column walks, by kind and activation.
enum ColumnKind : int {
  kPairColumns,
  kSingleColumns,
  kSevenColumns,
  kPairColumnsS2,
  kSingleColumnsS2,
  // Planes read in place: stride 1's edge pairs, inner pairs and single
  // columns; stride 2's first column (a pair or one vector) and the others.
  kLeftPairInPlace,
  kRightPairInPlace,
  kPairColumnsInPlace,
  kSingleColumnsInPlace,
  kFirstPairInPlaceS2,
  kFirstColumnInPlaceS2,
  kPairColumnsInPlaceS2,
  kSingleColumnsInPlaceS2,
};
// A walk over planes read in place, of kind kKind (one of the InPlace
// kinds), activated as kAct says.
template <int kKind, int kAct>
[[gnu::noinline]] void InPlaceWalk(const float* in, float* out, const SlideParams& params) {
  int n = 0, t = 0, cols = 0, step = 0, width = 0, in_next = 0, out_next = 0;
  const SlideParams* prm = &params;
  if constexpr (kKind == kLeftPairInPlace) {
    MACE_DW_ACT_WALK(MACE_DWL_COLUMNS)
  } else if constexpr (kKind == kRightPairInPlace) {
    MACE_DW_ACT_WALK(MACE_DWR_COLUMNS)
  } else if constexpr (kKind == kPairColumnsInPlace) {
    MACE_DW_ACT_WALK(MACE_DWI_COLUMNS)
  } else if constexpr (kKind == kSingleColumnsInPlace) {
    MACE_DW_ACT_WALK(MACE_DWJ_COLUMNS)
  } else if constexpr (kKind == kFirstPairInPlaceS2) {
    MACE_DW_ACT_WALK(MACE_DWF2_COLUMNS)
  } else if constexpr (kKind == kFirstColumnInPlaceS2) {
    MACE_DW_ACT_WALK(MACE_DWF1_COLUMNS)
  } else if constexpr (kKind == kPairColumnsInPlaceS2) {
    MACE_DW_ACT_WALK(MACE_DWT2_COLUMNS)
  } else {
    MACE_DW_ACT_WALK(MACE_DWT1_COLUMNS)
  }
}

template <int kAct>
ColumnWalk ColumnWalkOf(int kind) {
  switch (kind) {
    case kPairColumns:
      return ColumnPairPasses<kAct>;
    case kSingleColumns:
      return ColumnPasses<kAct>;
    case kSevenColumns:
      return ColumnSevenPasses<kAct>;
    case kPairColumnsS2:
      return ColumnStrideTwoPasses<true, kAct>;
    case kSingleColumnsS2:
      return ColumnStrideTwoPasses<false, kAct>;
    case kLeftPairInPlace:
      return InPlaceWalk<kLeftPairInPlace, kAct>;
    case kRightPairInPlace:
      return InPlaceWalk<kRightPairInPlace, kAct>;
    case kPairColumnsInPlace:
      return InPlaceWalk<kPairColumnsInPlace, kAct>;
    case kSingleColumnsInPlace:
      return InPlaceWalk<kSingleColumnsInPlace, kAct>;
    case kFirstPairInPlaceS2:
      return InPlaceWalk<kFirstPairInPlaceS2, kAct>;
    case kFirstColumnInPlaceS2:
      return InPlaceWalk<kFirstColumnInPlaceS2, kAct>;
    case kPairColumnsInPlaceS2:
      return InPlaceWalk<kPairColumnsInPlaceS2, kAct>;
    default:
      return InPlaceWalk<kSingleColumnsInPlaceS2, kAct>;
  }
}
ColumnWalk ColumnWalkOf(int kind, int act) {
  if (act == kActClamp) return ColumnWalkOf<kActClamp>(kind);
  if (act == kActMax) return ColumnWalkOf<kActMax>(kind);
  return ColumnWalkOf<kActNone>(kind);
}

// A band's column walks (one or two) with their parameters and where each
// starts, worked out from the band's shape and activation alone: a layer's
// planes all share it, only the taps and bias change (ColumnPlan::Run).
struct ColumnPlan {
  struct Call {
    ColumnWalk walk = nullptr;
    SlideParams params;
    int32_t in_offset = 0, out_offset = 0;  // floats from the band's in and out
  };
  Call calls[4];
  int count = 0;
  void Add(ColumnWalk walk, const SlideParams& params, int32_t in_offset, int32_t out_offset) {
    calls[count].walk = walk;
    calls[count].params = params;
    calls[count].in_offset = in_offset;
    calls[count].out_offset = out_offset;
    ++count;
  }
  // Calls from `first` on start `in` and `out` floats further.
  void Shift(int first, int32_t in, int32_t out) {
    for (int i = first; i < count; ++i) {
      calls[i].in_offset += in;
      calls[i].out_offset += out;
    }
  }
  void Run(const float* in, float* out, const float* taps, float bias) {
    for (int i = 0; i < count; ++i) {
      Call& call = calls[i];
      call.params.taps = taps;
      call.params.bias = bias;
      call.walk(in + call.in_offset, out + call.out_offset, call.params);
    }
  }
};

// Bytes from the end of a row's whole vectors back to its ragged one,
// which ends at the row's last output; 0 if there is none.
inline int32_t RaggedBack(int width) {
  return width % kLanes != 0 ? (kLanes - width % kLanes) * static_cast<int32_t>(sizeof(float))
                             : 0;
}

// A band at stride kStride by columns: pairs of vector columns (walk
// `pairs`, each input row's last load stepping on by pair_step), the last
// ending at the row's last output when that leaves more than one vector,
// then a single column (`single`, single_step) for the rest. in_rows: the
// input rows a column walks down.
template <int kStride>
void PlanByColumns(const DepthwiseBand& band, int in_rows, int pair_step, int single_step,
                   SlideParams* params, ColumnWalk pairs, ColumnWalk single, ColumnPlan* plan) {
  const int width = static_cast<int>(band.out_w), rows = static_cast<int>(band.rows);
  const int in_rows_bytes = in_rows * params->pitch_bytes;
  int32_t in = 0, out = 0;
  int left = width;
  const int pair_columns = width < 8 ? 0 : width % 8 > kLanes ? width / 8 + 1 : width / 8;
  if (pair_columns > 0) {
    params->columns = pair_columns;
    params->ragged_back = width % 8 > kLanes ? (8 - width % 8) * 4 : 0;
    params->in_step = pair_step;
    params->in_next = kStride * 32 - in_rows_bytes;
    params->out_next = 32 - rows * params->width_bytes;
    plan->Add(pairs, *params, 0, 0);
    left = width - pair_columns * 8 + params->ragged_back / 4;
    if (left <= 0) return;
    // One vector column ending at the row's last output.
    in = kStride * (width - kLanes);
    out = width - kLanes;
    left = kLanes;
  }
  params->ragged_back = RaggedBack(left);
  params->columns = (left + kLanes - 1) / kLanes;
  params->in_step = single_step;
  params->in_next = kStride * 16 - in_rows_bytes;
  params->out_next = 16 - rows * params->width_bytes;
  plan->Add(single, *params, in, out);
}

// The activation kind of bounds [lo, hi].
inline int ActOf(float lo, float hi) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  return hi != kInf ? kActClamp : lo != -kInf ? kActMax : kActNone;
}

// The column walks of a band at stride kStride (1, or 2 on both axes) of
// at least kLanes outputs a row, clamped to [lo, hi]; false, planning
// nothing, for a band that takes passes of rows instead.
//
// Stride 1 goes by columns from kColumnMinRows rows, before anything the
// passes need is worked out: a column's first two input rows and last two
// output rows cost some 6 instructions more than its steps, which taller
// bands spread thin.
//
// Stride 2 goes by columns from kColumnStrideTwoMinRows rows, except where
// up to 4 four-row passes take the rows exactly: each column's first
// input row and loop control cost more than a pass's (counted under qemu
// at widths 7 to 56: 4, 8, 12 and 16 rows took up to 10 % more by
// columns, 3, 5 to 7 and 13 to 15 rows took 3-30 % less).
template <int kStride>
bool PlanColumns(const DepthwiseBand& band, float lo, float hi, ColumnPlan* plan) {
  const int width = static_cast<int>(band.out_w);
  const int rows = static_cast<int>(band.rows);
  plan->count = 0;
  if constexpr (kStride == 1) {
    if (rows < kColumnMinRows) return false;
    SlideParams params = BandParams(band, lo, hi);
    params.column_loops = (rows - 2) / 3;
    params.column_rest = (rows - 2) % 3;
    const int act = ActOf(lo, hi);
    if (width == 7) {
      params.columns = 1;
      params.in_step = params.pitch_bytes - 12;
      plan->Add(ColumnWalkOf(kSevenColumns, act), params, 0, 0);
      return true;
    }
    // Single columns step by the pitch (offset 0).
    PlanByColumns<1>(band, rows + 2, params.pitch_bytes - 8, params.pitch_bytes, &params,
                     ColumnWalkOf(kPairColumns, act), ColumnWalkOf(kSingleColumns, act), plan);
    return true;
  } else {
    if (rows < kColumnStrideTwoMinRows || (rows % 4 == 0 && rows <= 16)) return false;
    SlideParams params = BandParams(band, lo, hi);
    const int act = ActOf(lo, hi);
    params.passes_left = rows / 2;
    params.tails = rows % 2;
    PlanByColumns<2>(band, 2 * rows + 1, params.pitch_bytes - 36, params.pitch_bytes - 4,
                     &params, ColumnWalkOf(kPairColumnsS2, act),
                     ColumnWalkOf(kSingleColumnsS2, act), plan);
    return true;
  }
}

// A whole band at stride 1, or 2 on both axes, of at least kLanes outputs
// a row, clamped to [lo, hi]: four-row passes, then the rows they leave.
template <int kStride>
void FourRowBand(const DepthwiseBand& band, float lo, float hi) {
  const int width = static_cast<int>(band.out_w);
  const int rows = static_cast<int>(band.rows);
  ColumnPlan plan;
  if (PlanColumns<kStride>(band, lo, hi, &plan)) {
    return plan.Run(band.in, band.out, band.taps, band.bias);
  }
  SlideParams params = BandParams(band, lo, hi);
  const int quads = rows / 4, left = rows % 4;
  const auto rest = [&](int first) {
    if constexpr (kStride == 1) {
      SlidingRest(band, first, &params);
    } else {
      StrideTwoRest(band, first, &params);
    }
  };
  if (quads == 0) return rest(0);
  // The last 1 to 3 rows run as one more four-row pass that overlaps the
  // one before it (its rows computed again, the same values stored again)
  // where that costs less than passes of two and one rows. Counted under
  // qemu on bands of 5 to 7 rows, it does for 1 row left up to 2 vectors a
  // row, 2 rows up to 3, and 3 rows up to about 24 (12 here, where the
  // pass may be a call of its own). So 7 rows of 7 outputs (the MobileNets'
  // last maps) take one call of two passes.
  const int row_vectors = (width + kLanes - 1) / kLanes;
  const bool overlap = left != 0 && row_vectors <= (left == 3 ? 12 : left + 1);
  const int act = ActOf(lo, hi);
  params.ragged_back = RaggedBack(width);
  // Stride 2 loads a row twice, the second load one float on.
  params.in_step = kStride == 1 ? params.pitch_bytes : params.pitch_bytes - 4;
  params.in_back = kStride == 1 ? 16 - 5 * params.pitch_bytes : 28 - 8 * params.pitch_bytes;
  params.out_back = 16 - 3 * params.width_bytes;
  params.whole_vectors = width / kLanes;
  if (overlap && quads == 1) return FourRows<kStride>(band, act, 0, 2, rows - 4, &params);
  FourRows<kStride>(band, act, 0, quads, 4, &params);
  if (overlap) return FourRows<kStride>(band, act, rows - 4, 1, 4, &params);
  if (left != 0) rest(4 * quads);
}

// Planes read in place at stride 1 take rows of at least 13 outputs: the
// two edge pairs cost a row 2 instructions more than inner pairs, which
// the band copy saved (6 a row of 13 or more) and the zero rows skipped
// outweigh only from there (9 to 12 outputs take a pair and a single
// column on a copy).
constexpr int kInPlaceMinWidth = 13;

// The walks of a plane read in place (band.in_pitch == band.out_w, stride
// 1, NeonDepthwise3x3TakesPlanesInPlace): the left and right edge pairs,
// and between them (outputs 8 to out_w - 9) pairs and a single column as
// PlanByColumns lays them out, each reading from one column before its
// first output.
void PlanInPlace(const DepthwiseBand& band, float lo, float hi, ColumnPlan* plan) {
  const int width = static_cast<int>(band.out_w), rows = static_cast<int>(band.rows);
  const int act = ActOf(lo, hi);
  plan->count = 0;
  SlideParams params = BandParams(band, lo, hi);
  params.column_loops = (rows - 2) / 3;
  params.column_rest = (rows - 2) % 3;
  // One column each: the walks never step on to a next one.
  params.columns = 1;
  params.in_next = 0;
  params.out_next = 0;
  params.ragged_back = 0;
  params.in_step = params.pitch_bytes - 4;
  plan->Add(ColumnWalkOf(kLeftPairInPlace, act), params, 0, 0);
  const SlideParams edge = params;
  DepthwiseBand inner = band;
  inner.out_w = width - 16;
  if (inner.out_w > 0) {
    const int first = plan->count;
    PlanByColumns<1>(inner, rows, params.pitch_bytes - 8, params.pitch_bytes, &params,
                     ColumnWalkOf(kPairColumnsInPlace, act),
                     ColumnWalkOf(kSingleColumnsInPlace, act), plan);
    plan->Shift(first, 7, 8);
  }
  plan->Add(ColumnWalkOf(kRightPairInPlace, act), edge, width - 9, width - 8);
}

// The walks of a plane read in place at stride 2 (2 * band.rows input
// rows of band.in_pitch >= 2 * band.out_w floats): the first column, a
// pair when the row holds one, then the rest as PlanByColumns lays them
// out, or, when fewer than 4 outputs are left, one column ending at the
// row's last output.
void PlanInPlaceStrideTwo(const DepthwiseBand& band, float lo, float hi, ColumnPlan* plan) {
  const int width = static_cast<int>(band.out_w), rows = static_cast<int>(band.rows);
  const int act = ActOf(lo, hi);
  plan->count = 0;
  SlideParams params = BandParams(band, lo, hi);
  params.passes_left = rows / 2;
  params.tails = rows % 2;
  params.columns = 1;
  params.in_next = 0;
  params.out_next = 0;
  params.ragged_back = 0;
  const bool pairs = width >= 2 * kLanes;
  const int first = pairs ? 2 * kLanes : kLanes;
  params.in_step = pairs ? params.pitch_bytes - 32 : params.pitch_bytes;
  plan->Add(ColumnWalkOf(pairs ? kFirstPairInPlaceS2 : kFirstColumnInPlaceS2, act), params, 0, 0);
  const int left = width - first;
  if (left <= 0) return;
  if (left < kLanes) {
    params.in_step = params.pitch_bytes - 4;
    plan->Add(ColumnWalkOf(kSingleColumnsInPlaceS2, act), params, 2 * (width - kLanes) - 1,
              width - kLanes);
    return;
  }
  DepthwiseBand rest = band;
  rest.out_w = left;
  const int added = plan->count;
  PlanByColumns<2>(rest, 2 * rows, params.pitch_bytes - 36, params.pitch_bytes - 4, &params,
                   ColumnWalkOf(kPairColumnsInPlaceS2, act),
                   ColumnWalkOf(kSingleColumnsInPlaceS2, act), plan);
  plan->Shift(added, 2 * first - 1, first);
}
// clang-format on
#undef MACE_DW4S2_FOUR
#undef MACE_DW4S2_STEP
#undef MACE_DW4S2_Y
#undef MACE_DW4S2_X
#undef MACE_DW4S2_ROW
#undef MACE_DW4S2_IN8
#undef MACE_DW4S2_IN7
#undef MACE_DW4S2_IN6
#undef MACE_DW4S2_IN5
#undef MACE_DW4S2_IN4
#undef MACE_DW4S2_IN3
#undef MACE_DW4S2_IN2
#undef MACE_DW4S2_IN1
#undef MACE_DW4S2_IN0
#undef MACE_DW4_PASSES
#undef MACE_DW4_STEP
#undef MACE_DW4_STORE
#undef MACE_DW4_BIAS
#undef MACE_DW4_CLAMP
#undef MACE_DW4_MAX
#undef MACE_DW4_Y
#undef MACE_DW4_X
#undef MACE_DW4_ROW
#undef MACE_DW4_IN5
#undef MACE_DW4_IN4
#undef MACE_DW4_IN3
#undef MACE_DW4_IN2
#undef MACE_DW4_IN1
#undef MACE_DW4_IN0
#undef MACE_DW4_MLA
#undef MACE_DW4_TAP_2_2
#undef MACE_DW4_TAP_2_1
#undef MACE_DW4_TAP_2_0
#undef MACE_DW4_TAP_1_2
#undef MACE_DW4_TAP_1_1
#undef MACE_DW4_TAP_1_0
#undef MACE_DW4_TAP_0_2
#undef MACE_DW4_TAP_0_1
#undef MACE_DW4_TAP_0_0
#undef MACE_DW4_TAP
#undef MACE_DW_CLOBBERS
#undef MACE_DW2_ROWS_5
#undef MACE_DW2_ROWS_3
#undef MACE_DW2_PASSES
#undef MACE_DW2_ONE
#undef MACE_DW2_ROWS_0_2
#undef MACE_DW2_TWO
#undef MACE_DW2_CLAMP
#undef MACE_DW2_YR
#undef MACE_DW2_XR
#undef MACE_DW2_Y
#undef MACE_DW2_X
#undef MACE_DW2_MACS
#undef MACE_DW2_LOAD
#undef MACE_DW_TAILS
#undef MACE_DW_LOOP
#undef MACE_DW_LOADS_4
#undef MACE_DW_LOADS_3
#undef MACE_DW_ROWS_4
#undef MACE_DW_ROWS_3
#undef MACE_DW_PASS_START
#undef MACE_DW_SETUP
#undef MACE_DW_TAIL_ONE
#undef MACE_DW_TAIL_TWO
#undef MACE_DW_SIX
#undef MACE_DW_ONE_LOADED
#undef MACE_DW_TWO_LOADED
#undef MACE_DW_NEXT
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
// are the same, in the same order. Writes the width / 4 whole vectors of
// each row; rows of 8 or more outputs take AsmRowsWideS1 instead.
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
// The asm statement `asm1(clamp)` with the clamp kAct asks for: none, a
// max, or a max and a min.
#define MACE_DW_CLAMPED(asm1, max, min)                                      \
  if constexpr (kAct == kActNone) {                                          \
    asm1("");                                                                \
  } else if constexpr (kAct == kActMax) {                                    \
    asm1(max);                                                               \
  } else {                                                                   \
    asm1(max min);                                                           \
  }
// The clamp of the four accumulators v16-v19 to [lo, hi] (kActClamp) or to
// lo only (kActMax); none for kActNone.
#define MACE_DW4_MAX(lo)                                                     \
  "fmax v16.4s, v16.4s, " lo "\n"                                            \
  "fmax v17.4s, v17.4s, " lo "\n"                                            \
  "fmax v18.4s, v18.4s, " lo "\n"                                            \
  "fmax v19.4s, v19.4s, " lo "\n"
#define MACE_DW4_MIN(hi)                                                     \
  "fmin v16.4s, v16.4s, " hi "\n"                                            \
  "fmin v17.4s, v17.4s, " hi "\n"                                            \
  "fmin v18.4s, v18.4s, " hi "\n"                                            \
  "fmin v19.4s, v19.4s, " hi "\n"
#define MACE_DW4_S1_ASM(clamp)                                                                     \
  __asm__ volatile(                                                                                \
      "1:\n"                                                                                       \
      "mov v16.16b, %[b].16b\n"                                                                    \
      "mov v17.16b, %[b].16b\n"                                                                    \
      "mov v18.16b, %[b].16b\n"                                                                    \
      "mov v19.16b, %[b].16b\n"                                                                    \
      MACE_DW4_LOAD("r0")                                                                          \
      MACE_DW4_EXPAND(MACE_DW4_TAPS, "v16", MACE_DW4_ROW0)                                         \
      MACE_DW4_LOAD("r1")                                                                          \
      MACE_DW4_EXPAND(MACE_DW4_TAPS, "v16", MACE_DW4_ROW1)                                         \
      MACE_DW4_EXPAND(MACE_DW4_TAPS, "v17", MACE_DW4_ROW0)                                         \
      MACE_DW4_LOAD("r2")                                                                          \
      MACE_DW4_EXPAND(MACE_DW4_TAPS, "v16", MACE_DW4_ROW2)                                         \
      MACE_DW4_EXPAND(MACE_DW4_TAPS, "v17", MACE_DW4_ROW1)                                         \
      MACE_DW4_EXPAND(MACE_DW4_TAPS, "v18", MACE_DW4_ROW0)                                         \
      MACE_DW4_LOAD("r3")                                                                          \
      MACE_DW4_EXPAND(MACE_DW4_TAPS, "v17", MACE_DW4_ROW2)                                         \
      MACE_DW4_EXPAND(MACE_DW4_TAPS, "v18", MACE_DW4_ROW1)                                         \
      MACE_DW4_EXPAND(MACE_DW4_TAPS, "v19", MACE_DW4_ROW0)                                         \
      MACE_DW4_LOAD("r4")                                                                          \
      MACE_DW4_EXPAND(MACE_DW4_TAPS, "v18", MACE_DW4_ROW2)                                         \
      MACE_DW4_EXPAND(MACE_DW4_TAPS, "v19", MACE_DW4_ROW1)                                         \
      MACE_DW4_LOAD("r5")                                                                          \
      MACE_DW4_EXPAND(MACE_DW4_TAPS, "v19", MACE_DW4_ROW2)                                         \
      clamp                                                                                        \
      "subs %[n], %[n], #1\n"                                                                      \
      "str q16, [%[o0]], #16\n"                                                                    \
      "str q17, [%[o1]], #16\n"                                                                    \
      "str q18, [%[o2]], #16\n"                                                                    \
      "str q19, [%[o3]], #16\n"                                                                    \
      "b.ne 1b\n"                                                                                  \
      : [r0] "+r"(r0), [r1] "+r"(r1), [r2] "+r"(r2), [r3] "+r"(r3), [r4] "+r"(r4),                 \
        [r5] "+r"(r5), [o0] "+r"(o0), [o1] "+r"(o1), [o2] "+r"(o2), [o3] "+r"(o3), [n] "+r"(n)     \
      : [t0] "w"(taps.q[0]), [t1] "w"(taps.q[1]), [t2] "w"(taps.q[2]), [lo] "w"(lo),               \
        [hi] "w"(hi), [b] "w"(b)                                                                   \
      : "cc", "memory", "v16", "v17", "v18", "v19", "v20", "v21", "v22")
template <int kAct>
inline void AsmFourRowsS1(const float* in, int64_t pitch, const Taps& taps, float bias,
                          float32x4_t lo, float32x4_t hi, float* out, int64_t width) {
  int64_t n = width / kLanes;
  if (n == 0) return;
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
  MACE_DW_CLAMPED(MACE_DW4_S1_ASM, MACE_DW4_MAX("%[lo].4s"), MACE_DW4_MIN("%[hi].4s"))
}
#undef MACE_DW4_S1_ASM
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
#define MACE_DW4_CLAMP_STORE(clamp)                                          \
  clamp                                                                      \
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

#define MACE_DW4_S2_ASM(clamp)                                                                     \
  __asm__ volatile(                                                                                \
      MACE_DW4_START                                                                               \
      MACE_DW4_LOAD2("r0") MACE_DW4(v16, 0)                                                        \
      MACE_DW4_LOAD2("r1") MACE_DW4(v16, 1)                                                        \
      MACE_DW4_LOAD2("r2") MACE_DW4(v16, 2) MACE_DW4(v17, 0)                                       \
      MACE_DW4_LOAD2("r3") MACE_DW4(v17, 1)                                                        \
      MACE_DW4_LOAD2("r4") MACE_DW4(v17, 2) MACE_DW4(v18, 0)                                       \
      MACE_DW4_LOAD2("r5") MACE_DW4(v18, 1)                                                        \
      MACE_DW4_LOAD2("r6") MACE_DW4(v18, 2) MACE_DW4(v19, 0)                                       \
      MACE_DW4_LOAD2("r7") MACE_DW4(v19, 1)                                                        \
      MACE_DW4_LOAD2("r8") MACE_DW4(v19, 2)                                                        \
      MACE_DW4_CLAMP_STORE(clamp)                                                                  \
      : [r0] "+r"(r[0]), [r1] "+r"(r[1]), [r2] "+r"(r[2]), [r3] "+r"(r[3]), [r4] "+r"(r[4]),       \
        [r5] "+r"(r[5]), [r6] "+r"(r[6]), [r7] "+r"(r[7]), [r8] "+r"(r[8]), [o] "+r"(o),           \
        [n] "+r"(n)                                                                                \
      : [taps] "r"(tap_values), [consts] "r"(consts), [wb] "r"(wb), [wb2] "r"(2 * wb),             \
        [wb3] "r"(3 * wb), [eight] "r"(eight), [rest] "r"(rest)                                    \
      : MACE_DW4_CLOBBERS)
template <int kAct>
// `steps` vectors of each output row (rows of `width` at `out`).
inline void AsmFourRowsS2(const float* in, int64_t pitch, const Taps& taps, float bias,
                          float32x4_t lo, float32x4_t hi, float* out, int64_t width,
                          int64_t steps) {
  int64_t n = steps;
  if (n == 0) return;
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
  MACE_DW_CLAMPED(MACE_DW4_S2_ASM, MACE_DW4_MAX("v27.4s"), MACE_DW4_MIN("v28.4s"))
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
#undef MACE_DW4_S2_ASM
#undef MACE_DW4_MAX
#undef MACE_DW4_MIN
// clang-format on
#endif

#if defined(__aarch64__)
// arm64, stride 1, four output rows of kC vectors (kC = 4, 3 or 2) per step:
// each input row's windows at 0, 1 and 2 floats are one ld1 of kC vectors
// each, against one ldr per vector and window in AsmFourRowsS1. A step of
// 16 output vectors (kC = 4) is 18 loads, 144 multiply-adds, 4 ld1 of the
// bias into the 16 accumulators, 32 clamps and 4 stores of 4 vectors: 204
// instructions, 12.75 per vector where AsmFourRowsS1 takes 18 (kC = 2: 14.25).
// Accumulators v16-v31 (output row i at v16 + i * kC), windows v0-v3 and v4-v7
// (one set of kC for the next load while the other is read); the taps and
// bounds are in registers of the compiler's choice. The sums are the same, in
// the same order, as OutputVectors's.
// clang-format off
#define MACE_DWW_EXPAND(m, ...) m(__VA_ARGS__)
#define MACE_DWW_T_0_0 "%[t0].s[0]"
#define MACE_DWW_T_0_1 "%[t0].s[1]"
#define MACE_DWW_T_0_2 "%[t0].s[2]"
#define MACE_DWW_T_1_0 "%[t0].s[3]"
#define MACE_DWW_T_1_1 "%[t1].s[0]"
#define MACE_DWW_T_1_2 "%[t1].s[1]"
#define MACE_DWW_T_2_0 "%[t1].s[2]"
#define MACE_DWW_T_2_1 "%[t1].s[3]"
#define MACE_DWW_T_2_2 "%[t2].s[0]"
#define MACE_DWW_FMA4(a0, a1, a2, a3, w0, w1, w2, w3, t)                     \
  "fmla " a0 ".4s, " w0 ".4s, " t "\n"                                        \
  "fmla " a1 ".4s, " w1 ".4s, " t "\n"                                        \
  "fmla " a2 ".4s, " w2 ".4s, " t "\n"                                        \
  "fmla " a3 ".4s, " w3 ".4s, " t "\n"
#define MACE_DWW_FMA3(a0, a1, a2, w0, w1, w2, t)                             \
  "fmla " a0 ".4s, " w0 ".4s, " t "\n"                                        \
  "fmla " a1 ".4s, " w1 ".4s, " t "\n"                                        \
  "fmla " a2 ".4s, " w2 ".4s, " t "\n"
#define MACE_DWW_FMA2(a0, a1, w0, w1, t)                                     \
  "fmla " a0 ".4s, " w0 ".4s, " t "\n"                                        \
  "fmla " a1 ".4s, " w1 ".4s, " t "\n"
#define MACE_DWW_ACC4_0 "v16", "v17", "v18", "v19"
#define MACE_DWW_ACC4_1 "v20", "v21", "v22", "v23"
#define MACE_DWW_ACC4_2 "v24", "v25", "v26", "v27"
#define MACE_DWW_ACC4_3 "v28", "v29", "v30", "v31"
#define MACE_DWW_ACC3_0 "v16", "v17", "v18"
#define MACE_DWW_ACC3_1 "v19", "v20", "v21"
#define MACE_DWW_ACC3_2 "v22", "v23", "v24"
#define MACE_DWW_ACC3_3 "v25", "v26", "v27"
#define MACE_DWW_ACC2_0 "v16", "v17"
#define MACE_DWW_ACC2_1 "v18", "v19"
#define MACE_DWW_ACC2_2 "v20", "v21"
#define MACE_DWW_ACC2_3 "v22", "v23"
#define MACE_DWW_SETA4 "v0", "v1", "v2", "v3"
#define MACE_DWW_SETB4 "v4", "v5", "v6", "v7"
#define MACE_DWW_SETA3 "v0", "v1", "v2"
#define MACE_DWW_SETB3 "v4", "v5", "v6"
#define MACE_DWW_SETA2 "v0", "v1"
#define MACE_DWW_SETB2 "v4", "v5"
#define MACE_DWW_LISTA4 "v0.4s, v1.4s, v2.4s, v3.4s"
#define MACE_DWW_LISTB4 "v4.4s, v5.4s, v6.4s, v7.4s"
#define MACE_DWW_LISTA3 "v0.4s, v1.4s, v2.4s"
#define MACE_DWW_LISTB3 "v4.4s, v5.4s, v6.4s"
#define MACE_DWW_LISTA2 "v0.4s, v1.4s"
#define MACE_DWW_LISTB2 "v4.4s, v5.4s"
// Output row i += the window set s times tap (kr, kw).
#define MACE_DWW_F(C, i, s, kr, kw)                                          \
  MACE_DWW_EXPAND(MACE_DWW_FMA##C, MACE_DWW_ACC##C##_##i, MACE_DWW_SET##s##C, \
                  MACE_DWW_T_##kr##_##kw)
// Input row k meets tap row k - i of output row i (of kR = 4 or 2).
#define MACE_DWW_USE4_0(C, s, kw) MACE_DWW_F(C, 0, s, 0, kw)
#define MACE_DWW_USE4_1(C, s, kw) MACE_DWW_F(C, 0, s, 1, kw) MACE_DWW_F(C, 1, s, 0, kw)
#define MACE_DWW_USE4_2(C, s, kw)                                            \
  MACE_DWW_F(C, 0, s, 2, kw) MACE_DWW_F(C, 1, s, 1, kw) MACE_DWW_F(C, 2, s, 0, kw)
#define MACE_DWW_USE4_3(C, s, kw)                                            \
  MACE_DWW_F(C, 1, s, 2, kw) MACE_DWW_F(C, 2, s, 1, kw) MACE_DWW_F(C, 3, s, 0, kw)
#define MACE_DWW_USE4_4(C, s, kw) MACE_DWW_F(C, 2, s, 2, kw) MACE_DWW_F(C, 3, s, 1, kw)
#define MACE_DWW_USE4_5(C, s, kw) MACE_DWW_F(C, 3, s, 2, kw)
#define MACE_DWW_USE2_0(C, s, kw) MACE_DWW_F(C, 0, s, 0, kw)
#define MACE_DWW_USE2_1(C, s, kw) MACE_DWW_F(C, 0, s, 1, kw) MACE_DWW_F(C, 1, s, 0, kw)
#define MACE_DWW_USE2_2(C, s, kw) MACE_DWW_F(C, 0, s, 2, kw) MACE_DWW_F(C, 1, s, 1, kw)
#define MACE_DWW_USE2_3(C, s, kw) MACE_DWW_F(C, 1, s, 2, kw)
// Input row k's windows at 0, 1 and 2 floats, its pointer left at the next
// step's (s4 holds 4 bytes, rest 16 * kC - 8).
#define MACE_DWW_LD(C, s, k, inc)                                            \
  "ld1 {" MACE_DWW_LIST##s##C "}, [%[r" #k "]], %[" inc "]\n"
#define MACE_DWW_ROW(R, C, k)                                                \
  MACE_DWW_LD(C, A, k, "s4") MACE_DWW_USE##R##_##k(C, A, 0)                  \
  MACE_DWW_LD(C, B, k, "s4") MACE_DWW_USE##R##_##k(C, B, 1)                  \
  MACE_DWW_LD(C, A, k, "rest") MACE_DWW_USE##R##_##k(C, A, 2)
#define MACE_DWW_ROWS4(C)                                                    \
  MACE_DWW_ROW(4, C, 0) MACE_DWW_ROW(4, C, 1) MACE_DWW_ROW(4, C, 2)          \
  MACE_DWW_ROW(4, C, 3) MACE_DWW_ROW(4, C, 4) MACE_DWW_ROW(4, C, 5)
#define MACE_DWW_ROWS2(C)                                                    \
  MACE_DWW_ROW(2, C, 0) MACE_DWW_ROW(2, C, 1) MACE_DWW_ROW(2, C, 2)          \
  MACE_DWW_ROW(2, C, 3)
// op on the accumulators v16-v19, v16-v23 or v16-v31.
#define MACE_DWW_OP4(op, b)                                                  \
  op " v16.4s, v16.4s, " b "\n" op " v17.4s, v17.4s, " b "\n"                \
  op " v18.4s, v18.4s, " b "\n" op " v19.4s, v19.4s, " b "\n"
#define MACE_DWW_OP8(op, b)                                                  \
  MACE_DWW_OP4(op, b)                                                        \
  op " v20.4s, v20.4s, " b "\n" op " v21.4s, v21.4s, " b "\n"                \
  op " v22.4s, v22.4s, " b "\n" op " v23.4s, v23.4s, " b "\n"
#define MACE_DWW_OP16(op, b)                                                 \
  MACE_DWW_OP8(op, b)                                                        \
  op " v24.4s, v24.4s, " b "\n" op " v25.4s, v25.4s, " b "\n"                \
  op " v26.4s, v26.4s, " b "\n" op " v27.4s, v27.4s, " b "\n"                \
  op " v28.4s, v28.4s, " b "\n" op " v29.4s, v29.4s, " b "\n"                \
  op " v30.4s, v30.4s, " b "\n" op " v31.4s, v31.4s, " b "\n"
#define MACE_DWW_OP12(op, b)                                                 \
  MACE_DWW_OP8(op, b)                                                        \
  op " v24.4s, v24.4s, " b "\n" op " v25.4s, v25.4s, " b "\n"                \
  op " v26.4s, v26.4s, " b "\n" op " v27.4s, v27.4s, " b "\n"
#define MACE_DWW_MAX_43 MACE_DWW_OP12("fmax", "%[lo].4s")
#define MACE_DWW_MIN_43 MACE_DWW_OP12("fmin", "%[hi].4s")
#define MACE_DWW_MAX_44 MACE_DWW_OP16("fmax", "%[lo].4s")
#define MACE_DWW_MIN_44 MACE_DWW_OP16("fmin", "%[hi].4s")
#define MACE_DWW_MAX_42 MACE_DWW_OP8("fmax", "%[lo].4s")
#define MACE_DWW_MIN_42 MACE_DWW_OP8("fmin", "%[hi].4s")
#define MACE_DWW_MAX_24 MACE_DWW_OP8("fmax", "%[lo].4s")
#define MACE_DWW_MIN_24 MACE_DWW_OP8("fmin", "%[hi].4s")
#define MACE_DWW_MAX_22 MACE_DWW_OP4("fmax", "%[lo].4s")
#define MACE_DWW_MIN_22 MACE_DWW_OP4("fmin", "%[hi].4s")
// The bias from a buffer of 16 copies into the accumulators.
#define MACE_DWW_BIAS16(regs) "ld1 {" regs "}, [%[bias]]\n"
#define MACE_DWW_BIAS_22 MACE_DWW_BIAS16("v16.4s, v17.4s, v18.4s, v19.4s")
#define MACE_DWW_BIAS_24 MACE_DWW_BIAS_22 MACE_DWW_BIAS16("v20.4s, v21.4s, v22.4s, v23.4s")
#define MACE_DWW_BIAS_42 MACE_DWW_BIAS_24
#define MACE_DWW_BIAS_43 MACE_DWW_BIAS_24 MACE_DWW_BIAS16("v24.4s, v25.4s, v26.4s, v27.4s")
#define MACE_DWW_BIAS_44                                                     \
  MACE_DWW_BIAS_24 MACE_DWW_BIAS16("v24.4s, v25.4s, v26.4s, v27.4s")         \
  MACE_DWW_BIAS16("v28.4s, v29.4s, v30.4s, v31.4s")
#define MACE_DWW_ST(regs, o, bytes) "st1 {" regs "}, [%[" o "]], #" #bytes "\n"
#define MACE_DWW_STORE_24                                                    \
  MACE_DWW_ST("v16.4s, v17.4s, v18.4s, v19.4s", "o0", 64)                    \
  MACE_DWW_ST("v20.4s, v21.4s, v22.4s, v23.4s", "o1", 64)
#define MACE_DWW_STORE_44                                                    \
  MACE_DWW_STORE_24                                                          \
  MACE_DWW_ST("v24.4s, v25.4s, v26.4s, v27.4s", "o2", 64)                    \
  MACE_DWW_ST("v28.4s, v29.4s, v30.4s, v31.4s", "o3", 64)
#define MACE_DWW_STORE_43                                                    \
  MACE_DWW_ST("v16.4s, v17.4s, v18.4s", "o0", 48)                            \
  MACE_DWW_ST("v19.4s, v20.4s, v21.4s", "o1", 48)                            \
  MACE_DWW_ST("v22.4s, v23.4s, v24.4s", "o2", 48)                            \
  MACE_DWW_ST("v25.4s, v26.4s, v27.4s", "o3", 48)
#define MACE_DWW_STORE_22                                                    \
  MACE_DWW_ST("v16.4s, v17.4s", "o0", 32) MACE_DWW_ST("v18.4s, v19.4s", "o1", 32)
#define MACE_DWW_STORE_42                                                    \
  MACE_DWW_STORE_22                                                          \
  MACE_DWW_ST("v20.4s, v21.4s", "o2", 32) MACE_DWW_ST("v22.4s, v23.4s", "o3", 32)
// The step asm's operands; `more` adds clobbers.
#define MACE_DWW_OPERANDS(more)                                              \
      : [r0] "+r"(r0), [r1] "+r"(r1), [r2] "+r"(r2), [r3] "+r"(r3), [r4] "+r"(r4), \
        [r5] "+r"(r5), [o0] "+r"(o0), [o1] "+r"(o1), [o2] "+r"(o2), [o3] "+r"(o3), \
        [n] "+r"(n)                                                          \
      : [t0] "w"(taps.q[0]), [t1] "w"(taps.q[1]), [t2] "w"(taps.q[2]), [lo] "w"(lo), \
        [hi] "w"(hi), [bias] "r"(biases), [s4] "r"(s4), [rest] "r"(rest)    \
      : "cc", "memory", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v16", "v17", \
        "v18", "v19", "v20", "v21", "v22", "v23", "v24", "v25", "v26", "v27", "v28", \
        "v29", "v30", "v31" more
#define MACE_DWW_ASM(R, C, clamp)                                            \
  __asm__ volatile(                                                          \
      "1:\n"                                                                 \
      MACE_DWW_BIAS_##R##C                                                   \
      MACE_DWW_ROWS##R(C)                                                    \
      clamp                                                                  \
      "subs %[n], %[n], #1\n"                                                \
      MACE_DWW_STORE_##R##C                                                  \
      "b.ne 1b\n"                                                            \
      MACE_DWW_OPERANDS())
#define MACE_DWW_ASM_44(clamp) MACE_DWW_ASM(4, 4, clamp)
#define MACE_DWW_ASM_43(clamp) MACE_DWW_ASM(4, 3, clamp)
#define MACE_DWW_ASM_42(clamp) MACE_DWW_ASM(4, 2, clamp)
#define MACE_DWW_ASM_24(clamp) MACE_DWW_ASM(2, 4, clamp)
#define MACE_DWW_ASM_22(clamp) MACE_DWW_ASM(2, 2, clamp)
#define MACE_DWW_BY_ACT(R, C)                                                \
  MACE_DW_CLAMPED(MACE_DWW_ASM_##R##C, MACE_DWW_MAX_##R##C, MACE_DWW_MIN_##R##C)

// kR output rows (of `width`, one after the other at `out`), `steps` steps
// of 4 * kC outputs from column j. With two rows, the operands of rows 2
// and 3 repeat row 1's; the asm does not use them.
template <int kR, int kC, int kAct>
[[gnu::always_inline]] inline void AsmRowsWideS1(const float* in, int64_t pitch, const Taps& taps,
                                                 const float* biases,
                          float32x4_t lo, float32x4_t hi, float* out, int64_t width, int64_t j,
                          int64_t steps) {
  int64_t n = steps;
  const float* r0 = in + j;
  const float* r1 = r0 + pitch;
  const float* r2 = r1 + pitch;
  const float* r3 = r2 + pitch;
  const float* r4 = kR == 4 ? r3 + pitch : r3;
  const float* r5 = kR == 4 ? r4 + pitch : r3;
  float* o0 = out + j;
  float* o1 = o0 + width;
  float* o2 = kR == 4 ? o1 + width : o1;
  float* o3 = kR == 4 ? o2 + width : o1;
  const int64_t s4 = sizeof(float), rest = (4 * kC - 2) * static_cast<int64_t>(sizeof(float));
  if constexpr (kR == 4 && kC == 4) {
    MACE_DWW_BY_ACT(4, 4)
  } else if constexpr (kR == 4 && kC == 3) {
    MACE_DWW_BY_ACT(4, 3)
  } else if constexpr (kR == 4) {
    MACE_DWW_BY_ACT(4, 2)
  } else if constexpr (kC == 4) {
    MACE_DWW_BY_ACT(2, 4)
  } else {
    MACE_DWW_BY_ACT(2, 2)
  }
}

// kR output rows of `width` >= 8 with AsmRowsWideS1, the ragged end one
// more step ending at the last output: of 8 outputs when that covers it
// (a 56-wide row's last 8: 114 instructions at four rows, not 204), of 12
// at four rows when that does (a 28-wide row's last 12: 159 with a clamp,
// not 204 for 16 that recomputed 4).
// 16 copies of a bias, for the step kernels' four-register loads.
struct BiasCopies {
  alignas(16) float values[16];
  explicit BiasCopies(float bias) {
    const float32x4_t b = vdupq_n_f32(bias);
    for (int i = 0; i < 16; i += 4) vst1q_f32(values + i, b);
  }
  operator const float*() const { return values; }
};

// `biases` holds 16 copies of the bias.
template <int kR, int kAct>
[[gnu::always_inline]] inline void AsmRowsWideS1(const float* in, int64_t pitch,
                                                 const Taps& taps, const float* biases,
                                                 float32x4_t lo, float32x4_t hi, float* out,
                                                 int64_t width) {
  if (width >= 16) {
    AsmRowsWideS1<kR, 4, kAct>(in, pitch, taps, biases, lo, hi, out, width, 0, width / 16);
    if (kR == 4 && width % 16 > 8 && width % 16 <= 12) {
      AsmRowsWideS1<4, 3, kAct>(in, pitch, taps, biases, lo, hi, out, width, width - 12, 1);
    } else if (width % 16 > 8) {
      AsmRowsWideS1<kR, 4, kAct>(in, pitch, taps, biases, lo, hi, out, width, width - 16, 1);
    } else if (width % 16 != 0) {
      AsmRowsWideS1<kR, 2, kAct>(in, pitch, taps, biases, lo, hi, out, width, width - 8, 1);
    }
  } else {
    AsmRowsWideS1<kR, 2, kAct>(in, pitch, taps, biases, lo, hi, out, width, 0, 1);
    if (width % 8 != 0) {
      AsmRowsWideS1<kR, 2, kAct>(in, pitch, taps, biases, lo, hi, out, width, width - 8, 1);
    }
  }
}

// The same from the bias itself.
template <int kR, int kAct>
inline void AsmRowsWideS1(const float* in, int64_t pitch, const Taps& taps, float bias,
                          float32x4_t lo, float32x4_t hi, float* out, int64_t width) {
  AsmRowsWideS1<kR, kAct>(in, pitch, taps, BiasCopies(bias), lo, hi, out, width);
}

// Planes read in place at stride 1 (NeonDepthwise3x3InPlace, maps of 17 to
// 256 columns): the same steps with input row k at rows[k], a shared zero
// row for the padding rows above and below the plane. A step's windows at
// padded column j start at input column j - 1, so the first step of a row
// (kEdge 1, from input column 0) makes its left-padding window from the
// middle one by `ext` behind a zero (v8), and the last (kEdge 2, ending at
// the row's last output) its right-padding window's last vector from the
// middle one's before a zero: nothing outside a row is read. 3 (kC = 4)
// and 1 instructions an input row more than the band's steps, where the
// band copy took about 75 a pass of four rows (MobileNet v2's 112-, 56-
// and 28-wide maps, about 0.4 M instructions an inference).
#define MACE_DWW_EXT_LEFT4                                                   \
  "ext v0.16b, v8.16b, v4.16b, #12\n" "ext v1.16b, v4.16b, v5.16b, #12\n"    \
  "ext v2.16b, v5.16b, v6.16b, #12\n" "ext v3.16b, v6.16b, v7.16b, #12\n"
#define MACE_DWW_ROW_LEFT(R, C, k)                                           \
  MACE_DWW_LD(C, B, k, "s4") MACE_DWW_EXT_LEFT##C                            \
  MACE_DWW_USE##R##_##k(C, A, 0) MACE_DWW_USE##R##_##k(C, B, 1)              \
  MACE_DWW_LD(C, A, k, "rest") MACE_DWW_USE##R##_##k(C, A, 2)
#define MACE_DWW_LD_RIGHT4(k)                                                \
  "ld1 {v0.4s, v1.4s, v2.4s}, [%[r" #k "]]\n" "ext v3.16b, v7.16b, v8.16b, #4\n"
#define MACE_DWW_LD_RIGHT3(k)                                                \
  "ld1 {v0.4s, v1.4s}, [%[r" #k "]]\n" "ext v2.16b, v6.16b, v8.16b, #4\n"
#define MACE_DWW_LD_RIGHT2(k)                                                \
  "ld1 {v0.4s}, [%[r" #k "]]\n" "ext v1.16b, v5.16b, v8.16b, #4\n"
#define MACE_DWW_ROW_RIGHT(R, C, k)                                          \
  MACE_DWW_LD(C, A, k, "s4") MACE_DWW_USE##R##_##k(C, A, 0)                  \
  MACE_DWW_LD(C, B, k, "s4") MACE_DWW_USE##R##_##k(C, B, 1)                  \
  MACE_DWW_LD_RIGHT##C(k) MACE_DWW_USE##R##_##k(C, A, 2)
#define MACE_DWW_STEP4(C, clamp, ROW)                                        \
  MACE_DWW_BIAS_4##C                                                         \
  ROW(4, C, 0) ROW(4, C, 1) ROW(4, C, 2) ROW(4, C, 3) ROW(4, C, 4) ROW(4, C, 5) \
  clamp                                                                      \
  "subs %[n], %[n], #1\n"                                                    \
  MACE_DWW_STORE_4##C
// v8 holds zeros.
#define MACE_DWW_ZERO , "v8"
#define MACE_DWW_EDGE_OPERANDS MACE_DWW_OPERANDS(MACE_DWW_ZERO)
// The first step from column 0, then the rest of `n` steps as the band's.
#define MACE_DWW_LEFT_ASM(clamp)                                             \
  __asm__ volatile(                                                          \
      "movi v8.4s, #0\n"                                                     \
      MACE_DWW_STEP4(4, clamp, MACE_DWW_ROW_LEFT)                            \
      "b.eq 2f\n"                                                            \
      "1:\n"                                                                 \
      MACE_DWW_STEP4(4, clamp, MACE_DWW_ROW)                                 \
      "b.ne 1b\n"                                                            \
      "2:\n"                                                                 \
      MACE_DWW_EDGE_OPERANDS)
#define MACE_DWW_RIGHT_ASM(C, clamp)                                         \
  __asm__ volatile(                                                          \
      "movi v8.4s, #0\n"                                                     \
      MACE_DWW_STEP4(C, clamp, MACE_DWW_ROW_RIGHT)                           \
      MACE_DWW_EDGE_OPERANDS)
#define MACE_DWW_RIGHT_ASM4(clamp) MACE_DWW_RIGHT_ASM(4, clamp)
#define MACE_DWW_RIGHT_ASM3(clamp) MACE_DWW_RIGHT_ASM(3, clamp)
#define MACE_DWW_RIGHT_ASM2(clamp) MACE_DWW_RIGHT_ASM(2, clamp)

// Four output rows (of `width`, one after the other at `out`) read in
// place, input row k at rows[k]: with kEdge 1, `steps` steps of 16 outputs
// from column 0; with kEdge 2, one step of 4 * kC ending at the row's last
// output, column j.
template <int kC, int kAct, int kEdge>
[[gnu::always_inline]] inline void AsmRowsWideS1InPlace(const float* const rows[6],
                                                        const Taps& taps, const float* biases,
                                                        float32x4_t lo, float32x4_t hi,
                                                        float* out, int64_t width, int64_t j,
                                                        int64_t steps) {
  static_assert(kEdge == 2 || kC == 4, "the first step is 16 outputs wide");
  int64_t n = steps;
  const int64_t first = kEdge == 1 ? 0 : j - 1;
  const float* r0 = rows[0] + first;
  const float* r1 = rows[1] + first;
  const float* r2 = rows[2] + first;
  const float* r3 = rows[3] + first;
  const float* r4 = rows[4] + first;
  const float* r5 = rows[5] + first;
  float* o0 = out + j;
  float* o1 = o0 + width;
  float* o2 = o1 + width;
  float* o3 = o2 + width;
  const int64_t s4 = sizeof(float), rest = (4 * kC - 2) * static_cast<int64_t>(sizeof(float));
  if constexpr (kEdge == 1) {
    MACE_DW_CLAMPED(MACE_DWW_LEFT_ASM, MACE_DWW_MAX_44, MACE_DWW_MIN_44)
  } else if constexpr (kC == 4) {
    MACE_DW_CLAMPED(MACE_DWW_RIGHT_ASM4, MACE_DWW_MAX_44, MACE_DWW_MIN_44)
  } else if constexpr (kC == 3) {
    MACE_DW_CLAMPED(MACE_DWW_RIGHT_ASM3, MACE_DWW_MAX_43, MACE_DWW_MIN_43)
  } else {
    MACE_DW_CLAMPED(MACE_DWW_RIGHT_ASM2, MACE_DWW_MAX_42, MACE_DWW_MIN_42)
  }
}
#undef MACE_DWW_RIGHT_ASM2
#undef MACE_DWW_RIGHT_ASM3
#undef MACE_DWW_RIGHT_ASM4
#undef MACE_DWW_RIGHT_ASM
#undef MACE_DWW_LEFT_ASM
#undef MACE_DWW_EDGE_OPERANDS
#undef MACE_DWW_ZERO
#undef MACE_DWW_STEP4
#undef MACE_DWW_ROW_RIGHT
#undef MACE_DWW_LD_RIGHT2
#undef MACE_DWW_LD_RIGHT3
#undef MACE_DWW_LD_RIGHT4
#undef MACE_DWW_ROW_LEFT
#undef MACE_DWW_EXT_LEFT4
#undef MACE_DWW_BY_ACT
#undef MACE_DWW_ASM_22
#undef MACE_DWW_ASM_24
#undef MACE_DWW_ASM_43
#undef MACE_DWW_ASM_42
#undef MACE_DWW_ASM_44
#undef MACE_DWW_ASM
#undef MACE_DWW_OPERANDS
#undef MACE_DWW_STORE_42
#undef MACE_DWW_STORE_43
#undef MACE_DWW_STORE_22
#undef MACE_DWW_STORE_44
#undef MACE_DWW_STORE_24
#undef MACE_DWW_ST
#undef MACE_DWW_BIAS_44
#undef MACE_DWW_BIAS_43
#undef MACE_DWW_BIAS_42
#undef MACE_DWW_BIAS_24
#undef MACE_DWW_BIAS_22
#undef MACE_DWW_BIAS16
#undef MACE_DWW_MIN_22
#undef MACE_DWW_MAX_22
#undef MACE_DWW_MIN_24
#undef MACE_DWW_MAX_24
#undef MACE_DWW_MIN_42
#undef MACE_DWW_MAX_42
#undef MACE_DWW_MIN_43
#undef MACE_DWW_MAX_43
#undef MACE_DWW_MIN_44
#undef MACE_DWW_MAX_44
#undef MACE_DWW_OP16
#undef MACE_DWW_OP12
#undef MACE_DWW_OP8
#undef MACE_DWW_OP4
#undef MACE_DWW_ROWS2
#undef MACE_DWW_ROWS4
#undef MACE_DWW_ROW
#undef MACE_DWW_LD
#undef MACE_DWW_USE2_3
#undef MACE_DWW_USE2_2
#undef MACE_DWW_USE2_1
#undef MACE_DWW_USE2_0
#undef MACE_DWW_USE4_5
#undef MACE_DWW_USE4_4
#undef MACE_DWW_USE4_3
#undef MACE_DWW_USE4_2
#undef MACE_DWW_USE4_1
#undef MACE_DWW_USE4_0
#undef MACE_DWW_F
#undef MACE_DWW_LISTB2
#undef MACE_DWW_LISTA2
#undef MACE_DWW_LISTB3
#undef MACE_DWW_LISTA3
#undef MACE_DWW_LISTB4
#undef MACE_DWW_LISTA4
#undef MACE_DWW_SETB2
#undef MACE_DWW_SETA2
#undef MACE_DWW_SETB3
#undef MACE_DWW_SETA3
#undef MACE_DWW_SETB4
#undef MACE_DWW_SETA4
#undef MACE_DWW_ACC2_3
#undef MACE_DWW_ACC2_2
#undef MACE_DWW_ACC2_1
#undef MACE_DWW_ACC2_0
#undef MACE_DWW_ACC3_3
#undef MACE_DWW_ACC3_2
#undef MACE_DWW_ACC3_1
#undef MACE_DWW_ACC3_0
#undef MACE_DWW_ACC4_3
#undef MACE_DWW_ACC4_2
#undef MACE_DWW_ACC4_1
#undef MACE_DWW_ACC4_0
#undef MACE_DWW_FMA2
#undef MACE_DWW_FMA3
#undef MACE_DWW_FMA4
#undef MACE_DWW_T_2_2
#undef MACE_DWW_T_2_1
#undef MACE_DWW_T_2_0
#undef MACE_DWW_T_1_2
#undef MACE_DWW_T_1_1
#undef MACE_DWW_T_1_0
#undef MACE_DWW_T_0_2
#undef MACE_DWW_T_0_1
#undef MACE_DWW_T_0_0
#undef MACE_DWW_EXPAND
// clang-format on
#endif

#if defined(__aarch64__)
// arm64, stride 2 (both ways), four output rows of 8 outputs per step:
// each input row is one ld4 of 16 floats from the step's first window,
// which splits them by their index mod 4 (a, b, c, d). The even outputs'
// windows are a, b and c; the odd outputs' are c, d and a moved one lane
// on, the next step's first input filling its last lane (one ldr and one
// ext). So an input row is 3 instructions for two output vectors, where
// AsmFourRowsS2's two ld2 are 4 for one; st2 writes the even and odd
// vectors interleaved, which puts each output back in its place, one row
// after another from one pointer. A step is
// 27 loads, 72 multiply-adds, 2 ld1 of the bias, 16 clamps and 4 stores:
// 123 instructions for 8 output vectors, AsmFourRowsS2's 144. The sums are
// the same, in the same order, as OutputVectors's.
// clang-format off
#define MACE_DW2W_T_00 "%[t0].s[0]"
#define MACE_DW2W_T_01 "%[t0].s[1]"
#define MACE_DW2W_T_02 "%[t0].s[2]"
#define MACE_DW2W_T_10 "%[t0].s[3]"
#define MACE_DW2W_T_11 "%[t1].s[0]"
#define MACE_DW2W_T_12 "%[t1].s[1]"
#define MACE_DW2W_T_20 "%[t1].s[2]"
#define MACE_DW2W_T_21 "%[t1].s[3]"
#define MACE_DW2W_T_22 "%[t2].s[0]"
// Input row k (pointer r) into v0-v4: a, b, c, d and a one lane on.
#define MACE_DW2W_LOAD(r)                                                    \
  "ld4 {v0.4s, v1.4s, v2.4s, v3.4s}, [%[" r "]], #64\n"                       \
  "ldr s4, [%[" r "]]\n"                                                     \
  "ext v4.16b, v0.16b, v4.16b, #4\n"
// Output row (even accumulator e, odd o) += tap row kr over the windows.
#define MACE_DW2W_TAPS(e, o, kr)                                             \
  "fmla " e ".4s, v0.4s, " MACE_DW2W_T_##kr##0 "\n"                          \
  "fmla " e ".4s, v1.4s, " MACE_DW2W_T_##kr##1 "\n"                          \
  "fmla " e ".4s, v2.4s, " MACE_DW2W_T_##kr##2 "\n"                          \
  "fmla " o ".4s, v2.4s, " MACE_DW2W_T_##kr##0 "\n"                          \
  "fmla " o ".4s, v3.4s, " MACE_DW2W_T_##kr##1 "\n"                          \
  "fmla " o ".4s, v4.4s, " MACE_DW2W_T_##kr##2 "\n"
#define MACE_DW2W_R0(kr) MACE_DW2W_TAPS("v16", "v17", kr)
#define MACE_DW2W_R1(kr) MACE_DW2W_TAPS("v18", "v19", kr)
#define MACE_DW2W_R2(kr) MACE_DW2W_TAPS("v20", "v21", kr)
#define MACE_DW2W_R3(kr) MACE_DW2W_TAPS("v22", "v23", kr)
#define MACE_DW2W_OP(op, b)                                                  \
  op " v16.4s, v16.4s, " b "\n" op " v17.4s, v17.4s, " b "\n"                \
  op " v18.4s, v18.4s, " b "\n" op " v19.4s, v19.4s, " b "\n"                \
  op " v20.4s, v20.4s, " b "\n" op " v21.4s, v21.4s, " b "\n"                \
  op " v22.4s, v22.4s, " b "\n" op " v23.4s, v23.4s, " b "\n"
#define MACE_DW2W_MAX MACE_DW2W_OP("fmax", "%[lo].4s")
#define MACE_DW2W_MIN MACE_DW2W_OP("fmin", "%[hi].4s")
// One step of 8 outputs of four rows: the bias, the 9 input rows (each
// loaded by `load`), the clamp and the stores, `subs` counting it.
#define MACE_DW2W_STEP(load, clamp)                                          \
      "ld1 {v16.4s, v17.4s, v18.4s, v19.4s}, [%[bias]]\n"                    \
      "ld1 {v20.4s, v21.4s, v22.4s, v23.4s}, [%[bias]]\n"                    \
      load("r0") MACE_DW2W_R0(0)                                             \
      load("r1") MACE_DW2W_R0(1)                                             \
      load("r2") MACE_DW2W_R0(2) MACE_DW2W_R1(0)                             \
      load("r3") MACE_DW2W_R1(1)                                             \
      load("r4") MACE_DW2W_R1(2) MACE_DW2W_R2(0)                             \
      load("r5") MACE_DW2W_R2(1)                                             \
      load("r6") MACE_DW2W_R2(2) MACE_DW2W_R3(0)                             \
      load("r7") MACE_DW2W_R3(1)                                             \
      load("r8") MACE_DW2W_R3(2)                                             \
      clamp                                                                  \
      "subs %[n], %[n], #1\n"                                                \
      "st2 {v16.4s, v17.4s}, [%[o]], %[wb]\n"                                \
      "st2 {v18.4s, v19.4s}, [%[o]], %[wb]\n"                                \
      "st2 {v20.4s, v21.4s}, [%[o]], %[wb]\n"                                \
      "st2 {v22.4s, v23.4s}, [%[o]], %[back]\n"
// The asm's operands (the 30 an asm takes: "+r" counts twice); `more`
// adds clobbers.
#define MACE_DW2W_OPERANDS(more)                                             \
      : [r0] "+r"(r[0]), [r1] "+r"(r[1]), [r2] "+r"(r[2]), [r3] "+r"(r[3]), \
        [r4] "+r"(r[4]), [r5] "+r"(r[5]), [r6] "+r"(r[6]), [r7] "+r"(r[7]), \
        [r8] "+r"(r[8]), [o] "+r"(o), [n] "+r"(n)                            \
      : [t0] "w"(taps.q[0]), [t1] "w"(taps.q[1]), [t2] "w"(taps.q[2]), [lo] "w"(lo), \
        [hi] "w"(hi), [bias] "r"(biases), [wb] "r"(wb), [back] "r"(back)    \
      : "cc", "memory", "v0", "v1", "v2", "v3", "v4", "v16", "v17", "v18", "v19", \
        "v20", "v21", "v22", "v23" more
#define MACE_DW2W_ASM(clamp)                                                 \
  __asm__ volatile(                                                          \
      "1:\n"                                                                 \
      MACE_DW2W_STEP(MACE_DW2W_LOAD, clamp)                                  \
      "b.ne 1b\n"                                                            \
      MACE_DW2W_OPERANDS())
#define MACE_DW2W_ZERO , "v5"
// A row read in place (NeonDepthwise3x3InPlace) whose first window starts
// in the left padding: one ld4 from input 0 holds b, c, d and a moved one
// lane on, and a is that moved back behind a zero; the pointer is left at
// input 15, the next step's first window (ld4 steps only by its 64 bytes).
// v5 holds zeros.
#define MACE_DW2W_LOAD_FIRST(r)                                              \
  "ld4 {v1.4s, v2.4s, v3.4s, v4.4s}, [%[" r "]], #64\n"                       \
  "ext v0.16b, v5.16b, v4.16b, #12\n"                                        \
  "sub %[" r "], %[" r "], #4\n"
#define MACE_DW2W_LEFT_ASM(clamp)                                            \
  __asm__ volatile(                                                          \
      "movi v5.4s, #0\n"                                                     \
      MACE_DW2W_STEP(MACE_DW2W_LOAD_FIRST, clamp)                            \
      "b.eq 2f\n"                                                            \
      "1:\n"                                                                 \
      MACE_DW2W_STEP(MACE_DW2W_LOAD, clamp)                                  \
      "b.ne 1b\n"                                                            \
      "2:\n"                                                                 \
      MACE_DW2W_OPERANDS(MACE_DW2W_ZERO))

// `steps` steps of 8 outputs from column j of four output rows (of `width`,
// one after the other at `out`), input row k's first window at rows[k] +
// offset. With `left`, column 0 of a plane read in place: rows[k] + offset
// is the input row, and its first window starts one float before it, in
// the padding.
template <int kAct>
[[gnu::always_inline]] inline void AsmFourRowsWideS2(const float* const rows[9], int64_t offset,
                                                     bool left,
                              const Taps& taps, const float* biases, float32x4_t lo,
                              float32x4_t hi, float* out, int64_t width, int64_t j,
                              int64_t steps) {
  int64_t n = steps;
  const float* r[9];
  #pragma GCC unroll 9
  for (int k = 0; k < 9; ++k) r[k] = rows[k] + offset;
  // One pointer stores the four rows (row i at i * wb bytes): 30 operands
  // are all an asm takes.
  float* o = out + j;
  const int64_t wb = width * static_cast<int64_t>(sizeof(float));
  const int64_t back = 8 * static_cast<int64_t>(sizeof(float)) - 3 * wb;
  if (left) {
    MACE_DW_CLAMPED(MACE_DW2W_LEFT_ASM, MACE_DW2W_MAX, MACE_DW2W_MIN)
  } else {
    MACE_DW_CLAMPED(MACE_DW2W_ASM, MACE_DW2W_MAX, MACE_DW2W_MIN)
  }
}

// The same over a padded band (input row k at in + k * pitch).
template <int kAct>
inline void AsmFourRowsWideS2(const float* in, int64_t pitch, const Taps& taps,
                              const float* biases, float32x4_t lo, float32x4_t hi, float* out,
                              int64_t width, int64_t j, int64_t steps) {
  const float* rows[9];
  #pragma GCC unroll 9
  for (int k = 0; k < 9; ++k) rows[k] = in + k * pitch;
  AsmFourRowsWideS2<kAct>(rows, 2 * j, false, taps, biases, lo, hi, out, width, j, steps);
}

// Four output rows of `width` >= 8, the ragged end one more step ending at
// the last output: of 4 outputs (AsmFourRowsS2) when that covers it (a
// 28-wide row's last 4: 72 instructions at four rows, not 123 for 8).
template <int kAct>
inline void AsmFourRowsWideS2(const float* in, int64_t pitch, const Taps& taps, float bias,
                              float32x4_t lo, float32x4_t hi, float* out, int64_t width) {
  const BiasCopies biases(bias);
  AsmFourRowsWideS2<kAct>(in, pitch, taps, biases, lo, hi, out, width, 0, width / 8);
  if (width % 8 > kLanes) {
    AsmFourRowsWideS2<kAct>(in, pitch, taps, biases, lo, hi, out, width, width - 8, 1);
  } else if (width % 8 != 0) {
    AsmFourRowsS2<kAct>(in + 2 * (width - kLanes), pitch, taps, bias, lo, hi,
                        out + width - kLanes, width, 1);
  }
}
// Planes read in place at stride 2 (NeonDepthwise3x3InPlace): four-row
// passes of 8-output steps whose 9 input rows are the plane's own, the
// row above the first in the padding a shared zero row, and whose first
// step supplies the left padding (MACE_DW2W_LOAD_FIRST). The last pass
// ends at the last output row and a row's ragged end is one more step
// ending at its last output, both overlapping what came before. Neither
// reads the padding after the input: 2 * out_h input rows and 2 * out_w
// columns hold every other window. The band copy of a 112x112 plane took
// about 5,000 instructions and of a 56x56 one about 1,400.
constexpr int64_t kZeroRowFloats = 256;
alignas(16) const float kZeroRow[kZeroRowFloats] = {};

template <int kAct>
void InPlaceS2(const DepthwiseInPlace& run) {
  const Activate<kAct> activate(run.epilogue);
  const int64_t in_w = run.in_w, out_h = run.out_h, out_w = run.out_w;
  const int64_t in_plane = run.in_h * in_w, out_plane = out_h * out_w;
  const float* in = run.in;
  const float* tap_values = run.taps;
  float* out = run.out;
  for (int64_t i = 0; i < run.planes; ++i, in += in_plane, out += out_plane, tap_values += 9) {
    const Taps taps(tap_values);
    const BiasCopies biases(run.bias != nullptr ? run.bias[i] : 0.f);
    for (int64_t pass = 0;; pass += 4) {
      const int64_t row = std::min(pass, out_h - 4);
      // Input row 2 * row - 1 + k, the first one the zero row above the
      // plane in the first pass.
      const float* first = in + (2 * row - 1) * in_w;
      const float* rows[9];
      rows[0] = row == 0 ? kZeroRow : first;
      #pragma GCC unroll 8
      for (int k = 1; k < 9; ++k) rows[k] = first + k * in_w;
      float* pass_out = out + row * out_w;
      AsmFourRowsWideS2<kAct>(rows, 0, true, taps, biases, activate.lo, activate.hi, pass_out,
                              out_w, 0, out_w / 8);
      if (out_w % 8 != 0) {
        AsmFourRowsWideS2<kAct>(rows, 2 * (out_w - 8) - 1, false, taps, biases, activate.lo,
                                activate.hi, pass_out, out_w, out_w - 8, 1);
      }
      if (row + 4 >= out_h) break;
    }
  }
}

// Planes read in place at stride 1 whose rows are 17 to kZeroRowFloats
// wide and at least 4 high (AsmRowsWideS1InPlace): four-row passes, the
// last one ending at the last output row (overlapping the one before when
// the height is not a multiple of 4), the padding rows above and below the
// plane the zero row.
template <int kAct>
void InPlaceS1Wide(const DepthwiseInPlace& run) {
  const Activate<kAct> activate(run.epilogue);
  const int64_t h = run.in_h, w = run.in_w, plane = h * w;
  const int64_t steps = w / 16, rem = w % 16;
  const float* in = run.in;
  const float* tap_values = run.taps;
  float* out = run.out;
  for (int64_t i = 0; i < run.planes; ++i, in += plane, out += plane, tap_values += 9) {
    const Taps taps(tap_values);
    const BiasCopies biases(run.bias != nullptr ? run.bias[i] : 0.f);
    for (int64_t pass = 0;; pass += 4) {
      const int64_t row = std::min(pass, h - 4);
      // Input row row - 1 + k; only the first and last passes meet the
      // padding.
      const float* first = in + (row - 1) * w;
      const float* rows[6];
      #pragma GCC unroll 6
      for (int k = 0; k < 6; ++k) rows[k] = first + k * w;
      if (row == 0) rows[0] = kZeroRow;
      if (row + 4 == h) rows[5] = kZeroRow;
      float* pass_out = out + row * w;
      const float32x4_t lo = activate.lo, hi = activate.hi;
      AsmRowsWideS1InPlace<4, kAct, 1>(rows, taps, biases, lo, hi, pass_out, w, 0,
                                       rem == 0 ? steps - 1 : steps);
      if (rem == 0 || rem > 12) {
        AsmRowsWideS1InPlace<4, kAct, 2>(rows, taps, biases, lo, hi, pass_out, w, w - 16, 1);
      } else if (rem > 8) {
        AsmRowsWideS1InPlace<3, kAct, 2>(rows, taps, biases, lo, hi, pass_out, w, w - 12, 1);
      } else {
        AsmRowsWideS1InPlace<2, kAct, 2>(rows, taps, biases, lo, hi, pass_out, w, w - 8, 1);
      }
      if (row + 4 >= h) break;
    }
  }
}
#undef MACE_DW2W_LEFT_ASM
#undef MACE_DW2W_ZERO
#undef MACE_DW2W_LOAD_FIRST
#undef MACE_DW2W_ASM
#undef MACE_DW2W_OPERANDS
#undef MACE_DW2W_STEP
#undef MACE_DW_CLAMPED
#undef MACE_DW2W_MIN
#undef MACE_DW2W_MAX
#undef MACE_DW2W_OP
#undef MACE_DW2W_R3
#undef MACE_DW2W_R2
#undef MACE_DW2W_R1
#undef MACE_DW2W_R0
#undef MACE_DW2W_TAPS
#undef MACE_DW2W_LOAD
#undef MACE_DW2W_T_22
#undef MACE_DW2W_T_21
#undef MACE_DW2W_T_20
#undef MACE_DW2W_T_12
#undef MACE_DW2W_T_11
#undef MACE_DW2W_T_10
#undef MACE_DW2W_T_02
#undef MACE_DW2W_T_01
#undef MACE_DW2W_T_00
// clang-format on
#endif

// Writes kRows output rows (of `width`, one after the other at `out`) whose
// windows start at input row `in`.
template <int kStrideW, int kStrideH, int kRows, typename Activation>
[[gnu::always_inline]] inline void OutputRows(const float* in, int64_t pitch, const Taps& taps,
                                              float bias, const Activation& activate, float* out,
                                              int64_t width) {
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
    if (width >= 2 * kLanes) {
      return AsmRowsWideS1<4, Activation::kAct>(in, pitch, taps, bias, activate.lo, activate.hi,
                                                out, width);
    }
    // One vector, and one more ending at the last output.
    AsmFourRowsS1<Activation::kAct>(in, pitch, taps, bias, activate.lo, activate.hi, out, width);
    if (width > kLanes) {
      AsmFourRowsS1<Activation::kAct>(in + width - kLanes, pitch, taps, bias, activate.lo,
                                      activate.hi, out + width - kLanes, width);
    }
    return;
  }
  if constexpr (kStrideW == 1 && kStrideH == 1 && kRows == 2 && Activation::kClamps) {
    if (width >= 2 * kLanes) {
      return AsmRowsWideS1<2, Activation::kAct>(in, pitch, taps, bias, activate.lo, activate.hi,
                                                out, width);
    }
  }
  if constexpr (kStrideW == 2 && kStrideH == 2 && kRows == 4 && Activation::kClamps) {
    if (width >= 2 * kLanes) {
      return AsmFourRowsWideS2<Activation::kAct>(in, pitch, taps, bias, activate.lo, activate.hi,
                                                 out, width);
    }
    // The whole vectors, and one more ending at the last output.
    AsmFourRowsS2<Activation::kAct>(in, pitch, taps, bias, activate.lo, activate.hi, out, width,
                                    width / kLanes);
    if (width % kLanes != 0) {
      AsmFourRowsS2<Activation::kAct>(in + 2 * (width - kLanes), pitch, taps, bias, activate.lo,
                                      activate.hi, out + width - kLanes, width, 1);
    }
    return;
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
template <int kStrideW, int kStrideH, int kAct>
MACE_DW_BAND_ATTRIBUTES void Band(const DepthwiseBand& band) {
  const Taps taps(band.taps);
  const Activate<kAct> activate(band.epilogue);
  const int64_t pitch = band.in_pitch, width = band.out_w;
  int64_t r = 0;
  if constexpr (kPassRows == 4) {
    for (; r + 4 <= band.rows; r += 4) {
      OutputRows<kStrideW, kStrideH, 4>(band.in + r * kStrideH * pitch, pitch, taps, band.bias,
                                        activate, band.out + r * width, width);
    }
  }
  for (; r + 2 <= band.rows; r += 2) {
    OutputRows<kStrideW, kStrideH, 2>(band.in + r * kStrideH * pitch, pitch, taps, band.bias,
                                      activate, band.out + r * width, width);
  }
  if (r < band.rows) {
    OutputRows<kStrideW, kStrideH, 1>(band.in + r * kStrideH * pitch, pitch, taps, band.bias,
                                      activate, band.out + r * width, width);
  }
}

#undef MACE_DW_BAND_ATTRIBUTES

#if defined(__aarch64__)
// arm64: a band of exactly seven rows of 4 to 7 outputs (the 7x7 maps of
// MobileNet v2 and ShuffleNet v2) in one pass of seven rows a vector
// column, the second column ending at the last output. Each of the 9
// (stride 2: 15) input rows is loaded once a column, where a four-, a
// two- and a one-row pass loaded 12 (21) and each pass set up its own
// pointers, bias and call. In assembly: GCC's code for the seven
// accumulators held every tap in a register of its own and spilled. An
// input row is three loads at stride 1 (at 4 and 8 bytes, then at 0
// moving the pointer on a row), two ld2 at stride 2 (from the window's
// start and 8 bytes on, each moving its pointer on a row); each output
// row is clamped and stored as soon as its last input row is in: 104
// instructions a column besides the clamps at stride 1, 111 at stride 2.
// Accumulators v16-v22 (output row i at v16 + i), windows v24-v26. The
// sums are the same, in the same order, as OutputVectors's.
// clang-format off
#define MACE_DW7_T_0 "%[t0].s[0]", "%[t0].s[1]", "%[t0].s[2]"
#define MACE_DW7_T_1 "%[t0].s[3]", "%[t1].s[0]", "%[t1].s[1]"
#define MACE_DW7_T_2 "%[t1].s[2]", "%[t1].s[3]", "%[t2].s[0]"
#define MACE_DW7_FMA3(acc, t0, t1, t2)                                       \
  "fmla " acc ".4s, v24.4s, " t0 "\n"                                        \
  "fmla " acc ".4s, v25.4s, " t1 "\n"                                        \
  "fmla " acc ".4s, v26.4s, " t2 "\n"
#define MACE_DW7_EXPAND(m, ...) m(__VA_ARGS__)
// Output row `acc` += tap row `row` over the windows in v24-v26.
#define MACE_DW7(acc, row) MACE_DW7_EXPAND(MACE_DW7_FMA3, #acc, MACE_DW7_T_##row)
#define MACE_DW7_LOAD1                                                       \
  "ldur q25, [%[r], #4]\n"                                                   \
  "ldur q26, [%[r], #8]\n"                                                   \
  "ld1 {v24.4s}, [%[r]], %[pitch]\n"
#define MACE_DW7_LOAD2                                                       \
  "ld2 {v24.4s, v25.4s}, [%[r]], %[pitch]\n"                                 \
  "ld2 {v26.4s, v27.4s}, [%[r2]], %[pitch]\n"
// Clamps of one accumulator: none, a max, or a max and a min.
#define MACE_DW7_NONE(acc) ""
#define MACE_DW7_MAX(acc) "fmax " #acc ".4s, " #acc ".4s, %[lo].4s\n"
#define MACE_DW7_CLAMP(acc) MACE_DW7_MAX(acc) "fmin " #acc ".4s, " #acc ".4s, %[hi].4s\n"
// Output row `acc` clamped by C and stored, the pointer moved on a row.
#define MACE_DW7_STORE(C, acc) C(acc) "st1 {" #acc ".4s}, [%[o]], %[wb]\n"
#define MACE_DW7_BIAS                                                        \
  "mov v16.16b, %[b].16b\n" "mov v17.16b, %[b].16b\n"                        \
  "mov v18.16b, %[b].16b\n" "mov v19.16b, %[b].16b\n"                        \
  "mov v20.16b, %[b].16b\n" "mov v21.16b, %[b].16b\n"                        \
  "mov v22.16b, %[b].16b\n"
#define MACE_DW7_OPERANDS                                                    \
  : [r] "+r"(r), [r2] "+r"(r2), [o] "+r"(o)                                  \
  : [t0] "w"(taps.q[0]), [t1] "w"(taps.q[1]), [t2] "w"(taps.q[2]), [lo] "w"(lo), \
    [hi] "w"(hi), [b] "w"(b), [pitch] "r"(pitch_bytes), [wb] "r"(wb)        \
  : "memory", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v24", "v25", "v26", "v27"
// Input row k feeds output row i with tap row k - i (stride 1).
#define MACE_DW7_S1_ASM(C)                                                   \
  __asm__ volatile(                                                          \
      MACE_DW7_BIAS                                                          \
      MACE_DW7_LOAD1 MACE_DW7(v16, 0)                                        \
      MACE_DW7_LOAD1 MACE_DW7(v16, 1) MACE_DW7(v17, 0)                       \
      MACE_DW7_LOAD1 MACE_DW7(v16, 2) MACE_DW7(v17, 1) MACE_DW7(v18, 0)      \
      MACE_DW7_STORE(C, v16)                                                 \
      MACE_DW7_LOAD1 MACE_DW7(v17, 2) MACE_DW7(v18, 1) MACE_DW7(v19, 0)      \
      MACE_DW7_STORE(C, v17)                                                 \
      MACE_DW7_LOAD1 MACE_DW7(v18, 2) MACE_DW7(v19, 1) MACE_DW7(v20, 0)      \
      MACE_DW7_STORE(C, v18)                                                 \
      MACE_DW7_LOAD1 MACE_DW7(v19, 2) MACE_DW7(v20, 1) MACE_DW7(v21, 0)      \
      MACE_DW7_STORE(C, v19)                                                 \
      MACE_DW7_LOAD1 MACE_DW7(v20, 2) MACE_DW7(v21, 1) MACE_DW7(v22, 0)      \
      MACE_DW7_STORE(C, v20)                                                 \
      MACE_DW7_LOAD1 MACE_DW7(v21, 2) MACE_DW7(v22, 1)                       \
      MACE_DW7_STORE(C, v21)                                                 \
      MACE_DW7_LOAD1 MACE_DW7(v22, 2)                                        \
      MACE_DW7_STORE(C, v22)                                                 \
      MACE_DW7_OPERANDS)
// Input row k feeds output row i with tap row k - 2 i (stride 2).
#define MACE_DW7_S2_ASM(C)                                                   \
  __asm__ volatile(                                                          \
      MACE_DW7_BIAS                                                          \
      MACE_DW7_LOAD2 MACE_DW7(v16, 0)                                        \
      MACE_DW7_LOAD2 MACE_DW7(v16, 1)                                        \
      MACE_DW7_LOAD2 MACE_DW7(v16, 2) MACE_DW7(v17, 0)                       \
      MACE_DW7_STORE(C, v16)                                                 \
      MACE_DW7_LOAD2 MACE_DW7(v17, 1)                                        \
      MACE_DW7_LOAD2 MACE_DW7(v17, 2) MACE_DW7(v18, 0)                       \
      MACE_DW7_STORE(C, v17)                                                 \
      MACE_DW7_LOAD2 MACE_DW7(v18, 1)                                        \
      MACE_DW7_LOAD2 MACE_DW7(v18, 2) MACE_DW7(v19, 0)                       \
      MACE_DW7_STORE(C, v18)                                                 \
      MACE_DW7_LOAD2 MACE_DW7(v19, 1)                                        \
      MACE_DW7_LOAD2 MACE_DW7(v19, 2) MACE_DW7(v20, 0)                       \
      MACE_DW7_STORE(C, v19)                                                 \
      MACE_DW7_LOAD2 MACE_DW7(v20, 1)                                        \
      MACE_DW7_LOAD2 MACE_DW7(v20, 2) MACE_DW7(v21, 0)                       \
      MACE_DW7_STORE(C, v20)                                                 \
      MACE_DW7_LOAD2 MACE_DW7(v21, 1)                                        \
      MACE_DW7_LOAD2 MACE_DW7(v21, 2) MACE_DW7(v22, 0)                       \
      MACE_DW7_STORE(C, v21)                                                 \
      MACE_DW7_LOAD2 MACE_DW7(v22, 1)                                        \
      MACE_DW7_LOAD2 MACE_DW7(v22, 2)                                        \
      MACE_DW7_STORE(C, v22)                                                 \
      MACE_DW7_OPERANDS)
// The asm statement `asm1(clamp)` with the clamp kAct asks for: none, a
// max, or a max and a min (macros of the accumulators to clamp).
#define MACE_DW7_BY_ACT(asm1, none, max, clamp)                              \
  if constexpr (kAct == kActNone) {                                          \
    asm1(none);                                                              \
  } else if constexpr (kAct == kActMax) {                                    \
    asm1(max);                                                               \
  } else {                                                                   \
    asm1(clamp);                                                             \
  }
constexpr int kSevenRows = 7;
// The seven output rows of one vector column whose windows start at `in`
// (rows of `width` at `out`). Always inlined: a call saved and restored
// the caller's taps and bounds around it.
template <int kStride, int kAct>
[[gnu::always_inline]] inline void AsmSevenRows(const float* in, int64_t pitch, const Taps& taps,
                                                float32x4_t b, float32x4_t lo, float32x4_t hi,
                                                float* out, int64_t width) {
  const float* r = in;
  const float* r2 = in + 2;
  float* o = out;
  const int64_t pitch_bytes = pitch * static_cast<int64_t>(sizeof(float));
  const int64_t wb = width * static_cast<int64_t>(sizeof(float));
  if constexpr (kStride == 1) {
    MACE_DW7_BY_ACT(MACE_DW7_S1_ASM, MACE_DW7_NONE, MACE_DW7_MAX, MACE_DW7_CLAMP)
  } else {
    MACE_DW7_BY_ACT(MACE_DW7_S2_ASM, MACE_DW7_NONE, MACE_DW7_MAX, MACE_DW7_CLAMP)
  }
}
#undef MACE_DW7_S2_ASM
#undef MACE_DW7_S1_ASM
#undef MACE_DW7_OPERANDS
#undef MACE_DW7_BIAS
#undef MACE_DW7_STORE
#undef MACE_DW7_CLAMP
#undef MACE_DW7_MAX
#undef MACE_DW7_NONE
#undef MACE_DW7_LOAD2
#undef MACE_DW7_LOAD1
#undef MACE_DW7
#undef MACE_DW7_EXPAND
#undef MACE_DW7_FMA3
#undef MACE_DW7_T_2
#undef MACE_DW7_T_1
#undef MACE_DW7_T_0
// clang-format on

template <int kStride, int kAct>
void SevenRowBand(const DepthwiseBand& band) {
  const Taps taps(band.taps);
  const Activate<kAct> activate(band.epilogue);
  const int64_t pitch = band.in_pitch, width = band.out_w;
  const float32x4_t b = vdupq_n_f32(band.bias);
  AsmSevenRows<kStride, kAct>(band.in, pitch, taps, b, activate.lo, activate.hi, band.out, width);
  if (width > kLanes) {
    AsmSevenRows<kStride, kAct>(band.in + (width - kLanes) * kStride, pitch, taps, b, activate.lo,
                                activate.hi, band.out + width - kLanes, width);
  }
}

// arm64, stride 1: seven output rows of 8 outputs (two vectors a row) a
// step, for bands of 7 or 14 rows of 8 to 15 outputs (14x14 maps): the
// four-row passes ran such a band as 4 + 4 + 4 + 2 rows, 6 input rows
// for 4 output rows and a two-row pass with 4 for 2, each pass with its
// own set-up and calls; here 9 input rows feed 7. A step is 27 loads (an
// ld1 of two vectors for each window at 0, 1 and 2 floats), 126
// multiply-adds, 4 ld1 of the bias into the 14 accumulators, the clamps
// and 7 stores: 164 instructions for 14 output vectors besides the
// clamps. Accumulators v16-v29 (output row i at v16 + 2 i), windows
// v0-v5. The sums are the same, in the same order, as OutputVectors's.
// clang-format off
#define MACE_DW7W_T_0 "%[t0].s[0]", "%[t0].s[1]", "%[t0].s[2]"
#define MACE_DW7W_T_1 "%[t0].s[3]", "%[t1].s[0]", "%[t1].s[1]"
#define MACE_DW7W_T_2 "%[t1].s[2]", "%[t1].s[3]", "%[t2].s[0]"
#define MACE_DW7W_FMA6(a, b, t0, t1, t2)                                     \
  "fmla " a ".4s, v0.4s, " t0 "\n" "fmla " b ".4s, v1.4s, " t0 "\n"          \
  "fmla " a ".4s, v2.4s, " t1 "\n" "fmla " b ".4s, v3.4s, " t1 "\n"          \
  "fmla " a ".4s, v4.4s, " t2 "\n" "fmla " b ".4s, v5.4s, " t2 "\n"
#define MACE_DW7W_EXPAND(m, ...) m(__VA_ARGS__)
// Output row (vectors a, b) += tap row `row` over the windows in v0-v5.
#define MACE_DW7W(a, b, row) MACE_DW7W_EXPAND(MACE_DW7W_FMA6, #a, #b, MACE_DW7W_T_##row)
#define MACE_DW7W_R0(row) MACE_DW7W(v16, v17, row)
#define MACE_DW7W_R1(row) MACE_DW7W(v18, v19, row)
#define MACE_DW7W_R2(row) MACE_DW7W(v20, v21, row)
#define MACE_DW7W_R3(row) MACE_DW7W(v22, v23, row)
#define MACE_DW7W_R4(row) MACE_DW7W(v24, v25, row)
#define MACE_DW7W_R5(row) MACE_DW7W(v26, v27, row)
#define MACE_DW7W_R6(row) MACE_DW7W(v28, v29, row)
// An input row's windows, the pointer left at the next row's.
#define MACE_DW7W_LOAD                                                       \
  "ld1 {v0.4s, v1.4s}, [%[r]], %[s4]\n"                                      \
  "ld1 {v2.4s, v3.4s}, [%[r]], %[s4]\n"                                      \
  "ld1 {v4.4s, v5.4s}, [%[r]], %[rest]\n"
#define MACE_DW7W_NONE(a, b) ""
#define MACE_DW7W_MAX(a, b)                                                  \
  "fmax " #a ".4s, " #a ".4s, %[lo].4s\n" "fmax " #b ".4s, " #b ".4s, %[lo].4s\n"
#define MACE_DW7W_CLAMP(a, b)                                                \
  MACE_DW7W_MAX(a, b)                                                        \
  "fmin " #a ".4s, " #a ".4s, %[hi].4s\n" "fmin " #b ".4s, " #b ".4s, %[hi].4s\n"
#define MACE_DW7W_STORE(C, a, b) C(a, b) "st1 {" #a ".4s, " #b ".4s}, [%[o]], %[wb]\n"
#define MACE_DW7W_ASM(C)                                                     \
  __asm__ volatile(                                                          \
      "ld1 {v16.4s, v17.4s, v18.4s, v19.4s}, [%[bias]]\n"                    \
      "ld1 {v20.4s, v21.4s, v22.4s, v23.4s}, [%[bias]]\n"                    \
      "ld1 {v24.4s, v25.4s, v26.4s, v27.4s}, [%[bias]]\n"                    \
      "ld1 {v28.4s, v29.4s}, [%[bias]]\n"                                    \
      MACE_DW7W_LOAD MACE_DW7W_R0(0)                                         \
      MACE_DW7W_LOAD MACE_DW7W_R0(1) MACE_DW7W_R1(0)                         \
      MACE_DW7W_LOAD MACE_DW7W_R0(2) MACE_DW7W_R1(1) MACE_DW7W_R2(0)         \
      MACE_DW7W_STORE(C, v16, v17)                                           \
      MACE_DW7W_LOAD MACE_DW7W_R1(2) MACE_DW7W_R2(1) MACE_DW7W_R3(0)         \
      MACE_DW7W_STORE(C, v18, v19)                                           \
      MACE_DW7W_LOAD MACE_DW7W_R2(2) MACE_DW7W_R3(1) MACE_DW7W_R4(0)         \
      MACE_DW7W_STORE(C, v20, v21)                                           \
      MACE_DW7W_LOAD MACE_DW7W_R3(2) MACE_DW7W_R4(1) MACE_DW7W_R5(0)         \
      MACE_DW7W_STORE(C, v22, v23)                                           \
      MACE_DW7W_LOAD MACE_DW7W_R4(2) MACE_DW7W_R5(1) MACE_DW7W_R6(0)         \
      MACE_DW7W_STORE(C, v24, v25)                                           \
      MACE_DW7W_LOAD MACE_DW7W_R5(2) MACE_DW7W_R6(1)                         \
      MACE_DW7W_STORE(C, v26, v27)                                           \
      MACE_DW7W_LOAD MACE_DW7W_R6(2)                                         \
      MACE_DW7W_STORE(C, v28, v29)                                           \
      : [r] "+r"(r), [o] "+r"(o)                                             \
      : [t0] "w"(taps.q[0]), [t1] "w"(taps.q[1]), [t2] "w"(taps.q[2]), [lo] "w"(lo), \
        [hi] "w"(hi), [bias] "r"(biases), [s4] "r"(s4), [rest] "r"(rest),   \
        [wb] "r"(wb)                                                         \
      : "memory", "v0", "v1", "v2", "v3", "v4", "v5", "v16", "v17", "v18",   \
        "v19", "v20", "v21", "v22", "v23", "v24", "v25", "v26", "v27", "v28", "v29")
// One step: the 8 outputs from column j of seven output rows (of `width`
// at `out`) whose windows start at input row `in`. Always inlined, as
// AsmSevenRows.
template <int kAct>
[[gnu::always_inline]] inline void AsmSevenRowsWideS1(const float* in, int64_t pitch,
                                                      const Taps& taps, const float* biases,
                                                      float32x4_t lo, float32x4_t hi, float* out,
                                                      int64_t width, int64_t j) {
  const float* r = in + j;
  float* o = out + j;
  const int64_t s4 = sizeof(float);
  const int64_t rest = (pitch - 2) * static_cast<int64_t>(sizeof(float));
  const int64_t wb = width * static_cast<int64_t>(sizeof(float));
  MACE_DW7_BY_ACT(MACE_DW7W_ASM, MACE_DW7W_NONE, MACE_DW7W_MAX, MACE_DW7W_CLAMP)
}
#undef MACE_DW7_BY_ACT
#undef MACE_DW7W_ASM
#undef MACE_DW7W_STORE
#undef MACE_DW7W_CLAMP
#undef MACE_DW7W_MAX
#undef MACE_DW7W_NONE
#undef MACE_DW7W_LOAD
#undef MACE_DW7W_R6
#undef MACE_DW7W_R5
#undef MACE_DW7W_R4
#undef MACE_DW7W_R3
#undef MACE_DW7W_R2
#undef MACE_DW7W_R1
#undef MACE_DW7W_R0
#undef MACE_DW7W
#undef MACE_DW7W_EXPAND
#undef MACE_DW7W_FMA6
#undef MACE_DW7W_T_2
#undef MACE_DW7W_T_1
#undef MACE_DW7W_T_0
// clang-format on

// A stride-1 band of 7 or 14 rows of 8 to 15 outputs in seven-row passes,
// each one step and, for a ragged row, one more ending at the last output.
template <int kAct>
void SevenRowWideBand(const DepthwiseBand& band) {
  const Taps taps(band.taps);
  const Activate<kAct> activate(band.epilogue);
  const int64_t pitch = band.in_pitch, width = band.out_w;
  const BiasCopies biases(band.bias);
  for (int64_t r = 0; r < band.rows; r += kSevenRows) {
    const float* in = band.in + r * pitch;
    float* out = band.out + r * width;
    AsmSevenRowsWideS1<kAct>(in, pitch, taps, biases, activate.lo, activate.hi, out, width, 0);
    if (width > 2 * kLanes) {
      AsmSevenRowsWideS1<kAct>(in, pitch, taps, biases, activate.lo, activate.hi, out, width,
                               width - 2 * kLanes);
    }
  }
}

// A stride-1 band of 4 or more rows of 8 or more outputs that is not read
// in place (other paddings; before InPlaceS1Wide, MobileNet v2's 112-, 56-
// and 28-wide maps): its four-row passes with the bias copies, taps and
// bounds set up once for the band and the step kernels inlined into one
// loop. Through Band each pass filled the bias copies again and called the
// out-of-line step kernel, which loaded the taps and saved and restored
// registers: some 100 instructions a pass (MobileNet v2 ran 5,600).
template <int kAct>
void FourRowWideBandS1(const DepthwiseBand& band) {
  const Taps taps(band.taps);
  const Activate<kAct> activate(band.epilogue);
  const int64_t pitch = band.in_pitch, width = band.out_w;
  const BiasCopies biases(band.bias);
  const int64_t rows = band.rows - band.rows % kPassRows;
  for (int64_t r = 0; r < rows; r += kPassRows) {
    AsmRowsWideS1<kPassRows, kAct>(band.in + r * pitch, pitch, taps, biases, activate.lo,
                                   activate.hi, band.out + r * width, width);
  }
  if (rows < band.rows) {
    DepthwiseBand rest = band;
    rest.in += rows * pitch;
    rest.out += rows * width;
    rest.rows -= rows;
    Band<1, 1, kAct>(rest);
  }
}

// The band of a clamp kind (kAct) on arm64: seven-row bands of 4 to 7
// outputs in SevenRowBand, stride-1 bands of 7 or 14 rows of 8 to 15
// outputs in SevenRowWideBand, the rest in passes of four rows.
template <int kStrideW, int kStrideH, int kAct>
void ClampBand(const DepthwiseBand& band) {
  if constexpr (kStrideW == kStrideH) {
    if (band.rows == kSevenRows && band.out_w >= kLanes && band.out_w < 2 * kLanes) {
      return SevenRowBand<kStrideW, kAct>(band);
    }
  }
  if constexpr (kStrideW == 1 && kStrideH == 1) {
    if ((band.rows == kSevenRows || band.rows == 2 * kSevenRows) && band.out_w >= 2 * kLanes &&
        band.out_w < 4 * kLanes) {
      return SevenRowWideBand<kAct>(band);
    }
    if (band.rows >= kPassRows && band.out_w >= 2 * kLanes) {
      return FourRowWideBandS1<kAct>(band);
    }
  }
  Band<kStrideW, kStrideH, kAct>(band);
}
#endif

#if defined(__aarch64__)
// arm64, stride 1, one row and one column of zero padding on every side,
// whole planes read in place (NeonDepthwise3x3InPlace): the padding
// the band copy wrote is supplied here instead. A window that starts in the
// left padding is the row's first loaded vector moved one lane on behind a
// zero (`ext`), one that ends in the right padding the row's last vector
// moved one lane back before a zero, so nothing outside a plane's rows is
// read; the padding rows above and below a plane are never loaded and the
// multiply-adds they would feed are left out. The copy of a 14x14 plane
// took about 95 instructions and of a 7x7 one about 55, with the band
// call's set-up some 60 more a plane. The sums are those of the band
// kernels less the padding's zero products, in the same order.
// clang-format off
#define MACE_DWI_T_0 "%[t0].s[0]", "%[t0].s[1]", "%[t0].s[2]"
#define MACE_DWI_T_1 "%[t0].s[3]", "%[t1].s[0]", "%[t1].s[1]"
#define MACE_DWI_T_2 "%[t1].s[2]", "%[t1].s[3]", "%[t2].s[0]"
#define MACE_DWI_EXPAND(m, ...) m(__VA_ARGS__)
// Clamps of one accumulator: none, a max, or a max and a min.
#define MACE_DWI_NONE(acc)
#define MACE_DWI_MAX(acc) "fmax " #acc ".4s, " #acc ".4s, %[lo].4s\n"
#define MACE_DWI_CLAMP(acc) MACE_DWI_MAX(acc) "fmin " #acc ".4s, " #acc ".4s, %[hi].4s\n"
#define MACE_DWI_BY_ACT(asm1, load)                                          \
  if constexpr (kAct == kActNone) {                                          \
    asm1(load, MACE_DWI_NONE);                                               \
  } else if constexpr (kAct == kActMax) {                                    \
    asm1(load, MACE_DWI_MAX);                                                \
  } else {                                                                   \
    asm1(load, MACE_DWI_CLAMP);                                              \
  }

// Planes 5 to 7 wide, 7 rows: two vector columns, at output 0 and ending at
// the last output, each one pass of seven rows (v16-v22) over the 7 input
// rows, windows in v24-v26. Output row i += tap row t over v24-v26.
#define MACE_DWI_FMA3(acc, t0, t1, t2)                                       \
  "fmla " acc ".4s, v24.4s, " t0 "\n"                                        \
  "fmla " acc ".4s, v25.4s, " t1 "\n"                                        \
  "fmla " acc ".4s, v26.4s, " t2 "\n"
#define MACE_DWI_N(acc, row) MACE_DWI_EXPAND(MACE_DWI_FMA3, #acc, MACE_DWI_T_##row)
// The first column's windows (pointer at the row's input 0): input -1 is
// padding.
#define MACE_DWI_LOAD_FIRST                                                  \
  "ldur q26, [%[r], #4]\n"                                                   \
  "ld1 {v25.4s}, [%[r]], %[pitch]\n"                                         \
  "ext v24.16b, %[zero].16b, v25.16b, #12\n"
// The last column's (pointer at input w - 5): input w is padding.
#define MACE_DWI_LOAD_LAST                                                   \
  "ldur q25, [%[r], #4]\n"                                                   \
  "ld1 {v24.4s}, [%[r]], %[pitch]\n"                                         \
  "ext v26.16b, v25.16b, %[zero].16b, #4\n"
#define MACE_DWI_NSTORE(C, acc) C(acc) "st1 {" #acc ".4s}, [%[o]], %[pitch]\n"
#define MACE_DWI_NARROW_ASM(load, C)                                         \
  __asm__ volatile(                                                          \
      "ld1 {v16.4s, v17.4s, v18.4s, v19.4s}, [%[bias]]\n"                    \
      "ld1 {v20.4s, v21.4s, v22.4s}, [%[bias]]\n"                            \
      load MACE_DWI_N(v16, 1) MACE_DWI_N(v17, 0)                             \
      load MACE_DWI_N(v16, 2) MACE_DWI_NSTORE(C, v16)                        \
      MACE_DWI_N(v17, 1) MACE_DWI_N(v18, 0)                                  \
      load MACE_DWI_N(v17, 2) MACE_DWI_NSTORE(C, v17)                        \
      MACE_DWI_N(v18, 1) MACE_DWI_N(v19, 0)                                  \
      load MACE_DWI_N(v18, 2) MACE_DWI_NSTORE(C, v18)                        \
      MACE_DWI_N(v19, 1) MACE_DWI_N(v20, 0)                                  \
      load MACE_DWI_N(v19, 2) MACE_DWI_NSTORE(C, v19)                        \
      MACE_DWI_N(v20, 1) MACE_DWI_N(v21, 0)                                  \
      load MACE_DWI_N(v20, 2) MACE_DWI_NSTORE(C, v20)                        \
      MACE_DWI_N(v21, 1) MACE_DWI_N(v22, 0)                                  \
      load MACE_DWI_N(v21, 2) MACE_DWI_NSTORE(C, v21)                        \
      MACE_DWI_N(v22, 1) MACE_DWI_NSTORE(C, v22)                             \
      : [r] "+r"(r), [o] "+r"(o)                                             \
      : [t0] "w"(taps.q[0]), [t1] "w"(taps.q[1]), [t2] "w"(taps.q[2]), [lo] "w"(lo), \
        [hi] "w"(hi), [zero] "w"(zero), [bias] "r"(biases), [pitch] "r"(pitch) \
      : "memory", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v24", "v25", "v26")

// Stride 2, outputs of 7 rows of 4 to 7 from 14 input rows (the 14->7
// maps): the same two columns, outputs in v16-v22, input row k (row -1 is
// padding) feeding output row k / 2 with tap row 1 when even, rows
// (k + 1) / 2 and (k - 1) / 2 with tap rows 0 and 2 when odd. A row's
// windows are two ld2 (from the first window's start and one float on),
// the first column's one ld2 from input 0 with input -1 a zero moved in;
// no load reads past input 2 * out_w - 1 of a row.
#define MACE_DWI_S2_LOAD_FIRST                                               \
  "ld2 {v25.4s, v26.4s}, [%[r]], %[pitch]\n"                                 \
  "ext v24.16b, %[zero].16b, v26.16b, #12\n"
#define MACE_DWI_S2_LOAD                                                     \
  "ld2 {v24.4s, v25.4s}, [%[r]], %[pitch]\n"                                 \
  "ld2 {v25.4s, v26.4s}, [%[r1]], %[pitch]\n"
#define MACE_DWI_S2STORE(C, acc) C(acc) "st1 {" #acc ".4s}, [%[o]], %[wb]\n"
#define MACE_DWI_S2_ODD(C, done, next)                                       \
  MACE_DWI_N(done, 2) MACE_DWI_S2STORE(C, done) MACE_DWI_N(next, 0)
#define MACE_DWI_S2_ASM(load, C)                                             \
  __asm__ volatile(                                                          \
      "ld1 {v16.4s, v17.4s, v18.4s, v19.4s}, [%[bias]]\n"                    \
      "ld1 {v20.4s, v21.4s, v22.4s}, [%[bias]]\n"                            \
      load MACE_DWI_N(v16, 1) load MACE_DWI_S2_ODD(C, v16, v17)              \
      load MACE_DWI_N(v17, 1) load MACE_DWI_S2_ODD(C, v17, v18)              \
      load MACE_DWI_N(v18, 1) load MACE_DWI_S2_ODD(C, v18, v19)              \
      load MACE_DWI_N(v19, 1) load MACE_DWI_S2_ODD(C, v19, v20)              \
      load MACE_DWI_N(v20, 1) load MACE_DWI_S2_ODD(C, v20, v21)              \
      load MACE_DWI_N(v21, 1) load MACE_DWI_S2_ODD(C, v21, v22)              \
      load MACE_DWI_N(v22, 1)                                                \
      load MACE_DWI_N(v22, 2) MACE_DWI_S2STORE(C, v22)                       \
      : [r] "+r"(r), [r1] "+r"(r1), [o] "+r"(o)                              \
      : [t0] "w"(taps.q[0]), [t1] "w"(taps.q[1]), [t2] "w"(taps.q[2]), [lo] "w"(lo), \
        [hi] "w"(hi), [zero] "w"(zero), [bias] "r"(biases), [pitch] "r"(pitch), \
        [wb] "r"(wb)                                                         \
      : "memory", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v24", "v25", "v26")

// Planes 9 to 15 wide, 14 rows: steps of 8 outputs (two vectors a row) at
// output 0 and ending at the last output, each a pass over output rows 0-6
// (input rows 0-7) and one over rows 7-13 (input rows 6-13), accumulators
// v16-v29 (output row i of the pass at v16 + 2 i), windows v0-v5. Output
// row (vectors a, b) += tap row t over the windows.
#define MACE_DWI_FMA6(a, b, t0, t1, t2)                                      \
  "fmla " a ".4s, v0.4s, " t0 "\n" "fmla " b ".4s, v1.4s, " t0 "\n"          \
  "fmla " a ".4s, v2.4s, " t1 "\n" "fmla " b ".4s, v3.4s, " t1 "\n"          \
  "fmla " a ".4s, v4.4s, " t2 "\n" "fmla " b ".4s, v5.4s, " t2 "\n"
#define MACE_DWI_W(a, b, row) MACE_DWI_EXPAND(MACE_DWI_FMA6, #a, #b, MACE_DWI_T_##row)
#define MACE_DWI_R0(row) MACE_DWI_W(v16, v17, row)
#define MACE_DWI_R1(row) MACE_DWI_W(v18, v19, row)
#define MACE_DWI_R2(row) MACE_DWI_W(v20, v21, row)
#define MACE_DWI_R3(row) MACE_DWI_W(v22, v23, row)
#define MACE_DWI_R4(row) MACE_DWI_W(v24, v25, row)
#define MACE_DWI_R5(row) MACE_DWI_W(v26, v27, row)
#define MACE_DWI_R6(row) MACE_DWI_W(v28, v29, row)
// The first step's windows (r at the row's input 0, r1 at input 1).
#define MACE_DWI_LOAD_LEFT                                                   \
  "ld1 {v2.4s, v3.4s}, [%[r]], %[pitch]\n"                                   \
  "ld1 {v4.4s, v5.4s}, [%[r1]], %[pitch]\n"                                  \
  "ext v0.16b, %[zero].16b, v2.16b, #12\n"                                   \
  "ext v1.16b, v2.16b, v3.16b, #12\n"
// The last step's (r at input w - 9, r1 at w - 8).
#define MACE_DWI_LOAD_RIGHT                                                  \
  "ld1 {v0.4s, v1.4s}, [%[r]], %[pitch]\n"                                   \
  "ld1 {v2.4s, v3.4s}, [%[r1]], %[pitch]\n"                                  \
  "ext v4.16b, v2.16b, v3.16b, #4\n"                                         \
  "ext v5.16b, v3.16b, %[zero].16b, #4\n"
#define MACE_DWI_WSTORE(C, a, b) C(a) C(b) "st1 {" #a ".4s, " #b ".4s}, [%[o]], %[pitch]\n"
#define MACE_DWI_WIDE_BIAS                                                   \
  "ld1 {v16.4s, v17.4s, v18.4s, v19.4s}, [%[bias]]\n"                        \
  "ld1 {v20.4s, v21.4s, v22.4s, v23.4s}, [%[bias]]\n"                        \
  "ld1 {v24.4s, v25.4s, v26.4s, v27.4s}, [%[bias]]\n"                        \
  "ld1 {v28.4s, v29.4s}, [%[bias]]\n"
#define MACE_DWI_WIDE_OPERANDS                                               \
  : [r] "+r"(r), [r1] "+r"(r1), [o] "+r"(o)                                  \
  : [t0] "w"(taps.q[0]), [t1] "w"(taps.q[1]), [t2] "w"(taps.q[2]), [lo] "w"(lo), \
    [hi] "w"(hi), [zero] "w"(zero), [bias] "r"(biases), [pitch] "r"(pitch)   \
  : "memory", "v0", "v1", "v2", "v3", "v4", "v5", "v16", "v17", "v18", "v19", \
    "v20", "v21", "v22", "v23", "v24", "v25", "v26", "v27", "v28", "v29"
// The input rows that feed all three tap rows (of output rows 0-2 to 4-6
// of the pass), each output row stored once its last tap row is in.
#define MACE_DWI_MIDDLE(load, C)                                             \
      load MACE_DWI_R0(2) MACE_DWI_WSTORE(C, v16, v17)                       \
      MACE_DWI_R1(1) MACE_DWI_R2(0)                                          \
      load MACE_DWI_R1(2) MACE_DWI_WSTORE(C, v18, v19)                       \
      MACE_DWI_R2(1) MACE_DWI_R3(0)                                          \
      load MACE_DWI_R2(2) MACE_DWI_WSTORE(C, v20, v21)                       \
      MACE_DWI_R3(1) MACE_DWI_R4(0)                                          \
      load MACE_DWI_R3(2) MACE_DWI_WSTORE(C, v22, v23)                       \
      MACE_DWI_R4(1) MACE_DWI_R5(0)                                          \
      load MACE_DWI_R4(2) MACE_DWI_WSTORE(C, v24, v25)                       \
      MACE_DWI_R5(1) MACE_DWI_R6(0)
// Output rows 0-6 from input rows 0-7 (row -1 is padding).
#define MACE_DWI_TOP_ASM(load, C)                                            \
  __asm__ volatile(                                                          \
      MACE_DWI_WIDE_BIAS                                                     \
      load MACE_DWI_R0(1) MACE_DWI_R1(0)                                     \
      MACE_DWI_MIDDLE(load, C)                                               \
      load MACE_DWI_R5(2) MACE_DWI_WSTORE(C, v26, v27) MACE_DWI_R6(1)        \
      load MACE_DWI_R6(2) MACE_DWI_WSTORE(C, v28, v29)                       \
      MACE_DWI_WIDE_OPERANDS)
// Output rows 7-13 from input rows 6-13 (row 14 is padding).
#define MACE_DWI_BOTTOM_ASM(load, C)                                         \
  __asm__ volatile(                                                          \
      MACE_DWI_WIDE_BIAS                                                     \
      load MACE_DWI_R0(0)                                                    \
      load MACE_DWI_R0(1) MACE_DWI_R1(0)                                     \
      MACE_DWI_MIDDLE(load, C)                                               \
      load MACE_DWI_R5(2) MACE_DWI_WSTORE(C, v26, v27)                       \
      MACE_DWI_R6(1) MACE_DWI_WSTORE(C, v28, v29)                            \
      MACE_DWI_WIDE_OPERANDS)

// One vector column of a 7-row plane: windows loaded by `load` from r on,
// outputs stored from o on (rows of w, pitch bytes apart).
#define MACE_DWI_NARROW_COLUMN(load, at_in, at_out)                          \
  {                                                                          \
    const float* r = (at_in);                                                \
    float* o = (at_out);                                                     \
    MACE_DWI_BY_ACT(MACE_DWI_NARROW_ASM, load)                               \
  }
// One 8-output step of one pass of a 14-row plane.
#define MACE_DWI_WIDE_STEP(pass, load, at_in, at_out)                        \
  {                                                                          \
    const float* r = (at_in);                                                \
    const float* r1 = r + 1;                                                 \
    float* o = (at_out);                                                     \
    MACE_DWI_BY_ACT(pass, load)                                              \
  }

// The planes of `run` in seven-row columns: at stride 1 7x5 to 7x7 and
// 14x9 to 14x15, with kStride2 outputs of 7 rows of 4 to 7, clamped as
// kAct says (a template argument: a run-time test a plane cost 20 K
// instructions in MobileNet v2). A plane costs its taps, bias and pointers, about 10
// instructions, where a band call's set-up and dispatch took some 60.
template <int kAct, bool kStride2>
void InPlaceSevenRows(const DepthwiseInPlace& run) {
  const Activate<kAct> activate(run.epilogue);
  const float32x4_t lo = activate.lo, hi = activate.hi;
  const float32x4_t zero = vdupq_n_f32(0.f);
  const int64_t w = run.in_w, out_w = run.out_w;
  const int64_t in_plane = run.in_h * w, out_plane = run.out_h * out_w;
  const int64_t pitch = w * static_cast<int64_t>(sizeof(float));
  const int64_t wb = out_w * static_cast<int64_t>(sizeof(float));
  const float* in = run.in;
  const float* tap_values = run.taps;
  float* out = run.out;
  for (int64_t i = 0; i < run.planes; ++i, in += in_plane, out += out_plane, tap_values += 9) {
    const Taps taps(tap_values);
    // The asm operands below take a plain pointer.
    const BiasCopies bias_copies(run.bias != nullptr ? run.bias[i] : 0.f);
    const float* biases = bias_copies.values;
    if constexpr (kStride2) {
      // Outputs of 7 rows of 4 to 7 (14->7): one column, or two when wider
      // than a vector, the second ending at the last output.
      MACE_DWI_WIDE_STEP(MACE_DWI_S2_ASM, MACE_DWI_S2_LOAD_FIRST, in, out)
      if (out_w > kLanes) {
        MACE_DWI_WIDE_STEP(MACE_DWI_S2_ASM, MACE_DWI_S2_LOAD, in + 2 * (out_w - kLanes) - 1,
                           out + out_w - kLanes)
      }
    } else if (w < 2 * kLanes) {
      MACE_DWI_NARROW_COLUMN(MACE_DWI_LOAD_FIRST, in, out)
      MACE_DWI_NARROW_COLUMN(MACE_DWI_LOAD_LAST, in + w - 5, out + w - kLanes)
    } else {
      const float* bottom = in + (kSevenRows - 1) * w;
      float* bottom_out = out + kSevenRows * w;
      MACE_DWI_WIDE_STEP(MACE_DWI_TOP_ASM, MACE_DWI_LOAD_LEFT, in, out)
      MACE_DWI_WIDE_STEP(MACE_DWI_TOP_ASM, MACE_DWI_LOAD_RIGHT, in + w - 9, out + w - 8)
      MACE_DWI_WIDE_STEP(MACE_DWI_BOTTOM_ASM, MACE_DWI_LOAD_LEFT, bottom, bottom_out)
      MACE_DWI_WIDE_STEP(MACE_DWI_BOTTOM_ASM, MACE_DWI_LOAD_RIGHT, bottom + w - 9,
                         bottom_out + w - 8)
    }
  }
}
#undef MACE_DWI_S2_ASM
#undef MACE_DWI_S2_ODD
#undef MACE_DWI_S2STORE
#undef MACE_DWI_S2_LOAD
#undef MACE_DWI_S2_LOAD_FIRST
#undef MACE_DWI_WIDE_STEP
#undef MACE_DWI_NARROW_COLUMN
#undef MACE_DWI_BOTTOM_ASM
#undef MACE_DWI_TOP_ASM
#undef MACE_DWI_MIDDLE
#undef MACE_DWI_WIDE_OPERANDS
#undef MACE_DWI_WIDE_BIAS
#undef MACE_DWI_WSTORE
#undef MACE_DWI_LOAD_RIGHT
#undef MACE_DWI_LOAD_LEFT
#undef MACE_DWI_R6
#undef MACE_DWI_R5
#undef MACE_DWI_R4
#undef MACE_DWI_R3
#undef MACE_DWI_R2
#undef MACE_DWI_R1
#undef MACE_DWI_R0
#undef MACE_DWI_W
#undef MACE_DWI_FMA6
#undef MACE_DWI_NARROW_ASM
#undef MACE_DWI_NSTORE
#undef MACE_DWI_LOAD_LAST
#undef MACE_DWI_LOAD_FIRST
#undef MACE_DWI_N
#undef MACE_DWI_FMA3
#undef MACE_DWI_BY_ACT
#undef MACE_DWI_CLAMP
#undef MACE_DWI_MAX
#undef MACE_DWI_NONE
#undef MACE_DWI_EXPAND
#undef MACE_DWI_T_2
#undef MACE_DWI_T_1
#undef MACE_DWI_T_0
// clang-format on
#endif

// `run` (a band or an in-place run) with its clamp spelled out as
// [choice.bounds[0], choice.bounds[1]], for the clamp variant ChooseClamp
// picked.
template <typename Run>
Run WithBounds(const Run& run, const ClampChoice& choice) {
  Run bounded = run;
  bounded.epilogue.activation = kTileActClamp;
  bounded.epilogue.lo = choice.bounds[0];
  bounded.epilogue.hi = choice.bounds[1];
  return bounded;
}

// Hard swish over a band's outputs, as Activate<kActHardSwish> applies it
// in registers (the same bits): for builds that leave the hard-swish bands
// out (linked_variants.h).
void HardSwishInPlace(float* out, int64_t count) {
  const Activate<kActHardSwish> activate{TileEpilogue()};
  int64_t i = 0;
  for (; i + kLanes <= count; i += kLanes) vst1q_f32(out + i, activate(vld1q_f32(out + i)));
  if (i < count) {
    float staged[kLanes] = {};
    std::memcpy(staged, out + i, (count - i) * sizeof(float));
    vst1q_f32(staged, activate(vld1q_f32(staged)));
    std::memcpy(out + i, staged, (count - i) * sizeof(float));
  }
}

template <int kStrideW, int kStrideH>
void Band(const DepthwiseBand& band) {
  if (band.epilogue.activation == kTileActHardSwish) {
    if constexpr (kLinksDepthwiseHardSwish) {
      Band<kStrideW, kStrideH, kActHardSwish>(band);
    } else {
      DepthwiseBand plain = band;
      plain.epilogue.activation = kTileActNone;
      Band<kStrideW, kStrideH>(plain);
      HardSwishInPlace(band.out, band.rows * band.out_w);
    }
  } else {
#if !defined(__aarch64__)
    if (kStrideW == 1 && kStrideH == 1 && band.out_w >= kLanes) {
      const Activate<kActClamp> activate(band.epilogue);
      return FourRowBand<1>(band, vgetq_lane_f32(activate.lo, 0), vgetq_lane_f32(activate.hi, 0));
    }
    if (kStrideW == 2 && kStrideH == 2 && band.out_w >= kLanes) {
      const Activate<kActClamp> activate(band.epilogue);
      return FourRowBand<2>(band, vgetq_lane_f32(activate.lo, 0), vgetq_lane_f32(activate.hi, 0));
    }
    Band<kStrideW, kStrideH, kActClamp>(band);
#else
    const TileEpilogue& epilogue = band.epilogue;
    const ClampChoice choice =
        ChooseClamp(epilogue.activation == kTileActClamp, epilogue.lo, epilogue.hi,
                    kLinksDepthwiseUnclamped, kLinksDepthwiseLowerClamp);
    if (choice.kind == kClampNone) {
      ClampBand<kStrideW, kStrideH, kUnclampedAct>(WithBounds(band, choice));
    } else if (choice.kind == kClampLo) {
      ClampBand<kStrideW, kStrideH, kLowerClampAct>(WithBounds(band, choice));
    } else {
      ClampBand<kStrideW, kStrideH, kActClamp>(band);
    }
#endif
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

#if !defined(__aarch64__)
bool NeonDepthwise3x3Planes(DepthwiseBand* band, int stride, int64_t planes,
                            DepthwisePlaneFill fill, void* context) {
  // The bands FourRowBand takes (stride 1, or 2 on both axes).
  if (band->epilogue.activation == kTileActHardSwish || band->out_w < kLanes ||
      band->stride_h != stride) {
    return false;
  }
  const Activate<kActClamp> activate(band->epilogue);
  const float lo = vgetq_lane_f32(activate.lo, 0), hi = vgetq_lane_f32(activate.hi, 0);
  ColumnPlan plan;
  const bool columns =
      stride == 1 ? PlanColumns<1>(*band, lo, hi, &plan) : PlanColumns<2>(*band, lo, hi, &plan);
  if (!columns) return false;
  for (int64_t i = 0; i < planes; ++i) {
    fill(context, i, band);
    plan.Run(band->in, band->out, band->taps, band->bias);
  }
  return true;
}
#endif

#if !defined(__aarch64__)
bool NeonDepthwise3x3TakesPlanesInPlace(const DepthwiseBand& band) {
  // The walks' byte offsets down a column are 32-bit.
  constexpr int64_t kMaxPlaneFloats = int64_t{1} << 27;
  if (band.epilogue.activation == kTileActHardSwish ||
      band.rows * band.in_pitch > kMaxPlaneFloats) {
    return false;
  }
  if (band.stride_h == 2) {
    return band.in_pitch >= 2 * band.out_w && band.out_w >= kLanes && band.rows >= 1;
  }
  return band.stride_h == 1 && band.in_pitch == band.out_w && band.out_w >= kInPlaceMinWidth &&
         band.rows >= 2;
}

bool NeonDepthwise3x3PlanesInPlace(DepthwiseBand* band, int64_t planes,
                                   DepthwisePlaneFill fill, void* context) {
  if (!NeonDepthwise3x3TakesPlanesInPlace(*band)) return false;
  const Activate<kActClamp> activate(band->epilogue);
  ColumnPlan plan;
  const float lo = vgetq_lane_f32(activate.lo, 0), hi = vgetq_lane_f32(activate.hi, 0);
  if (band->stride_h == 2) {
    PlanInPlaceStrideTwo(*band, lo, hi, &plan);
  } else {
    PlanInPlace(*band, lo, hi, &plan);
  }
  for (int64_t i = 0; i < planes; ++i) {
    fill(context, i, band);
    plan.Run(band->in, band->out, band->taps, band->bias);
  }
  return true;
}
#endif

#if defined(__aarch64__)
bool NeonDepthwise3x3TakesInPlace(const DepthwiseInPlace& run) {
  if (run.epilogue.activation == kTileActHardSwish) return false;
  if (run.stride == 1) {
    const int64_t h = run.in_h, w = run.in_w;
    return run.out_h == h && run.out_w == w &&
           ((h == kSevenRows && w >= 5 && w < 2 * kLanes) ||
            (h == 2 * kSevenRows && w > 2 * kLanes && w < 4 * kLanes) ||
            (h >= 4 && w > 4 * kLanes && w <= kZeroRowFloats));
  }
  return run.stride == 2 && run.in_h >= 2 * run.out_h && run.in_w >= 2 * run.out_w &&
         ((run.out_h >= 4 && run.out_w >= 2 * kLanes && run.in_w <= kZeroRowFloats) ||
          (run.out_h == kSevenRows && run.out_w >= kLanes && run.out_w < 2 * kLanes));
}

namespace {

template <int kAct>
void InPlaceAs(const DepthwiseInPlace& run) {
  const bool s1 = run.stride == 1, s2_wide = run.out_w >= 2 * kLanes;
  if (s1 && run.out_w > 4 * kLanes) {
    InPlaceS1Wide<kAct>(run);
  } else if (s1) {
    InPlaceSevenRows<kAct, false>(run);
  } else if (s2_wide) {
    InPlaceS2<kAct>(run);
  } else {
    InPlaceSevenRows<kAct, true>(run);
  }
}

}  // namespace

void NeonDepthwise3x3InPlace(const DepthwiseInPlace& run) {
  const TileEpilogue& epilogue = run.epilogue;
  const ClampChoice choice =
      ChooseClamp(epilogue.activation == kTileActClamp, epilogue.lo, epilogue.hi,
                  kLinksDepthwiseUnclamped, kLinksDepthwiseLowerClamp);
  if (choice.kind == kClampNone) {
    InPlaceAs<kUnclampedAct>(WithBounds(run, choice));
  } else if (choice.kind == kClampLo) {
    InPlaceAs<kLowerClampAct>(WithBounds(run, choice));
  } else {
    InPlaceAs<kActClamp>(run);
  }
}
#endif

}  // namespace arm
}  // namespace ops
}  // namespace mace

#endif  // __aarch64__ || __ARM_NEON
