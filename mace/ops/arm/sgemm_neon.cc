// NEON SGEMM micro-kernels: 8 x 12 with FMA by lane on arm64, 6 x 8 with
// multiply-accumulate by lane on armv7. Multiplying by a lane of a loaded A
// vector saves the broadcasts an x86 kernel needs.
#if defined(__aarch64__) || defined(__ARM_NEON)

#include <arm_neon.h>

#include <limits>
#include <type_traits>
#include <vector>

#include "mace/ops/arm/linked_variants.h"
#include "mace/ops/arm/neon_epilogue.h"
#include "mace/ops/arm/neon_kernels.h"
#include "mace/ops/arm/sgemm_neon_armv7.h"
#include "mace/ops/arm/sgemm_neon_runs.h"

namespace mace {
namespace ops {
namespace arm {
namespace {

// A finished accumulator vector: C added (later reduction blocks), then
// bias and activation (the last), with the epilogue's accumulate, last and
// activation fixed at compile time, so the stores of a whole tile carry no
// branch.
template <bool kAccumulate, bool kLast, int kActivation>
inline float32x4_t FinishAs(float32x4_t acc, const float* c, float32x4_t row_bias,
                            float32x4_t col_bias, const TileEpilogue& epilogue) {
  if constexpr (kAccumulate) acc = vaddq_f32(acc, vld1q_f32(c));
  if constexpr (!kLast) {
    return acc;
  } else {
    acc = vaddq_f32(vaddq_f32(acc, row_bias), col_bias);
    TileEpilogue fixed = epilogue;
    fixed.activation = kActivation;
    return NeonActivate(acc, fixed);
  }
}

// Calls store(accumulate, last, activation) with the epilogue's values as
// std::integral_constant tags (activation only matters when last is set).
template <typename Store>
inline void WithEpilogueConstants(const TileEpilogue& epilogue, Store&& store) {
  using Yes = std::true_type;
  using No = std::false_type;
  if (!epilogue.last) {
    if (epilogue.accumulate) return store(Yes(), No(), std::integral_constant<int, kTileActNone>());
    return store(No(), No(), std::integral_constant<int, kTileActNone>());
  }
  const auto with_activation = [&](auto accumulate) {
    switch (epilogue.activation) {
      case kTileActClamp:
        return store(accumulate, Yes(), std::integral_constant<int, kTileActClamp>());
      case kTileActHardSwish:
        return store(accumulate, Yes(), std::integral_constant<int, kTileActHardSwish>());
      default:
        return store(accumulate, Yes(), std::integral_constant<int, kTileActNone>());
    }
  };
  if (epilogue.accumulate) return with_activation(Yes());
  return with_activation(No());
}

// Stores a finished GEMM tile (kRows x 4 * kVecs accumulators) to C as the
// epilogue says. `epilogue` should be the kernel's local copy: the stores
// to C (NEON stores may alias anything) would otherwise make GCC re-read
// its fields after every one.
template <int kRows, int kVecs>
inline void StoreGemmTile(const float32x4_t (&acc)[kRows][kVecs], float* c, int64_t ldc,
                          const TileEpilogue& epilogue) {
  const float32x4_t zero = vdupq_n_f32(0.f);
  const bool col = epilogue.last && epilogue.col_bias != nullptr;
  float32x4_t col_bias[kVecs];
  for (int j = 0; j < kVecs; ++j) col_bias[j] = col ? vld1q_f32(epilogue.col_bias + 4 * j) : zero;
  WithEpilogueConstants(epilogue, [&](auto accumulate, auto last, auto activation) {
#pragma GCC unroll 8
    for (int i = 0; i < kRows; ++i) {
      float* row = c + i * ldc;
      const float32x4_t rb =
          epilogue.row_bias != nullptr ? vdupq_n_f32(epilogue.row_bias[i]) : zero;
#pragma GCC unroll 3
      for (int j = 0; j < kVecs; ++j) {
        vst1q_f32(row + 4 * j, (FinishAs<decltype(accumulate)::value, decltype(last)::value,
                                         decltype(activation)::value>(acc[i][j], row + 4 * j, rb,
                                                                      col_bias[j], epilogue)));
      }
    }
  });
}

// Whether a tile's epilogue needs the staging tile: a hard-swish, or both
// biases (the assembly starts a tile from one of them, in the first
// reduction block). Fixed for a whole product, so every reduction block of
// a tile adds its biases the same way.
inline bool NeedsStaging(const TileEpilogue& epilogue) {
  return epilogue.activation == kTileActHardSwish ||
         (epilogue.col_bias != nullptr && epilogue.row_bias != nullptr);
}

// A run of tiles whose epilogue the assembly does not finish (NeedsStaging;
// it never comes from a plain convolution): each tile through NeonGemm,
// which stages it.
void StagedGemmRun(int64_t tiles, int64_t kc, const float* a, int64_t a_step, const float* b,
                   int64_t b_step, float* c, int64_t c_step, int64_t ldc, int64_t row_bias_step,
                   int64_t col_bias_step, const TileEpilogue& epilogue) {
  TileEpilogue tile = epilogue;
  for (int64_t t = 0; t < tiles; ++t) {
    NeonGemm(kc, a + t * a_step, b + t * b_step, c + t * c_step, ldc, tile);
    if (tile.row_bias != nullptr) tile.row_bias += row_bias_step;
    if (tile.col_bias != nullptr) tile.col_bias += col_bias_step;
  }
}

}  // namespace

#if defined(__aarch64__)

#define MACE_NEON_ROW(i, a_vec, lane)                  \
  c##i##0 = vfmaq_laneq_f32(c##i##0, b0, a_vec, lane); \
  c##i##1 = vfmaq_laneq_f32(c##i##1, b1, a_vec, lane); \
  c##i##2 = vfmaq_laneq_f32(c##i##2, b2, a_vec, lane);

#define MACE_NEON_DECLARE(i) \
  float32x4_t c##i##0 = vdupq_n_f32(0.f), c##i##1 = c##i##0, c##i##2 = c##i##0;

// The tile's accumulators, and one step of the reduction: the 12 B values
// at b_row times each of the 8 A values at a, which then advances.
#define MACE_NEON_DECLARE_TILE \
  MACE_NEON_DECLARE(0)         \
  MACE_NEON_DECLARE(1)         \
  MACE_NEON_DECLARE(2)         \
  MACE_NEON_DECLARE(3)         \
  MACE_NEON_DECLARE(4) MACE_NEON_DECLARE(5) MACE_NEON_DECLARE(6) MACE_NEON_DECLARE(7)

// B and A each come in one multi-register load (ld1 {..}, with the pointer
// increment folded in), not two or three.
#define MACE_NEON_STEP(b_row)                                                       \
  {                                                                                 \
    const float32x4x3_t b_vecs = vld1q_f32_x3(b_row);                               \
    const float32x4x2_t a_vecs = vld1q_f32_x2(a);                                   \
    const float32x4_t b0 = b_vecs.val[0], b1 = b_vecs.val[1], b2 = b_vecs.val[2];   \
    const float32x4_t a0 = a_vecs.val[0], a1 = a_vecs.val[1];                       \
    MACE_NEON_ROW(0, a0, 0)                                                         \
    MACE_NEON_ROW(1, a0, 1)                                                         \
    MACE_NEON_ROW(2, a0, 2)                                                         \
    MACE_NEON_ROW(3, a0, 3)                                                         \
    MACE_NEON_ROW(4, a1, 0)                                                         \
    MACE_NEON_ROW(5, a1, 1) MACE_NEON_ROW(6, a1, 2) MACE_NEON_ROW(7, a1, 3) a += 8; \
  }

// The arm64 kernel is assembly, for the instruction count. Every operand
// load is an ld1 of four registers with the pointer increment folded in:
// four steps read 8 registers of A and 12 of B in 5 loads (the fewest), so
// sixteen steps (the loop) are 384 fmla, 20 loads and the loop's subs and
// b.ne: 25.375 instructions a step (25.5 with eight steps a loop, as before),
// against 26 with one three-register B load a step and 29 for GCC's loop
// of MACE_NEON_STEP; the last 8 and 4 steps of a block are straight code
// after it. Row i of the tile accumulates in
// v(8+3i) to v(10+3i), consecutive so that one ld1 or st1 moves a row of C;
// A goes through v0-v3 and B through v4-v7.
//
// The accumulators start from C (later reduction blocks) or from the row
// bias (the first block): the bias is added with the first block rather than
// the last, the same sum, and costs nothing. The last block clamps in place
// and stores each row with one st1. A column bias or hard-swish (neither
// comes from a plain convolution) takes the general path: the same code from
// zero into a staging tile, then the C epilogue (StoreGemmTile).
// clang-format off
#define MACE_ASM_ROW(c0, c1, c2, a_reg, lane)           \
  "fmla " c0 ".4s, v4.4s, " a_reg ".s[" #lane "]\n"     \
  "fmla " c1 ".4s, v5.4s, " a_reg ".s[" #lane "]\n"     \
  "fmla " c2 ".4s, v6.4s, " a_reg ".s[" #lane "]\n"

// One step: 12 B values (v4-v6) times the 8 A values in a_lo and a_hi.
#define MACE_ASM_STEP(a_lo, a_hi)                        \
  "ld1 {v4.4s, v5.4s, v6.4s}, [%[b]], #48\n"             \
  MACE_ASM_STEP_ROWS(a_lo, a_hi)
// The step's 24 fmla, B already in v4-v6.
#define MACE_ASM_STEP_ROWS(a_lo, a_hi)                   \
  MACE_ASM_ROW("v8", "v9", "v10", a_lo, 0)             \
  MACE_ASM_ROW("v11", "v12", "v13", a_lo, 1)           \
  MACE_ASM_ROW("v14", "v15", "v16", a_lo, 2)           \
  MACE_ASM_ROW("v17", "v18", "v19", a_lo, 3)           \
  MACE_ASM_ROW("v20", "v21", "v22", a_hi, 0)           \
  MACE_ASM_ROW("v23", "v24", "v25", a_hi, 1)           \
  MACE_ASM_ROW("v26", "v27", "v28", a_hi, 2)           \
  MACE_ASM_ROW("v29", "v30", "v31", a_hi, 3)

// Column j of the tile (accumulators c0..c7, one per row) += B vector b
// times the 8 A values in lo and hi; with op fmul, = instead of +=.
#define MACE_ASM_COL_OP(op, c0, c1, c2, c3, c4, c5, c6, c7, b, lo, hi) \
  op " " c0 ".4s, " b ".4s, " lo ".s[0]\n"                             \
  op " " c1 ".4s, " b ".4s, " lo ".s[1]\n"                             \
  op " " c2 ".4s, " b ".4s, " lo ".s[2]\n"                             \
  op " " c3 ".4s, " b ".4s, " lo ".s[3]\n"                             \
  op " " c4 ".4s, " b ".4s, " hi ".s[0]\n"                             \
  op " " c5 ".4s, " b ".4s, " hi ".s[1]\n"                             \
  op " " c6 ".4s, " b ".4s, " hi ".s[2]\n"                             \
  op " " c7 ".4s, " b ".4s, " hi ".s[3]\n"
#define MACE_ASM_COL(c0, c1, c2, c3, c4, c5, c6, c7, b, lo, hi) \
  MACE_ASM_COL_OP("fmla", c0, c1, c2, c3, c4, c5, c6, c7, b, lo, hi)
#define MACE_ASM_COL0_OP(op, b, lo, hi) \
  MACE_ASM_COL_OP(op, "v8", "v11", "v14", "v17", "v20", "v23", "v26", "v29", b, lo, hi)
#define MACE_ASM_COL1_OP(op, b, lo, hi) \
  MACE_ASM_COL_OP(op, "v9", "v12", "v15", "v18", "v21", "v24", "v27", "v30", b, lo, hi)
#define MACE_ASM_COL2_OP(op, b, lo, hi) \
  MACE_ASM_COL_OP(op, "v10", "v13", "v16", "v19", "v22", "v25", "v28", "v31", b, lo, hi)
#define MACE_ASM_COL0(b, lo, hi) MACE_ASM_COL0_OP("fmla", b, lo, hi)
#define MACE_ASM_COL1(b, lo, hi) MACE_ASM_COL1_OP("fmla", b, lo, hi)
#define MACE_ASM_COL2(b, lo, hi) MACE_ASM_COL2_OP("fmla", b, lo, hi)

// Four steps, s0 to s3, with four-register loads only: A for s0 and s1 in
// v0-v3, then s2 and s3; B's 12 vectors come four at a time through v4-v7,
// so a load lands between two steps' columns. The fmla are ordered by
// column so that each load's registers are free when it issues; every
// accumulator still adds s0, s1, s2 and s3 in that order.
// FOUR_STEPS_FIRST("fmul") starts the accumulators with s0's products
// rather than adding them (op "fmla").
#define MACE_ASM_FOUR_STEPS MACE_ASM_FOUR_STEPS_FIRST("fmla")
#define MACE_ASM_FOUR_STEPS_FIRST(op)                                         \
  "ld1 {v0.4s, v1.4s, v2.4s, v3.4s}, [%[a]], #64\n"                           \
  "ld1 {v4.4s, v5.4s, v6.4s, v7.4s}, [%[b]], #64\n"                           \
  MACE_ASM_COL0_OP(op, "v4", "v0", "v1") MACE_ASM_COL1_OP(op, "v5", "v0", "v1") \
  MACE_ASM_COL2_OP(op, "v6", "v0", "v1") MACE_ASM_COL0("v7", "v2", "v3")      \
  "ld1 {v4.4s, v5.4s, v6.4s, v7.4s}, [%[b]], #64\n"                           \
  MACE_ASM_COL1("v4", "v2", "v3") MACE_ASM_COL2("v5", "v2", "v3")             \
  "ld1 {v0.4s, v1.4s, v2.4s, v3.4s}, [%[a]], #64\n"                           \
  MACE_ASM_COL0("v6", "v0", "v1") MACE_ASM_COL1("v7", "v0", "v1")             \
  "ld1 {v4.4s, v5.4s, v6.4s, v7.4s}, [%[b]], #64\n"                           \
  MACE_ASM_COL2("v4", "v0", "v1") MACE_ASM_COL0("v5", "v2", "v3")             \
  MACE_ASM_COL1("v6", "v2", "v3") MACE_ASM_COL2("v7", "v2", "v3")

// Two steps as FOUR_STEPS begins them, then B's last two vectors: for a
// depth 2 past a multiple of 4 (ShuffleNet v2's 58-deep layers), where a
// loop of single steps took 3 instructions more a tile.
#define MACE_ASM_TWO_STEPS                                                    \
  "ld1 {v0.4s, v1.4s, v2.4s, v3.4s}, [%[a]], #64\n"                           \
  "ld1 {v4.4s, v5.4s, v6.4s, v7.4s}, [%[b]], #64\n"                           \
  MACE_ASM_COL0("v4", "v0", "v1") MACE_ASM_COL1("v5", "v0", "v1")             \
  MACE_ASM_COL2("v6", "v0", "v1") MACE_ASM_COL0("v7", "v2", "v3")             \
  "ld1 {v4.4s, v5.4s}, [%[b]], #32\n"                                         \
  MACE_ASM_COL1("v4", "v2", "v3") MACE_ASM_COL2("v5", "v2", "v3")

// Label 11: the accumulators zeroed; the code after it starts at label 12.
#define MACE_ASM_ACC_ZERO \
  "11:\n" \
  "movi v8.16b, #0\n movi v9.16b, #0\n movi v10.16b, #0\n movi v11.16b, #0\n" \
  "movi v12.16b, #0\n movi v13.16b, #0\n movi v14.16b, #0\n movi v15.16b, #0\n" \
  "movi v16.16b, #0\n movi v17.16b, #0\n movi v18.16b, #0\n movi v19.16b, #0\n" \
  "movi v20.16b, #0\n movi v21.16b, #0\n movi v22.16b, #0\n movi v23.16b, #0\n" \
  "movi v24.16b, #0\n movi v25.16b, #0\n movi v26.16b, #0\n movi v27.16b, #0\n" \
  "movi v28.16b, #0\n movi v29.16b, #0\n movi v30.16b, #0\n movi v31.16b, #0\n" \
  "12:\n"
// The accumulators from the row bias (8 values at %[bias]) or zero; the
// code after it starts at label 12.
#define MACE_ASM_ACC_FROM_BIAS \
  "cbz %[bias], 11f\n" \
  "ld1r {v8.4s}, [%[bias]], #4\n" \
  "mov v9.16b, v8.16b\n mov v10.16b, v8.16b\n" \
  "ld1r {v11.4s}, [%[bias]], #4\n" \
  "mov v12.16b, v11.16b\n mov v13.16b, v11.16b\n" \
  "ld1r {v14.4s}, [%[bias]], #4\n" \
  "mov v15.16b, v14.16b\n mov v16.16b, v14.16b\n" \
  "ld1r {v17.4s}, [%[bias]], #4\n" \
  "mov v18.16b, v17.16b\n mov v19.16b, v17.16b\n" \
  "ld1r {v20.4s}, [%[bias]], #4\n" \
  "mov v21.16b, v20.16b\n mov v22.16b, v20.16b\n" \
  "ld1r {v23.4s}, [%[bias]], #4\n" \
  "mov v24.16b, v23.16b\n mov v25.16b, v23.16b\n" \
  "ld1r {v26.4s}, [%[bias]], #4\n" \
  "mov v27.16b, v26.16b\n mov v28.16b, v26.16b\n" \
  "ld1r {v29.4s}, [%[bias]], #4\n" \
  "mov v30.16b, v29.16b\n mov v31.16b, v29.16b\n" \
  "b 12f\n" \
  MACE_ASM_ACC_ZERO
// The accumulators from a row bias already widened to the tile (row i's
// bias in the 12 floats at %[bias] + 48 i bytes, never null): six
// four-register loads, where the 8 broadcasts and 16 copies above take 24
// instructions a tile and the tests of C and a null bias 3 more. The
// accumulators of consecutive rows are consecutive registers, so a load
// may span two rows.
#define MACE_ASM_ACC_FROM_WIDE_BIAS \
  "ld1 {v8.4s, v9.4s, v10.4s, v11.4s}, [%[bias]], #64\n" \
  "ld1 {v12.4s, v13.4s, v14.4s, v15.4s}, [%[bias]], #64\n" \
  "ld1 {v16.4s, v17.4s, v18.4s, v19.4s}, [%[bias]], #64\n" \
  "ld1 {v20.4s, v21.4s, v22.4s, v23.4s}, [%[bias]], #64\n" \
  "ld1 {v24.4s, v25.4s, v26.4s, v27.4s}, [%[bias]], #64\n" \
  "ld1 {v28.4s, v29.4s, v30.4s, v31.4s}, [%[bias]], #64\n"
// The accumulators clamped below to v0, or above to v1.
#define MACE_ASM_FMAX_ALL \
  "fmax v8.4s, v8.4s, v0.4s\n fmax v9.4s, v9.4s, v0.4s\n fmax v10.4s, v10.4s, v0.4s\n" \
  "fmax v11.4s, v11.4s, v0.4s\n fmax v12.4s, v12.4s, v0.4s\n fmax v13.4s, v13.4s, v0.4s\n" \
  "fmax v14.4s, v14.4s, v0.4s\n fmax v15.4s, v15.4s, v0.4s\n fmax v16.4s, v16.4s, v0.4s\n" \
  "fmax v17.4s, v17.4s, v0.4s\n fmax v18.4s, v18.4s, v0.4s\n fmax v19.4s, v19.4s, v0.4s\n" \
  "fmax v20.4s, v20.4s, v0.4s\n fmax v21.4s, v21.4s, v0.4s\n fmax v22.4s, v22.4s, v0.4s\n" \
  "fmax v23.4s, v23.4s, v0.4s\n fmax v24.4s, v24.4s, v0.4s\n fmax v25.4s, v25.4s, v0.4s\n" \
  "fmax v26.4s, v26.4s, v0.4s\n fmax v27.4s, v27.4s, v0.4s\n fmax v28.4s, v28.4s, v0.4s\n" \
  "fmax v29.4s, v29.4s, v0.4s\n fmax v30.4s, v30.4s, v0.4s\n fmax v31.4s, v31.4s, v0.4s\n"
#define MACE_ASM_FMIN_ALL \
  "fmin v8.4s, v8.4s, v1.4s\n fmin v9.4s, v9.4s, v1.4s\n fmin v10.4s, v10.4s, v1.4s\n" \
  "fmin v11.4s, v11.4s, v1.4s\n fmin v12.4s, v12.4s, v1.4s\n fmin v13.4s, v13.4s, v1.4s\n" \
  "fmin v14.4s, v14.4s, v1.4s\n fmin v15.4s, v15.4s, v1.4s\n fmin v16.4s, v16.4s, v1.4s\n" \
  "fmin v17.4s, v17.4s, v1.4s\n fmin v18.4s, v18.4s, v1.4s\n fmin v19.4s, v19.4s, v1.4s\n" \
  "fmin v20.4s, v20.4s, v1.4s\n fmin v21.4s, v21.4s, v1.4s\n fmin v22.4s, v22.4s, v1.4s\n" \
  "fmin v23.4s, v23.4s, v1.4s\n fmin v24.4s, v24.4s, v1.4s\n fmin v25.4s, v25.4s, v1.4s\n" \
  "fmin v26.4s, v26.4s, v1.4s\n fmin v27.4s, v27.4s, v1.4s\n fmin v28.4s, v28.4s, v1.4s\n" \
  "fmin v29.4s, v29.4s, v1.4s\n fmin v30.4s, v30.4s, v1.4s\n fmin v31.4s, v31.4s, v1.4s\n"
// The 8 rows to C, ldc bytes apart, from c (through %[row]).
#define MACE_ASM_STORE_ROWS \
  "mov %[row], %[c]\n" \
  "st1 {v8.4s, v9.4s, v10.4s}, [%[row]], %[ldc]\n" \
  "st1 {v11.4s, v12.4s, v13.4s}, [%[row]], %[ldc]\n" \
  "st1 {v14.4s, v15.4s, v16.4s}, [%[row]], %[ldc]\n" \
  "st1 {v17.4s, v18.4s, v19.4s}, [%[row]], %[ldc]\n" \
  "st1 {v20.4s, v21.4s, v22.4s}, [%[row]], %[ldc]\n" \
  "st1 {v23.4s, v24.4s, v25.4s}, [%[row]], %[ldc]\n" \
  "st1 {v26.4s, v27.4s, v28.4s}, [%[row]], %[ldc]\n" \
  "st1 {v29.4s, v30.4s, v31.4s}, [%[row]], %[ldc]\n"
// Clamp to bounds[0] (and bounds[1] if clamp_hi) if clamp, then the rows
// to C.
#define MACE_ASM_CLAMP_STORE \
  "cbz %[clamp], 6f\n" \
  "ld2r {v0.4s, v1.4s}, [%[bounds]]\n" \
  MACE_ASM_FMAX_ALL \
  "cbz %[clamp_hi], 6f\n" \
  MACE_ASM_FMIN_ALL \
  "6:\n" \
  MACE_ASM_STORE_ROWS
// The same with the clamp known for a whole run (kTileClamp*), so that its
// tiles do not test it: 2 instructions a ReLU tile fewer.
// Clamp modes: tested in each tile, none, below only, both sides.
enum : int {
  kTileClampAtRun = -1,
  kTileClampNone = kClampNone,
  kTileClampLo = kClampLo,
  kTileClampLoHi = kClampLoHi
};
// The mode that runs each ChooseClamp kind in this build: a variant the
// build leaves out (linked_variants.h) is never named.
constexpr int kUnclampedMode = kLinksGemmUnclamped ? kTileClampNone : kTileClampLoHi;
constexpr int kLowerClampMode = kLinksGemmLowerClamp ? kTileClampLo : kTileClampLoHi;
#define MACE_ASM_STORE_LO \
  "ld1r {v0.4s}, [%[bounds]]\n" MACE_ASM_FMAX_ALL MACE_ASM_STORE_ROWS
#define MACE_ASM_STORE_LO_HI \
  "ld2r {v0.4s, v1.4s}, [%[bounds]]\n" MACE_ASM_FMAX_ALL MACE_ASM_FMIN_ALL MACE_ASM_STORE_ROWS

// C rows (ldc_bytes apart) = (from_c ? C : bias ? bias[i] : 0) + A x B, then
// clamped to bounds[0] (and bounds[1] if clamp_hi) if clamp. With
// kWideBias, from_c is ignored and the tile starts from bias[i], each of
// the 12 floats at bias + 12 i (not null: a row bias widened once for many
// tiles, NeonWidenRowBias).
// Inlined into its callers, so that a run of tiles (NeonGemmRun) keeps its
// arguments in registers and saves d8-d15 (which the assembly clobbers)
// once per run: as a call, each tile cost some 35 instructions of argument
// moves, call and register saves.
// If from_c, the accumulators from C and on to label 12; else on to label
// 10, which the macro using it places.
#define MACE_ASM_ACC_IF_FROM_C                                                              \
  "cbz %[from_c], 10f\n"                                                                   \
  "mov %[row], %[c]\n"                                                                     \
  "ld1 {v8.4s, v9.4s, v10.4s}, [%[row]], %[ldc]\n"                                         \
  "ld1 {v11.4s, v12.4s, v13.4s}, [%[row]], %[ldc]\n"                                       \
  "ld1 {v14.4s, v15.4s, v16.4s}, [%[row]], %[ldc]\n"                                       \
  "ld1 {v17.4s, v18.4s, v19.4s}, [%[row]], %[ldc]\n"                                       \
  "ld1 {v20.4s, v21.4s, v22.4s}, [%[row]], %[ldc]\n"                                       \
  "ld1 {v23.4s, v24.4s, v25.4s}, [%[row]], %[ldc]\n"                                       \
  "ld1 {v26.4s, v27.4s, v28.4s}, [%[row]], %[ldc]\n"                                       \
  "ld1 {v29.4s, v30.4s, v31.4s}, [%[row]], %[ldc]\n"                                       \
  "b 12f\n"
// The accumulators from C if from_c, else from the row bias or zero.
#define MACE_ASM_ACC_FROM_C_OR_BIAS MACE_ASM_ACC_IF_FROM_C "10:\n" MACE_ASM_ACC_FROM_BIAS
// The accumulators from C if from_c, else from the column bias (12 floats
// at %[bias], the same for every row, never null): one load and 21 copies,
// where staging the tile to add it after cost a store, load and add per
// accumulator and the call's saves and restores.
#define MACE_ASM_ACC_FROM_C_OR_COL_BIAS                                                     \
  MACE_ASM_ACC_IF_FROM_C                                                                   \
  "10:\n"                                                                                  \
  "ld1 {v8.4s, v9.4s, v10.4s}, [%[bias]]\n"                                                \
  "mov v11.16b, v8.16b\n mov v12.16b, v9.16b\n mov v13.16b, v10.16b\n"                    \
  "mov v14.16b, v8.16b\n mov v15.16b, v9.16b\n mov v16.16b, v10.16b\n"                    \
  "mov v17.16b, v8.16b\n mov v18.16b, v9.16b\n mov v19.16b, v10.16b\n"                    \
  "mov v20.16b, v8.16b\n mov v21.16b, v9.16b\n mov v22.16b, v10.16b\n"                    \
  "mov v23.16b, v8.16b\n mov v24.16b, v9.16b\n mov v25.16b, v10.16b\n"                    \
  "mov v26.16b, v8.16b\n mov v27.16b, v9.16b\n mov v28.16b, v10.16b\n"                    \
  "mov v29.16b, v8.16b\n mov v30.16b, v9.16b\n mov v31.16b, v10.16b\n"                    \
  "12:\n"
// AsmTile's assembly, with `init` setting the accumulators.
#define MACE_ASM_TILE(init, finish)                                                         \
  init                                                                                     \
  "cbz %[blocks], 2f\n"                                                                    \
  "1:\n"                                                                                   \
  MACE_ASM_FOUR_STEPS MACE_ASM_FOUR_STEPS MACE_ASM_FOUR_STEPS MACE_ASM_FOUR_STEPS          \
  "subs %[blocks], %[blocks], #1\n"                                                        \
  "b.ne 1b\n"                                                                              \
  "2:\n"                                                                                   \
  "tbz %[kc], #3, 9f\n"                                                                    \
  MACE_ASM_FOUR_STEPS MACE_ASM_FOUR_STEPS                                                  \
  "9:\n"                                                                                   \
  "tbz %[kc], #2, 7f\n"                                                                    \
  MACE_ASM_FOUR_STEPS                                                                      \
  "7:\n"                                                                                   \
  "cbz %[rest], 4f\n"                                                                      \
  "tbz %[kc], #1, 3f\n"                                                                    \
  MACE_ASM_TWO_STEPS                                                                       \
  "3:\n"                                                                                   \
  "tbz %[kc], #0, 4f\n"                                                                    \
  "ld1 {v0.4s, v1.4s}, [%[a]], #32\n"                                                      \
  MACE_ASM_STEP("v0", "v1")                                                                \
  "4:\n"                                                                                   \
  finish
// The same for a depth that is a multiple of 16 (kc >= 16): the loop alone,
// without the tests of the depth's remainder (4 instructions a tile).
#define MACE_ASM_TILE16(init, finish)                                                       \
  init                                                                                     \
  "1:\n"                                                                                   \
  MACE_ASM_FOUR_STEPS MACE_ASM_FOUR_STEPS MACE_ASM_FOUR_STEPS MACE_ASM_FOUR_STEPS          \
  "subs %[blocks], %[blocks], #1\n"                                                        \
  "b.ne 1b\n"                                                                              \
  finish
#define MACE_ASM_TILE_OUTPUTS                                                               \
  : [a] "+r"(a), [b] "+r"(b), [blocks] "+r"(blocks), [bias] "+r"(bias), [row] "=&r"(row)   \
  : [rest] "r"(rest), [kc] "r"(kc), [c] "r"(c), [ldc] "r"(ldc_bytes), [bounds] "r"(bounds)
#define MACE_ASM_TILE_OPERANDS                                                              \
  MACE_ASM_TILE_OUTPUTS, [from_c] "r"(int64_t{from_c}), [clamp] "r"(int64_t{clamp}),        \
    [clamp_hi] "r"(int64_t{clamp_hi})                                                       \
  MACE_ASM_TILE_CLOBBERS
#define MACE_ASM_TILE_FIXED_OPERANDS MACE_ASM_TILE_OUTPUTS MACE_ASM_TILE_CLOBBERS
#define MACE_ASM_TILE_CLOBBERS                                                              \
  : "cc", "memory", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", \
    "v12", "v13", "v14", "v15", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23",      \
    "v24", "v25", "v26", "v27", "v28", "v29", "v30", "v31"
// AsmTile with a, b and bias left where the kernel's loads leave them:
// a 8 kc floats on, b 12 kc on, a widened bias 96 on (a plain one 8 on,
// or unchanged if null or from_c). A run whose next tile's operands are
// there needs no copies or adds for them. A kClamp other than
// kTileClampAtRun fixes the clamp (widened bias only; clamp and clamp_hi
// are then ignored).
// kWhole16: kc is a multiple of 16 (and not 0), with a fixed clamp.
template <bool kWideBias, int kClamp = kTileClampAtRun, bool kWhole16 = false>
[[gnu::always_inline]] inline void AsmTileAdvancing(int64_t kc, const float*& a, const float*& b,
                                                    float* c, int64_t ldc_bytes, bool from_c,
                                                    const float*& bias, bool clamp, bool clamp_hi,
                                                    const float* bounds) {
  int64_t blocks = kc >> 4;
  int64_t rest = kc & 3;
  float* row;
  static_assert(kWideBias || kClamp == kTileClampAtRun, "a fixed clamp needs the wide bias");
  static_assert(!kWhole16 || kClamp != kTileClampAtRun, "whole blocks with a fixed clamp only");
  if constexpr (kWhole16 && kClamp == kTileClampNone) {
    __asm__ volatile(MACE_ASM_TILE16(MACE_ASM_ACC_FROM_WIDE_BIAS, MACE_ASM_STORE_ROWS)
                         MACE_ASM_TILE_FIXED_OPERANDS);
  } else if constexpr (kWhole16 && kClamp == kTileClampLo) {
    __asm__ volatile(MACE_ASM_TILE16(MACE_ASM_ACC_FROM_WIDE_BIAS, MACE_ASM_STORE_LO)
                         MACE_ASM_TILE_FIXED_OPERANDS);
  } else if constexpr (kWhole16) {
    __asm__ volatile(MACE_ASM_TILE16(MACE_ASM_ACC_FROM_WIDE_BIAS, MACE_ASM_STORE_LO_HI)
                         MACE_ASM_TILE_FIXED_OPERANDS);
  } else if constexpr (kClamp == kTileClampNone) {
    __asm__ volatile(MACE_ASM_TILE(MACE_ASM_ACC_FROM_WIDE_BIAS, MACE_ASM_STORE_ROWS)
                         MACE_ASM_TILE_FIXED_OPERANDS);
  } else if constexpr (kClamp == kTileClampLo) {
    __asm__ volatile(MACE_ASM_TILE(MACE_ASM_ACC_FROM_WIDE_BIAS, MACE_ASM_STORE_LO)
                         MACE_ASM_TILE_FIXED_OPERANDS);
  } else if constexpr (kClamp == kTileClampLoHi) {
    __asm__ volatile(MACE_ASM_TILE(MACE_ASM_ACC_FROM_WIDE_BIAS, MACE_ASM_STORE_LO_HI)
                         MACE_ASM_TILE_FIXED_OPERANDS);
  } else if constexpr (kWideBias) {
    __asm__ volatile(MACE_ASM_TILE(MACE_ASM_ACC_FROM_WIDE_BIAS, MACE_ASM_CLAMP_STORE)
                         MACE_ASM_TILE_OPERANDS);
  } else {
    __asm__ volatile(MACE_ASM_TILE(MACE_ASM_ACC_FROM_C_OR_BIAS, MACE_ASM_CLAMP_STORE)
                         MACE_ASM_TILE_OPERANDS);
  }
}
template <bool kWideBias = false, int kClamp = kTileClampAtRun>
[[gnu::always_inline]] inline void AsmTile(int64_t kc, const float* a, const float* b, float* c,
                                           int64_t ldc_bytes, bool from_c, const float* bias,
                                           bool clamp, bool clamp_hi, const float* bounds) {
  AsmTileAdvancing<kWideBias, kClamp>(kc, a, b, c, ldc_bytes, from_c, bias, clamp, clamp_hi,
                                      bounds);
}
// AsmTile with a column bias (not null) in place of the row bias: C rows =
// (from_c ? C : col_bias) + A x B, clamped as AsmTile clamps. As the row
// bias, the column bias starts the first reduction block's tile.
[[gnu::always_inline]] inline void AsmTileColBias(int64_t kc, const float* a, const float* b,
                                                  float* c, int64_t ldc_bytes, bool from_c,
                                                  const float* col_bias, bool clamp,
                                                  bool clamp_hi, const float* bounds) {
  int64_t blocks = kc >> 4;
  int64_t rest = kc & 3;
  float* row;
  const float* bias = col_bias;
  __asm__ volatile(MACE_ASM_TILE(MACE_ASM_ACC_FROM_C_OR_COL_BIAS, MACE_ASM_CLAMP_STORE)
                       MACE_ASM_TILE_OPERANDS);
}
// AsmTile from zero with no epilogue (Winograd's products), kc >= 4: the
// first step's fmul set the accumulators, where zeroing them took 24 movi
// a tile and the tests of C, bias and clamp 3 more (SqueezeNet 1.1's
// expand layers run some 17,000 tiles of 16 to 64 steps). The same sums:
// fmla onto zero rounds the product once, as fmul does.
[[gnu::always_inline]] inline void AsmTileFromZero(int64_t kc, const float* a, const float* b,
                                                   float* c, int64_t ldc_bytes) {
  kc -= 4;  // the steps after the first four
  int64_t blocks = kc >> 4;
  int64_t rest = kc & 3;
  float* row;
  __asm__ volatile(MACE_ASM_FOUR_STEPS_FIRST("fmul") MACE_ASM_TILE("", MACE_ASM_STORE_ROWS)
                   : [a] "+r"(a), [b] "+r"(b), [blocks] "+r"(blocks), [row] "=&r"(row)
                   : [rest] "r"(rest), [kc] "r"(kc), [c] "r"(c), [ldc] "r"(ldc_bytes)
                   MACE_ASM_TILE_CLOBBERS);
}
#undef MACE_ASM_ACC_FROM_C_OR_BIAS
#undef MACE_ASM_ACC_FROM_C_OR_COL_BIAS
#undef MACE_ASM_ACC_IF_FROM_C
#undef MACE_ASM_TILE
#undef MACE_ASM_TILE16
#undef MACE_ASM_TILE_OUTPUTS
#undef MACE_ASM_TILE_OPERANDS
#undef MACE_ASM_TILE_FIXED_OPERANDS
#undef MACE_ASM_TILE_CLOBBERS

// A direct convolution's tile: AsmTile's product with B's k-th row the 12
// floats at first + (steps[0] + ... + steps[k - 1]) bytes, from the row bias
// or zero, clamped and stored as AsmTile does. B's row pointer moves by the
// post-increment of the load that reads it, so two steps are one ldp of both
// steps, one four-register ld1 for both steps' A and two ld1 of B: four
// steps a loop, which shares its subs and b.ne, 26.5 instructions a step.
// With offsets from a base (an ldp of both and an add per row, as before)
// it was 27.5, and the stems of ResNet-18 (7x7, 147 taps) and SqueezeNet
// 1.1 (3x3, 27) spent 13 % and 8 % of their counts here.
// Two taps, B's row pointer moved by the step operands se and so.
#define MACE_ASM_STEPPED_PAIR(se, so)                   \
  "ld1 {v0.4s, v1.4s, v2.4s, v3.4s}, [%[a]], #64\n"     \
  "ld1 {v4.4s, v5.4s, v6.4s}, [%[pb]], %[" se "]\n"     \
  MACE_ASM_STEP_ROWS("v0", "v1")                        \
  "ld1 {v4.4s, v5.4s, v6.4s}, [%[pb]], %[" so "]\n"     \
  MACE_ASM_STEP_ROWS("v2", "v3")
#define MACE_ASM_CONV_TWO_STEPS                                                      \
  "ldp %[s0], %[s1], [%[steps]], #16\n"                                             \
  MACE_ASM_STEPPED_PAIR("s0", "s1")
#define MACE_ASM_CONV_ROWS(init)                                                            \
  init                                                                                     \
  "cbz %[quads], 2f\n"                                                                     \
  "1:\n"                                                                                   \
  MACE_ASM_CONV_TWO_STEPS MACE_ASM_CONV_TWO_STEPS                                          \
  "subs %[quads], %[quads], #1\n"                                                          \
  "b.ne 1b\n"                                                                              \
  "2:\n"                                                                                   \
  "tbz %[kc], #1, 3f\n"                                                                    \
  MACE_ASM_CONV_TWO_STEPS                                                                  \
  "3:\n"                                                                                   \
  "tbz %[kc], #0, 4f\n"                                                                    \
  "ld1 {v0.4s, v1.4s}, [%[a]]\n"                                                           \
  "ld1 {v4.4s, v5.4s, v6.4s}, [%[pb]]\n"                                                   \
  MACE_ASM_STEP_ROWS("v0", "v1")                                                           \
  "4:\n"                                                                                   \
  MACE_ASM_CLAMP_STORE
#define MACE_ASM_CONV_ROWS_OPERANDS                                                         \
  : [a] "+r"(a), [steps] "+r"(steps), [quads] "+r"(quads), [bias] "+r"(bias),               \
    [row] "=&r"(row), [pb] "+r"(pb), [s0] "=&r"(s0), [s1] "=&r"(s1)                         \
  : [kc] "r"(kc), [c] "r"(c), [ldc] "r"(ldc_bytes),                                         \
    [clamp] "r"(int64_t{clamp}), [clamp_hi] "r"(int64_t{clamp_hi}), [bounds] "r"(bounds)    \
  : "cc", "memory", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", \
    "v12", "v13", "v14", "v15", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23",      \
    "v24", "v25", "v26", "v27", "v28", "v29", "v30", "v31"
// kWideBias as in AsmTile (from the widened bias, not null).
template <bool kWideBias = false>
[[gnu::always_inline]] inline void AsmConvRows(int64_t kc, const float* a, const float* first,
                                               const int64_t* steps, float* c,
                                               int64_t ldc_bytes, const float* bias, bool clamp,
                                               bool clamp_hi, const float* bounds) {
  int64_t quads = kc >> 2;
  float* row;
  const float* pb = first;
  int64_t s0, s1;
  if constexpr (kWideBias) {
    __asm__ volatile(MACE_ASM_CONV_ROWS(MACE_ASM_ACC_FROM_WIDE_BIAS) MACE_ASM_CONV_ROWS_OPERANDS);
  } else {
    __asm__ volatile(MACE_ASM_CONV_ROWS(MACE_ASM_ACC_FROM_BIAS) MACE_ASM_CONV_ROWS_OPERANDS);
  }
}
#undef MACE_ASM_CONV_ROWS
#undef MACE_ASM_CONV_ROWS_OPERANDS
#undef MACE_ASM_CONV_TWO_STEPS

// AsmConvRows for a 3x3 kernel over 3 channels (27 taps: the stems of
// ShuffleNet v2 and the MobileNets) whose steps repeat every 9 taps, from a
// widened bias, with the clamp fixed (kTileClamp*). The 9 steps stay in
// registers and the taps are straight code: the 14 ldp of loaded steps and
// the loop cost about 30 instructions a tile. The same taps in the same
// order as AsmConvRows, so the same sums.
// The 27 taps' first 26 as 13 pairs, each pair(step after its first tap,
// step after its second): the 9 steps s0-s8 in turn.
#define MACE_ASM_STEM27_PAIRS(pair)                                                       \
  pair("s0", "s1") pair("s2", "s3") pair("s4", "s5") pair("s6", "s7") pair("s8", "s0")   \
  pair("s1", "s2") pair("s3", "s4") pair("s5", "s6") pair("s7", "s8") pair("s0", "s1")   \
  pair("s2", "s3") pair("s4", "s5") pair("s6", "s7")
#define MACE_ASM_STEM27(finish)                                                           \
  MACE_ASM_ACC_FROM_WIDE_BIAS                                                            \
  MACE_ASM_STEM27_PAIRS(MACE_ASM_STEPPED_PAIR)                                           \
  "ld1 {v0.4s, v1.4s}, [%[a]]\n"                                                         \
  "ld1 {v4.4s, v5.4s, v6.4s}, [%[pb]]\n"                                                 \
  MACE_ASM_STEP_ROWS("v0", "v1")                                                         \
  finish
#define MACE_ASM_STEM27_OPERANDS                                                            \
  : [a] "+r"(a_tile), [pb] "+r"(pb), [bias] "+r"(bias), [row] "=&r"(row)                   \
  : [c] "r"(c), [ldc] "r"(ldc_bytes), [bounds] "r"(bounds), [s0] "r"(s0), [s1] "r"(s1),     \
    [s2] "r"(s2), [s3] "r"(s3), [s4] "r"(s4), [s5] "r"(s5), [s6] "r"(s6), [s7] "r"(s7),     \
    [s8] "r"(s8)                                                                            \
  : "cc", "memory", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", \
    "v12", "v13", "v14", "v15", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23",      \
    "v24", "v25", "v26", "v27", "v28", "v29", "v30", "v31"
template <int kClamp>
void Stem27Run(const float* a, const float* first, const int64_t* steps, float* c,
               int64_t ldc_bytes, int64_t tiles, const float* wide_bias, const float* bounds) {
  const int64_t s0 = steps[0], s1 = steps[1], s2 = steps[2], s3 = steps[3], s4 = steps[4];
  const int64_t s5 = steps[5], s6 = steps[6], s7 = steps[7], s8 = steps[8];
  for (; tiles > 0; --tiles, first += kNeonGemmNr, c += kNeonGemmNr) {
    const float* a_tile = a;
    const float* pb = first;
    const float* bias = wide_bias;
    float* row;
    if constexpr (kClamp == kTileClampNone) {
      __asm__ volatile(MACE_ASM_STEM27(MACE_ASM_STORE_ROWS) MACE_ASM_STEM27_OPERANDS);
    } else if constexpr (kClamp == kTileClampLo) {
      __asm__ volatile(MACE_ASM_STEM27(MACE_ASM_STORE_LO) MACE_ASM_STEM27_OPERANDS);
    } else {
      __asm__ volatile(MACE_ASM_STEM27(MACE_ASM_STORE_LO_HI) MACE_ASM_STEM27_OPERANDS);
    }
  }
}
#undef MACE_ASM_STEPPED_PAIR
#undef MACE_ASM_STEM27
#undef MACE_ASM_STEM27_OPERANDS
#undef MACE_ASM_STORE_LO
#undef MACE_ASM_STORE_LO_HI
// clang-format on

namespace {

// The 8 x 12 staged tile into accumulators. Named loads: a loop filling the
// array became a call to memcpy.
inline void LoadTile(const float* tile, float32x4_t (&acc)[8][3]) {
#define MACE_TILE_ROW(i)                    \
  acc[i][0] = vld1q_f32(tile + 12 * (i));     \
  acc[i][1] = vld1q_f32(tile + 12 * (i) + 4); \
  acc[i][2] = vld1q_f32(tile + 12 * (i) + 8);
  MACE_TILE_ROW(0) MACE_TILE_ROW(1) MACE_TILE_ROW(2) MACE_TILE_ROW(3)
  MACE_TILE_ROW(4) MACE_TILE_ROW(5) MACE_TILE_ROW(6) MACE_TILE_ROW(7)
#undef MACE_TILE_ROW
}

// A hard-swish or both biases: the product from zero into a staging tile,
// then the C epilogue. Out of line, so that its stack frame (the tile, the
// epilogue's copy) is not set up for every plain tile.
[[gnu::noinline]] void GemmWithCEpilogue(int64_t kc, const float* a, const float* b, float* c,
                                         int64_t ldc, const TileEpilogue& tile_epilogue) {
  // A copy whose address does not escape: the stores to C (NEON stores may
  // alias anything) cannot change it, so its fields are read once.
  const TileEpilogue epilogue = tile_epilogue;
  alignas(16) float tile[8 * 12];
  AsmTile(kc, a, b, tile, 12 * sizeof(float), false, nullptr, false, false, nullptr);
  float32x4_t acc[8][3];
  LoadTile(tile, acc);
  StoreGemmTile(acc, c, ldc, epilogue);
}

}  // namespace

void NeonGemm(int64_t kc, const float* a, const float* b, float* c, int64_t ldc,
              const TileEpilogue& epilogue) {
  if (NeedsStaging(epilogue)) {
    GemmWithCEpilogue(kc, a, b, c, ldc, epilogue);
    return;
  }
  // Fields read into locals before the kernel runs, which stores to C.
  const bool accumulate = epilogue.accumulate;
  const bool clamp = epilogue.last && epilogue.activation == kTileActClamp;
  const float bounds[2] = {epilogue.lo, epilogue.hi};
  const bool clamp_hi = clamp && !(bounds[1] == std::numeric_limits<float>::infinity());
  const int64_t ldc_bytes = ldc * static_cast<int64_t>(sizeof(float));
  if (epilogue.col_bias != nullptr) {
    AsmTileColBias(kc, a, b, c, ldc_bytes, accumulate, epilogue.col_bias, clamp, clamp_hi, bounds);
    return;
  }
  AsmTile(kc, a, b, c, ldc_bytes, accumulate, accumulate ? nullptr : epilogue.row_bias, clamp,
          clamp_hi, bounds);
}

// The tiles of a run share one set-up: the epilogue's fields are read once
// and each tile is the assembly tile with its pointers moved on. Through
// the driver's tile walk each full tile cost some 60 instructions around
// AsmTile (the walk's lambda, its 64-bit min and bias arithmetic, and
// NeonGemm's set-up); MobileNet v2 runs about 41,000 tiles, most of them
// 16 to 64 steps deep.
void NeonGemmRun(int64_t tiles, int64_t kc, const float* a, int64_t a_step, const float* b,
                 int64_t b_step, float* c, int64_t c_step, int64_t ldc, int64_t row_bias_step,
                 int64_t col_bias_step, const TileEpilogue& epilogue) {
  if (NeedsStaging(epilogue)) {
    return StagedGemmRun(tiles, kc, a, a_step, b, b_step, c, c_step, ldc, row_bias_step,
                         col_bias_step, epilogue);
  }
  const bool accumulate = epilogue.accumulate;
  const bool clamp = epilogue.last && epilogue.activation == kTileActClamp;
  const float bounds[2] = {epilogue.lo, epilogue.hi};
  const bool clamp_hi = clamp && !(bounds[1] == std::numeric_limits<float>::infinity());
  const int64_t ldc_bytes = ldc * static_cast<int64_t>(sizeof(float));
  if (epilogue.col_bias != nullptr) {
    // A FullyConnected's bias: the tiles of a column step it.
    const float* col_bias = epilogue.col_bias;
    for (; tiles > 0; --tiles, a += a_step, b += b_step, c += c_step, col_bias += col_bias_step) {
      AsmTileColBias(kc, a, b, c, ldc_bytes, accumulate, col_bias, clamp, clamp_hi, bounds);
    }
    return;
  }
  const float* bias = accumulate ? nullptr : epilogue.row_bias;
  for (; tiles > 0; --tiles, a += a_step, b += b_step, c += c_step) {
    AsmTile(kc, a, b, c, ldc_bytes, accumulate, bias, clamp, clamp_hi, bounds);
    if (bias != nullptr) bias += row_bias_step;
  }
}

void NeonWidenRowBias(const float* bias, int64_t rows, float* wide) {
  // Four rows a load (ld4r broadcasts four consecutive floats to four
  // registers): the callers' rows are whole tiles, so the one-row loop
  // below is only a guard.
  int64_t i = 0;
  for (; i + 4 <= rows; i += 4, wide += 4 * kNeonGemmNr) {
    const float32x4x4_t values = vld4q_dup_f32(bias + i);
#pragma GCC unroll 4
    for (int r = 0; r < 4; ++r) {
      vst1q_f32(wide + kNeonGemmNr * r, values.val[r]);
      vst1q_f32(wide + kNeonGemmNr * r + 4, values.val[r]);
      vst1q_f32(wide + kNeonGemmNr * r + 8, values.val[r]);
    }
  }
  for (; i < rows; ++i, wide += kNeonGemmNr) {
    const float32x4_t value = vld1q_dup_f32(bias + i);
    vst1q_f32(wide, value);
    vst1q_f32(wide + 4, value);
    vst1q_f32(wide + 8, value);
  }
}

namespace {

// NeonGemmRunWideBias with its clamp mode fixed (kTileClamp*). Inlined:
// as calls, the runs' set-up cost more than the tiles' tests it spared.
template <int kClamp, bool kWhole16>
[[gnu::always_inline]] inline void WideBiasRun(int64_t tiles, int64_t kc, const float* a, int64_t a_step, const float* b,
                 int64_t b_step, float* c, int64_t c_step, int64_t ldc, const float* wide_bias,
                 int64_t wide_bias_step, const float* bounds) {
  const int64_t ldc_bytes = ldc * static_cast<int64_t>(sizeof(float));
  constexpr int64_t kWideTile = kNeonGemmMr * kNeonGemmNr;
  if (a_step == kNeonGemmMr * kc && b_step == 0 && wide_bias_step == kWideTile) {
    // Down a column panel (consecutive A panels and biases): the kernel
    // leaves A and the bias at the next tile's, 5 instructions a tile
    // fewer than setting them.
    for (; tiles > 0; --tiles, c += c_step) {
      const float* b_tile = b;
      AsmTileAdvancing<true, kClamp, kWhole16>(kc, a, b_tile, c, ldc_bytes, false, wide_bias,
                                               false, false, bounds);
    }
    return;
  }
  if (a_step == 0 && b_step == kNeonGemmNr * kc && wide_bias_step == 0) {
    // Along a row panel: the same for B.
    for (; tiles > 0; --tiles, c += c_step) {
      const float* a_tile = a;
      const float* bias_tile = wide_bias;
      AsmTileAdvancing<true, kClamp, kWhole16>(kc, a_tile, b, c, ldc_bytes, false, bias_tile,
                                               false, false, bounds);
    }
    return;
  }
  for (; tiles > 0; --tiles, a += a_step, b += b_step, c += c_step, wide_bias += wide_bias_step) {
    const float* a_tile = a;
    const float* b_tile = b;
    const float* bias_tile = wide_bias;
    AsmTileAdvancing<true, kClamp, kWhole16>(kc, a_tile, b_tile, c, ldc_bytes, false, bias_tile,
                                             false, false, bounds);
  }
}

// Calls run(clamp, whole16, bounds) with the epilogue's clamp mode
// (kTileClamp*) and whether kc is a multiple of 16 as
// std::integral_constants, and its bounds {lo, hi}.
template <typename Run>
[[gnu::always_inline]] inline void WithWideClamp(const TileEpilogue& epilogue, int64_t kc,
                                                 Run&& run) {
  const ClampChoice choice =
      ChooseClamp(epilogue.last && epilogue.activation == kTileActClamp, epilogue.lo, epilogue.hi,
                  kLinksGemmUnclamped, kLinksGemmLowerClamp);
  const float* bounds = choice.bounds;
  const auto by_depth = [&](auto mode) {
    if (kc >= 16 && kc % 16 == 0) {
      run(mode, std::true_type(), bounds);
    } else {
      run(mode, std::false_type(), bounds);
    }
  };
  if (choice.kind == kClampNone) {
    by_depth(std::integral_constant<int, kUnclampedMode>());
  } else if (choice.kind == kClampLo) {
    by_depth(std::integral_constant<int, kLowerClampMode>());
  } else {
    by_depth(std::integral_constant<int, kTileClampLoHi>());
  }
}

}  // namespace

void NeonGemmRunWideBias(int64_t tiles, int64_t kc, const float* a, int64_t a_step,
                         const float* b, int64_t b_step, float* c, int64_t c_step, int64_t ldc,
                         const float* wide_bias, int64_t wide_bias_step,
                         const TileEpilogue& epilogue) {
  WithWideClamp(epilogue, kc, [&](auto clamp, auto whole16, const float* bounds) {
    WideBiasRun<decltype(clamp)::value, decltype(whole16)::value>(
        tiles, kc, a, a_step, b, b_step, c, c_step, ldc, wide_bias, wide_bias_step, bounds);
  });
}

// The driver's per-panel work (its walk's tests, the run's call and set-up)
// came to some 100 instructions a column panel, against two to twelve
// tiles down it: MobileNet v2's 1x1 layers walk some 3,700 column panels
// an inference, 2,090 of them on the 112x112 maps, where the 16-channel
// projection runs two tiles a panel.
void NeonGemmRunWideBiasPanels(int64_t panels, int64_t b_panel_step, int64_t c_panel_step,
                               int64_t tiles, int64_t kc, const float* a, int64_t a_step,
                               const float* b, float* c, int64_t c_step, int64_t ldc,
                               const float* wide_bias, const TileEpilogue& epilogue) {
  WithWideClamp(epilogue, kc, [&](auto clamp, auto whole16, const float* bounds) {
    for (; panels > 0; --panels, b += b_panel_step, c += c_panel_step) {
      WideBiasRun<decltype(clamp)::value, decltype(whole16)::value>(
          tiles, kc, a, a_step, b, 0, c, c_step, ldc, wide_bias, kNeonGemmMr * kNeonGemmNr,
          bounds);
    }
  });
}

namespace {

// Asks for the 8 x kc floats (32 kc bytes) of an A panel to be brought into
// L1, eight 64-byte lines a loop: 11 instructions for the eight. It may ask
// for up to 7 lines past the panel (prefetches do not fault).
[[gnu::always_inline]] inline void PrefetchAPanel(const float* panel, int64_t kc) {
  int64_t loops = (32 * kc + 511) >> 9;
  if (loops <= 0) return;
  __asm__ volatile(
      "1:\n"
      "prfm pldl1keep, [%[line]]\n"
      "prfm pldl1keep, [%[line], #64]\n"
      "prfm pldl1keep, [%[line], #128]\n"
      "prfm pldl1keep, [%[line], #192]\n"
      "prfm pldl1keep, [%[line], #256]\n"
      "prfm pldl1keep, [%[line], #320]\n"
      "prfm pldl1keep, [%[line], #384]\n"
      "prfm pldl1keep, [%[line], #448]\n"
      "add %[line], %[line], #512\n"
      "subs %[loops], %[loops], #1\n"
      "b.ne 1b\n"
      : [line] "+r"(panel), [loops] "+r"(loops)
      :
      : "cc");
}

}  // namespace

// The driver's first walk over packed weights deeper than a block
// (MobileNet v2's three 960-deep 1x1 layers: 160 tiles an inference, 128
// of them prefetching). Each of its tiles went through the driver's tile
// lambda and NeonGemm, about 50 instructions a tile more than here, and
// the driver's prefetch loop (PrefetchPanel, plain C++) had left no prfm
// in the arm64 build; here the prefetch is assembly, which stays: 30
// loops of 11 instructions a 480-deep panel.
void NeonGemmRunPrefetchingA(int64_t tiles, int64_t prefetch_tiles, int64_t kc, const float* a,
                             int64_t a_step, const float* b, float* c, int64_t c_step,
                             int64_t ldc, const float* wide_bias, const TileEpilogue& epilogue) {
  const bool accumulate = epilogue.accumulate;
  const bool clamp = epilogue.last && epilogue.activation == kTileActClamp;
  const float bounds[2] = {epilogue.lo, epilogue.hi};
  const bool clamp_hi = clamp && !(bounds[1] == std::numeric_limits<float>::infinity());
  const int64_t ldc_bytes = ldc * static_cast<int64_t>(sizeof(float));
  if (wide_bias != nullptr) {
    // The widened bias steps a tile's 96 floats, as the kernel leaves it.
    for (int64_t t = 0; t < tiles; ++t, a += a_step, c += c_step) {
      if (t < prefetch_tiles) PrefetchAPanel(a + 2 * a_step, kc);
      const float* a_tile = a;
      const float* b_tile = b;
      AsmTileAdvancing<true>(kc, a_tile, b_tile, c, ldc_bytes, false, wide_bias, clamp, clamp_hi,
                             bounds);
    }
    return;
  }
  const float* bias = accumulate ? nullptr : epilogue.row_bias;
  for (int64_t t = 0; t < tiles; ++t, a += a_step, c += c_step) {
    if (t < prefetch_tiles) PrefetchAPanel(a + 2 * a_step, kc);
    AsmTile(kc, a, b, c, ldc_bytes, accumulate, bias, clamp, clamp_hi, bounds);
    if (bias != nullptr) bias += kNeonGemmMr;
  }
}

namespace {

// The tile's first rows and cols of a staged kRows x 4 * kVecs product (row
// i at tile + i * 4 * kVecs) finished as the epilogue says and stored to C:
// whole rows of vectors straight from the registers, a row ending inside a
// vector through a staging row (NEON has no masked store).
template <int kVecs>
void FinishPartialTile(const float* tile, float* c, int64_t ldc, int rows, int cols,
                       const TileEpilogue& epilogue) {
  constexpr int kCols = 4 * kVecs;
  alignas(16) float col_bias[kCols] = {};
  if (epilogue.last && epilogue.col_bias != nullptr) {
    for (int j = 0; j < cols; ++j) col_bias[j] = epilogue.col_bias[j];
  }
  const float32x4_t zero = vdupq_n_f32(0.f);
  WithEpilogueConstants(epilogue, [&](auto accumulate, auto last, auto activation) {
    for (int i = 0; i < rows; ++i) {
      float* row = c + i * ldc;
      alignas(16) float staged[kCols];
      float* out = cols == kCols ? row : staged;
      if (decltype(accumulate)::value && out == staged) {
        for (int j = 0; j < cols; ++j) staged[j] = row[j];
      }
      const float32x4_t rb =
          epilogue.last && epilogue.row_bias != nullptr ? vdupq_n_f32(epilogue.row_bias[i]) : zero;
#pragma GCC unroll 3
      for (int j = 0; j < kVecs; ++j) {
        vst1q_f32(out + 4 * j,
                  (FinishAs<decltype(accumulate)::value, decltype(last)::value,
                            decltype(activation)::value>(vld1q_f32(tile + i * kCols + 4 * j),
                                                         out + 4 * j, rb,
                                                         vld1q_f32(col_bias + 4 * j), epilogue)));
      }
      if (out == staged) {
        for (int j = 0; j < cols; ++j) row[j] = staged[j];
      }
    }
  });
}

// clang-format off
// The product of a tile 4 (kVecs 1) or 8 (kVecs 2) columns wide, from zero,
// stored to tile as 8 rows of 4 * kVecs floats. B's panel is still 12 wide,
// so its first kVecs vectors come in one ld1 a step, 48 bytes on; A comes
// four registers (two steps) a load, as in AsmTile. Row i accumulates in
// v(8 + kVecs i) onwards.
#define MACE_ASM_NARROW1_OP(op, b, lo, hi) \
  MACE_ASM_COL_OP(op, "v8", "v9", "v10", "v11", "v12", "v13", "v14", "v15", b, lo, hi)
#define MACE_ASM_NARROW1(b, lo, hi) MACE_ASM_NARROW1_OP("fmla", b, lo, hi)
#define MACE_ASM_NARROW2(b0, b1, lo, hi)                                               \
  MACE_ASM_COL("v8", "v10", "v12", "v14", "v16", "v18", "v20", "v22", b0, lo, hi)      \
  MACE_ASM_COL("v9", "v11", "v13", "v15", "v17", "v19", "v21", "v23", b1, lo, hi)
#define MACE_ASM_NARROW_TWO_STEPS(kVecs)                                               \
  "ld1 {v0.4s, v1.4s, v2.4s, v3.4s}, [%[a]], #64\n"                                    \
  MACE_ASM_NARROW_PAIR##kVecs
// Two steps' B. Four columns: one four-register ld1 reads a whole panel row
// and the next one's first vector (v4 and v7), both steps' B in one load
// (1.125 instructions per fmla in the loop, 1.25 with a load a step).
// Eight: two loads of two registers.
#define MACE_ASM_NARROW_PAIR1                                                          \
  "ld1 {v4.4s, v5.4s, v6.4s, v7.4s}, [%[b]], %[b_step2]\n"                             \
  MACE_ASM_NARROW1("v4", "v0", "v1") MACE_ASM_NARROW1("v7", "v2", "v3")
#define MACE_ASM_NARROW_PAIR2                                                          \
  MACE_ASM_NARROW_B2("v4", "v5") MACE_ASM_NARROW_B2("v6", "v7")                        \
  MACE_ASM_NARROW2("v4", "v5", "v0", "v1") MACE_ASM_NARROW2("v6", "v7", "v2", "v3")
#define MACE_ASM_NARROW_B1(r0, r1) "ld1 {" r0 ".4s}, [%[b]], %[b_step]\n"
#define MACE_ASM_NARROW_B2(r0, r1) "ld1 {" r0 ".4s, " r1 ".4s}, [%[b]], %[b_step]\n"
#define MACE_ASM_NARROW_ROWS1(b0, b1, lo, hi) MACE_ASM_NARROW1(b0, lo, hi)
#define MACE_ASM_NARROW_ROWS2(b0, b1, lo, hi) MACE_ASM_NARROW2(b0, b1, lo, hi)
#define MACE_ASM_NARROW_FOUR_STEPS(kVecs)                                              \
  MACE_ASM_NARROW_TWO_STEPS(kVecs) MACE_ASM_NARROW_TWO_STEPS(kVecs)
// Sixteen steps a loop (four columns: 1.14 instructions per fmla, 1.19 with
// four a loop), then the last 8, 4, 2 and 1 steps of the block as straight
// code, by the bits of kc.
#define MACE_ASM_NARROW_LOOP(kVecs)                                                    \
  "cbz %[blocks], 2f\n"                                                                \
  "1:\n"                                                                               \
  MACE_ASM_NARROW_FOUR_STEPS(kVecs) MACE_ASM_NARROW_FOUR_STEPS(kVecs)                  \
  MACE_ASM_NARROW_FOUR_STEPS(kVecs) MACE_ASM_NARROW_FOUR_STEPS(kVecs)                  \
  "subs %[blocks], %[blocks], #1\n"                                                    \
  "b.ne 1b\n"                                                                          \
  "2:\n"                                                                               \
  "tbz %[kc], #3, 3f\n"                                                                \
  MACE_ASM_NARROW_FOUR_STEPS(kVecs) MACE_ASM_NARROW_FOUR_STEPS(kVecs)                  \
  "3:\n"                                                                               \
  "tbz %[kc], #2, 5f\n"                                                                \
  MACE_ASM_NARROW_FOUR_STEPS(kVecs)                                                    \
  "5:\n"                                                                               \
  "tbz %[kc], #1, 7f\n"                                                                \
  MACE_ASM_NARROW_TWO_STEPS(kVecs)                                                     \
  "7:\n"                                                                               \
  "tbz %[kc], #0, 4f\n"                                                                \
  "ld1 {v0.4s, v1.4s}, [%[a]], #32\n"                                                  \
  MACE_ASM_NARROW_B##kVecs("v4", "v5")                                                 \
  MACE_ASM_NARROW_ROWS##kVecs("v4", "v5", "v0", "v1")                                  \
  "4:\n"
#define MACE_ASM_NARROW_OPERANDS                                                       \
  : [a] "+r"(a), [b] "+r"(b), [blocks] "+r"(blocks), [tile] "+r"(tile)                 \
  : [kc] "r"(kc), [b_step] "r"(b_step), [b_step2] "r"(2 * b_step)                     \
  : "cc", "memory", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10",  \
    "v11", "v12", "v13", "v14", "v15", "v16", "v17", "v18", "v19", "v20", "v21", "v22", \
    "v23"

#define MACE_ASM_NARROW_TO_C_OPERANDS                                                   \
  : [a] "+r"(a), [b] "+r"(b), [blocks] "+r"(blocks), [row] "=&r"(row), [bias] "+r"(bias) \
  : [kc] "r"(kc), [b_step] "r"(b_step), [b_step2] "r"(2 * b_step), [c] "r"(c),           \
    [ldc] "r"(ldc_bytes), [from_c] "r"(int64_t{from_c}), [clamp] "r"(int64_t{clamp}),    \
    [clamp_hi] "r"(int64_t{clamp_hi}), [bounds] "r"(bounds)                             \
  : "cc", "memory", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10",  \
    "v11", "v12", "v13", "v14", "v15", "v16", "v17", "v18", "v19", "v20", "v21", "v22", \
    "v23"

template <int kVecs>
void AsmNarrowTile(int64_t kc, const float* a, const float* b, float* tile) {
  static_assert(kVecs == 1 || kVecs == 2, "4 or 8 columns");
  int64_t blocks = kc >> 4;
  const int64_t b_step = kNeonGemmNr * sizeof(float);
  if constexpr (kVecs == 1) {
    __asm__ volatile(
        "movi v8.16b, #0\n movi v9.16b, #0\n movi v10.16b, #0\n movi v11.16b, #0\n"
        "movi v12.16b, #0\n movi v13.16b, #0\n movi v14.16b, #0\n movi v15.16b, #0\n"
        MACE_ASM_NARROW_LOOP(1)
        "st1 {v8.4s, v9.4s, v10.4s, v11.4s}, [%[tile]], #64\n"
        "st1 {v12.4s, v13.4s, v14.4s, v15.4s}, [%[tile]]\n"
        MACE_ASM_NARROW_OPERANDS);
  } else {
    __asm__ volatile(
        "movi v8.16b, #0\n movi v9.16b, #0\n movi v10.16b, #0\n movi v11.16b, #0\n"
        "movi v12.16b, #0\n movi v13.16b, #0\n movi v14.16b, #0\n movi v15.16b, #0\n"
        "movi v16.16b, #0\n movi v17.16b, #0\n movi v18.16b, #0\n movi v19.16b, #0\n"
        "movi v20.16b, #0\n movi v21.16b, #0\n movi v22.16b, #0\n movi v23.16b, #0\n"
        MACE_ASM_NARROW_LOOP(2)
        "st1 {v8.4s, v9.4s, v10.4s, v11.4s}, [%[tile]], #64\n"
        "st1 {v12.4s, v13.4s, v14.4s, v15.4s}, [%[tile]], #64\n"
        "st1 {v16.4s, v17.4s, v18.4s, v19.4s}, [%[tile]], #64\n"
        "st1 {v20.4s, v21.4s, v22.4s, v23.4s}, [%[tile]]\n"
        MACE_ASM_NARROW_OPERANDS);
  }
}

// The same product straight into C's 8 rows (ldc bytes apart), exactly
// 4 * kVecs columns wide, as AsmTile finishes a tile: from C (from_c), the
// row bias (8 values at bias) or zero, then clamped to bounds[0] (and
// bounds[1] if clamp_hi) if clamp. Winograd's products (no epilogue), and a
// GEMM's last 4 or 8 columns of a plain convolution: MobileNets' maps of
// 14x14 to 112x112 end 4 columns past a whole tile, which went through a
// staging tile and FinishPartialTile (about 60 instructions a tile).
// The narrow tiles' accumulators from the row bias (8 values at %[bias]) or
// zero; the code after it starts at label 11.
#define MACE_ASM_NARROW_FROM_BIAS1                                             \
  "cbz %[bias], 12f\n"                                                          \
  "ld1r {v8.4s}, [%[bias]], #4\n ld1r {v9.4s}, [%[bias]], #4\n"                 \
  "ld1r {v10.4s}, [%[bias]], #4\n ld1r {v11.4s}, [%[bias]], #4\n"               \
  "ld1r {v12.4s}, [%[bias]], #4\n ld1r {v13.4s}, [%[bias]], #4\n"               \
  "ld1r {v14.4s}, [%[bias]], #4\n ld1r {v15.4s}, [%[bias]]\n"                   \
  "b 11f\n"                                                                     \
  "12:\n"                                                                       \
  "movi v8.16b, #0\n movi v9.16b, #0\n movi v10.16b, #0\n movi v11.16b, #0\n"   \
  "movi v12.16b, #0\n movi v13.16b, #0\n movi v14.16b, #0\n movi v15.16b, #0\n" \
  "11:\n"
#define MACE_ASM_NARROW_FROM_BIAS2                                             \
  "cbz %[bias], 12f\n"                                                          \
  "ld1r {v8.4s}, [%[bias]], #4\n mov v9.16b, v8.16b\n"                          \
  "ld1r {v10.4s}, [%[bias]], #4\n mov v11.16b, v10.16b\n"                       \
  "ld1r {v12.4s}, [%[bias]], #4\n mov v13.16b, v12.16b\n"                       \
  "ld1r {v14.4s}, [%[bias]], #4\n mov v15.16b, v14.16b\n"                       \
  "ld1r {v16.4s}, [%[bias]], #4\n mov v17.16b, v16.16b\n"                       \
  "ld1r {v18.4s}, [%[bias]], #4\n mov v19.16b, v18.16b\n"                       \
  "ld1r {v20.4s}, [%[bias]], #4\n mov v21.16b, v20.16b\n"                       \
  "ld1r {v22.4s}, [%[bias]]\n mov v23.16b, v22.16b\n"                           \
  "b 11f\n"                                                                     \
  "12:\n"                                                                       \
  "movi v8.16b, #0\n movi v9.16b, #0\n movi v10.16b, #0\n movi v11.16b, #0\n"   \
  "movi v12.16b, #0\n movi v13.16b, #0\n movi v14.16b, #0\n movi v15.16b, #0\n" \
  "movi v16.16b, #0\n movi v17.16b, #0\n movi v18.16b, #0\n movi v19.16b, #0\n" \
  "movi v20.16b, #0\n movi v21.16b, #0\n movi v22.16b, #0\n movi v23.16b, #0\n" \
  "11:\n"
// The narrow tiles' 8 rows to C, ldc bytes apart, from c (through %[row]).
#define MACE_ASM_NARROW_STORE1                                       \
  "mov %[row], %[c]\n"                                                \
  "st1 {v8.4s}, [%[row]], %[ldc]\n st1 {v9.4s}, [%[row]], %[ldc]\n"   \
  "st1 {v10.4s}, [%[row]], %[ldc]\n st1 {v11.4s}, [%[row]], %[ldc]\n" \
  "st1 {v12.4s}, [%[row]], %[ldc]\n st1 {v13.4s}, [%[row]], %[ldc]\n" \
  "st1 {v14.4s}, [%[row]], %[ldc]\n st1 {v15.4s}, [%[row]]\n"
#define MACE_ASM_NARROW_STORE2                                                       \
  "mov %[row], %[c]\n"                                                                \
  "st1 {v8.4s, v9.4s}, [%[row]], %[ldc]\n st1 {v10.4s, v11.4s}, [%[row]], %[ldc]\n"   \
  "st1 {v12.4s, v13.4s}, [%[row]], %[ldc]\n st1 {v14.4s, v15.4s}, [%[row]], %[ldc]\n" \
  "st1 {v16.4s, v17.4s}, [%[row]], %[ldc]\n st1 {v18.4s, v19.4s}, [%[row]], %[ldc]\n" \
  "st1 {v20.4s, v21.4s}, [%[row]], %[ldc]\n st1 {v22.4s, v23.4s}, [%[row]]\n"
#define MACE_ASM_NARROW_CLAMP1(op, bound)                                                  \
  op " v8.4s, v8.4s, " bound ".4s\n " op " v9.4s, v9.4s, " bound ".4s\n"                 \
  op " v10.4s, v10.4s, " bound ".4s\n " op " v11.4s, v11.4s, " bound ".4s\n"             \
  op " v12.4s, v12.4s, " bound ".4s\n " op " v13.4s, v13.4s, " bound ".4s\n"             \
  op " v14.4s, v14.4s, " bound ".4s\n " op " v15.4s, v15.4s, " bound ".4s\n"
#define MACE_ASM_NARROW_CLAMP2(op, bound)                                                  \
  MACE_ASM_NARROW_CLAMP1(op, bound)                                                        \
  op " v16.4s, v16.4s, " bound ".4s\n " op " v17.4s, v17.4s, " bound ".4s\n"             \
  op " v18.4s, v18.4s, " bound ".4s\n " op " v19.4s, v19.4s, " bound ".4s\n"             \
  op " v20.4s, v20.4s, " bound ".4s\n " op " v21.4s, v21.4s, " bound ".4s\n"             \
  op " v22.4s, v22.4s, " bound ".4s\n " op " v23.4s, v23.4s, " bound ".4s\n"
#define MACE_ASM_NARROW_CLAMP(kVecs)                                                       \
  "cbz %[clamp], 13f\n"                                                                    \
  "ld2r {v0.4s, v1.4s}, [%[bounds]]\n"                                                     \
  MACE_ASM_NARROW_CLAMP##kVecs("fmax", "v0")                                               \
  "cbz %[clamp_hi], 13f\n"                                                                 \
  MACE_ASM_NARROW_CLAMP##kVecs("fmin", "v1")                                               \
  "13:\n"
template <int kVecs>
void AsmNarrowTileToC(int64_t kc, const float* a, const float* b, float* c, int64_t ldc_bytes,
                      bool from_c, const float* bias, bool clamp, bool clamp_hi,
                      const float* bounds) {
  static_assert(kVecs == 1 || kVecs == 2, "4 or 8 columns");
  int64_t blocks = kc >> 4;
  const int64_t b_step = kNeonGemmNr * sizeof(float);
  float* row;
  if constexpr (kVecs == 1) {
    __asm__ volatile(
        "cbz %[from_c], 10f\n"
        "mov %[row], %[c]\n"
        "ld1 {v8.4s}, [%[row]], %[ldc]\n ld1 {v9.4s}, [%[row]], %[ldc]\n"
        "ld1 {v10.4s}, [%[row]], %[ldc]\n ld1 {v11.4s}, [%[row]], %[ldc]\n"
        "ld1 {v12.4s}, [%[row]], %[ldc]\n ld1 {v13.4s}, [%[row]], %[ldc]\n"
        "ld1 {v14.4s}, [%[row]], %[ldc]\n ld1 {v15.4s}, [%[row]]\n"
        "b 11f\n"
        "10:\n"
        MACE_ASM_NARROW_FROM_BIAS1
        MACE_ASM_NARROW_LOOP(1)
        MACE_ASM_NARROW_CLAMP(1)
        MACE_ASM_NARROW_STORE1
        MACE_ASM_NARROW_TO_C_OPERANDS);
  } else {
    __asm__ volatile(
        "cbz %[from_c], 10f\n"
        "mov %[row], %[c]\n"
        "ld1 {v8.4s, v9.4s}, [%[row]], %[ldc]\n ld1 {v10.4s, v11.4s}, [%[row]], %[ldc]\n"
        "ld1 {v12.4s, v13.4s}, [%[row]], %[ldc]\n ld1 {v14.4s, v15.4s}, [%[row]], %[ldc]\n"
        "ld1 {v16.4s, v17.4s}, [%[row]], %[ldc]\n ld1 {v18.4s, v19.4s}, [%[row]], %[ldc]\n"
        "ld1 {v20.4s, v21.4s}, [%[row]], %[ldc]\n ld1 {v22.4s, v23.4s}, [%[row]]\n"
        "b 11f\n"
        "10:\n"
        MACE_ASM_NARROW_FROM_BIAS2
        MACE_ASM_NARROW_LOOP(2)
        MACE_ASM_NARROW_CLAMP(2)
        MACE_ASM_NARROW_STORE2
        MACE_ASM_NARROW_TO_C_OPERANDS);
  }
}

// The product of a tile 1 to 3 (kCols) columns wide, from zero, stored to
// `columns` column by column (8 floats each). The roles turn: a vector holds
// four rows of one column, times a lane of B, so a step is 2 fmla per
// column where the 8 x 4 tile spends 8 on one useful column. A step's A is
// two vectors and its B the first lanes of a 12-lane panel row; one
// four-register ld1 reads that row and the next one's first vector (v4 and
// v7). Eight steps a loop: 26 instructions for one column, 74 with the
// 8 x 4 tile. The last column tile of a 7x7 map (49 = 4 x 12 + 1 columns:
// MobileNets' last 1x1 layers, ResNet-18's stride-2 layers into 7x7).
#define MACE_ASM_COLUMN_FMLA(lo, hi, b, lane, a_lo, a_hi)                                  \
  "fmla " lo ".4s, " a_lo ".4s, " b ".s[" #lane "]\n"                                      \
  "fmla " hi ".4s, " a_hi ".4s, " b ".s[" #lane "]\n"
#define MACE_ASM_COLUMNS1(b, a_lo, a_hi) MACE_ASM_COLUMN_FMLA("v8", "v9", b, 0, a_lo, a_hi)
#define MACE_ASM_COLUMNS2(b, a_lo, a_hi)                                                   \
  MACE_ASM_COLUMNS1(b, a_lo, a_hi) MACE_ASM_COLUMN_FMLA("v10", "v11", b, 1, a_lo, a_hi)
#define MACE_ASM_COLUMNS3(b, a_lo, a_hi)                                                   \
  MACE_ASM_COLUMNS2(b, a_lo, a_hi) MACE_ASM_COLUMN_FMLA("v12", "v13", b, 2, a_lo, a_hi)
#define MACE_ASM_COLUMN_PAIR(n)                                                            \
  "ld1 {v0.4s, v1.4s, v2.4s, v3.4s}, [%[a]], #64\n"                                        \
  "ld1 {v4.4s, v5.4s, v6.4s, v7.4s}, [%[b]], %[b_step2]\n"                                 \
  MACE_ASM_COLUMNS##n("v4", "v0", "v1") MACE_ASM_COLUMNS##n("v7", "v2", "v3")
#define MACE_ASM_COLUMN_ZERO1 "movi v8.16b, #0\n movi v9.16b, #0\n"
#define MACE_ASM_COLUMN_ZERO2 MACE_ASM_COLUMN_ZERO1 "movi v10.16b, #0\n movi v11.16b, #0\n"
#define MACE_ASM_COLUMN_ZERO3 MACE_ASM_COLUMN_ZERO2 "movi v12.16b, #0\n movi v13.16b, #0\n"
#define MACE_ASM_COLUMN_STORE1 "st1 {v8.4s, v9.4s}, [%[out]]\n"
#define MACE_ASM_COLUMN_STORE2 "st1 {v8.4s, v9.4s, v10.4s, v11.4s}, [%[out]]\n"
#define MACE_ASM_COLUMN_STORE3                                                             \
  "st1 {v8.4s, v9.4s, v10.4s, v11.4s}, [%[out]], #64\n"                                    \
  "st1 {v12.4s, v13.4s}, [%[out]]\n"
#define MACE_ASM_COLUMN_TILE(n)                                                            \
  MACE_ASM_COLUMN_ZERO##n                                                                  \
  "cbz %[octs], 2f\n"                                                                      \
  "1:\n"                                                                                   \
  MACE_ASM_COLUMN_PAIR(n) MACE_ASM_COLUMN_PAIR(n)                                          \
  MACE_ASM_COLUMN_PAIR(n) MACE_ASM_COLUMN_PAIR(n)                                          \
  "subs %[octs], %[octs], #1\n"                                                            \
  "b.ne 1b\n"                                                                              \
  "2:\n"                                                                                   \
  "tbz %[kc], #2, 3f\n"                                                                    \
  MACE_ASM_COLUMN_PAIR(n) MACE_ASM_COLUMN_PAIR(n)                                          \
  "3:\n"                                                                                   \
  "tbz %[kc], #1, 5f\n"                                                                    \
  MACE_ASM_COLUMN_PAIR(n)                                                                  \
  "5:\n"                                                                                   \
  "tbz %[kc], #0, 4f\n"                                                                    \
  "ld1 {v0.4s, v1.4s}, [%[a]]\n"                                                           \
  "ld1 {v4.4s}, [%[b]]\n"                                                                  \
  MACE_ASM_COLUMNS##n("v4", "v0", "v1")                                                    \
  "4:\n"                                                                                   \
  MACE_ASM_COLUMN_STORE##n
#define MACE_ASM_COLUMN_OPERANDS                                                           \
  : [a] "+r"(a), [b] "+r"(b), [octs] "+r"(octs), [out] "+r"(columns)                      \
  : [kc] "r"(kc), [b_step2] "r"(b_step2)                                                   \
  : "cc", "memory", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10",     \
    "v11", "v12", "v13"
template <int kCols>
void AsmColumnTile(int64_t kc, const float* a, const float* b, float* columns) {
  static_assert(kCols >= 1 && kCols <= 3, "1 to 3 columns");
  int64_t octs = kc >> 3;
  const int64_t b_step2 = 2 * kNeonGemmNr * sizeof(float);
  if constexpr (kCols == 1) {
    __asm__ volatile(MACE_ASM_COLUMN_TILE(1) MACE_ASM_COLUMN_OPERANDS);
  } else if constexpr (kCols == 2) {
    __asm__ volatile(MACE_ASM_COLUMN_TILE(2) MACE_ASM_COLUMN_OPERANDS);
  } else {
    __asm__ volatile(MACE_ASM_COLUMN_TILE(3) MACE_ASM_COLUMN_OPERANDS);
  }
}
#undef MACE_ASM_COLUMN_FMLA
#undef MACE_ASM_COLUMNS1
#undef MACE_ASM_COLUMNS2
#undef MACE_ASM_COLUMNS3
#undef MACE_ASM_COLUMN_PAIR
#undef MACE_ASM_COLUMN_ZERO1
#undef MACE_ASM_COLUMN_ZERO2
#undef MACE_ASM_COLUMN_ZERO3
#undef MACE_ASM_COLUMN_STORE1
#undef MACE_ASM_COLUMN_STORE2
#undef MACE_ASM_COLUMN_STORE3
#undef MACE_ASM_COLUMN_TILE
#undef MACE_ASM_COLUMN_OPERANDS

// A direct convolution's edge tile 4 (kVecs 1) or 8 (kVecs 2) columns wide:
// AsmConvRows' product (B's rows walked by steps from first) on the narrow
// tile's registers, from the row bias (8 values) or zero, clamped and
// stored to 8 rows ldc bytes apart. A stem's output rows of 112 end 4
// columns past a whole tile, which ran the whole 8 x 12 tile (26.5
// instructions a step against 10.5 here) into a staging tile.
#define MACE_ASM_CONV_NARROW_TWO_STEPS(kVecs)                                              \
  "ldp %[s0], %[s1], [%[steps]], #16\n"                                                   \
  "ld1 {v0.4s, v1.4s, v2.4s, v3.4s}, [%[a]], #64\n"                                       \
  MACE_ASM_CONV_NARROW_B##kVecs(", %[s0]", "v4", "v5")                                    \
  MACE_ASM_CONV_NARROW_B##kVecs(", %[s1]", "v6", "v7")                                    \
  MACE_ASM_NARROW_ROWS##kVecs("v4", "v5", "v0", "v1")                                      \
  MACE_ASM_NARROW_ROWS##kVecs("v6", "v7", "v2", "v3")
// One B row (post, if not empty, moves the pointer on by a step).
#define MACE_ASM_CONV_NARROW_B1(post, r0, r1) "ld1 {" r0 ".4s}, [%[pb]]" post "\n"
#define MACE_ASM_CONV_NARROW_B2(post, r0, r1) "ld1 {" r0 ".4s, " r1 ".4s}, [%[pb]]" post "\n"
#define MACE_ASM_CONV_NARROW(kVecs)                                                        \
  "cbz %[quads], 2f\n"                                                                     \
  "1:\n"                                                                                   \
  MACE_ASM_CONV_NARROW_TWO_STEPS(kVecs) MACE_ASM_CONV_NARROW_TWO_STEPS(kVecs)              \
  "subs %[quads], %[quads], #1\n"                                                          \
  "b.ne 1b\n"                                                                              \
  "2:\n"                                                                                   \
  "tbz %[kc], #1, 3f\n"                                                                    \
  MACE_ASM_CONV_NARROW_TWO_STEPS(kVecs)                                                    \
  "3:\n"                                                                                   \
  "tbz %[kc], #0, 4f\n"                                                                    \
  "ld1 {v0.4s, v1.4s}, [%[a]]\n"                                                           \
  MACE_ASM_CONV_NARROW_B##kVecs("", "v4", "v5")                                            \
  MACE_ASM_NARROW_ROWS##kVecs("v4", "v5", "v0", "v1")                                      \
  "4:\n"                                                                                   \
  MACE_ASM_NARROW_CLAMP(kVecs)
#define MACE_ASM_CONV_NARROW_OPERANDS                                                      \
  : [a] "+r"(a), [steps] "+r"(steps), [quads] "+r"(quads), [bias] "+r"(bias),              \
    [row] "=&r"(row), [pb] "+r"(pb), [s0] "=&r"(s0), [s1] "=&r"(s1)                        \
  : [kc] "r"(kc), [c] "r"(c), [ldc] "r"(ldc_bytes),                                        \
    [clamp] "r"(int64_t{clamp}), [clamp_hi] "r"(int64_t{clamp_hi}), [bounds] "r"(bounds)   \
  : "cc", "memory", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10",     \
    "v11", "v12", "v13", "v14", "v15", "v16", "v17", "v18", "v19", "v20", "v21", "v22",    \
    "v23"
template <int kVecs>
void AsmNarrowConvRows(int64_t kc, const float* a, const float* first, const int64_t* steps,
                       float* c, int64_t ldc_bytes, const float* bias, bool clamp, bool clamp_hi,
                       const float* bounds) {
  static_assert(kVecs == 1 || kVecs == 2, "4 or 8 columns");
  int64_t quads = kc >> 2;
  float* row;
  const float* pb = first;
  int64_t s0, s1;
  if constexpr (kVecs == 1) {
    __asm__ volatile(
        MACE_ASM_NARROW_FROM_BIAS1
        MACE_ASM_CONV_NARROW(1)
        MACE_ASM_NARROW_STORE1
        MACE_ASM_CONV_NARROW_OPERANDS);
  } else {
    __asm__ volatile(
        MACE_ASM_NARROW_FROM_BIAS2
        MACE_ASM_CONV_NARROW(2)
        MACE_ASM_NARROW_STORE2
        MACE_ASM_CONV_NARROW_OPERANDS);
  }
}

// AsmNarrowConvRows<1> for the 27-deep stem whose steps repeat every 9
// taps, as Stem27Run holds them: the 4-column tile that ends a 112-wide
// output row, with its steps in registers, straight code and the clamp
// fixed (kTileClamp*); the row bias is the tile's 8 values. The same taps
// in the same order, so the same sums.
#define MACE_ASM_STEM_NARROW_PAIR(sa, sb)                                               \
  "ld1 {v0.4s, v1.4s, v2.4s, v3.4s}, [%[a]], #64\n"                                    \
  "ld1 {v4.4s}, [%[pb]], %[" sa "]\n"                                                   \
  "ld1 {v6.4s}, [%[pb]], %[" sb "]\n"                                                   \
  MACE_ASM_NARROW1("v4", "v0", "v1") MACE_ASM_NARROW1("v6", "v2", "v3")
#define MACE_ASM_STEM_NARROW(finish)                                                    \
  "ld1r {v8.4s}, [%[bias]], #4\n ld1r {v9.4s}, [%[bias]], #4\n"                          \
  "ld1r {v10.4s}, [%[bias]], #4\n ld1r {v11.4s}, [%[bias]], #4\n"                        \
  "ld1r {v12.4s}, [%[bias]], #4\n ld1r {v13.4s}, [%[bias]], #4\n"                        \
  "ld1r {v14.4s}, [%[bias]], #4\n ld1r {v15.4s}, [%[bias]]\n"                            \
  MACE_ASM_STEM27_PAIRS(MACE_ASM_STEM_NARROW_PAIR)                                       \
  "ld1 {v0.4s, v1.4s}, [%[a]]\n"                                                         \
  "ld1 {v4.4s}, [%[pb]]\n"                                                               \
  MACE_ASM_NARROW1("v4", "v0", "v1")                                                     \
  finish                                                                                 \
  MACE_ASM_NARROW_STORE1
#define MACE_ASM_STEM_NARROW_LO                                                          \
  "ld2r {v0.4s, v1.4s}, [%[bounds]]\n" MACE_ASM_NARROW_CLAMP1("fmax", "v0")
#define MACE_ASM_STEM_NARROW_LO_HI MACE_ASM_STEM_NARROW_LO MACE_ASM_NARROW_CLAMP1("fmin", "v1")
#define MACE_ASM_STEM_NARROW_OPERANDS                                                     \
  : [a] "+r"(a), [pb] "+r"(pb), [bias] "+r"(bias), [row] "=&r"(row)                      \
  : [c] "r"(c), [ldc] "r"(ldc_bytes), [bounds] "r"(bounds), [s0] "r"(s0), [s1] "r"(s1),   \
    [s2] "r"(s2), [s3] "r"(s3), [s4] "r"(s4), [s5] "r"(s5), [s6] "r"(s6), [s7] "r"(s7),   \
    [s8] "r"(s8)                                                                          \
  : "cc", "memory", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10",    \
    "v11", "v12", "v13", "v14", "v15"
template <int kClamp>
void Stem27Narrow(const float* a, const float* first, const int64_t* steps, float* c,
                  int64_t ldc_bytes, const float* bias, const float* bounds) {
  const int64_t s0 = steps[0], s1 = steps[1], s2 = steps[2], s3 = steps[3], s4 = steps[4];
  const int64_t s5 = steps[5], s6 = steps[6], s7 = steps[7], s8 = steps[8];
  const float* pb = first;
  float* row;
  if constexpr (kClamp == kTileClampNone) {
    __asm__ volatile(MACE_ASM_STEM_NARROW("") MACE_ASM_STEM_NARROW_OPERANDS);
  } else if constexpr (kClamp == kTileClampLo) {
    __asm__ volatile(MACE_ASM_STEM_NARROW(MACE_ASM_STEM_NARROW_LO) MACE_ASM_STEM_NARROW_OPERANDS);
  } else {
    __asm__ volatile(
        MACE_ASM_STEM_NARROW(MACE_ASM_STEM_NARROW_LO_HI) MACE_ASM_STEM_NARROW_OPERANDS);
  }
}
#undef MACE_ASM_STEM27_PAIRS
#undef MACE_ASM_STEM_NARROW
#undef MACE_ASM_STEM_NARROW_LO
#undef MACE_ASM_STEM_NARROW_LO_HI
#undef MACE_ASM_STEM_NARROW_OPERANDS
#undef MACE_ASM_STEM_NARROW_PAIR
#undef MACE_ASM_CONV_NARROW_TWO_STEPS
#undef MACE_ASM_CONV_NARROW_B1
#undef MACE_ASM_CONV_NARROW_B2
#undef MACE_ASM_CONV_NARROW
#undef MACE_ASM_CONV_NARROW_OPERANDS
// clang-format on

// clang-format off
// Two 8-row panels (a, and a1 = a + a_stride floats) times B's first 4
// columns: a 16 x 4 tile straight into C's 16 rows (ldc bytes apart), from C
// (from_c) or zero, with no epilogue. Winograd's products on small maps (a
// 7x7 map at F(4x4) is 4 tiles, a 14x14 one 12 + 4) ran the 8 x 4 tile: 16
// fmla, an A load and a B load every two steps. Here two steps are 32 fmla
// and three loads (B's one is shared): 1.09 instructions per fmla in the
// loop against 1.125, and half the calls, C loads and stores per row.
// Panel 0 accumulates in v8-v15 as the 8 x 4 tile does, panel 1 in
// v16-v23; panel 1's A comes through v24-v27.
#define MACE_ASM_PAIR_COL_OP(op, b, lo, hi) \
  MACE_ASM_COL_OP(op, "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23", b, lo, hi)
#define MACE_ASM_PAIR_COL(b, lo, hi) MACE_ASM_PAIR_COL_OP("fmla", b, lo, hi)
// Two steps' A of panel 1 and B, and their products; with op fmul the
// first step's set the accumulators (the first two steps from zero).
#define MACE_ASM_NARROW_PAIRP MACE_ASM_NARROW_PAIRP_FIRST("fmla")
#define MACE_ASM_NARROW_PAIRP_FIRST(op)                                                \
  "ld1 {v24.4s, v25.4s, v26.4s, v27.4s}, [%[a1]], #64\n"                               \
  "ld1 {v4.4s, v5.4s, v6.4s, v7.4s}, [%[b]], %[b_step2]\n"                             \
  MACE_ASM_NARROW1_OP(op, "v4", "v0", "v1") MACE_ASM_PAIR_COL_OP(op, "v4", "v24", "v25") \
  MACE_ASM_NARROW1("v7", "v2", "v3") MACE_ASM_PAIR_COL("v7", "v26", "v27")
#define MACE_ASM_NARROW_BP(r0, r1)                                                     \
  "ld1 {v24.4s, v25.4s}, [%[a1]], #32\n"                                               \
  "ld1 {" r0 ".4s}, [%[b]], %[b_step]\n"
#define MACE_ASM_NARROW_ROWSP(b0, b1, lo, hi)                                          \
  MACE_ASM_NARROW1(b0, lo, hi) MACE_ASM_PAIR_COL(b0, "v24", "v25")
// From zero, the first two steps' fmul set the accumulators (kc >= 2):
// 16 movi a call fewer.
void AsmNarrowPairToC(int64_t kc, const float* a, int64_t a_stride, const float* b, float* c,
                      int64_t ldc_bytes, bool from_c) {
  const int64_t first = !from_c && kc >= 2 ? 1 : 0;
  kc -= 2 * first;  // the steps the loop runs
  int64_t blocks = kc >> 4;
  const int64_t b_step = kNeonGemmNr * sizeof(float);
  const float* a1 = a + a_stride;
  float* row;
  __asm__ volatile(
      "cbnz %[first], 12f\n"
      "cbz %[from_c], 10f\n"
      "mov %[row], %[c]\n"
      "ld1 {v8.4s}, [%[row]], %[ldc]\n ld1 {v9.4s}, [%[row]], %[ldc]\n"
      "ld1 {v10.4s}, [%[row]], %[ldc]\n ld1 {v11.4s}, [%[row]], %[ldc]\n"
      "ld1 {v12.4s}, [%[row]], %[ldc]\n ld1 {v13.4s}, [%[row]], %[ldc]\n"
      "ld1 {v14.4s}, [%[row]], %[ldc]\n ld1 {v15.4s}, [%[row]], %[ldc]\n"
      "ld1 {v16.4s}, [%[row]], %[ldc]\n ld1 {v17.4s}, [%[row]], %[ldc]\n"
      "ld1 {v18.4s}, [%[row]], %[ldc]\n ld1 {v19.4s}, [%[row]], %[ldc]\n"
      "ld1 {v20.4s}, [%[row]], %[ldc]\n ld1 {v21.4s}, [%[row]], %[ldc]\n"
      "ld1 {v22.4s}, [%[row]], %[ldc]\n ld1 {v23.4s}, [%[row]]\n"
      "b 11f\n"
      "10:\n"
      "movi v8.16b, #0\n movi v9.16b, #0\n movi v10.16b, #0\n movi v11.16b, #0\n"
      "movi v12.16b, #0\n movi v13.16b, #0\n movi v14.16b, #0\n movi v15.16b, #0\n"
      "movi v16.16b, #0\n movi v17.16b, #0\n movi v18.16b, #0\n movi v19.16b, #0\n"
      "movi v20.16b, #0\n movi v21.16b, #0\n movi v22.16b, #0\n movi v23.16b, #0\n"
      "b 11f\n"
      "12:\n"
      "ld1 {v0.4s, v1.4s, v2.4s, v3.4s}, [%[a]], #64\n"
      MACE_ASM_NARROW_PAIRP_FIRST("fmul")
      "11:\n"
      MACE_ASM_NARROW_LOOP(P)
      "mov %[row], %[c]\n"
      "st1 {v8.4s}, [%[row]], %[ldc]\n st1 {v9.4s}, [%[row]], %[ldc]\n"
      "st1 {v10.4s}, [%[row]], %[ldc]\n st1 {v11.4s}, [%[row]], %[ldc]\n"
      "st1 {v12.4s}, [%[row]], %[ldc]\n st1 {v13.4s}, [%[row]], %[ldc]\n"
      "st1 {v14.4s}, [%[row]], %[ldc]\n st1 {v15.4s}, [%[row]], %[ldc]\n"
      "st1 {v16.4s}, [%[row]], %[ldc]\n st1 {v17.4s}, [%[row]], %[ldc]\n"
      "st1 {v18.4s}, [%[row]], %[ldc]\n st1 {v19.4s}, [%[row]], %[ldc]\n"
      "st1 {v20.4s}, [%[row]], %[ldc]\n st1 {v21.4s}, [%[row]], %[ldc]\n"
      "st1 {v22.4s}, [%[row]], %[ldc]\n st1 {v23.4s}, [%[row]]\n"
      : [a] "+r"(a), [a1] "+r"(a1), [b] "+r"(b), [blocks] "+r"(blocks), [row] "=&r"(row)
      : [kc] "r"(kc), [b_step] "r"(b_step), [b_step2] "r"(2 * b_step), [c] "r"(c),
        [ldc] "r"(ldc_bytes), [from_c] "r"(int64_t{from_c}), [first] "r"(first)
      : "cc", "memory", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10",
        "v11", "v12", "v13", "v14", "v15", "v16", "v17", "v18", "v19", "v20", "v21", "v22",
        "v23", "v24", "v25", "v26", "v27");
}
#undef MACE_ASM_PAIR_COL
#undef MACE_ASM_PAIR_COL_OP
#undef MACE_ASM_NARROW_PAIRP
#undef MACE_ASM_NARROW_PAIRP_FIRST
#undef MACE_ASM_NARROW_BP
#undef MACE_ASM_NARROW_ROWSP
// clang-format on

// clang-format off
// Two 8-row panels (a, and a1 = a + a_stride floats) times B's first kCols
// (1 to 3) columns: 16 rows of C (ldc bytes apart), from C (from_c) or
// zero, with no epilogue. A Winograd block's last panel of 1 to 3 tiles
// (ResNet-18's 28x28 maps at F(4x4) are 4 x 12 + 1 tiles) ran the pair's
// 16 x 4 tile: 35 instructions every two steps. Here a vector holds four
// rows of one column, times a lane of B, as in AsmColumnTile: two steps
// are three loads and 8 fmla a column (11 for one column). Column j
// accumulates rows 0-15 in v(8 + 4j) to v(11 + 4j), moved to and from C
// lane by lane (16 loads or stores a column, once a call).
#define MACE_ASM_CP_COL(c0, c1, c2, c3, b, lane, a0, a1, a2, a3)                         \
  "fmla " c0 ".4s, " a0 ".4s, " b ".s[" #lane "]\n"                                      \
  "fmla " c1 ".4s, " a1 ".4s, " b ".s[" #lane "]\n"                                      \
  "fmla " c2 ".4s, " a2 ".4s, " b ".s[" #lane "]\n"                                      \
  "fmla " c3 ".4s, " a3 ".4s, " b ".s[" #lane "]\n"
#define MACE_ASM_CP1(b, a0, a1, a2, a3) MACE_ASM_CP_COL("v8", "v9", "v10", "v11", b, 0, a0, a1, a2, a3)
#define MACE_ASM_CP2(b, a0, a1, a2, a3)                                                  \
  MACE_ASM_CP1(b, a0, a1, a2, a3) MACE_ASM_CP_COL("v12", "v13", "v14", "v15", b, 1, a0, a1, a2, a3)
#define MACE_ASM_CP3(b, a0, a1, a2, a3)                                                  \
  MACE_ASM_CP2(b, a0, a1, a2, a3) MACE_ASM_CP_COL("v16", "v17", "v18", "v19", b, 2, a0, a1, a2, a3)
// Two steps: panel 0's A in v0-v3, panel 1's in v24-v27, and B's rows in
// v4 (this step) and v7 (the next).
#define MACE_ASM_CP_TWO_STEPS(n)                                                         \
  "ld1 {v0.4s, v1.4s, v2.4s, v3.4s}, [%[a]], #64\n"                                      \
  "ld1 {v24.4s, v25.4s, v26.4s, v27.4s}, [%[a1]], #64\n"                                 \
  "ld1 {v4.4s, v5.4s, v6.4s, v7.4s}, [%[b]], %[b_step2]\n"                               \
  MACE_ASM_CP##n("v4", "v0", "v1", "v24", "v25")                                         \
  MACE_ASM_CP##n("v7", "v2", "v3", "v26", "v27")
// One column's 16 rows between C (from %[row]) and four registers.
#define MACE_ASM_CP_LANES(op, r0, r1, r2, r3)                                            \
  op " {" r0 ".s}[0], [%[row]], %[ldc]\n " op " {" r0 ".s}[1], [%[row]], %[ldc]\n"       \
  op " {" r0 ".s}[2], [%[row]], %[ldc]\n " op " {" r0 ".s}[3], [%[row]], %[ldc]\n"       \
  op " {" r1 ".s}[0], [%[row]], %[ldc]\n " op " {" r1 ".s}[1], [%[row]], %[ldc]\n"       \
  op " {" r1 ".s}[2], [%[row]], %[ldc]\n " op " {" r1 ".s}[3], [%[row]], %[ldc]\n"       \
  op " {" r2 ".s}[0], [%[row]], %[ldc]\n " op " {" r2 ".s}[1], [%[row]], %[ldc]\n"       \
  op " {" r2 ".s}[2], [%[row]], %[ldc]\n " op " {" r2 ".s}[3], [%[row]], %[ldc]\n"       \
  op " {" r3 ".s}[0], [%[row]], %[ldc]\n " op " {" r3 ".s}[1], [%[row]], %[ldc]\n"       \
  op " {" r3 ".s}[2], [%[row]], %[ldc]\n " op " {" r3 ".s}[3], [%[row]], %[ldc]\n"
#define MACE_ASM_CP_MOVE1(op)                                                            \
  "mov %[row], %[c]\n" MACE_ASM_CP_LANES(op, "v8", "v9", "v10", "v11")
#define MACE_ASM_CP_MOVE2(op)                                                            \
  MACE_ASM_CP_MOVE1(op) "add %[row], %[c], #4\n" MACE_ASM_CP_LANES(op, "v12", "v13", "v14", "v15")
#define MACE_ASM_CP_MOVE3(op)                                                            \
  MACE_ASM_CP_MOVE2(op) "add %[row], %[c], #8\n" MACE_ASM_CP_LANES(op, "v16", "v17", "v18", "v19")
#define MACE_ASM_CP_ZERO1 "movi v8.16b, #0\n movi v9.16b, #0\n movi v10.16b, #0\n movi v11.16b, #0\n"
#define MACE_ASM_CP_ZERO2                                                                \
  MACE_ASM_CP_ZERO1 "movi v12.16b, #0\n movi v13.16b, #0\n movi v14.16b, #0\n movi v15.16b, #0\n"
#define MACE_ASM_CP_ZERO3                                                                \
  MACE_ASM_CP_ZERO2 "movi v16.16b, #0\n movi v17.16b, #0\n movi v18.16b, #0\n movi v19.16b, #0\n"
// From C or zero; eight steps a loop, then 4, 2 and 1 by the bits of kc;
// back to C.
#define MACE_ASM_CP_TILE(n)                                                              \
  "cbz %[from_c], 10f\n"                                                                 \
  MACE_ASM_CP_MOVE##n("ld1")                                                             \
  "b 11f\n"                                                                              \
  "10:\n"                                                                                \
  MACE_ASM_CP_ZERO##n                                                                    \
  "11:\n"                                                                                \
  "cbz %[octs], 2f\n"                                                                    \
  "1:\n"                                                                                 \
  MACE_ASM_CP_TWO_STEPS(n) MACE_ASM_CP_TWO_STEPS(n)                                      \
  MACE_ASM_CP_TWO_STEPS(n) MACE_ASM_CP_TWO_STEPS(n)                                      \
  "subs %[octs], %[octs], #1\n"                                                          \
  "b.ne 1b\n"                                                                            \
  "2:\n"                                                                                 \
  "tbz %[kc], #2, 3f\n"                                                                  \
  MACE_ASM_CP_TWO_STEPS(n) MACE_ASM_CP_TWO_STEPS(n)                                      \
  "3:\n"                                                                                 \
  "tbz %[kc], #1, 5f\n"                                                                  \
  MACE_ASM_CP_TWO_STEPS(n)                                                               \
  "5:\n"                                                                                 \
  "tbz %[kc], #0, 4f\n"                                                                  \
  "ld1 {v0.4s, v1.4s}, [%[a]]\n"                                                         \
  "ld1 {v24.4s, v25.4s}, [%[a1]]\n"                                                      \
  "ld1 {v4.4s}, [%[b]]\n"                                                                \
  MACE_ASM_CP##n("v4", "v0", "v1", "v24", "v25")                                         \
  "4:\n"                                                                                 \
  MACE_ASM_CP_MOVE##n("st1")
#define MACE_ASM_CP_OPERANDS                                                             \
  : [a] "+r"(a), [a1] "+r"(a1), [b] "+r"(b), [octs] "+r"(octs), [row] "=&r"(row)         \
  : [kc] "r"(kc), [b_step2] "r"(b_step2), [c] "r"(c), [ldc] "r"(ldc_bytes),              \
    [from_c] "r"(int64_t{from_c})                                                        \
  : "cc", "memory", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10",   \
    "v11", "v12", "v13", "v14", "v15", "v16", "v17", "v18", "v19", "v24", "v25", "v26",  \
    "v27"
template <int kCols>
void AsmColumnPairToC(int64_t kc, const float* a, int64_t a_stride, const float* b, float* c,
                      int64_t ldc_bytes, bool from_c) {
  static_assert(kCols >= 1 && kCols <= 3, "1 to 3 columns");
  int64_t octs = kc >> 3;
  const int64_t b_step2 = 2 * kNeonGemmNr * sizeof(float);
  const float* a1 = a + a_stride;
  float* row;
  if constexpr (kCols == 1) {
    __asm__ volatile(MACE_ASM_CP_TILE(1) MACE_ASM_CP_OPERANDS);
  } else if constexpr (kCols == 2) {
    __asm__ volatile(MACE_ASM_CP_TILE(2) MACE_ASM_CP_OPERANDS);
  } else {
    __asm__ volatile(MACE_ASM_CP_TILE(3) MACE_ASM_CP_OPERANDS);
  }
}
#undef MACE_ASM_CP_COL
#undef MACE_ASM_CP1
#undef MACE_ASM_CP2
#undef MACE_ASM_CP3
#undef MACE_ASM_CP_TWO_STEPS
#undef MACE_ASM_CP_LANES
#undef MACE_ASM_CP_MOVE1
#undef MACE_ASM_CP_MOVE2
#undef MACE_ASM_CP_MOVE3
#undef MACE_ASM_CP_ZERO1
#undef MACE_ASM_CP_ZERO2
#undef MACE_ASM_CP_ZERO3
#undef MACE_ASM_CP_TILE
#undef MACE_ASM_CP_OPERANDS
// clang-format on

#undef MACE_ASM_NARROW_TO_C_OPERANDS
#undef MACE_ASM_NARROW_FROM_BIAS1
#undef MACE_ASM_NARROW_FROM_BIAS2
#undef MACE_ASM_NARROW_STORE1
#undef MACE_ASM_NARROW_STORE2
#undef MACE_ASM_NARROW_CLAMP
#undef MACE_ASM_NARROW_CLAMP1
#undef MACE_ASM_NARROW_CLAMP2
#undef MACE_ASM_NARROW1
#undef MACE_ASM_NARROW1_OP
#undef MACE_ASM_NARROW2
#undef MACE_ASM_NARROW_TWO_STEPS
#undef MACE_ASM_NARROW_B1
#undef MACE_ASM_NARROW_B2
#undef MACE_ASM_NARROW_ROWS1
#undef MACE_ASM_NARROW_ROWS2
#undef MACE_ASM_NARROW_PAIR1
#undef MACE_ASM_NARROW_PAIR2
#undef MACE_ASM_NARROW_LOOP
#undef MACE_ASM_NARROW_FOUR_STEPS
#undef MACE_ASM_NARROW_OPERANDS

// clang-format off
// The last row panel of a layer whose output channels (or a product's rows)
// end 1 to 7 past a whole panel (ShuffleNet v2's 58 = 7 x 8 + 2 and 116 =
// 14 x 8 + 4, ViT's 197 = 24 x 8 + 5 tokens), a full 12 columns wide,
// straight into C's rows (ldc bytes apart) as AsmTile finishes a tile: from
// C (from_c), or the row bias (a value a row at bias) or zero plus the
// column bias (12 values at col_bias, if not null), clamped to bounds[0]
// (and bounds[1] if clamp_hi) if clamp. The whole 8 x 12 kernel into a
// staging tile would issue 24 fmla a step for 3 to 21 useful ones. One
// call takes kRows (1 to 4) rows whose A values are lanes 0 to kRows - 1
// of the low (kHigh false: rows 0-3) or the high half of each step's 8
// (rows 4-7), so rows 5 to 7 are two calls; one four-register ld1 reads
// two steps of A, its B the panel row's 12 floats: four steps are 5 loads
// and 3 kRows fmla. Row i of a call accumulates in v(8 + 3i) to
// v(10 + 3i).
#define MACE_ASM_SR_ROW(c0, c1, c2, b0, b1, b2, a, lane)                             \
  "fmla " c0 ".4s, " b0 ".4s, " a ".s[" #lane "]\n"                                  \
  "fmla " c1 ".4s, " b1 ".4s, " a ".s[" #lane "]\n"                                  \
  "fmla " c2 ".4s, " b2 ".4s, " a ".s[" #lane "]\n"
#define MACE_ASM_SR_STEP1(b0, b1, b2, a)                                             \
  MACE_ASM_SR_ROW("v8", "v9", "v10", b0, b1, b2, a, 0)
#define MACE_ASM_SR_STEP2(b0, b1, b2, a)                                             \
  MACE_ASM_SR_STEP1(b0, b1, b2, a)                                                   \
  MACE_ASM_SR_ROW("v11", "v12", "v13", b0, b1, b2, a, 1)
#define MACE_ASM_SR_STEP3(b0, b1, b2, a)                                             \
  MACE_ASM_SR_STEP2(b0, b1, b2, a)                                                   \
  MACE_ASM_SR_ROW("v14", "v15", "v16", b0, b1, b2, a, 2)
#define MACE_ASM_SR_STEP4(b0, b1, b2, a)                                             \
  MACE_ASM_SR_STEP3(b0, b1, b2, a)                                                   \
  MACE_ASM_SR_ROW("v17", "v18", "v19", b0, b1, b2, a, 3)
// Four steps: A for steps 0 and 1 in v0-v1 and v2-v3, for 2 and 3 in
// v28-v29 and v30-v31 (the low halves a0 and a2, the high ones a1 and a3);
// the 48 floats of B in v4-v7 and v20-v27.
#define MACE_ASM_SR_FOUR_STEPS(n, a0, a1, a2, a3)                                    \
  "ld1 {v0.4s, v1.4s, v2.4s, v3.4s}, [%[a]], #64\n"                                  \
  "ld1 {v4.4s, v5.4s, v6.4s, v7.4s}, [%[b]], #64\n"                                  \
  "ld1 {v20.4s, v21.4s, v22.4s, v23.4s}, [%[b]], #64\n"                              \
  MACE_ASM_SR_STEP##n("v4", "v5", "v6", a0)                                          \
  "ld1 {v24.4s, v25.4s, v26.4s, v27.4s}, [%[b]], #64\n"                              \
  MACE_ASM_SR_STEP##n("v7", "v20", "v21", a1)                                        \
  "ld1 {v28.4s, v29.4s, v30.4s, v31.4s}, [%[a]], #64\n"                              \
  MACE_ASM_SR_STEP##n("v22", "v23", "v24", a2)                                       \
  MACE_ASM_SR_STEP##n("v25", "v26", "v27", a3)
#define MACE_ASM_SR_C1(op)                                                           \
  "mov %[row], %[c]\n"                                                               \
  op " {v8.4s, v9.4s, v10.4s}, [%[row]], %[ldc]\n"
#define MACE_ASM_SR_C2(op)                                                           \
  MACE_ASM_SR_C1(op)                                                                 \
  op " {v11.4s, v12.4s, v13.4s}, [%[row]], %[ldc]\n"
#define MACE_ASM_SR_C3(op)                                                           \
  MACE_ASM_SR_C2(op)                                                                 \
  op " {v14.4s, v15.4s, v16.4s}, [%[row]], %[ldc]\n"
#define MACE_ASM_SR_C4(op)                                                           \
  MACE_ASM_SR_C3(op)                                                                 \
  op " {v17.4s, v18.4s, v19.4s}, [%[row]], %[ldc]\n"
#define MACE_ASM_SR_BIAS_ROW(r0, r1, r2)                                             \
  "ld1r {" r0 ".4s}, [%[bias]], #4\n mov " r1 ".16b, " r0 ".16b\n mov " r2 ".16b, " r0 ".16b\n"
#define MACE_ASM_SR_BIAS1 MACE_ASM_SR_BIAS_ROW("v8", "v9", "v10")
#define MACE_ASM_SR_BIAS2 MACE_ASM_SR_BIAS1 MACE_ASM_SR_BIAS_ROW("v11", "v12", "v13")
#define MACE_ASM_SR_BIAS3 MACE_ASM_SR_BIAS2 MACE_ASM_SR_BIAS_ROW("v14", "v15", "v16")
#define MACE_ASM_SR_BIAS4 MACE_ASM_SR_BIAS3 MACE_ASM_SR_BIAS_ROW("v17", "v18", "v19")
#define MACE_ASM_SR_ZERO_ROW(r0, r1, r2)                                             \
  "movi " r0 ".16b, #0\n movi " r1 ".16b, #0\n movi " r2 ".16b, #0\n"
#define MACE_ASM_SR_ZERO1 MACE_ASM_SR_ZERO_ROW("v8", "v9", "v10")
#define MACE_ASM_SR_ZERO2 MACE_ASM_SR_ZERO1 MACE_ASM_SR_ZERO_ROW("v11", "v12", "v13")
#define MACE_ASM_SR_ZERO3 MACE_ASM_SR_ZERO2 MACE_ASM_SR_ZERO_ROW("v14", "v15", "v16")
#define MACE_ASM_SR_ZERO4 MACE_ASM_SR_ZERO3 MACE_ASM_SR_ZERO_ROW("v17", "v18", "v19")
#define MACE_ASM_SR_COL_ROW(r0, r1, r2)                                              \
  "fadd " r0 ".4s, " r0 ".4s, v20.4s\n fadd " r1 ".4s, " r1 ".4s, v21.4s\n"            \
  "fadd " r2 ".4s, " r2 ".4s, v22.4s\n"
#define MACE_ASM_SR_COL1 MACE_ASM_SR_COL_ROW("v8", "v9", "v10")
#define MACE_ASM_SR_COL2 MACE_ASM_SR_COL1 MACE_ASM_SR_COL_ROW("v11", "v12", "v13")
#define MACE_ASM_SR_COL3 MACE_ASM_SR_COL2 MACE_ASM_SR_COL_ROW("v14", "v15", "v16")
#define MACE_ASM_SR_COL4 MACE_ASM_SR_COL3 MACE_ASM_SR_COL_ROW("v17", "v18", "v19")
#define MACE_ASM_SR_BOUND_ROW(op, bound, r0, r1, r2)                                 \
  op " " r0 ".4s, " r0 ".4s, " bound ".4s\n " op " " r1 ".4s, " r1 ".4s, " bound ".4s\n" \
  op " " r2 ".4s, " r2 ".4s, " bound ".4s\n"
#define MACE_ASM_SR_BOUND1(op, bound)                                                \
  MACE_ASM_SR_BOUND_ROW(op, bound, "v8", "v9", "v10")
#define MACE_ASM_SR_BOUND2(op, bound)                                                \
  MACE_ASM_SR_BOUND1(op, bound) MACE_ASM_SR_BOUND_ROW(op, bound, "v11", "v12", "v13")
#define MACE_ASM_SR_BOUND3(op, bound)                                                \
  MACE_ASM_SR_BOUND2(op, bound) MACE_ASM_SR_BOUND_ROW(op, bound, "v14", "v15", "v16")
#define MACE_ASM_SR_BOUND4(op, bound)                                                \
  MACE_ASM_SR_BOUND3(op, bound) MACE_ASM_SR_BOUND_ROW(op, bound, "v17", "v18", "v19")
// From C, or the bias or zero plus the column bias; eight steps a loop,
// then 4 by bit 2 of kc and the last kc % 4 one at a time (A in rest_a);
// clamped; back to C.
#define MACE_ASM_SR_TILE(n, a0, a1, a2, a3, rest_a)                                \
  "cbz %[from_c], 10f\n"                                                             \
  MACE_ASM_SR_C##n("ld1")                                                            \
  "b 11f\n"                                                                          \
  "10:\n"                                                                            \
  "cbz %[bias], 12f\n"                                                               \
  MACE_ASM_SR_BIAS##n                                                                \
  "b 13f\n"                                                                          \
  "12:\n"                                                                            \
  MACE_ASM_SR_ZERO##n                                                                \
  "13:\n"                                                                            \
  "cbz %[col_bias], 11f\n"                                                           \
  "ld1 {v20.4s, v21.4s, v22.4s}, [%[col_bias]]\n"                                    \
  MACE_ASM_SR_COL##n                                                                 \
  "11:\n"                                                                            \
  "cbz %[octs], 2f\n"                                                                \
  "1:\n"                                                                             \
  MACE_ASM_SR_FOUR_STEPS(n, a0, a1, a2, a3) MACE_ASM_SR_FOUR_STEPS(n, a0, a1, a2, a3) \
  "subs %[octs], %[octs], #1\n"                                                      \
  "b.ne 1b\n"                                                                        \
  "2:\n"                                                                             \
  "tbz %[kc], #2, 3f\n"                                                              \
  MACE_ASM_SR_FOUR_STEPS(n, a0, a1, a2, a3)                                          \
  "3:\n"                                                                             \
  "cbz %[rest], 4f\n"                                                                \
  "5:\n"                                                                             \
  "ld1 {v0.4s, v1.4s}, [%[a]], #32\n"                                                \
  "ld1 {v4.4s, v5.4s, v6.4s}, [%[b]], #48\n"                                         \
  MACE_ASM_SR_STEP##n("v4", "v5", "v6", rest_a)                                      \
  "subs %[rest], %[rest], #1\n"                                                      \
  "b.ne 5b\n"                                                                        \
  "4:\n"                                                                             \
  "cbz %[clamp], 6f\n"                                                               \
  "ld2r {v0.4s, v1.4s}, [%[bounds]]\n"                                               \
  MACE_ASM_SR_BOUND##n("fmax", "v0")                                                 \
  "cbz %[clamp_hi], 6f\n"                                                            \
  MACE_ASM_SR_BOUND##n("fmin", "v1")                                                 \
  "6:\n"                                                                             \
  MACE_ASM_SR_C##n("st1")
#define MACE_ASM_SR_LOW(n) MACE_ASM_SR_TILE(n, "v0", "v2", "v28", "v30", "v0")
#define MACE_ASM_SR_HIGH(n) MACE_ASM_SR_TILE(n, "v1", "v3", "v29", "v31", "v1")
#define MACE_ASM_SR_OPERANDS                                                         \
  : [a] "+r"(a), [b] "+r"(b), [octs] "+r"(octs), [rest] "+r"(rest), [bias] "+r"(bias), \
    [row] "=&r"(row)                                                                 \
  : [kc] "r"(kc), [c] "r"(c), [ldc] "r"(ldc_bytes), [from_c] "r"(int64_t{from_c}),   \
    [col_bias] "r"(col_bias),                                                        \
    [clamp] "r"(int64_t{clamp}), [clamp_hi] "r"(int64_t{clamp_hi}), [bounds] "r"(bounds) \
  : "cc", "memory", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10",  \
    "v11", "v12", "v13", "v14", "v15", "v16", "v17", "v18", "v19", "v20", "v21", "v22", \
    "v23", "v24", "v25", "v26", "v27", "v28", "v29", "v30", "v31"
#define MACE_ASM_SR_CASE(n)                                                          \
  if constexpr (kRows == n) {                                                        \
    if constexpr (kHigh) {                                                           \
      __asm__ volatile(MACE_ASM_SR_HIGH(n) MACE_ASM_SR_OPERANDS);                   \
    } else {                                                                         \
      __asm__ volatile(MACE_ASM_SR_LOW(n) MACE_ASM_SR_OPERANDS);                    \
    }                                                                                \
  }
template <int kRows, bool kHigh = false>
[[gnu::always_inline]] inline void AsmShortRowsToC(int64_t kc, const float* a, const float* b, float* c, int64_t ldc_bytes,
                     bool from_c, const float* bias, const float* col_bias, bool clamp,
                     bool clamp_hi, const float* bounds) {
  static_assert(kRows >= 1 && kRows <= 4, "1 to 4 rows");
  int64_t octs = kc >> 3;
  int64_t rest = kc & 3;
  float* row;
  MACE_ASM_SR_CASE(1)
  MACE_ASM_SR_CASE(2)
  MACE_ASM_SR_CASE(3)
  MACE_ASM_SR_CASE(4)
}
#undef MACE_ASM_SR_CASE
#undef MACE_ASM_SR_LOW
#undef MACE_ASM_SR_HIGH
#undef MACE_ASM_SR_ROW
#undef MACE_ASM_SR_STEP1
#undef MACE_ASM_SR_STEP2
#undef MACE_ASM_SR_STEP3
#undef MACE_ASM_SR_STEP4
#undef MACE_ASM_SR_FOUR_STEPS
#undef MACE_ASM_SR_C1
#undef MACE_ASM_SR_C2
#undef MACE_ASM_SR_C3
#undef MACE_ASM_SR_C4
#undef MACE_ASM_SR_BIAS_ROW
#undef MACE_ASM_SR_BIAS1
#undef MACE_ASM_SR_BIAS2
#undef MACE_ASM_SR_BIAS3
#undef MACE_ASM_SR_BIAS4
#undef MACE_ASM_SR_ZERO_ROW
#undef MACE_ASM_SR_ZERO1
#undef MACE_ASM_SR_ZERO2
#undef MACE_ASM_SR_ZERO3
#undef MACE_ASM_SR_ZERO4
#undef MACE_ASM_SR_COL_ROW
#undef MACE_ASM_SR_COL1
#undef MACE_ASM_SR_COL2
#undef MACE_ASM_SR_COL3
#undef MACE_ASM_SR_COL4
#undef MACE_ASM_SR_BOUND_ROW
#undef MACE_ASM_SR_BOUND1
#undef MACE_ASM_SR_BOUND2
#undef MACE_ASM_SR_BOUND3
#undef MACE_ASM_SR_BOUND4
#undef MACE_ASM_SR_TILE
#undef MACE_ASM_SR_OPERANDS
// clang-format on

// A whole-width tile of 1 to 7 rows: rows 0-3 (or fewer) from the low
// halves of A's steps, rows 4-6 from the high ones.
void ShortRowsToC(int rows, int64_t kc, const float* a, const float* b, float* c, int64_t ldc_bytes,
                  bool from_c, const float* bias, const float* col_bias, bool clamp, bool clamp_hi,
                  const float* bounds) {
  switch (rows < 4 ? rows : 4) {
    case 1:
      AsmShortRowsToC<1>(kc, a, b, c, ldc_bytes, from_c, bias, col_bias, clamp, clamp_hi, bounds);
      break;
    case 2:
      AsmShortRowsToC<2>(kc, a, b, c, ldc_bytes, from_c, bias, col_bias, clamp, clamp_hi, bounds);
      break;
    case 3:
      AsmShortRowsToC<3>(kc, a, b, c, ldc_bytes, from_c, bias, col_bias, clamp, clamp_hi, bounds);
      break;
    default:
      AsmShortRowsToC<4>(kc, a, b, c, ldc_bytes, from_c, bias, col_bias, clamp, clamp_hi, bounds);
      break;
  }
  if (rows <= 4) return;
  float* high = c + 4 * (ldc_bytes / static_cast<int64_t>(sizeof(float)));
  const float* high_bias = bias != nullptr ? bias + 4 : nullptr;
  switch (rows) {
    case 5:
      return AsmShortRowsToC<1, true>(kc, a, b, high, ldc_bytes, from_c, high_bias, col_bias, clamp,
                                      clamp_hi, bounds);
    case 6:
      return AsmShortRowsToC<2, true>(kc, a, b, high, ldc_bytes, from_c, high_bias, col_bias, clamp,
                                      clamp_hi, bounds);
    default:
      return AsmShortRowsToC<3, true>(kc, a, b, high, ldc_bytes, from_c, high_bias, col_bias, clamp,
                                      clamp_hi, bounds);
  }
}

// Columns of 8 rows (column j at columns + 8 j, from AsmColumnTile)
// finished as the epilogue says (no column bias or hard-swish) and stored
// down C's first `cols` columns. The last column of a 7x7 map's 49
// (ShuffleNet v2's 232- and 1024-channel layers) went through the 8 x 4
// staging tile and FinishPartialTile, a staged row each: some 250
// instructions a call against 40 here.
void FinishColumns(const float* columns, float* c, int64_t ldc, int cols,
                   const TileEpilogue& epilogue) {
  const bool last = epilogue.last;
  const bool bias = last && epilogue.row_bias != nullptr;
  const float32x4_t zero = vdupq_n_f32(0.f);
  const float32x4_t bias_lo = bias ? vld1q_f32(epilogue.row_bias) : zero;
  const float32x4_t bias_hi = bias ? vld1q_f32(epilogue.row_bias + 4) : zero;
  const bool clamp = last && epilogue.activation == kTileActClamp;
  const float32x4_t lo = vdupq_n_f32(epilogue.lo), hi = vdupq_n_f32(epilogue.hi);
  for (int j = 0; j < cols; ++j) {
    float32x4_t v0 = vld1q_f32(columns + kNeonGemmMr * j);
    float32x4_t v1 = vld1q_f32(columns + kNeonGemmMr * j + 4);
    float* out = c + j;
    if (epilogue.accumulate) {
      float32x4_t c0 = zero, c1 = zero;
      c0 = vld1q_lane_f32(out, c0, 0);
      c0 = vld1q_lane_f32(out + ldc, c0, 1);
      c0 = vld1q_lane_f32(out + 2 * ldc, c0, 2);
      c0 = vld1q_lane_f32(out + 3 * ldc, c0, 3);
      c1 = vld1q_lane_f32(out + 4 * ldc, c1, 0);
      c1 = vld1q_lane_f32(out + 5 * ldc, c1, 1);
      c1 = vld1q_lane_f32(out + 6 * ldc, c1, 2);
      c1 = vld1q_lane_f32(out + 7 * ldc, c1, 3);
      v0 = vaddq_f32(v0, c0);
      v1 = vaddq_f32(v1, c1);
    }
    v0 = vaddq_f32(v0, bias_lo);
    v1 = vaddq_f32(v1, bias_hi);
    if (clamp) {
      v0 = vminq_f32(vmaxq_f32(v0, lo), hi);
      v1 = vminq_f32(vmaxq_f32(v1, lo), hi);
    }
    vst1q_lane_f32(out, v0, 0);
    vst1q_lane_f32(out + ldc, v0, 1);
    vst1q_lane_f32(out + 2 * ldc, v0, 2);
    vst1q_lane_f32(out + 3 * ldc, v0, 3);
    vst1q_lane_f32(out + 4 * ldc, v1, 0);
    vst1q_lane_f32(out + 5 * ldc, v1, 1);
    vst1q_lane_f32(out + 6 * ldc, v1, 2);
    vst1q_lane_f32(out + 7 * ldc, v1, 3);
  }
}

}  // namespace

// A tile that sticks out of C: the narrowest kernel that covers its columns
// (1 to 3 column by column, 4, 8 or 12), into a staging tile, then the rows
// and columns that exist.
// MobileNets' 7x7 maps (49 = 4 x 12 + 1 columns) ran their last column on
// the whole 8 x 12 kernel, and every partial tile went through the table's
// generic staging (PartialTile: zeroed biases, memcpy per row).
void NeonGemmPartial(int64_t kc, const float* a, const float* b, float* c, int64_t ldc, int rows,
                     int cols, const TileEpilogue& tile_epilogue) {
  const TileEpilogue epilogue = tile_epilogue;
  // A whole 4- or 8-column tile with no column bias, or a whole 12-column
  // one of 1 to 7 rows, with no hard-swish goes straight to C, its biases
  // added with the first reduction block (the row bias as NeonGemm's) and
  // its clamp with the last.
  const bool no_hard_swish = epilogue.activation != kTileActHardSwish;
  const bool short_rows = no_hard_swish && cols == kNeonGemmNr && rows < kNeonGemmMr;
  const bool plain = no_hard_swish && epilogue.col_bias == nullptr;
  if (short_rows || (plain && rows == kNeonGemmMr && (cols == 4 || cols == 8))) {
    const int64_t ldc_bytes = ldc * static_cast<int64_t>(sizeof(float));
    const bool clamp = epilogue.last && epilogue.activation == kTileActClamp;
    const float bounds[2] = {epilogue.lo, epilogue.hi};
    const bool clamp_hi = clamp && !(bounds[1] == std::numeric_limits<float>::infinity());
    const float* bias = epilogue.accumulate ? nullptr : epilogue.row_bias;
    if (short_rows) {
      ShortRowsToC(rows, kc, a, b, c, ldc_bytes, epilogue.accumulate, bias,
                   epilogue.accumulate ? nullptr : epilogue.col_bias, clamp, clamp_hi, bounds);
    } else if (cols == 4) {
      AsmNarrowTileToC<1>(kc, a, b, c, ldc_bytes, epilogue.accumulate, bias, clamp, clamp_hi,
                          bounds);
    } else {
      AsmNarrowTileToC<2>(kc, a, b, c, ldc_bytes, epilogue.accumulate, bias, clamp, clamp_hi,
                          bounds);
    }
    return;
  }
  alignas(16) float tile[kNeonGemmMr * kNeonGemmNr];
  if (cols < 4) {
    // Column by column, into the 8 x 4 staging tile's layout (its unused
    // lanes zero).
    alignas(16) float columns[3 * kNeonGemmMr];
    if (cols == 1) {
      AsmColumnTile<1>(kc, a, b, columns);
    } else if (cols == 2) {
      AsmColumnTile<2>(kc, a, b, columns);
    } else {
      AsmColumnTile<3>(kc, a, b, columns);
    }
    if (rows == kNeonGemmMr && plain) {
      FinishColumns(columns, c, ldc, cols, epilogue);
      return;
    }
    for (int i = 0; i < kNeonGemmMr; ++i) {
      for (int j = 0; j < 4; ++j) tile[4 * i + j] = j < cols ? columns[kNeonGemmMr * j + i] : 0.f;
    }
    FinishPartialTile<1>(tile, c, ldc, rows, cols, epilogue);
  } else if (cols == 4) {
    AsmNarrowTile<1>(kc, a, b, tile);
    FinishPartialTile<1>(tile, c, ldc, rows, cols, epilogue);
  } else if (cols <= 8) {
    AsmNarrowTile<2>(kc, a, b, tile);
    FinishPartialTile<2>(tile, c, ldc, rows, cols, epilogue);
  } else {
    AsmTile(kc, a, b, tile, kNeonGemmNr * sizeof(float), false, nullptr, false, false, nullptr);
    FinishPartialTile<3>(tile, c, ldc, rows, cols, epilogue);
  }
}

// A last column panel of 4 columns or 1: its `tiles` whole row panels (A
// panels a_step floats apart, C rows c_step floats apart) straight to C, as
// NeonGemmPartial runs each; the epilogue has no column bias or hard-swish.
// Through the driver's tile walk and NeonGemmPartial's checks each cost
// some 50 instructions around the tile (ShuffleNet v2's 196- and
// 784-column maps end 4 columns past a whole tile, its 49-column ones 1).
void NeonGemmColumnTail(int cols, int64_t tiles, int64_t kc, const float* a, int64_t a_step,
                        const float* b, float* c, int64_t c_step, int64_t ldc,
                        const TileEpilogue& tile_epilogue) {
  TileEpilogue epilogue = tile_epilogue;
  if (cols == 1) {
    alignas(16) float columns[3 * kNeonGemmMr];
    for (; tiles > 0; --tiles, a += a_step, c += c_step) {
      AsmColumnTile<1>(kc, a, b, columns);
      FinishColumns(columns, c, ldc, 1, epilogue);
      if (epilogue.row_bias != nullptr) epilogue.row_bias += kNeonGemmMr;
    }
    return;
  }
  const int64_t ldc_bytes = ldc * static_cast<int64_t>(sizeof(float));
  const bool accumulate = epilogue.accumulate;
  const bool clamp = epilogue.last && epilogue.activation == kTileActClamp;
  const float bounds[2] = {epilogue.lo, epilogue.hi};
  const bool clamp_hi = clamp && !(bounds[1] == std::numeric_limits<float>::infinity());
  const float* bias = accumulate ? nullptr : epilogue.row_bias;
  for (; tiles > 0; --tiles, a += a_step, c += c_step) {
    AsmNarrowTileToC<1>(kc, a, b, c, ldc_bytes, accumulate, bias, clamp, clamp_hi, bounds);
    if (bias != nullptr) bias += kNeonGemmMr;
  }
}

void NeonGemmRowTail(int rows, int64_t tiles, int64_t kc, const float* a, const float* b,
                     int64_t b_step, float* c, int64_t ldc, const TileEpilogue& epilogue) {
  const bool clamp = epilogue.last && epilogue.activation == kTileActClamp;
  const float bounds[2] = {epilogue.lo, epilogue.hi};
  const bool clamp_hi = clamp && !(bounds[1] == std::numeric_limits<float>::infinity());
  const bool from_c = epilogue.accumulate;
  const float* bias = from_c ? nullptr : epilogue.row_bias;
  const int64_t ldc_bytes = ldc * static_cast<int64_t>(sizeof(float));
  if (rows == 2) {
    for (; tiles > 0; --tiles, b += b_step, c += kNeonGemmNr) {
      AsmShortRowsToC<2>(kc, a, b, c, ldc_bytes, from_c, bias, nullptr, clamp, clamp_hi, bounds);
    }
  } else {
    for (; tiles > 0; --tiles, b += b_step, c += kNeonGemmNr) {
      AsmShortRowsToC<4>(kc, a, b, c, ldc_bytes, from_c, bias, nullptr, clamp, clamp_hi, bounds);
    }
  }
}

void NeonGemmNarrowPair(int64_t kc, const float* a, int64_t a_stride, const float* b, float* c,
                        int64_t ldc, bool accumulate) {
  AsmNarrowPairToC(kc, a, a_stride, b, c, ldc * static_cast<int64_t>(sizeof(float)), accumulate);
}

// The position loop sits here, next to the tiles, so that a position costs
// the loop's few instructions rather than a call through the table with an
// epilogue to build and test: SqueezeNet 1.1's Winograd layers made about
// 20,000 such calls per inference at 100-150 instructions of driver each.
void NeonWinogradGemms(int64_t positions, int64_t kc, const float* const* a, int64_t a_offset,
                       int64_t a_pair, const float* b, int64_t b_step, float* c, int64_t c_step,
                       int64_t ldc, int cols, bool accumulate) {
  const int64_t ldc_bytes = ldc * static_cast<int64_t>(sizeof(float));
  const float* const* const end = a + positions;
  if (a_pair != 0 && cols < 4) {
    for (; a != end; ++a, b += b_step, c += c_step) {
      if (cols == 1) {
        AsmColumnPairToC<1>(kc, *a + a_offset, a_pair, b, c, ldc_bytes, accumulate);
      } else if (cols == 2) {
        AsmColumnPairToC<2>(kc, *a + a_offset, a_pair, b, c, ldc_bytes, accumulate);
      } else {
        AsmColumnPairToC<3>(kc, *a + a_offset, a_pair, b, c, ldc_bytes, accumulate);
      }
    }
  } else if (a_pair != 0) {
    for (; a != end; ++a, b += b_step, c += c_step) {
      AsmNarrowPairToC(kc, *a + a_offset, a_pair, b, c, ldc_bytes, accumulate);
    }
  } else if (cols <= 4) {
    for (; a != end; ++a, b += b_step, c += c_step) {
      AsmNarrowTileToC<1>(kc, *a + a_offset, b, c, ldc_bytes, accumulate, nullptr, false, false,
                          nullptr);
    }
  } else if (cols <= 8) {
    for (; a != end; ++a, b += b_step, c += c_step) {
      AsmNarrowTileToC<2>(kc, *a + a_offset, b, c, ldc_bytes, accumulate, nullptr, false, false,
                          nullptr);
    }
  } else if (!accumulate && kc >= 4) {
    for (; a != end; ++a, b += b_step, c += c_step) {
      AsmTileFromZero(kc, *a + a_offset, b, c, ldc_bytes);
    }
  } else {
    for (; a != end; ++a, b += b_step, c += c_step) {
      AsmTile(kc, *a + a_offset, b, c, ldc_bytes, accumulate, nullptr, false, false, nullptr);
    }
  }
}

#undef MACE_ASM_ROW
#undef MACE_ASM_STEP
#undef MACE_ASM_STEP_ROWS
#undef MACE_ASM_ACC_FROM_BIAS
#undef MACE_ASM_CLAMP_STORE
#undef MACE_ASM_COL
#undef MACE_ASM_COL_OP
#undef MACE_ASM_COL0
#undef MACE_ASM_COL1
#undef MACE_ASM_COL2
#undef MACE_ASM_COL0_OP
#undef MACE_ASM_COL1_OP
#undef MACE_ASM_COL2_OP
#undef MACE_ASM_FOUR_STEPS
#undef MACE_ASM_FOUR_STEPS_FIRST
#undef MACE_ASM_TWO_STEPS

#else  // armv7

#define MACE_NEON_ROW(i, a_half, lane)                 \
  c##i##0 = vmlaq_lane_f32(c##i##0, b0, a_half, lane); \
  c##i##1 = vmlaq_lane_f32(c##i##1, b1, a_half, lane);

#define MACE_NEON_DECLARE(i) float32x4_t c##i##0 = vdupq_n_f32(0.f), c##i##1 = c##i##0;

// The tile's accumulators, and one step of the reduction: the 8 B values
// at b_row times each of the 6 A values at a, which then advances.
#define MACE_NEON_DECLARE_TILE \
  MACE_NEON_DECLARE(0)         \
  MACE_NEON_DECLARE(1)         \
  MACE_NEON_DECLARE(2) MACE_NEON_DECLARE(3) MACE_NEON_DECLARE(4) MACE_NEON_DECLARE(5)

#define MACE_NEON_STEP(b_row)                                                          \
  {                                                                                    \
    const float32x4_t b0 = vld1q_f32(b_row), b1 = vld1q_f32((b_row) + 4);              \
    const float32x4_t a03 = vld1q_f32(a);                                              \
    const float32x2_t a01 = vget_low_f32(a03), a23 = vget_high_f32(a03);               \
    const float32x2_t a45 = vld1_f32(a + 4);                                           \
    MACE_NEON_ROW(0, a01, 0)                                                           \
    MACE_NEON_ROW(1, a01, 1)                                                           \
    MACE_NEON_ROW(2, a23, 0)                                                           \
    MACE_NEON_ROW(3, a23, 1) MACE_NEON_ROW(4, a45, 0) MACE_NEON_ROW(5, a45, 1) a += 6; \
  }

// A column bias or hard-swish (neither comes from a plain convolution): the
// assembly from zero into a staging tile, then the C epilogue. Kept out of
// NeonGemm, whose common path then saves no NEON registers of its own.
__attribute__((noinline)) void StagedNeonGemm(int kc, const float* a, const float* b, float* c,
                                              int64_t ldc, const TileEpilogue& tile_epilogue) {
  // A copy whose address does not escape: the stores to C (NEON stores may
  // alias anything) cannot change it, so its fields are read once.
  const TileEpilogue epilogue = tile_epilogue;
  alignas(16) float tile[6 * 8];
  Armv7GemmTile6x8(kc, a, b, tile, 8 * sizeof(float), false, nullptr, false, false, nullptr);
  const float32x4_t acc[6][2] = {
      {vld1q_f32(tile), vld1q_f32(tile + 4)},       {vld1q_f32(tile + 8), vld1q_f32(tile + 12)},
      {vld1q_f32(tile + 16), vld1q_f32(tile + 20)}, {vld1q_f32(tile + 24), vld1q_f32(tile + 28)},
      {vld1q_f32(tile + 32), vld1q_f32(tile + 36)}, {vld1q_f32(tile + 40), vld1q_f32(tile + 44)}};
  StoreGemmTile(acc, c, ldc, epilogue);
}

// As on arm64, the assembly finishes the epilogue itself but for a
// hard-swish or both biases.
void NeonGemm(int64_t kc, const float* a, const float* b, float* c, int64_t ldc,
              const TileEpilogue& epilogue) {
  if (NeedsStaging(epilogue)) {
    return StagedNeonGemm(static_cast<int>(kc), a, b, c, ldc, epilogue);
  }
  const bool clamp = epilogue.last && epilogue.activation == kTileActClamp;
  const float bounds[2] = {epilogue.lo, epilogue.hi};
  const bool clamp_hi = clamp && !(bounds[1] == std::numeric_limits<float>::infinity());
  const int ldc_bytes = static_cast<int>(ldc * sizeof(float));
  if (epilogue.col_bias != nullptr) {
    return Armv7GemmColBiasRun6x8(1, static_cast<int>(kc), a, 0, b, 0, c, 0, ldc_bytes,
                                  epilogue.accumulate, epilogue.col_bias, 0, clamp, clamp_hi,
                                  bounds);
  }
  Armv7GemmTile6x8(static_cast<int>(kc), a, b, c, ldc_bytes, epilogue.accumulate,
                   epilogue.accumulate ? nullptr : epilogue.row_bias, clamp, clamp_hi, bounds);
}

namespace {

// Copies `rows` rows of `cols` floats: a whole tile row in two vector
// loads and stores, a narrower one float by float (no library call).
void CopyTileRows(const float* src, int64_t src_ld, float* dst, int64_t dst_ld, int rows,
                  int cols) {
  for (int i = 0; i < rows; ++i, src += src_ld, dst += dst_ld) {
    if (cols == kNeonGemmNr) {
      vst1q_f32(dst, vld1q_f32(src));
      vst1q_f32(dst + 4, vld1q_f32(src + 4));
    } else {
      for (int j = 0; j < cols; ++j) dst[j] = src[j];
    }
  }
}

}  // namespace

// A tile that sticks out of C: the full tile on a staging copy of the part
// of C, row and column bias it covers. The driver's generic staging took
// library memcpy and memset calls per row and per bias.
void NeonGemmPartial(int64_t kc, const float* a, const float* b, float* c, int64_t ldc, int rows,
                     int cols, const TileEpilogue& epilogue) {
  alignas(16) float tile[kNeonGemmMr * kNeonGemmNr];
  float row_bias[kNeonGemmMr] = {}, col_bias[kNeonGemmNr] = {};
  TileEpilogue staged = epilogue;
  staged.prefetch_a = nullptr;
  if (epilogue.accumulate) CopyTileRows(c, ldc, tile, kNeonGemmNr, rows, cols);
  if (epilogue.row_bias != nullptr) {
    for (int i = 0; i < rows; ++i) row_bias[i] = epilogue.row_bias[i];
    staged.row_bias = row_bias;
  }
  if (epilogue.col_bias != nullptr) {
    for (int j = 0; j < cols; ++j) col_bias[j] = epilogue.col_bias[j];
    staged.col_bias = col_bias;
  }
  NeonGemm(kc, a, b, tile, kNeonGemmNr, staged);
  CopyTileRows(tile, kNeonGemmNr, c, ldc, rows, cols);
}

void NeonGemmRun(int64_t tiles, int64_t kc, const float* a, int64_t a_step, const float* b,
                 int64_t b_step, float* c, int64_t c_step, int64_t ldc, int64_t row_bias_step,
                 int64_t col_bias_step, const TileEpilogue& epilogue) {
  if (NeedsStaging(epilogue)) {
    return StagedGemmRun(tiles, kc, a, a_step, b, b_step, c, c_step, ldc, row_bias_step,
                         col_bias_step, epilogue);
  }
  const bool clamp = epilogue.last && epilogue.activation == kTileActClamp;
  const float bounds[2] = {epilogue.lo, epilogue.hi};
  const bool clamp_hi = clamp && !(bounds[1] == std::numeric_limits<float>::infinity());
  const int ldc_bytes = static_cast<int>(ldc * sizeof(float));
  if (epilogue.col_bias != nullptr) {
    // A FullyConnected's bias: tile by tile, from the column bias.
    return Armv7GemmColBiasRun6x8(
        static_cast<int>(tiles), static_cast<int>(kc), a, static_cast<int>(a_step), b,
        static_cast<int>(b_step), c, static_cast<int>(c_step), ldc_bytes, epilogue.accumulate,
        epilogue.col_bias, static_cast<int>(col_bias_step), clamp, clamp_hi, bounds);
  }
  Armv7GemmRun6x8(static_cast<int>(tiles), static_cast<int>(kc), a, static_cast<int>(a_step), b,
                  static_cast<int>(b_step), c, static_cast<int>(c_step), ldc_bytes,
                  epilogue.accumulate, epilogue.accumulate ? nullptr : epilogue.row_bias,
                  static_cast<int>(row_bias_step), clamp, clamp_hi, bounds, 0);
}

#endif

namespace {

// Stores a direct convolution's finished tile (kMr x kNr accumulators):
// bias and the activation (fixed at compile time), then the first `rows`
// rows and `cols` columns of C. Edge tiles go through a staging row, since
// NEON has no masked store. The epilogue's fields come as values, so the
// stores to C cannot make GCC re-read them.
template <int kMr, int kNr, int kActivation>
void StoreConvTileAs(const float32x4_t (&acc)[kMr][kNr / 4], float* c, int64_t ldc, int rows,
                     int cols, const float* row_bias, const float* col_bias_in, float lo,
                     float hi) {
  constexpr int kVecs = kNr / 4;
  float col_bias[kNr] = {};
  if (col_bias_in != nullptr) {
    for (int j = 0; j < cols; ++j) col_bias[j] = col_bias_in[j];
  }
  TileEpilogue fixed;
  fixed.activation = kActivation;
  fixed.lo = lo;
  fixed.hi = hi;
  const float32x4_t zero = vdupq_n_f32(0.f);
  for (int i = 0; i < rows; ++i) {
    float* row = c + i * ldc;
    const float32x4_t rb = row_bias != nullptr ? vdupq_n_f32(row_bias[i]) : zero;
    float staged[kNr];
    float* out = cols == kNr ? row : staged;
#pragma GCC unroll 3
    for (int j = 0; j < kVecs; ++j) {
      vst1q_f32(out + 4 * j, (FinishAs<false, true, kActivation>(
                                 acc[i][j], nullptr, rb, vld1q_f32(col_bias + 4 * j), fixed)));
    }
    if (out == staged) {
      for (int j = 0; j < cols; ++j) row[j] = staged[j];
    }
  }
}

// One reduction block: bias and activation now, nothing added from C.
template <int kMr, int kNr>
void StoreConvTile(const float32x4_t (&acc)[kMr][kNr / 4], float* c, int64_t ldc, int rows,
                   int cols, const TileEpilogue& epilogue) {
  const float* row_bias = epilogue.row_bias;
  const float* col_bias = epilogue.col_bias;
  switch (epilogue.activation) {
    case kTileActClamp:
      return StoreConvTileAs<kMr, kNr, kTileActClamp>(acc, c, ldc, rows, cols, row_bias, col_bias,
                                                      epilogue.lo, epilogue.hi);
    case kTileActHardSwish:
      return StoreConvTileAs<kMr, kNr, kTileActHardSwish>(acc, c, ldc, rows, cols, row_bias,
                                                          col_bias, epilogue.lo, epilogue.hi);
    default:
      return StoreConvTileAs<kMr, kNr, kTileActNone>(acc, c, ldc, rows, cols, row_bias, col_bias,
                                                     epilogue.lo, epilogue.hi);
  }
}

}  // namespace

// A direct convolution's tile (ConvRowsMicroKernel): the GEMM kernel's
// step with B's k-th row read at base + offsets[k]. The accumulators are
// named registers, as in NeonGemm: written as arrays indexed in loops, GCC
// 12 kept them on the stack, and the stem of MobileNet v1 (2 % of its
// multiply-adds) executed 11 % of its instructions.
#if defined(__aarch64__)

namespace {

// An edge tile (through a staging tile whose first rows and cols are
// copied to C), or a column bias or hard-swish (from zero, then the C
// epilogue). Out of line, so that the whole tiles do not set up its frame.
[[gnu::noinline]] void ConvRowsStaged(int64_t kc, const float* a, const float* first,
                                      const int64_t* steps, float* c, int64_t ldc, int rows,
                                      int cols, const TileEpilogue& tile_epilogue) {
  const TileEpilogue epilogue = tile_epilogue;
  alignas(16) float tile[kNeonGemmMr * kNeonGemmNr];
  constexpr int64_t kTileBytes = kNeonGemmNr * sizeof(float);
  if (epilogue.col_bias == nullptr && epilogue.activation != kTileActHardSwish) {
    const bool clamp = epilogue.activation == kTileActClamp;
    const float bounds[2] = {epilogue.lo, epilogue.hi};
    const bool clamp_hi = clamp && !(bounds[1] == std::numeric_limits<float>::infinity());
    // The kernels read 8 biases: the tile's, then zeros.
    alignas(16) float bias[kNeonGemmMr] = {};
    const float* row_bias = epilogue.row_bias;
    if (row_bias != nullptr && rows < kNeonGemmMr) {
      for (int i = 0; i < rows; ++i) bias[i] = row_bias[i];
      row_bias = bias;
    }
    if (cols <= 8) {
      // The narrow tile, straight to C when it is exactly the tile's
      // rows and columns, else through a staging tile of its width.
      const int width = cols <= 4 ? 4 : 8;
      const bool direct = rows == kNeonGemmMr && cols == width;
      float* out = direct ? c : tile;
      const int64_t out_ld = direct ? ldc : width;
      const int64_t out_bytes = out_ld * static_cast<int64_t>(sizeof(float));
      if (width == 4) {
        AsmNarrowConvRows<1>(kc, a, first, steps, out, out_bytes, row_bias, clamp, clamp_hi,
                             bounds);
      } else {
        AsmNarrowConvRows<2>(kc, a, first, steps, out, out_bytes, row_bias, clamp, clamp_hi,
                             bounds);
      }
      if (!direct) {
        for (int i = 0; i < rows; ++i) {
          for (int j = 0; j < cols; ++j) c[i * ldc + j] = tile[i * width + j];
        }
      }
      return;
    }
    AsmConvRows(kc, a, first, steps, tile, kTileBytes, row_bias, clamp, clamp_hi, bounds);
    for (int i = 0; i < rows; ++i) {
      for (int j = 0; j < cols; ++j) c[i * ldc + j] = tile[i * kNeonGemmNr + j];
    }
    return;
  }
  AsmConvRows(kc, a, first, steps, tile, kTileBytes, nullptr, false, false, nullptr);
  float32x4_t acc[8][3];
  LoadTile(tile, acc);
  StoreConvTile<8, 12>(acc, c, ldc, rows, cols, epilogue);
}

}  // namespace

// A whole tile with a row bias and a clamp (every stem) goes straight to C
// from the assembly tile (AsmConvRows); the rest through ConvRowsStaged.
void NeonConvRowsStepped(int64_t kc, const float* a, const float* first, const int64_t* steps,
                         float* c, int64_t ldc, int rows, int cols, const TileEpilogue& epilogue) {
  if (rows != kNeonGemmMr || cols != kNeonGemmNr || epilogue.col_bias != nullptr ||
      epilogue.activation == kTileActHardSwish) {
    return ConvRowsStaged(kc, a, first, steps, c, ldc, rows, cols, epilogue);
  }
  const bool clamp = epilogue.activation == kTileActClamp;
  const float bounds[2] = {epilogue.lo, epilogue.hi};
  const bool clamp_hi = clamp && !(bounds[1] == std::numeric_limits<float>::infinity());
  AsmConvRows(kc, a, first, steps, c, ldc * static_cast<int64_t>(sizeof(float)),
              epilogue.row_bias, clamp, clamp_hi, bounds);
}

// `tiles` whole tiles along an output row, each 12 floats on from the one
// before it in B's rows and in C, under one set-up: a call per tile
// through the task loop and NeonConvRowsStepped cost some 60 instructions
// around the assembly tile, a tile here about 6. False, with nothing
// written, for what NeonConvRowsStepped stages.
bool NeonConvRowsRun(int64_t kc, const float* a, const float* first, const int64_t* steps,
                     bool steps_repeat9, float* c, int64_t ldc, int rows, int64_t tiles,
                     int* tail, const TileEpilogue& epilogue) {
  if (rows != kNeonGemmMr || epilogue.col_bias != nullptr ||
      epilogue.activation == kTileActHardSwish) {
    return false;
  }
  const float* row_bias = epilogue.row_bias;
  const bool clamp = epilogue.activation == kTileActClamp;
  const float bounds[2] = {epilogue.lo, epilogue.hi};
  const bool clamp_hi = clamp && !(bounds[1] == std::numeric_limits<float>::infinity());
  const int64_t ldc_bytes = ldc * static_cast<int64_t>(sizeof(float));
  if (row_bias != nullptr && tiles > 1) {
    // The bias widened once for the run's tiles (see AsmTile).
    alignas(16) float wide_bias[kNeonGemmMr * kNeonGemmNr];
    NeonWidenRowBias(row_bias, kNeonGemmMr, wide_bias);
    if (kc == 27 && steps_repeat9) {
      // The row's last 1 to 4 columns, if asked for, with the steps at
      // hand: through NeonConvRowsStepped 4 columns cost some 380
      // instructions, 1 to 3 (SqueezeNet 1.1's 111 = 9 x 12 + 3) about 480
      // with their staged copy. Fewer than 4 go through a staged 8 x 4 tile
      // (its reads are those of the 4-column tile, as the staged path's).
      const int cols = *tail;
      const float* tail_first = first + tiles * kNeonGemmNr;
      alignas(16) float staged[kNeonGemmMr * 4];
      float* tail_c = cols == 4 ? c + tiles * kNeonGemmNr : staged;
      const int64_t tail_bytes = cols == 4 ? ldc_bytes : 4 * sizeof(float);
      const ClampChoice choice =
          ChooseClamp(clamp, bounds[0], bounds[1], kLinksGemmUnclamped, kLinksGemmLowerClamp);
      const auto stem = [&](auto mode) {
        constexpr int kClamp = decltype(mode)::value;
        Stem27Run<kClamp>(a, first, steps, c, ldc_bytes, tiles, wide_bias, choice.bounds);
        if (cols > 0) {
          Stem27Narrow<kClamp>(a, tail_first, steps, tail_c, tail_bytes, row_bias, choice.bounds);
        }
      };
      if (choice.kind == kClampNone) {
        stem(std::integral_constant<int, kUnclampedMode>());
      } else if (choice.kind == kClampLo) {
        stem(std::integral_constant<int, kLowerClampMode>());
      } else {
        stem(std::integral_constant<int, kTileClampLoHi>());
      }
      if (cols > 0 && cols < 4) {
        float* dst = c + tiles * kNeonGemmNr;
        for (int i = 0; i < kNeonGemmMr; ++i, dst += ldc) {
          const float32x4_t v = vld1q_f32(staged + 4 * i);
          if (cols == 1) {
            vst1q_lane_f32(dst, v, 0);
          } else {
            vst1_f32(dst, vget_low_f32(v));
            if (cols == 3) vst1q_lane_f32(dst + 2, v, 2);
          }
        }
      }
      return true;
    }
    *tail = 0;
    for (; tiles > 0; --tiles, first += kNeonGemmNr, c += kNeonGemmNr) {
      AsmConvRows<true>(kc, a, first, steps, c, ldc_bytes, wide_bias, clamp, clamp_hi, bounds);
    }
    return true;
  }
  *tail = 0;
  for (; tiles > 0; --tiles, first += kNeonGemmNr, c += kNeonGemmNr) {
    AsmConvRows(kc, a, first, steps, c, ldc_bytes, row_bias, clamp, clamp_hi, bounds);
  }
  return true;
}

// The offsets form: the steps between consecutive offsets, then the
// stepped kernel (a direct convolution computes its steps once, in
// Conv2dDirect, and calls that).
void NeonConvRows(int64_t kc, const float* a, const float* base, const int64_t* offsets, float* c,
                  int64_t ldc, int rows, int cols, const TileEpilogue& epilogue) {
  if (kc <= 0) {
    return NeonConvRowsStepped(kc, a, base, nullptr, c, ldc, rows, cols, epilogue);
  }
  constexpr int64_t kMaxStackSteps = 256;
  int64_t stack_steps[kMaxStackSteps];
  std::vector<int64_t> heap_steps(kc > kMaxStackSteps ? kc : 0);
  int64_t* steps = kc > kMaxStackSteps ? heap_steps.data() : stack_steps;
  ConvRowSteps(offsets, kc, steps);
  NeonConvRowsStepped(kc, a, base + offsets[0], steps, c, ldc, rows, cols, epilogue);
}

#else  // armv7

void Armv7ConvRows(int kernel_w, int64_t kc, const float* a, const float* base,
                   const int64_t* offsets, float* c, int64_t ldc, int rows, int cols,
                   const TileEpilogue& epilogue) {
  if (epilogue.col_bias == nullptr && epilogue.activation != kTileActHardSwish) {
    // Kernel rows of a last channel tile of at most 4 rows run the 2- or
    // 4-row tile, the rest the 6-row one. Tiles with rows or columns
    // missing go through a staging tile (and their row bias through a
    // staging copy, since the assembly reads tile_rows of them). The
    // depth's remainders are by constants: a 64-bit or variable division
    // is a library call on armv7.
    const int depth = static_cast<int>(kc);
    const bool kernel_rows =
        depth > 0 && ((kernel_w == 3 && depth % 3 == 0) || (kernel_w == 7 && depth % 7 == 0));
    const int tile_rows = kernel_rows && rows <= 4 ? (rows <= 2 ? 2 : 4) : kNeonGemmMr;
    const bool full = rows == tile_rows && cols == kNeonGemmNr;
    alignas(16) float tile[kNeonGemmMr * kNeonGemmNr];
    float bias[kNeonGemmMr];
    const float* row_bias = epilogue.row_bias;
    if (row_bias != nullptr && rows < tile_rows) {
      for (int i = 0; i < tile_rows; ++i) bias[i] = i < rows ? row_bias[i] : 0.f;
      row_bias = bias;
    }
    const bool clamp = epilogue.activation == kTileActClamp;
    const float bounds[2] = {epilogue.lo, epilogue.hi};
    const bool clamp_hi = clamp && !(bounds[1] == std::numeric_limits<float>::infinity());
    float* out = full ? c : tile;
    const int out_bytes =
        full ? static_cast<int>(ldc * sizeof(float)) : kNeonGemmNr * sizeof(float);
    if (tile_rows < kNeonGemmMr) {
      Armv7ConvKernelRowsRun(tile_rows, 1, depth, kernel_w, a, base, offsets, out, out_bytes,
                             row_bias, clamp, clamp_hi, bounds, nullptr);
    } else if (!kernel_rows ||
               !Armv7ConvKernelRowsTile6x8(depth, kernel_w, a, base, offsets, out, out_bytes,
                                           row_bias, clamp, clamp_hi, bounds)) {
      Armv7ConvTile6x8(depth, a, base, offsets, out, out_bytes, row_bias, clamp, clamp_hi,
                       bounds);
    }
    if (!full) {
      // 4 to 8 columns a row are two vectors, the second ending at the
      // last column; a float at a time took about 3 instructions each (and
      // GCC turns such a loop into a memcpy call).
      for (int i = 0; i < rows; ++i) {
        const float* src = tile + i * kNeonGemmNr;
        float* dst = c + i * ldc;
        if (cols >= 4) {
          vst1q_f32(dst, vld1q_f32(src));
          vst1q_f32(dst + cols - 4, vld1q_f32(src + cols - 4));
        } else {
          dst[0] = src[0];
          if (cols > 1) dst[1] = src[1];
          if (cols > 2) dst[2] = src[2];
        }
      }
    }
    return;
  }
  MACE_NEON_DECLARE_TILE
  for (const int64_t* const end = offsets + kc; offsets != end; ++offsets) {
    MACE_NEON_STEP(base + *offsets)
  }
  const float32x4_t acc[6][2] = {{c00, c01}, {c10, c11}, {c20, c21},
                                 {c30, c31}, {c40, c41}, {c50, c51}};
  StoreConvTile<6, 8>(acc, c, ldc, rows, cols, epilogue);
}

bool Armv7ConvRowsRun(int kernel_w, int64_t kc, const float* a, const float* base,
                      const int64_t* offsets, float* c, int64_t ldc, int rows, int tiles,
                      const TileEpilogue& epilogue, const int32_t* chain, int out_rows,
                      int64_t row_b, int64_t row_c, int tail_back) {
  // What Armv7ConvRows runs on the kernel-rows tiles without staging.
  const int depth = static_cast<int>(kc);
  const bool kernel_rows =
      depth > 0 && ((kernel_w == 3 && depth % 3 == 0) || (kernel_w == 7 && depth % 7 == 0));
  if (!kernel_rows || epilogue.col_bias != nullptr || epilogue.activation == kTileActHardSwish ||
      !(rows == 2 || rows == 4 || rows == kNeonGemmMr)) {
    return false;
  }
  const bool clamp = epilogue.activation == kTileActClamp;
  const float bounds[2] = {epilogue.lo, epilogue.hi};
  const bool clamp_hi = clamp && !(bounds[1] == std::numeric_limits<float>::infinity());
  const int ldc_bytes = static_cast<int>(ldc * sizeof(float));
  if (out_rows == 1 && tail_back == 0) {
    return Armv7ConvKernelRowsRun(rows, tiles, depth, kernel_w, a, base, offsets, c, ldc_bytes,
                                  epilogue.row_bias, clamp, clamp_hi, bounds, chain);
  }
  // The rows' steps in floats, from 32-bit registers.
  constexpr int64_t kLimit = INT32_MAX / 2;
  if (row_b <= -kLimit || row_b >= kLimit || row_c <= -kLimit || row_c >= kLimit) return false;
  return Armv7ConvKernelRowsRows(rows, out_rows, tiles, tail_back, static_cast<int>(row_b),
                                 static_cast<int>(row_c), depth, kernel_w, a, base, offsets, c,
                                 ldc_bytes, epilogue.row_bias, clamp, clamp_hi, bounds, chain);
}

void NeonConvRows(int64_t kc, const float* a, const float* base, const int64_t* offsets, float* c,
                  int64_t ldc, int rows, int cols, const TileEpilogue& epilogue) {
  Armv7ConvRows(0, kc, a, base, offsets, c, ldc, rows, cols, epilogue);
}

#endif

#undef MACE_NEON_ROW
#undef MACE_NEON_DECLARE
#undef MACE_NEON_DECLARE_TILE
#undef MACE_NEON_STEP

}  // namespace arm
}  // namespace ops
}  // namespace mace

#endif  // __aarch64__ || __ARM_NEON
