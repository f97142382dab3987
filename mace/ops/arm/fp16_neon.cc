// Half-precision NEON kernels (FEAT_FP16: fmla on .8h). Built with
// -march=armv8.2-a+fp16 and called only after the HWCAP check, so nothing
// here may be inlined into baseline code: every helper is static.
#include <arm_neon.h>

#include <algorithm>
#include <type_traits>

#include "mace/ops/arm/fp16_neon_kernels.h"
#include "mace/ops/arm/neon_epilogue.h"

namespace mace {
namespace ops {
namespace arm {
namespace {

// Partial sums of the matrix-vector product stay in half precision for at
// most this many steps before they are added in single precision.
constexpr int64_t kDotChunk = 64;

// What a tile does around its reduction, fixed per call so that the loops
// hold no branches. The first block of a reduction starts its sums at the
// row bias (in half precision); later blocks add their sums to C, in single
// precision when C holds floats and in half precision when it holds halves.
// The last block applies the activation: kActHalf clamps in half precision
// (bounds that are half values, on half sums: the same as clamping after
// the conversion), kActFloat in single precision.
enum TileAct { kActNone, kActHalf, kActFloat };

// The reduction of the full 8 x 24 tile in assembly: accumulator (r, v)
// (row r, columns 8v..8v+7, in v[8 + 3r + v]) = init[r] + the kc products.
// A loop trip is 16 steps: per 4 steps one load of A (four vectors), per
// step one load of B (three vectors) and 24 by-element fmla, then subs and
// branch: 406 instructions for 384 fmla (GCC's schedule of the 4-step loop
// spent 108 for 96); then 8 steps once if kc & 8, then single steps. A sits in v0-v3 (the .h by-element form takes
// v0-v15), B in v4-v6. Each B load feeds the next fmla: fewest
// instructions rather than load-to-use distance.
// One reduction step: accumulator row r (v[8 + 3r] to v[10 + 3r]) plus B
// (v4-v6) times lane r of A's register v<a>.
#define MACE_FP16_ASM_STEP(a) \
  "fmla v8.8h, v4.8h, v" a ".h[0]\n" \
  "fmla v9.8h, v5.8h, v" a ".h[0]\n" \
  "fmla v10.8h, v6.8h, v" a ".h[0]\n" \
  "fmla v11.8h, v4.8h, v" a ".h[1]\n" \
  "fmla v12.8h, v5.8h, v" a ".h[1]\n" \
  "fmla v13.8h, v6.8h, v" a ".h[1]\n" \
  "fmla v14.8h, v4.8h, v" a ".h[2]\n" \
  "fmla v15.8h, v5.8h, v" a ".h[2]\n" \
  "fmla v16.8h, v6.8h, v" a ".h[2]\n" \
  "fmla v17.8h, v4.8h, v" a ".h[3]\n" \
  "fmla v18.8h, v5.8h, v" a ".h[3]\n" \
  "fmla v19.8h, v6.8h, v" a ".h[3]\n" \
  "fmla v20.8h, v4.8h, v" a ".h[4]\n" \
  "fmla v21.8h, v5.8h, v" a ".h[4]\n" \
  "fmla v22.8h, v6.8h, v" a ".h[4]\n" \
  "fmla v23.8h, v4.8h, v" a ".h[5]\n" \
  "fmla v24.8h, v5.8h, v" a ".h[5]\n" \
  "fmla v25.8h, v6.8h, v" a ".h[5]\n" \
  "fmla v26.8h, v4.8h, v" a ".h[6]\n" \
  "fmla v27.8h, v5.8h, v" a ".h[6]\n" \
  "fmla v28.8h, v6.8h, v" a ".h[6]\n" \
  "fmla v29.8h, v4.8h, v" a ".h[7]\n" \
  "fmla v30.8h, v5.8h, v" a ".h[7]\n" \
  "fmla v31.8h, v6.8h, v" a ".h[7]\n"
// Four steps: one load of A's four vectors, then per step B's three.
#define MACE_FP16_ASM_4STEPS \
  "ld1 {v0.8h, v1.8h, v2.8h, v3.8h}, [%[a]], #64\n" \
  "ld1 {v4.8h, v5.8h, v6.8h}, [%[b]], #48\n" \
  MACE_FP16_ASM_STEP("0") \
  "ld1 {v4.8h, v5.8h, v6.8h}, [%[b]], #48\n" \
  MACE_FP16_ASM_STEP("1") \
  "ld1 {v4.8h, v5.8h, v6.8h}, [%[b]], #48\n" \
  MACE_FP16_ASM_STEP("2") \
  "ld1 {v4.8h, v5.8h, v6.8h}, [%[b]], #48\n" \
  MACE_FP16_ASM_STEP("3")
#define MACE_FP16_REDUCE8X24 \
  "ld1 {v0.8h}, [%[init]]\n" \
  "dup v8.8h, v0.h[0]\n" \
  "dup v9.8h, v0.h[0]\n" \
  "dup v10.8h, v0.h[0]\n" \
  "dup v11.8h, v0.h[1]\n" \
  "dup v12.8h, v0.h[1]\n" \
  "dup v13.8h, v0.h[1]\n" \
  "dup v14.8h, v0.h[2]\n" \
  "dup v15.8h, v0.h[2]\n" \
  "dup v16.8h, v0.h[2]\n" \
  "dup v17.8h, v0.h[3]\n" \
  "dup v18.8h, v0.h[3]\n" \
  "dup v19.8h, v0.h[3]\n" \
  "dup v20.8h, v0.h[4]\n" \
  "dup v21.8h, v0.h[4]\n" \
  "dup v22.8h, v0.h[4]\n" \
  "dup v23.8h, v0.h[5]\n" \
  "dup v24.8h, v0.h[5]\n" \
  "dup v25.8h, v0.h[5]\n" \
  "dup v26.8h, v0.h[6]\n" \
  "dup v27.8h, v0.h[6]\n" \
  "dup v28.8h, v0.h[6]\n" \
  "dup v29.8h, v0.h[7]\n" \
  "dup v30.8h, v0.h[7]\n" \
  "dup v31.8h, v0.h[7]\n" \
  "cbz %[groups], 2f\n" \
  "1:\n" \
  MACE_FP16_ASM_4STEPS \
  MACE_FP16_ASM_4STEPS \
  MACE_FP16_ASM_4STEPS \
  MACE_FP16_ASM_4STEPS \
  "subs %[groups], %[groups], #1\n" \
  "b.ne 1b\n" \
  "2:\n" \
  "tbz %[rest], #3, 5f\n" \
  MACE_FP16_ASM_4STEPS \
  MACE_FP16_ASM_4STEPS \
  "5:\n" \
  "ands %[rest], %[rest], #7\n" \
  "b.eq 4f\n" \
  "3:\n" \
  "ld1 {v0.8h}, [%[a]], #16\n" \
  "ld1 {v4.8h, v5.8h, v6.8h}, [%[b]], #48\n" \
  MACE_FP16_ASM_STEP("0") \
  "subs %[rest], %[rest], #1\n" \
  "b.ne 3b\n" \
  "4:\n"
// The accumulators to 24 vectors at out.
#define MACE_FP16_STORE_SUMS \
  "st1 {v8.8h, v9.8h, v10.8h, v11.8h}, [%[out]], #64\n" \
  "st1 {v12.8h, v13.8h, v14.8h, v15.8h}, [%[out]], #64\n" \
  "st1 {v16.8h, v17.8h, v18.8h, v19.8h}, [%[out]], #64\n" \
  "st1 {v20.8h, v21.8h, v22.8h, v23.8h}, [%[out]], #64\n" \
  "st1 {v24.8h, v25.8h, v26.8h, v27.8h}, [%[out]], #64\n" \
  "st1 {v28.8h, v29.8h, v30.8h, v31.8h}, [%[out]], #64\n"
// The accumulators clamped to [bounds[0], bounds[8]] (vectors of 8).
#define MACE_FP16_CLAMP \
  "ld1 {v0.8h, v1.8h}, [%[bounds]]\n" \
  "fmax v8.8h, v8.8h, v0.8h\n" \
  "fmax v9.8h, v9.8h, v0.8h\n" \
  "fmax v10.8h, v10.8h, v0.8h\n" \
  "fmax v11.8h, v11.8h, v0.8h\n" \
  "fmax v12.8h, v12.8h, v0.8h\n" \
  "fmax v13.8h, v13.8h, v0.8h\n" \
  "fmax v14.8h, v14.8h, v0.8h\n" \
  "fmax v15.8h, v15.8h, v0.8h\n" \
  "fmax v16.8h, v16.8h, v0.8h\n" \
  "fmax v17.8h, v17.8h, v0.8h\n" \
  "fmax v18.8h, v18.8h, v0.8h\n" \
  "fmax v19.8h, v19.8h, v0.8h\n" \
  "fmax v20.8h, v20.8h, v0.8h\n" \
  "fmax v21.8h, v21.8h, v0.8h\n" \
  "fmax v22.8h, v22.8h, v0.8h\n" \
  "fmax v23.8h, v23.8h, v0.8h\n" \
  "fmax v24.8h, v24.8h, v0.8h\n" \
  "fmax v25.8h, v25.8h, v0.8h\n" \
  "fmax v26.8h, v26.8h, v0.8h\n" \
  "fmax v27.8h, v27.8h, v0.8h\n" \
  "fmax v28.8h, v28.8h, v0.8h\n" \
  "fmax v29.8h, v29.8h, v0.8h\n" \
  "fmax v30.8h, v30.8h, v0.8h\n" \
  "fmax v31.8h, v31.8h, v0.8h\n" \
  "fmin v8.8h, v8.8h, v1.8h\n" \
  "fmin v9.8h, v9.8h, v1.8h\n" \
  "fmin v10.8h, v10.8h, v1.8h\n" \
  "fmin v11.8h, v11.8h, v1.8h\n" \
  "fmin v12.8h, v12.8h, v1.8h\n" \
  "fmin v13.8h, v13.8h, v1.8h\n" \
  "fmin v14.8h, v14.8h, v1.8h\n" \
  "fmin v15.8h, v15.8h, v1.8h\n" \
  "fmin v16.8h, v16.8h, v1.8h\n" \
  "fmin v17.8h, v17.8h, v1.8h\n" \
  "fmin v18.8h, v18.8h, v1.8h\n" \
  "fmin v19.8h, v19.8h, v1.8h\n" \
  "fmin v20.8h, v20.8h, v1.8h\n" \
  "fmin v21.8h, v21.8h, v1.8h\n" \
  "fmin v22.8h, v22.8h, v1.8h\n" \
  "fmin v23.8h, v23.8h, v1.8h\n" \
  "fmin v24.8h, v24.8h, v1.8h\n" \
  "fmin v25.8h, v25.8h, v1.8h\n" \
  "fmin v26.8h, v26.8h, v1.8h\n" \
  "fmin v27.8h, v27.8h, v1.8h\n" \
  "fmin v28.8h, v28.8h, v1.8h\n" \
  "fmin v29.8h, v29.8h, v1.8h\n" \
  "fmin v30.8h, v30.8h, v1.8h\n" \
  "fmin v31.8h, v31.8h, v1.8h\n"
// The accumulators to 8 rows of halves at out, ldc bytes apart.
#define MACE_FP16_STORE_ROWS \
  "st1 {v8.8h, v9.8h, v10.8h}, [%[out]], %[ldc]\n" \
  "st1 {v11.8h, v12.8h, v13.8h}, [%[out]], %[ldc]\n" \
  "st1 {v14.8h, v15.8h, v16.8h}, [%[out]], %[ldc]\n" \
  "st1 {v17.8h, v18.8h, v19.8h}, [%[out]], %[ldc]\n" \
  "st1 {v20.8h, v21.8h, v22.8h}, [%[out]], %[ldc]\n" \
  "st1 {v23.8h, v24.8h, v25.8h}, [%[out]], %[ldc]\n" \
  "st1 {v26.8h, v27.8h, v28.8h}, [%[out]], %[ldc]\n" \
  "st1 {v29.8h, v30.8h, v31.8h}, [%[out]], %[ldc]\n"

// C's 8 rows of halves at cin (ldc bytes apart) added to the accumulators
// (sums + C, in half precision), two rows a load pair.
#define MACE_FP16_ADD_ROW_PAIR(r0, r1, r2, r3, r4, r5) \
  "ld1 {v0.8h, v1.8h, v2.8h}, [%[cin]], %[ldc]\n" \
  "ld1 {v3.8h, v4.8h, v5.8h}, [%[cin]], %[ldc]\n" \
  "fadd v" r0 ".8h, v" r0 ".8h, v0.8h\n" \
  "fadd v" r1 ".8h, v" r1 ".8h, v1.8h\n" \
  "fadd v" r2 ".8h, v" r2 ".8h, v2.8h\n" \
  "fadd v" r3 ".8h, v" r3 ".8h, v3.8h\n" \
  "fadd v" r4 ".8h, v" r4 ".8h, v4.8h\n" \
  "fadd v" r5 ".8h, v" r5 ".8h, v5.8h\n"
#define MACE_FP16_ADD_ROWS \
  MACE_FP16_ADD_ROW_PAIR("8", "9", "10", "11", "12", "13") \
  MACE_FP16_ADD_ROW_PAIR("14", "15", "16", "17", "18", "19") \
  MACE_FP16_ADD_ROW_PAIR("20", "21", "22", "23", "24", "25") \
  MACE_FP16_ADD_ROW_PAIR("26", "27", "28", "29", "30", "31")

// Where Reduce8x24 puts the sums: 24 vectors at `out` (kSumsOut), or
// halves straight into C's 8 rows (ldc bytes apart), clamped to `bounds`
// or not, with C's halves added first (kAdd...) or not.
enum ReduceOut {
  kSumsOut,
  kHalfRowsOut,
  kClampedHalfRowsOut,
  kAddHalfRowsOut,
  kClampedAddHalfRowsOut
};

template <ReduceOut kOut>
static inline __attribute__((always_inline)) void Reduce8x24(int64_t kc, const float16_t* a,
                                                             const float16_t* b,
                                                             const float16_t* init, void* out,
                                                             int64_t ldc_bytes,
                                                             const float16_t* bounds) {
  int64_t groups = kc >> 4, rest = kc & 15;  // kc >= 0
  const void* cin = out;  // C read back by the kAdd... forms
#define MACE_FP16_OPERANDS                                                                  \
  : [a] "+r"(a), [b] "+r"(b), [groups] "+r"(groups), [rest] "+r"(rest), [out] "+r"(out),  \
    [cin] "+r"(cin)                                                                         \
  : [init] "r"(init), [ldc] "r"(ldc_bytes), [bounds] "r"(bounds)                          \
  : "cc", "memory", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10",    \
    "v11", "v12", "v13", "v14", "v15", "v16", "v17", "v18", "v19", "v20", "v21", "v22",   \
    "v23", "v24", "v25", "v26", "v27", "v28", "v29", "v30", "v31"
  if constexpr (kOut == kSumsOut) {
    asm volatile(MACE_FP16_REDUCE8X24 MACE_FP16_STORE_SUMS MACE_FP16_OPERANDS);
  } else if constexpr (kOut == kHalfRowsOut) {
    asm volatile(MACE_FP16_REDUCE8X24 MACE_FP16_STORE_ROWS MACE_FP16_OPERANDS);
  } else if constexpr (kOut == kClampedHalfRowsOut) {
    asm volatile(MACE_FP16_REDUCE8X24 MACE_FP16_CLAMP MACE_FP16_STORE_ROWS MACE_FP16_OPERANDS);
  } else if constexpr (kOut == kAddHalfRowsOut) {
    asm volatile(MACE_FP16_REDUCE8X24 MACE_FP16_ADD_ROWS MACE_FP16_STORE_ROWS
                     MACE_FP16_OPERANDS);
  } else {
    asm volatile(MACE_FP16_REDUCE8X24 MACE_FP16_ADD_ROWS MACE_FP16_CLAMP MACE_FP16_STORE_ROWS
                     MACE_FP16_OPERANDS);
  }
#undef MACE_FP16_OPERANDS
}

// Byte indices for tbl that spread 8 halves b0..b7 to b0 b0 b0 b1 b1 b1 ...
// b7 b7 b7 (three vectors): then each ld4r of four of them fills four
// accumulators, six ld4r all 24 (instead of 24 dup).
struct BiasSpreadIndex {
  uint8_t bytes[48];
};
constexpr BiasSpreadIndex MakeBiasSpreadIndex() {
  BiasSpreadIndex index{};
  for (int i = 0; i < 48; ++i) index.bytes[i] = static_cast<uint8_t>(2 * (i / 2 / 3) + i % 2);
  return index;
}
constexpr BiasSpreadIndex kBiasSpreadIndex = MakeBiasSpreadIndex();

// HalfRows' first-block forms with every panel in one assembly loop: the
// same reduction and store as Reduce8x24<kHalfRowsOut or
// kClampedHalfRowsOut>, with the accumulators started from the row bias
// by six ld4r of its spread copy (15 instructions a panel where the
// conversion and 24 dup took 27) and no call or reload between panels. The
// short reductions of 1x1 layers with few input channels (16 to 32 steps,
// about 400 fmla a tile) felt those 40 instructions. `bias` holds 8 floats
// a panel, bias_step bytes apart (0: the same 8 for every panel).
template <bool kClamp>
static void HalfRowsPanels(int64_t kc, const float16_t* a, int64_t a_skip_bytes,
                           const float16_t* b_panel, const float* bias, int64_t bias_step,
                           float16_t* out, int64_t ldc_bytes, int64_t panels,
                           const float16_t* bounds) {
  float16_t spread[24];
  // Set by the assembly: early clobbers, so that none shares an input's
  // register.
  const float16_t* b;
  const float16_t* spread_at;
  int64_t groups, rest;
#define MACE_FP16_PANEL_START                                  \
  "0:\n"                                                       \
  "ld1 {v0.4s, v1.4s}, [%[bias]], %[bias_step]\n"              \
  "ld1 {v4.16b, v5.16b, v6.16b}, [%[index]]\n"                 \
  "fcvtn v0.4h, v0.4s\n"                                       \
  "fcvtn2 v0.8h, v1.4s\n"                                      \
  "tbl v1.16b, {v0.16b}, v4.16b\n"                             \
  "tbl v2.16b, {v0.16b}, v5.16b\n"                             \
  "tbl v3.16b, {v0.16b}, v6.16b\n"                             \
  "mov %[at], %[spread]\n"                                     \
  "st1 {v1.8h, v2.8h, v3.8h}, [%[at]]\n"                       \
  "ld4r {v8.8h, v9.8h, v10.8h, v11.8h}, [%[at]], #8\n"         \
  "ld4r {v12.8h, v13.8h, v14.8h, v15.8h}, [%[at]], #8\n"       \
  "ld4r {v16.8h, v17.8h, v18.8h, v19.8h}, [%[at]], #8\n"       \
  "ld4r {v20.8h, v21.8h, v22.8h, v23.8h}, [%[at]], #8\n"       \
  "ld4r {v24.8h, v25.8h, v26.8h, v27.8h}, [%[at]], #8\n"       \
  "ld4r {v28.8h, v29.8h, v30.8h, v31.8h}, [%[at]]\n"           \
  "lsr %[groups], %[kc], #4\n"                                 \
  "mov %[b], %[b_panel]\n"                                     \
  "cbz %[groups], 2f\n"                                        \
  "1:\n" MACE_FP16_ASM_4STEPS MACE_FP16_ASM_4STEPS MACE_FP16_ASM_4STEPS \
  MACE_FP16_ASM_4STEPS                                         \
  "subs %[groups], %[groups], #1\n"                            \
  "b.ne 1b\n"                                                  \
  "2:\n"                                                       \
  "tbz %[kc], #3, 5f\n" MACE_FP16_ASM_4STEPS MACE_FP16_ASM_4STEPS \
  "5:\n"                                                       \
  "ands %[rest], %[kc], #7\n"                                  \
  "b.eq 4f\n"                                                  \
  "3:\n"                                                       \
  "ld1 {v0.8h}, [%[a]], #16\n"                                 \
  "ld1 {v4.8h, v5.8h, v6.8h}, [%[b]], #48\n" MACE_FP16_ASM_STEP("0") \
  "subs %[rest], %[rest], #1\n"                                \
  "b.ne 3b\n"                                                  \
  "4:\n"
#define MACE_FP16_PANEL_END                                                                   \
  MACE_FP16_STORE_ROWS                                                                        \
  "add %[a], %[a], %[a_skip]\n"                                                               \
  "subs %[panels], %[panels], #1\n"                                                           \
  "b.ne 0b\n"                                                                                 \
  : [a] "+r"(a), [out] "+r"(out), [bias] "+r"(bias), [panels] "+r"(panels), [b] "=&r"(b),    \
    [groups] "=&r"(groups), [rest] "=&r"(rest), [at] "=&r"(spread_at)                         \
  : [kc] "r"(kc), [a_skip] "r"(a_skip_bytes), [b_panel] "r"(b_panel), [ldc] "r"(ldc_bytes),   \
    [bias_step] "r"(bias_step), [index] "r"(kBiasSpreadIndex.bytes), [spread] "r"(spread),    \
    [bounds] "r"(bounds)                                                                      \
  : "cc", "memory", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", \
    "v12", "v13", "v14", "v15", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23",      \
    "v24", "v25", "v26", "v27", "v28", "v29", "v30", "v31"
  if constexpr (kClamp) {
    asm volatile(MACE_FP16_PANEL_START MACE_FP16_CLAMP MACE_FP16_PANEL_END);
  } else {
    asm volatile(MACE_FP16_PANEL_START MACE_FP16_PANEL_END);
  }
#undef MACE_FP16_PANEL_START
#undef MACE_FP16_PANEL_END
}
#undef MACE_FP16_ADD_ROWS
#undef MACE_FP16_ADD_ROW_PAIR
#undef MACE_FP16_REDUCE8X24
#undef MACE_FP16_ASM_STEP
#undef MACE_FP16_ASM_4STEPS
#undef MACE_FP16_STORE_SUMS
#undef MACE_FP16_CLAMP
#undef MACE_FP16_STORE_ROWS

// The reduction of the 8 x (8 * kVecs) tile: Reduce8x24, or for the 8 x 8
// and 8 x 16 tiles (kVecs 1 or 2) this assembly in Reduce8x24's loop: accumulator (r, v) in v[16 + 2r + v], A in v0-v3,
// B in v4 (and v5), a B panel step still kFp16GemmNr halves. Per 16 steps
// 4 loads of A, 16 of B, 128 * kVecs fmla, subs and branch: 278
// instructions for the 256 fmla of 8 x 16 (GCC's intrinsics spent 292 and
// 164 for the 128 of 8 x 8, here 150). The same forms of output.
// `two` with two vectors a row, `one` with one.
#define MACE_FP16_BY_VECS(two, one) ".if %c[vecs] > 1\n" two "\n.else\n" one "\n.endif\n"
#define MACE_FP16_IF_TWO(insn) ".if %c[vecs] > 1\n" insn "\n.endif\n"
// OP(lane, x, y, arg) for the 8 rows: row `lane` of A, accumulators v<x>
// and v<y>.
#define MACE_FP16_EACH_ROW(OP, arg)                                              \
  OP("0", "16", "17", arg) OP("1", "18", "19", arg) OP("2", "20", "21", arg)     \
  OP("3", "22", "23", arg) OP("4", "24", "25", arg) OP("5", "26", "27", arg)     \
  OP("6", "28", "29", arg) OP("7", "30", "31", arg)
#define MACE_FP16_V_FMLA(lane, x, y, a)                      \
  "fmla v" x ".8h, v4.8h, v" a ".h[" lane "]\n"              \
  MACE_FP16_IF_TWO("fmla v" y ".8h, v5.8h, v" a ".h[" lane "]")
#define MACE_FP16_V_STEP(a)                                                              \
  MACE_FP16_BY_VECS("ld1 {v4.8h, v5.8h}, [%[b]], %[b_step]", "ld1 {v4.8h}, [%[b]], %[b_step]") \
  MACE_FP16_EACH_ROW(MACE_FP16_V_FMLA, a)
#define MACE_FP16_V_4STEPS                          \
  "ld1 {v0.8h, v1.8h, v2.8h, v3.8h}, [%[a]], #64\n" \
  MACE_FP16_V_STEP("0") MACE_FP16_V_STEP("1") MACE_FP16_V_STEP("2") MACE_FP16_V_STEP("3")
#define MACE_FP16_V_DUP(lane, x, y, unused) \
  "dup v" x ".8h, v0.h[" lane "]\n" MACE_FP16_IF_TWO("dup v" y ".8h, v0.h[" lane "]")
#define MACE_FP16_V_REDUCE                                                   \
  "ld1 {v0.8h}, [%[init]]\n" MACE_FP16_EACH_ROW(MACE_FP16_V_DUP, )          \
  "cbz %[groups], 2f\n"                                                      \
  "1:\n" MACE_FP16_V_4STEPS MACE_FP16_V_4STEPS MACE_FP16_V_4STEPS MACE_FP16_V_4STEPS \
  "subs %[groups], %[groups], #1\n"                                          \
  "b.ne 1b\n"                                                                \
  "2:\n"                                                                     \
  "tbz %[rest], #3, 5f\n" MACE_FP16_V_4STEPS MACE_FP16_V_4STEPS              \
  "5:\n"                                                                     \
  "ands %[rest], %[rest], #7\n"                                              \
  "b.eq 4f\n"                                                                \
  "3:\n"                                                                     \
  "ld1 {v0.8h}, [%[a]], #16\n" MACE_FP16_V_STEP("0")                         \
  "subs %[rest], %[rest], #1\n"                                              \
  "b.ne 3b\n"                                                                \
  "4:\n"
#define MACE_FP16_V_SUMS(lane, x, y, unused) \
  MACE_FP16_BY_VECS("st1 {v" x ".8h, v" y ".8h}, [%[out]], #32", "st1 {v" x ".8h}, [%[out]], #16")
#define MACE_FP16_V_ROWS(lane, x, y, unused)                      \
  MACE_FP16_BY_VECS("st1 {v" x ".8h, v" y ".8h}, [%[out]], %[ldc]", \
                    "st1 {v" x ".8h}, [%[out]], %[ldc]")
#define MACE_FP16_V_ADD(lane, x, y, unused)                                                 \
  MACE_FP16_BY_VECS("ld1 {v0.8h, v1.8h}, [%[cin]], %[ldc]", "ld1 {v0.8h}, [%[cin]], %[ldc]") \
  "fadd v" x ".8h, v" x ".8h, v0.8h\n" MACE_FP16_IF_TWO("fadd v" y ".8h, v" y ".8h, v1.8h")
#define MACE_FP16_V_CLAMP(lane, x, y, unused)                                       \
  "fmax v" x ".8h, v" x ".8h, v0.8h\n" MACE_FP16_IF_TWO("fmax v" y ".8h, v" y ".8h, v0.8h") \
  "fmin v" x ".8h, v" x ".8h, v1.8h\n" MACE_FP16_IF_TWO("fmin v" y ".8h, v" y ".8h, v1.8h")

template <int kVecs, ReduceOut kOut>
static inline __attribute__((always_inline)) void ReduceTile(int64_t kc, const float16_t* a,
                                                             const float16_t* b,
                                                             const float16_t* init, void* out,
                                                             int64_t ldc_bytes,
                                                             const float16_t* bounds) {
  static_assert(kVecs >= 1 && kVecs <= 3, "8, 16 or 24 columns");
  if constexpr (kVecs == 3) {
    Reduce8x24<kOut>(kc, a, b, init, out, ldc_bytes, bounds);
    return;
  }
  int64_t groups = kc >> 4, rest = kc & 15;  // kc >= 0
  const void* cin = out;
  const int64_t b_step = kFp16GemmNr * static_cast<int64_t>(sizeof(float16_t));
#define MACE_FP16_OPERANDS                                                                    \
  : [a] "+r"(a), [b] "+r"(b), [groups] "+r"(groups), [rest] "+r"(rest), [out] "+r"(out),    \
    [cin] "+r"(cin)                                                                           \
  : [init] "r"(init), [ldc] "r"(ldc_bytes), [bounds] "r"(bounds), [b_step] "r"(b_step),     \
    [vecs] "i"(kVecs)                                                                         \
  : "cc", "memory", "v0", "v1", "v2", "v3", "v4", "v5", "v16", "v17", "v18", "v19", "v20",  \
    "v21", "v22", "v23", "v24", "v25", "v26", "v27", "v28", "v29", "v30", "v31"
#define MACE_FP16_V_BOUNDS "ld1 {v0.8h, v1.8h}, [%[bounds]]\n"
  if constexpr (kOut == kSumsOut) {
    asm volatile(MACE_FP16_V_REDUCE MACE_FP16_EACH_ROW(MACE_FP16_V_SUMS, ) MACE_FP16_OPERANDS);
  } else if constexpr (kOut == kHalfRowsOut) {
    asm volatile(MACE_FP16_V_REDUCE MACE_FP16_EACH_ROW(MACE_FP16_V_ROWS, ) MACE_FP16_OPERANDS);
  } else if constexpr (kOut == kClampedHalfRowsOut) {
    asm volatile(MACE_FP16_V_REDUCE MACE_FP16_V_BOUNDS MACE_FP16_EACH_ROW(MACE_FP16_V_CLAMP, )
                     MACE_FP16_EACH_ROW(MACE_FP16_V_ROWS, ) MACE_FP16_OPERANDS);
  } else if constexpr (kOut == kAddHalfRowsOut) {
    asm volatile(MACE_FP16_V_REDUCE MACE_FP16_EACH_ROW(MACE_FP16_V_ADD, )
                     MACE_FP16_EACH_ROW(MACE_FP16_V_ROWS, ) MACE_FP16_OPERANDS);
  } else {
    asm volatile(MACE_FP16_V_REDUCE MACE_FP16_EACH_ROW(MACE_FP16_V_ADD, ) MACE_FP16_V_BOUNDS
                     MACE_FP16_EACH_ROW(MACE_FP16_V_CLAMP, ) MACE_FP16_EACH_ROW(MACE_FP16_V_ROWS, )
                         MACE_FP16_OPERANDS);
  }
#undef MACE_FP16_V_BOUNDS
#undef MACE_FP16_OPERANDS
}
#undef MACE_FP16_V_CLAMP
#undef MACE_FP16_V_ADD
#undef MACE_FP16_V_ROWS
#undef MACE_FP16_V_SUMS
#undef MACE_FP16_V_REDUCE
#undef MACE_FP16_V_DUP
#undef MACE_FP16_V_4STEPS
#undef MACE_FP16_V_STEP
#undef MACE_FP16_V_FMLA
#undef MACE_FP16_EACH_ROW
#undef MACE_FP16_IF_TWO
#undef MACE_FP16_BY_VECS


// Stores one vector of 8 sums at dst as floats.
template <bool kAddC, TileAct kAct>
static inline __attribute__((always_inline)) void StoreVector(float16x8_t v, float* dst,
                                                              const TileEpilogue& epilogue,
                                                              float16x8_t lo16, float16x8_t hi16) {
  if (kAct == kActHalf) v = vminq_f16(vmaxq_f16(v, lo16), hi16);
  float32x4_t lo = vcvt_f32_f16(vget_low_f16(v));
  float32x4_t hi = vcvt_high_f32_f16(v);
  if (kAddC) {
    lo = vaddq_f32(lo, vld1q_f32(dst));
    hi = vaddq_f32(hi, vld1q_f32(dst + 4));
  }
  if (kAct == kActFloat) {
    lo = NeonActivate(lo, epilogue);
    hi = NeonActivate(hi, epilogue);
  }
  vst1q_f32(dst, lo);
  vst1q_f32(dst + 4, hi);
}

// Stores one vector of 8 sums at dst as halves. Sums added to C's halves
// are added in half precision (one rounding, to the nearest half of the
// exact sum); a clamp whose bounds are half values stays in half
// precision, other activations go through single precision.
template <bool kAddC, TileAct kAct>
static inline __attribute__((always_inline)) void StoreVector(float16x8_t v, float16_t* dst,
                                                              const TileEpilogue& epilogue,
                                                              float16x8_t lo16, float16x8_t hi16) {
  if (kAddC) v = vaddq_f16(v, vld1q_f16(dst));
  if (kAct == kActHalf) v = vminq_f16(vmaxq_f16(v, lo16), hi16);
  if (kAct != kActFloat) {
    vst1q_f16(dst, v);
    return;
  }
  const float32x4_t lo = NeonActivate(vcvt_f32_f16(vget_low_f16(v)), epilogue);
  const float32x4_t hi = NeonActivate(vcvt_high_f32_f16(v), epilogue);
  vst1q_f16(dst, vcvt_high_f16_f32(vcvt_f16_f32(lo), hi));
}

// The first kCols halves of each half of `pair` to `even` and `odd`.
template <int kCols>
static inline __attribute__((always_inline)) void StoreNarrowRows(uint16x8_t pair, uint16_t* even,
                                                                  uint16_t* odd) {
  if constexpr (kCols == 4) {
    vst1q_lane_u64(reinterpret_cast<uint64_t*>(even), vreinterpretq_u64_u16(pair), 0);
    vst1q_lane_u64(reinterpret_cast<uint64_t*>(odd), vreinterpretq_u64_u16(pair), 1);
    return;
  }
  if constexpr (kCols >= 2) {
    vst1q_lane_u32(reinterpret_cast<uint32_t*>(even), vreinterpretq_u32_u16(pair), 0);
    vst1q_lane_u32(reinterpret_cast<uint32_t*>(odd), vreinterpretq_u32_u16(pair), 2);
  }
  if constexpr (kCols & 1) {
    vst1q_lane_u16(even + kCols - 1, pair, kCols - 1);
    vst1q_lane_u16(odd + kCols - 1, pair, kCols + 3);
  }
}

// Column j's 8 half sums (acc[j], j < kCols) to C's 8 rows of halves,
// clamped to [lo16, hi16] when kClamp: transposed in registers, rows in
// pairs (row 2i in the low half of a pair), one store or two a row instead
// of a store per value through a staging tile.
template <int kCols, bool kClamp>
static inline __attribute__((always_inline)) void StoreNarrowHalves(float16x8_t acc[4],
                                                                    float16x8_t lo16,
                                                                    float16x8_t hi16,
                                                                    uint16_t* out, int64_t ldc) {
  if (kClamp) {
    for (int j = 0; j < kCols; ++j) acc[j] = vminq_f16(vmaxq_f16(acc[j], lo16), hi16);
  }
  const uint16x8_t t0 = vzip1q_u16(vreinterpretq_u16_f16(acc[0]), vreinterpretq_u16_f16(acc[1]));
  const uint16x8_t t1 = vzip2q_u16(vreinterpretq_u16_f16(acc[0]), vreinterpretq_u16_f16(acc[1]));
  const uint16x8_t t2 = vzip1q_u16(vreinterpretq_u16_f16(acc[2]), vreinterpretq_u16_f16(acc[3]));
  const uint16x8_t t3 = vzip2q_u16(vreinterpretq_u16_f16(acc[2]), vreinterpretq_u16_f16(acc[3]));
  const auto rows = [](uint16x8_t lo, uint16x8_t hi, bool second) {
    const uint32x4_t l = vreinterpretq_u32_u16(lo), h = vreinterpretq_u32_u16(hi);
    return vreinterpretq_u16_u32(second ? vzip2q_u32(l, h) : vzip1q_u32(l, h));
  };
  StoreNarrowRows<kCols>(rows(t0, t2, false), out, out + ldc);
  StoreNarrowRows<kCols>(rows(t0, t2, true), out + 2 * ldc, out + 3 * ldc);
  StoreNarrowRows<kCols>(rows(t1, t3, false), out + 4 * ldc, out + 5 * ldc);
  StoreNarrowRows<kCols>(rows(t1, t3, true), out + 6 * ldc, out + 7 * ldc);
}

// The 8 x kCols tile (kCols <= 4: a panel's last few columns) with A's 8
// rows as the vector: accumulator j holds column j, one by-element fmla per
// column and step instead of the 8-wide tile's 8. The sums go to C through
// a transposed staging tile, with the same epilogue as the wide tiles.
template <int kCols, bool kAddC, TileAct kAct, typename CT>
static void NarrowTile(int64_t kc, const float16_t* a, const float16_t* b, CT* c, int64_t ldc,
                       const float* row_bias, const TileEpilogue& epilogue) {
  float16x8_t bias = vdupq_n_f16(0);
  if (!kAddC && row_bias != nullptr) {
    bias = vcombine_f16(vcvt_f16_f32(vld1q_f32(row_bias)), vcvt_f16_f32(vld1q_f32(row_bias + 4)));
  }
  // The reduction in assembly (GCC loaded B lane by lane and kept the
  // accumulators in memory): per 4 steps one load of A's four vectors and
  // one of each step's first 4 B halves, then kCols by-element fmla a step;
  // 16 steps a loop trip (86 instructions for 64 fmla at 4 columns, 92 in
  // trips of 4), then trips of 4, then single steps. Accumulators past
  // kCols are computed by no instruction.
  float16x8_t acc0 = bias, acc1 = bias, acc2 = bias, acc3 = bias;
  int64_t sixteens = kc >> 4, groups = (kc >> 2) & 3, rest = kc & 3;
  const int64_t b_step = kFp16GemmNr * static_cast<int64_t>(sizeof(float16_t));
#define MACE_FP16_NARROW_STEP(a, b)                             \
  "fmla %[c0].8h, " a ".8h, " b ".h[0]\n"                      \
  ".if %c[cols] > 1\nfmla %[c1].8h, " a ".8h, " b ".h[1]\n.endif\n" \
  ".if %c[cols] > 2\nfmla %[c2].8h, " a ".8h, " b ".h[2]\n.endif\n" \
  ".if %c[cols] > 3\nfmla %[c3].8h, " a ".8h, " b ".h[3]\n.endif\n"
#define MACE_FP16_NARROW_4STEPS                       \
  "ld1 {v0.8h, v1.8h, v2.8h, v3.8h}, [%[a]], #64\n"  \
  "ld1 {v4.4h}, [%[b]], %[step]\n"                   \
  "ld1 {v5.4h}, [%[b]], %[step]\n"                   \
  "ld1 {v6.4h}, [%[b]], %[step]\n"                   \
  "ld1 {v7.4h}, [%[b]], %[step]\n"                   \
  MACE_FP16_NARROW_STEP("v0", "v4")                   \
  MACE_FP16_NARROW_STEP("v1", "v5")                   \
  MACE_FP16_NARROW_STEP("v2", "v6")                   \
  MACE_FP16_NARROW_STEP("v3", "v7")
  asm volatile(
      "cbz %[sixteens], 5f\n"
      "6:\n"
      MACE_FP16_NARROW_4STEPS
      MACE_FP16_NARROW_4STEPS
      MACE_FP16_NARROW_4STEPS
      MACE_FP16_NARROW_4STEPS
      "subs %[sixteens], %[sixteens], #1\n"
      "b.ne 6b\n"
      "5:\n"
      "cbz %[groups], 2f\n"
      "1:\n"
      MACE_FP16_NARROW_4STEPS
      "subs %[groups], %[groups], #1\n"
      "b.ne 1b\n"
      "2:\n"
      "cbz %[rest], 4f\n"
      "3:\n"
      "ld1 {v0.8h}, [%[a]], #16\n"
      "ld1 {v4.4h}, [%[b]], %[step]\n"
      MACE_FP16_NARROW_STEP("v0", "v4")
      "subs %[rest], %[rest], #1\n"
      "b.ne 3b\n"
      "4:\n"
      : [a] "+r"(a), [b] "+r"(b), [sixteens] "+r"(sixteens), [groups] "+r"(groups),
        [rest] "+r"(rest), [c0] "+w"(acc0), [c1] "+w"(acc1), [c2] "+w"(acc2), [c3] "+w"(acc3)
      : [step] "r"(b_step), [cols] "i"(kCols)
      : "cc", "memory", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7");
#undef MACE_FP16_NARROW_4STEPS
#undef MACE_FP16_NARROW_STEP
  float16x8_t acc[4] = {acc0, acc1, acc2, acc3};
  const float16x8_t lo16 = vdupq_n_f16(static_cast<float16_t>(epilogue.lo));
  const float16x8_t hi16 = vdupq_n_f16(static_cast<float16_t>(epilogue.hi));
  if constexpr (std::is_same<CT, float16_t>::value && !kAddC && kAct != kActFloat) {
    StoreNarrowHalves<kCols, kAct == kActHalf>(acc, lo16, hi16, reinterpret_cast<uint16_t*>(c),
                                               ldc);
    return;
  }
  CT staging[kCols][8];
  for (int j = 0; j < kCols; ++j) {
    if (kAddC) {
      for (int r = 0; r < 8; ++r) staging[j][r] = c[r * ldc + j];
    }
    StoreVector<kAddC, kAct>(acc[j], staging[j], epilogue, lo16, hi16);
#pragma GCC unroll 8
    for (int r = 0; r < 8; ++r) c[r * ldc + j] = staging[j][r];
  }
}

// Three narrow tiles of the same B columns in one reduction, from zero:
// C's 24 rows from A's three 8-row panels (a_stride halves apart). The
// 8-row tile spends 4 B loads and one of A per 4 steps on 16 fmla (86
// instructions for 64 at 16 steps); here a B load of four vectors takes
// two steps (a step's first 4 halves are in the first vector, the next
// step's in the fourth: panels are 24 halves a step) and feeds 24 fmla,
// 214 instructions for 192 fmla a 16-step trip. The sums are those of
// three NarrowTile calls bit for bit (the same fused multiply-adds in the
// same order). Registers: B v0-v7 (the by-element operand must be in
// v0-v15), A v8-v19, accumulators the 12 left.
template <int kCols>
static void NarrowTriple(int64_t kc, const float16_t* a, int64_t a_stride, const float16_t* b,
                         float16_t* c, int64_t ldc) {
  // The sums go out through memory: 12 accumulators as operands would
  // pass the asm operand limit.
  float16x8_t sums[3][4];
  float16x8_t* sums_at = &sums[0][0];
  const float16_t* a0 = a;
  const float16_t* a1 = a + a_stride;
  const float16_t* a2 = a1 + a_stride;
  int64_t sixteens = kc >> 4, groups = (kc >> 2) & 3, rest = kc & 3;
  const int64_t b_step = kFp16GemmNr * static_cast<int64_t>(sizeof(float16_t));
  const int64_t b_pair = 2 * b_step;
  // Accumulator (g, j) is v<20 + 4g + j>.
#define MACE_FP16_TRIPLE_ROWS(c0, c1, c2, c3, av, bv)                  \
  "fmla " c0 ".8h, " av ".8h, " bv ".h[0]\n"                          \
  ".if %c[cols] > 1\nfmla " c1 ".8h, " av ".8h, " bv ".h[1]\n.endif\n" \
  ".if %c[cols] > 2\nfmla " c2 ".8h, " av ".8h, " bv ".h[2]\n.endif\n" \
  ".if %c[cols] > 3\nfmla " c3 ".8h, " av ".8h, " bv ".h[3]\n.endif\n"
#define MACE_FP16_TRIPLE_STEP(a0v, a1v, a2v, bv)                  \
  MACE_FP16_TRIPLE_ROWS("v20", "v21", "v22", "v23", a0v, bv)      \
  MACE_FP16_TRIPLE_ROWS("v24", "v25", "v26", "v27", a1v, bv)      \
  MACE_FP16_TRIPLE_ROWS("v28", "v29", "v30", "v31", a2v, bv)
#define MACE_FP16_TRIPLE_4STEPS                             \
  "ld1 {v8.8h, v9.8h, v10.8h, v11.8h}, [%[a0]], #64\n"     \
  "ld1 {v12.8h, v13.8h, v14.8h, v15.8h}, [%[a1]], #64\n"   \
  "ld1 {v16.8h, v17.8h, v18.8h, v19.8h}, [%[a2]], #64\n"   \
  "ld1 {v0.8h, v1.8h, v2.8h, v3.8h}, [%[b]], %[pair]\n"    \
  "ld1 {v4.8h, v5.8h, v6.8h, v7.8h}, [%[b]], %[pair]\n"    \
  MACE_FP16_TRIPLE_STEP("v8", "v12", "v16", "v0")           \
  MACE_FP16_TRIPLE_STEP("v9", "v13", "v17", "v3")           \
  MACE_FP16_TRIPLE_STEP("v10", "v14", "v18", "v4")          \
  MACE_FP16_TRIPLE_STEP("v11", "v15", "v19", "v7")
  asm volatile(
      "movi v20.8h, #0\n"
      ".if %c[cols] > 1\nmovi v21.8h, #0\n.endif\n"
      ".if %c[cols] > 2\nmovi v22.8h, #0\n.endif\n"
      ".if %c[cols] > 3\nmovi v23.8h, #0\n.endif\n"
      "movi v24.8h, #0\n"
      ".if %c[cols] > 1\nmovi v25.8h, #0\n.endif\n"
      ".if %c[cols] > 2\nmovi v26.8h, #0\n.endif\n"
      ".if %c[cols] > 3\nmovi v27.8h, #0\n.endif\n"
      "movi v28.8h, #0\n"
      ".if %c[cols] > 1\nmovi v29.8h, #0\n.endif\n"
      ".if %c[cols] > 2\nmovi v30.8h, #0\n.endif\n"
      ".if %c[cols] > 3\nmovi v31.8h, #0\n.endif\n"
      "cbz %[sixteens], 5f\n"
      "6:\n"
      MACE_FP16_TRIPLE_4STEPS
      MACE_FP16_TRIPLE_4STEPS
      MACE_FP16_TRIPLE_4STEPS
      MACE_FP16_TRIPLE_4STEPS
      "subs %[sixteens], %[sixteens], #1\n"
      "b.ne 6b\n"
      "5:\n"
      "cbz %[groups], 2f\n"
      "1:\n"
      MACE_FP16_TRIPLE_4STEPS
      "subs %[groups], %[groups], #1\n"
      "b.ne 1b\n"
      "2:\n"
      "cbz %[rest], 4f\n"
      "3:\n"
      "ld1 {v8.8h}, [%[a0]], #16\n"
      "ld1 {v12.8h}, [%[a1]], #16\n"
      "ld1 {v16.8h}, [%[a2]], #16\n"
      "ld1 {v0.4h}, [%[b]], %[step]\n"
      MACE_FP16_TRIPLE_STEP("v8", "v12", "v16", "v0")
      "subs %[rest], %[rest], #1\n"
      "b.ne 3b\n"
      "4:\n"
      "st1 {v20.8h, v21.8h, v22.8h, v23.8h}, [%[sums]], #64\n"
      "st1 {v24.8h, v25.8h, v26.8h, v27.8h}, [%[sums]], #64\n"
      "st1 {v28.8h, v29.8h, v30.8h, v31.8h}, [%[sums]]\n"
      : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [b] "+r"(b), [sixteens] "+r"(sixteens),
        [groups] "+r"(groups), [rest] "+r"(rest), [sums] "+r"(sums_at)
      : [step] "r"(b_step), [pair] "r"(b_pair), [cols] "i"(kCols)
      : "cc", "memory", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11",
        "v12", "v13", "v14", "v15", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23",
        "v24", "v25", "v26", "v27", "v28", "v29", "v30", "v31");
#undef MACE_FP16_TRIPLE_4STEPS
#undef MACE_FP16_TRIPLE_STEP
#undef MACE_FP16_TRIPLE_ROWS
  const float16x8_t unused = vdupq_n_f16(0);
  uint16_t* out = reinterpret_cast<uint16_t*>(c);
  for (int g = 0; g < 3; ++g) {
    StoreNarrowHalves<kCols, false>(sums[g], unused, unused, out + 8 * g * ldc, ldc);
  }
}

// The 8 x (8 * kVecs) tile into `c` (row stride ldc), kVecs 1 to 3;
// row_bias has 8 values (or is null). B panels are kFp16GemmNr halves a
// step whatever kVecs is.
template <int kVecs, bool kAddC, TileAct kAct, typename CT>
static inline __attribute__((always_inline)) void VectorTile(int64_t kc, const float16_t* a,
                                                             const float16_t* b, CT* c,
                                                             int64_t ldc, const float* row_bias,
                                                             const TileEpilogue& epilogue) {
  const float16x8_t lo16 = vdupq_n_f16(static_cast<float16_t>(epilogue.lo));
  const float16x8_t hi16 = vdupq_n_f16(static_cast<float16_t>(epilogue.hi));
  float16_t init[8];
  float16x8_t bias = vdupq_n_f16(0);
  if (!kAddC && row_bias != nullptr) {
    bias = vcombine_f16(vcvt_f16_f32(vld1q_f32(row_bias)), vcvt_f16_f32(vld1q_f32(row_bias + 4)));
  }
  vst1q_f16(init, bias);
  if constexpr (kAct != kActFloat && std::is_same<CT, float16_t>::value) {
    // Halves stored as they are (or clamped in half precision), after
    // C's halves are added when accumulating: by the assembly, one
    // load and store of kVecs vectors a row.
    float16_t bounds[16];
    vst1q_f16(bounds, lo16);
    vst1q_f16(bounds + 8, hi16);
    constexpr ReduceOut kOut =
        kAddC ? (kAct == kActHalf ? kClampedAddHalfRowsOut : kAddHalfRowsOut)
              : (kAct == kActHalf ? kClampedHalfRowsOut : kHalfRowsOut);
    ReduceTile<kVecs, kOut>(kc, a, b, init, c, ldc * static_cast<int64_t>(sizeof(float16_t)),
                            bounds);
    return;
  }
  float16x8_t sums[8 * kVecs];
  ReduceTile<kVecs, kSumsOut>(kc, a, b, init, sums, 0, nullptr);
#pragma GCC unroll 8
  for (int r = 0; r < 8; ++r) {
#pragma GCC unroll 3
    for (int v = 0; v < kVecs; ++v) {
      StoreVector<kAddC, kAct>(sums[kVecs * r + v], c + r * ldc + 8 * v, epilogue, lo16, hi16);
    }
  }
}

// VectorTile, or for kVecs < 0 the narrow tile of -kVecs columns.
template <int kVecs, bool kAddC, TileAct kAct, typename CT>
static void Tile(int64_t kc, const float16_t* a, const float16_t* b, CT* c, int64_t ldc,
                 const float* row_bias, const TileEpilogue& epilogue) {
  if constexpr (kVecs < 0) {
    NarrowTile<-kVecs, kAddC, kAct>(kc, a, b, c, ldc, row_bias, epilogue);
  } else {
    VectorTile<kVecs, kAddC, kAct>(kc, a, b, c, ldc, row_bias, epilogue);
  }
}

// The three input vectors of 8 outputs at `row` (horizontal stride 1 or 2).
struct DepthwiseInputs {
  float16x8_t v0, v1, v2;
};

template <int kStride>
static inline __attribute__((always_inline)) DepthwiseInputs LoadInputs(const float16_t* row) {
  if (kStride == 1) return {vld1q_f16(row), vld1q_f16(row + 1), vld1q_f16(row + 2)};
  const float16x8x2_t pair = vld2q_f16(row);
  return {pair.val[0], pair.val[1], vld2q_f16(row + 2).val[0]};
}

// acc plus tap row `tap_row` (0 to 2, a constant once the callers' loops
// are unrolled) times the inputs. Taps 0 to 7 are lanes of t07 (in v0-v15,
// as the by-element form requires), read by assembly fmla (GCC would turn
// them into dup and vector fmla); tap 8 is the vector t8.
static inline __attribute__((always_inline)) float16x8_t AddRow(float16x8_t acc,
                                                                const DepthwiseInputs& in,
                                                                int tap_row, float16x8_t t07,
                                                                float16x8_t t8) {
  if (tap_row == 0) {
    asm("fmla %[acc].8h, %[x0].8h, %[t].h[0]\n"
        "fmla %[acc].8h, %[x1].8h, %[t].h[1]\n"
        "fmla %[acc].8h, %[x2].8h, %[t].h[2]\n"
        : [acc] "+w"(acc)
        : [x0] "w"(in.v0), [x1] "w"(in.v1), [x2] "w"(in.v2), [t] "x"(t07));
  } else if (tap_row == 1) {
    asm("fmla %[acc].8h, %[x0].8h, %[t].h[3]\n"
        "fmla %[acc].8h, %[x1].8h, %[t].h[4]\n"
        "fmla %[acc].8h, %[x2].8h, %[t].h[5]\n"
        : [acc] "+w"(acc)
        : [x0] "w"(in.v0), [x1] "w"(in.v1), [x2] "w"(in.v2), [t] "x"(t07));
  } else {
    asm("fmla %[acc].8h, %[x0].8h, %[t].h[6]\n"
        "fmla %[acc].8h, %[x1].8h, %[t].h[7]\n"
        : [acc] "+w"(acc)
        : [x0] "w"(in.v0), [x1] "w"(in.v1), [t] "x"(t07));
    acc = vfmaq_f16(acc, in.v2, t8);
  }
  return acc;
}

// Stores `count` (at most 8) of the sums in v as floats, with the activation.
template <TileAct kAct>
static inline __attribute__((always_inline)) void DepthwiseStore(
    float16x8_t v, float* out, int64_t count, float16x8_t lo16, float16x8_t hi16,
    const TileEpilogue& epilogue) {
  if (kAct == kActHalf) v = vminq_f16(vmaxq_f16(v, lo16), hi16);
  float32x4_t lo = vcvt_f32_f16(vget_low_f16(v));
  float32x4_t hi = vcvt_high_f32_f16(v);
  if (kAct == kActFloat) {
    lo = NeonActivate(lo, epilogue);
    hi = NeonActivate(hi, epilogue);
  }
  if (count >= 8) {
    vst1q_f32(out, lo);
    vst1q_f32(out + 4, hi);
    return;
  }
  // A part vector lane by lane groups (4, 2, 1): no copy through memory.
  if (count & 4) {
    vst1q_f32(out, lo);
    out += 4;
    lo = hi;
  }
  if (count & 2) {
    vst1_f32(out, vget_low_f32(lo));
    out += 2;
    lo = vextq_f32(lo, lo, 2);
  }
  if (count & 1) vst1q_lane_f32(out, lo, 0);
}

// The same into halves: a half clamp stays in half precision, other
// activations go through single precision.
template <TileAct kAct>
static inline __attribute__((always_inline)) void DepthwiseStore(
    float16x8_t v, float16_t* out, int64_t count, float16x8_t lo16, float16x8_t hi16,
    const TileEpilogue& epilogue) {
  if (kAct == kActHalf) v = vminq_f16(vmaxq_f16(v, lo16), hi16);
  if (kAct == kActFloat) {
    const float32x4_t lo = NeonActivate(vcvt_f32_f16(vget_low_f16(v)), epilogue);
    const float32x4_t hi = NeonActivate(vcvt_high_f32_f16(v), epilogue);
    v = vcvt_high_f16_f32(vcvt_f16_f32(lo), hi);
  }
  if (count >= 8) {
    vst1q_f16(out, v);
    return;
  }
  if (count & 4) {
    vst1_f16(out, vget_low_f16(v));
    out += 4;
    v = vextq_f16(v, v, 4);
  }
  if (count & 2) {
    vst1q_lane_u32(reinterpret_cast<uint32_t*>(out), vreinterpretq_u32_f16(v), 0);
    out += 2;
    v = vextq_f16(v, v, 2);
  }
  if (count & 1) vst1q_lane_f16(out, v, 0);
}

// A band of a 3x3 depthwise plane, `in` holding half values (in_pitch of
// them per row, 8 * ceil(out_w / 8) * stride + 2 readable). Output rows go
// in groups that load the input rows they share once: 4 rows from 6 input
// rows at vertical stride 1, pairs from 5 at 2. Sums start at the bias and
// are kept in half precision.
template <int kStride, int kStrideH, TileAct kAct, typename OT>
static void DepthwiseBand3x3(const DepthwiseBand& band) {
  // Locals: the output stores could alias the band's fields as far as the
  // compiler knows, and reloading them cost a third of the loop.
  const float16_t* in = reinterpret_cast<const float16_t*>(band.in);
  const int64_t pitch = band.in_pitch, out_w = band.out_w, rows = band.rows;
  OT* out = reinterpret_cast<OT*>(band.out);
  TileEpilogue epilogue;
  epilogue.activation = band.epilogue.activation;
  epilogue.lo = band.epilogue.lo;
  epilogue.hi = band.epilogue.hi;
  const float16x8_t lo16 = vdupq_n_f16(static_cast<float16_t>(epilogue.lo));
  const float16x8_t hi16 = vdupq_n_f16(static_cast<float16_t>(epilogue.hi));
  // Taps 0 to 7 as the lanes of one vector, tap 8 in every lane of another.
  const float16x8_t t07 = vcombine_f16(vcvt_f16_f32(vld1q_f32(band.taps)),
                                       vcvt_f16_f32(vld1q_f32(band.taps + 4)));
  const float16x8_t t8 = vdupq_n_f16(static_cast<float16_t>(band.taps[8]));
  const float16x8_t bias = vdupq_n_f16(static_cast<float16_t>(band.bias));
  // kRows output rows of 8 (or count) outputs at x: each input row is
  // loaded once and added to every output row it feeds, in tap-row order.
  const auto rows_at = [&](auto rows_tag, const float16_t* x, OT* dst, int64_t count)
                           __attribute__((always_inline)) {
    constexpr int kRows = decltype(rows_tag)::value;
    float16x8_t acc[kRows];
#pragma GCC unroll 4
    for (int o = 0; o < kRows; ++o) acc[o] = bias;
#pragma GCC unroll 9
    for (int i = 0; i < (kRows - 1) * kStrideH + 3; ++i) {
      const DepthwiseInputs in = LoadInputs<kStride>(x + i * pitch);
#pragma GCC unroll 4
      for (int o = 0; o < kRows; ++o) {
        const int tap_row = i - o * kStrideH;
        if (tap_row >= 0 && tap_row <= 2) {
          acc[o] = AddRow(acc[o], in, tap_row, t07, t8);
        }
      }
    }
#pragma GCC unroll 4
    for (int o = 0; o < kRows; ++o) {
      DepthwiseStore<kAct>(acc[o], dst + o * out_w, count, lo16, hi16, epilogue);
    }
  };
  const int64_t whole = out_w / 8 * 8;
  // A row's last part vector: the row's last 8 outputs again (whole ones
  // that overlap those stored) when it has 8, else a part vector.
  const int64_t tail = whole == out_w ? 0 : out_w >= 8 ? out_w - 8 : 0;
  const int64_t tail_count = out_w >= 8 ? 8 : out_w;
  int64_t r = 0;
  // Output rows in groups of 4 at vertical stride 1 (6 input rows for 4),
  // in pairs at 2 (5 input rows for 2; 9 for 4 would save little), then
  // what is left.
  const auto group = [&](auto rows_tag) __attribute__((always_inline)) {
    constexpr int kRows = decltype(rows_tag)::value;
    for (; r + kRows <= rows; r += kRows, out += kRows * out_w) {
      const float16_t* row0 = in + r * kStrideH * pitch;
      for (int64_t j = 0; j < whole; j += 8) rows_at(rows_tag, row0 + j * kStride, out + j, 8);
      if (whole < out_w) rows_at(rows_tag, row0 + tail * kStride, out + tail, tail_count);
    }
  };
  if (kStrideH == 1) group(std::integral_constant<int, 4>());
  group(std::integral_constant<int, 2>());
  group(std::integral_constant<int, 1>());
}

// The activation's form for these bounds: clamps whose bounds are half
// values run in half precision (the same as clamping the floats).
static TileAct ActFor(const TileEpilogue& epilogue) {
  if (epilogue.activation == kTileActNone) return kActNone;
  const bool half_bounds =
      static_cast<float>(static_cast<float16_t>(epilogue.lo)) == epilogue.lo &&
      static_cast<float>(static_cast<float16_t>(epilogue.hi)) == epilogue.hi;
  return epilogue.activation == kTileActClamp && half_bounds ? kActHalf : kActFloat;
}

template <int kStride, int kStrideH, typename OT>
static void Depthwise3x3(const DepthwiseBand& band) {
  switch (ActFor(band.epilogue)) {
    case kActNone:
      return DepthwiseBand3x3<kStride, kStrideH, kActNone, OT>(band);
    case kActHalf:
      return DepthwiseBand3x3<kStride, kStrideH, kActHalf, OT>(band);
    default:
      return DepthwiseBand3x3<kStride, kStrideH, kActFloat, OT>(band);
  }
}

template <int kStride, int kStrideH>
static void Depthwise3x3(const DepthwiseBand& band) {
  if (band.out_half) return Depthwise3x3<kStride, kStrideH, float16_t>(band);
  Depthwise3x3<kStride, kStrideH, float>(band);
}

}  // namespace

void Fp16Depthwise3x3S1(const DepthwiseBand& band) {
  if (band.stride_h == 1) return Depthwise3x3<1, 1>(band);
  Depthwise3x3<1, 2>(band);
}
void Fp16Depthwise3x3S2(const DepthwiseBand& band) {
  if (band.stride_h == 1) return Depthwise3x3<2, 1>(band);
  Depthwise3x3<2, 2>(band);
}

namespace {

// The 8 x 8 transpose of halves: r[i] lane j becomes r[j] lane i.
static inline __attribute__((always_inline)) void Transpose8x8(uint16x8_t r[8]) {
  const uint16x8_t t0 = vtrn1q_u16(r[0], r[1]), t1 = vtrn2q_u16(r[0], r[1]);
  const uint16x8_t t2 = vtrn1q_u16(r[2], r[3]), t3 = vtrn2q_u16(r[2], r[3]);
  const uint16x8_t t4 = vtrn1q_u16(r[4], r[5]), t5 = vtrn2q_u16(r[4], r[5]);
  const uint16x8_t t6 = vtrn1q_u16(r[6], r[7]), t7 = vtrn2q_u16(r[6], r[7]);
  const auto trn1_32 = [](uint16x8_t a, uint16x8_t b) __attribute__((always_inline)) {
    return vreinterpretq_u16_u32(vtrn1q_u32(vreinterpretq_u32_u16(a), vreinterpretq_u32_u16(b)));
  };
  const auto trn2_32 = [](uint16x8_t a, uint16x8_t b) __attribute__((always_inline)) {
    return vreinterpretq_u16_u32(vtrn2q_u32(vreinterpretq_u32_u16(a), vreinterpretq_u32_u16(b)));
  };
  const auto trn1_64 = [](uint16x8_t a, uint16x8_t b) __attribute__((always_inline)) {
    return vreinterpretq_u16_u64(vtrn1q_u64(vreinterpretq_u64_u16(a), vreinterpretq_u64_u16(b)));
  };
  const auto trn2_64 = [](uint16x8_t a, uint16x8_t b) __attribute__((always_inline)) {
    return vreinterpretq_u16_u64(vtrn2q_u64(vreinterpretq_u64_u16(a), vreinterpretq_u64_u16(b)));
  };
  const uint16x8_t u0 = trn1_32(t0, t2), u2 = trn2_32(t0, t2);
  const uint16x8_t u1 = trn1_32(t1, t3), u3 = trn2_32(t1, t3);
  const uint16x8_t u4 = trn1_32(t4, t6), u6 = trn2_32(t4, t6);
  const uint16x8_t u5 = trn1_32(t5, t7), u7 = trn2_32(t5, t7);
  r[0] = trn1_64(u0, u4);
  r[4] = trn2_64(u0, u4);
  r[1] = trn1_64(u1, u5);
  r[5] = trn2_64(u1, u5);
  r[2] = trn1_64(u2, u6);
  r[6] = trn2_64(u2, u6);
  r[3] = trn1_64(u3, u7);
  r[7] = trn2_64(u3, u7);
}

// One output pixel of 8 channels from its three tap rows (three adjacent
// padded pixels each), with the activation kAct.
template <TileAct kAct>
static inline __attribute__((always_inline)) float16x8_t PackedPixel(
    float16x8_t acc, const float16x8_t x[9], const float16x8_t taps[9], float16x8_t lo16,
    float16x8_t hi16, const TileEpilogue& epilogue) {
#pragma GCC unroll 9
  for (int k = 0; k < 9; ++k) acc = vfmaq_f16(acc, x[k], taps[k]);
  if (kAct == kActHalf) acc = vminq_f16(vmaxq_f16(acc, lo16), hi16);
  if (kAct == kActFloat) {
    const float32x4_t lo = NeonActivate(vcvt_f32_f16(vget_low_f16(acc)), epilogue);
    const float32x4_t hi = NeonActivate(vcvt_high_f32_f16(acc), epilogue);
    acc = vcvt_high_f16_f32(vcvt_f16_f32(lo), hi);
  }
  return acc;
}

// The packed group's outputs into `staging`, with the activation kAct. At
// horizontal stride 1 outputs go in fours, which share four of the six
// padded pixels each tap row loads (two loads a tap row for four outputs,
// where pairs took one for two, and one store), then a pair and a single.
template <int kStrideW, TileAct kAct>
static void PackedOutputs(const DepthwisePackedGroup& g, const float16x8_t taps[9],
                          float16x8_t bias) {
  const float16_t* padded = reinterpret_cast<const float16_t*>(g.padded);
  float16_t* out = reinterpret_cast<float16_t*>(g.staging);
  const int64_t out_h = g.out_h, out_w = g.out_w, row_step = g.stride_h * g.padded_w * 8;
  const TileEpilogue epilogue = g.epilogue;
  const float16x8_t lo16 = vdupq_n_f16(static_cast<float16_t>(epilogue.lo));
  const float16x8_t hi16 = vdupq_n_f16(static_cast<float16_t>(epilogue.hi));
  const int64_t padded_row = g.padded_w * 8;
  const int64_t quads = kStrideW == 1 ? out_w / 4 : 0;
  const int64_t pairs = kStrideW == 1 ? out_w % 4 / 2 : 0;
  for (int64_t oh = 0; oh < out_h; ++oh) {
    const float16_t* r0 = padded + oh * row_step;
    const float16_t* r1 = r0 + padded_row;
    const float16_t* r2 = r1 + padded_row;
    for (int64_t i = 0; i < quads; ++i, r0 += 32, r1 += 32, r2 += 32, out += 32) {
      // Six adjacent padded pixels of each tap row.
      float16x8_t x[3][6];
      const float16_t* const rows[3] = {r0, r1, r2};
#pragma GCC unroll 3
      for (int t = 0; t < 3; ++t) {
        const float16x8x4_t first = vld1q_f16_x4(rows[t]);
        const float16x8x2_t last = vld1q_f16_x2(rows[t] + 32);
        x[t][0] = first.val[0];
        x[t][1] = first.val[1];
        x[t][2] = first.val[2];
        x[t][3] = first.val[3];
        x[t][4] = last.val[0];
        x[t][5] = last.val[1];
      }
      float16x8x4_t four;
#pragma GCC unroll 4
      for (int j = 0; j < 4; ++j) {
        const float16x8_t window[9] = {x[0][j], x[0][j + 1], x[0][j + 2],
                                       x[1][j], x[1][j + 1], x[1][j + 2],
                                       x[2][j], x[2][j + 1], x[2][j + 2]};
        four.val[j] = PackedPixel<kAct>(bias, window, taps, lo16, hi16, epilogue);
      }
      vst1q_f16_x4(out, four);
    }
    for (int64_t i = 0; i < pairs; ++i, r0 += 16, r1 += 16, r2 += 16, out += 16) {
      const float16x8x4_t a = vld1q_f16_x4(r0), b = vld1q_f16_x4(r1), c = vld1q_f16_x4(r2);
      const float16x8_t x0[9] = {a.val[0], a.val[1], a.val[2], b.val[0], b.val[1],
                                 b.val[2], c.val[0], c.val[1], c.val[2]};
      const float16x8_t x1[9] = {a.val[1], a.val[2], a.val[3], b.val[1], b.val[2],
                                 b.val[3], c.val[1], c.val[2], c.val[3]};
      float16x8x2_t pair;
      pair.val[0] = PackedPixel<kAct>(bias, x0, taps, lo16, hi16, epilogue);
      pair.val[1] = PackedPixel<kAct>(bias, x1, taps, lo16, hi16, epilogue);
      vst1q_f16_x2(out, pair);
    }
    for (int64_t ow = quads * 4 + pairs * 2; ow < out_w;
         ++ow, r0 += kStrideW * 8, r1 += kStrideW * 8, r2 += kStrideW * 8, out += 8) {
      // Each tap row's three pixels are adjacent: one three-vector load.
      const float16x8x3_t a = vld1q_f16_x3(r0), b = vld1q_f16_x3(r1), c = vld1q_f16_x3(r2);
      const float16x8_t x[9] = {a.val[0], a.val[1], a.val[2], b.val[0], b.val[1],
                                b.val[2], c.val[0], c.val[1], c.val[2]};
      vst1q_f16(out, PackedPixel<kAct>(bias, x, taps, lo16, hi16, epilogue));
    }
  }
}

}  // namespace

// A whole group's taps and bias as lanes: each channel's first 8 taps
// converted as one vector and the 8 x 8 block transposed, tap 8 and the
// bias 8 lanes at a time (about 60 instructions where converting and
// storing the 81 values one by one took 300, per group of 8 channels).
static void WholeGroupTaps(const DepthwisePackedGroup& g, float16x8_t taps[9],
                           float16x8_t* bias) {
  const float* t = g.taps;
  uint16x8_t rows[8];
  float32x4_t last_lo = vdupq_n_f32(0.f), last_hi = vdupq_n_f32(0.f);
#pragma GCC unroll 8
  for (int c = 0; c < 8; ++c, t += 9) {
    rows[c] = vreinterpretq_u16_f16(
        vcvt_high_f16_f32(vcvt_f16_f32(vld1q_f32(t)), vld1q_f32(t + 4)));
    if (c < 4) {
      last_lo = vsetq_lane_f32(t[8], last_lo, c & 3);
    } else {
      last_hi = vsetq_lane_f32(t[8], last_hi, c & 3);
    }
  }
  Transpose8x8(rows);
#pragma GCC unroll 8
  for (int k = 0; k < 8; ++k) taps[k] = vreinterpretq_f16_u16(rows[k]);
  taps[8] = vcvt_high_f16_f32(vcvt_f16_f32(last_lo), last_hi);
  *bias = g.bias == nullptr ? vdupq_n_f16(0)
                            : vcvt_high_f16_f32(vcvt_f16_f32(vld1q_f32(g.bias)),
                                                vld1q_f32(g.bias + 4));
}

void Fp16Depthwise3x3Packed(const DepthwisePackedGroup& g) {
  const int channels = g.channels;
  float16x8_t taps[9];
  float16x8_t bias;
  if (channels == 8) {
    WholeGroupTaps(g, taps, &bias);
  } else {
    // Taps (k, c) as lane c of vector k, the bias as lane c; lanes past the
    // channels are zero.
    float16_t tap_lanes[9 * 8] = {}, bias_lanes[8] = {};
    const float* const tap_values = g.taps;
    for (int c = 0; c < channels; ++c) {
#pragma GCC unroll 9
      for (int k = 0; k < 9; ++k) {
        tap_lanes[k * 8 + c] = static_cast<float16_t>(tap_values[c * 9 + k]);
      }
    }
    if (g.bias != nullptr) {
      for (int c = 0; c < channels; ++c) bias_lanes[c] = static_cast<float16_t>(g.bias[c]);
    }
    for (int k = 0; k < 9; ++k) taps[k] = vld1q_f16(tap_lanes + k * 8);
    bias = vld1q_f16(bias_lanes);
  }
  // Input pixels in groups of 8 (the last group overlaps the one before):
  // each channel's 8 pixels are one load, transposed to 8 pixels of 8
  // channels. Channels past the group's read the last one's plane again.
  {
    const uint16_t* planes[8];
    for (int c = 0; c < 8; ++c) planes[c] = g.in + std::min(c, channels - 1) * g.in_plane;
    const int64_t pixels = g.in_pixels;
    const int32_t* offsets = g.in_offsets;
    char* const padded = reinterpret_cast<char*>(g.padded);
    uint32_t pixels8[32];
    for (int64_t p0 = 0; p0 < pixels; p0 += 8) {
      const int64_t p = std::min(p0, pixels - 8);
      uint16x8_t r[8];
#pragma GCC unroll 8
      for (int c = 0; c < 8; ++c) r[c] = vld1q_u16(planes[c] + p);
      // Channels zipped in pairs, whose 32-bit lanes st4 interleaves: the
      // 8 pixels of 8 channels in 8 zips and 2 stores (the transpose took
      // 24 permutes). Pixels of one input row inside the read region sit
      // in consecutive padded pixels, and the spare one follows the last
      // padded pixel, so 8 offsets whose ends are 7 pixels apart are
      // consecutive: stored in place, else through `pixels8` one by one.
      uint32x4x4_t front, back;
#pragma GCC unroll 4
      for (int k = 0; k < 4; ++k) {
        front.val[k] = vreinterpretq_u32_u16(vzip1q_u16(r[2 * k], r[2 * k + 1]));
        back.val[k] = vreinterpretq_u32_u16(vzip2q_u16(r[2 * k], r[2 * k + 1]));
      }
      const int32_t first = offsets[p];
      const bool consecutive = offsets[p + 7] - first == 7 * 16;
      uint32_t* const dst = consecutive ? reinterpret_cast<uint32_t*>(padded + first) : pixels8;
      vst4q_u32(dst, front);
      vst4q_u32(dst + 16, back);
      if (consecutive) continue;
#pragma GCC unroll 8
      for (int j = 0; j < 8; ++j) {
        vst1q_u32(reinterpret_cast<uint32_t*>(padded + offsets[p + j]), vld1q_u32(pixels8 + 4 * j));
      }
    }
  }
  const TileAct act = ActFor(g.epilogue);
  if (g.stride_w == 1) {
    if (act == kActNone) PackedOutputs<1, kActNone>(g, taps, bias);
    else if (act == kActHalf) PackedOutputs<1, kActHalf>(g, taps, bias);
    else PackedOutputs<1, kActFloat>(g, taps, bias);
  } else {
    if (act == kActNone) PackedOutputs<2, kActNone>(g, taps, bias);
    else if (act == kActHalf) PackedOutputs<2, kActHalf>(g, taps, bias);
    else PackedOutputs<2, kActFloat>(g, taps, bias);
  }
  // Output pixels back in groups of 8 (the last overlapping): 8 pixels of
  // 8 channels transposed to 8 halves of each channel's plane.
  // Locals: the stores could alias the group's fields as far as the
  // compiler knows.
  const int64_t pixels = g.out_h * g.out_w;
  const uint16_t* const staging = g.staging;
  uint16_t* planes[8];
  for (int c = 0; c < 8; ++c) planes[c] = g.out + std::min(c, channels - 1) * g.out_plane;
  for (int64_t p0 = 0; p0 < pixels; p0 += 8) {
    const int64_t p = std::min(p0, pixels - 8);
    // ld4 of 32-bit lanes parts pixels p to p + 3 (and p + 4 to p + 7)
    // into channel pairs, unzipped to channels: 2 loads and 8 unzips where
    // the transpose took 2 and 24.
    const uint32x4x4_t front = vld4q_u32(reinterpret_cast<const uint32_t*>(staging + p * 8));
    const uint32x4x4_t back = vld4q_u32(reinterpret_cast<const uint32_t*>(staging + p * 8 + 32));
    uint16x8_t r[8];
#pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) {
      const uint16x8_t x = vreinterpretq_u16_u32(front.val[k]);
      const uint16x8_t y = vreinterpretq_u16_u32(back.val[k]);
      r[2 * k] = vuzp1q_u16(x, y);
      r[2 * k + 1] = vuzp2q_u16(x, y);
    }
    // Lanes past the channels go to the last channel's plane first, and
    // its own values overwrite them.
#pragma GCC unroll 8
    for (int c = 7; c >= 0; --c) vst1q_u16(planes[c] + p, r[c]);
  }
}

void Fp16FromFloat(const float* src, int64_t count, uint16_t* dst_bits) {
  float16_t* dst = reinterpret_cast<float16_t*>(dst_bits);
  int64_t i = 0;
  for (; i + 16 <= count; i += 16) {
    const float16x4_t a = vcvt_f16_f32(vld1q_f32(src + i));
    const float16x4_t b = vcvt_f16_f32(vld1q_f32(src + i + 8));
    vst1q_f16(dst + i, vcvt_high_f16_f32(a, vld1q_f32(src + i + 4)));
    vst1q_f16(dst + i + 8, vcvt_high_f16_f32(b, vld1q_f32(src + i + 12)));
  }
  if (i + 8 <= count) {
    const float16x4_t lo = vcvt_f16_f32(vld1q_f32(src + i));
    vst1q_f16(dst + i, vcvt_high_f16_f32(lo, vld1q_f32(src + i + 4)));
    i += 8;
  }
  // Rows of depthwise bands are often 4 + 8k wide (28, 14 on 224 inputs).
  if (i + 4 <= count) {
    vst1_f16(dst + i, vcvt_f16_f32(vld1q_f32(src + i)));
    i += 4;
  }
  for (; i < count; ++i) dst[i] = static_cast<float16_t>(src[i]);
}

void Fp16PackColumns(const float* src, int64_t cols, int64_t depth, int64_t depth_stride,
                     uint16_t* dst_bits) {
  float16_t* dst = reinterpret_cast<float16_t*>(dst_bits);
  static_assert(kFp16GemmNr == 24, "three vectors of 8 halves a step");
  const auto convert = [](const float* row, float16_t* out) __attribute__((always_inline)) {
    const float16x4_t a = vcvt_f16_f32(vld1q_f32(row));
    const float16x4_t b = vcvt_f16_f32(vld1q_f32(row + 8));
    const float16x4_t c = vcvt_f16_f32(vld1q_f32(row + 16));
    vst1q_f16(out, vcvt_high_f16_f32(a, vld1q_f32(row + 4)));
    vst1q_f16(out + 8, vcvt_high_f16_f32(b, vld1q_f32(row + 12)));
    vst1q_f16(out + 16, vcvt_high_f16_f32(c, vld1q_f32(row + 20)));
  };
  if (cols == kFp16GemmNr) {
    for (int64_t d = 0; d < depth; ++d, src += depth_stride, dst += kFp16GemmNr) convert(src, dst);
    return;
  }
  // A panel's last columns: through a zero-padded row.
  float row[kFp16GemmNr] = {};
  for (int64_t d = 0; d < depth; ++d, src += depth_stride, dst += kFp16GemmNr) {
    for (int64_t j = 0; j < cols; ++j) row[j] = src[j];
    convert(row, dst);
  }
}

void Fp16PackHalfColumns(const uint16_t* src_bits, int64_t cols, int64_t depth,
                         int64_t depth_stride, uint16_t* dst_bits) {
  const float16_t* src = reinterpret_cast<const float16_t*>(src_bits);
  float16_t* dst = reinterpret_cast<float16_t*>(dst_bits);
  if (cols == kFp16GemmNr) {
    // One three-vector load (post-indexed by the row stride) and store a
    // row, two rows a loop trip.
    const int64_t stride_bytes = depth_stride * static_cast<int64_t>(sizeof(float16_t));
    int64_t pairs = depth >> 1;
    if (pairs > 0) {
      asm volatile(
          "1:\n"
          "ld1 {v0.8h, v1.8h, v2.8h}, [%[src]], %[stride]\n"
          "ld1 {v3.8h, v4.8h, v5.8h}, [%[src]], %[stride]\n"
          "st1 {v0.8h, v1.8h, v2.8h, v3.8h}, [%[dst]], #64\n"
          "st1 {v4.8h, v5.8h}, [%[dst]], #32\n"
          "subs %[pairs], %[pairs], #1\n"
          "b.ne 1b\n"
          : [src] "+r"(src), [dst] "+r"(dst), [pairs] "+r"(pairs)
          : [stride] "r"(stride_bytes)
          : "cc", "memory", "v0", "v1", "v2", "v3", "v4", "v5");
    }
    if (depth & 1) {
      vst1q_f16(dst, vld1q_f16(src));
      vst1q_f16(dst + 8, vld1q_f16(src + 8));
      vst1q_f16(dst + 16, vld1q_f16(src + 16));
    }
    return;
  }
  // A panel's last columns: whole vectors, then the `rem` last columns as
  // one vector with zeros above them, then zero vectors. With 8 columns or
  // more the part vector is the row's last 8 shifted down by a table
  // lookup (whose out-of-range indices give the zeros); with fewer it is
  // the 8 halves from the first column, masked, which may read into the
  // next rows: while they lie inside the panel's last row, else half by
  // half.
  const int64_t whole = cols / 8 * 8, rem = cols - whole;
  uint8_t index_bytes[16], mask_bytes[16];
  for (int i = 0; i < 16; ++i) {
    const int lane = i / 2;
    index_bytes[i] = lane < rem ? static_cast<uint8_t>(i + 2 * (8 - rem)) : 0xff;
    mask_bytes[i] = lane < rem ? 0xff : 0;
  }
  const uint8x16_t index = vld1q_u8(index_bytes), mask = vld1q_u8(mask_bytes);
  const float16x8_t zero = vdupq_n_f16(0);
  for (int64_t d = 0; d < depth; ++d, src += depth_stride, dst += kFp16GemmNr) {
    int64_t j = 0;
    for (; j < whole; j += 8) vst1q_f16(dst + j, vld1q_f16(src + j));
    if (rem > 0) {
      uint8x16_t part;
      if (cols >= 8) {
        part = vqtbl1q_u8(vreinterpretq_u8_f16(vld1q_f16(src + cols - 8)), index);
      } else if ((depth - 1 - d) * depth_stride + cols >= 8) {
        part = vandq_u8(vreinterpretq_u8_f16(vld1q_f16(src)), mask);
      } else {
        float16_t last[8] = {};
        for (int64_t i = 0; i < rem; ++i) last[i] = src[i];
        part = vreinterpretq_u8_f16(vld1q_f16(last));
      }
      vst1q_f16(dst + j, vreinterpretq_f16_u8(part));
      j += 8;
    }
    for (; j < kFp16GemmNr; j += 8) vst1q_f16(dst + j, zero);
  }
}

void Fp16ToFloat(const uint16_t* src_bits, int64_t count, float* dst) {
  const float16_t* src = reinterpret_cast<const float16_t*>(src_bits);
  int64_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const float16x8_t v = vld1q_f16(src + i);
    vst1q_f32(dst + i, vcvt_f32_f16(vget_low_f16(v)));
    vst1q_f32(dst + i + 4, vcvt_high_f32_f16(v));
  }
  for (; i < count; ++i) dst[i] = static_cast<float>(src[i]);
}

void Fp16Add(const uint16_t* a_bits, const uint16_t* b_bits, int64_t count, uint16_t* dst_bits) {
  const float16_t* a = reinterpret_cast<const float16_t*>(a_bits);
  const float16_t* b = reinterpret_cast<const float16_t*>(b_bits);
  float16_t* dst = reinterpret_cast<float16_t*>(dst_bits);
  int64_t i = 0;
  for (; i + 16 <= count; i += 16) {
    vst1q_f16(dst + i, vaddq_f16(vld1q_f16(a + i), vld1q_f16(b + i)));
    vst1q_f16(dst + i + 8, vaddq_f16(vld1q_f16(a + i + 8), vld1q_f16(b + i + 8)));
  }
  for (; i + 8 <= count; i += 8) vst1q_f16(dst + i, vaddq_f16(vld1q_f16(a + i), vld1q_f16(b + i)));
  for (; i < count; ++i) dst[i] = a[i] + b[i];
}

namespace {

template <typename CT>
using TileFn = void (*)(int64_t, const float16_t*, const float16_t*, CT*, int64_t, const float*,
                        const TileEpilogue&);

template <int kVecs, typename CT>
TileFn<CT> TileFor(const TileEpilogue& epilogue) {
  if (epilogue.accumulate) {
    if (!epilogue.last || epilogue.activation == kTileActNone) {
      return Tile<kVecs, true, kActNone, CT>;
    }
    // Halves of C plus the block's sums are a half sum: a half clamp after it.
    if constexpr (std::is_same<CT, float16_t>::value) {
      if (ActFor(epilogue) == kActHalf) return Tile<kVecs, true, kActHalf, CT>;
    }
    return Tile<kVecs, true, kActFloat, CT>;
  }
  if (!epilogue.last) return Tile<kVecs, false, kActNone, CT>;
  switch (ActFor(epilogue)) {
    case kActNone:
      return Tile<kVecs, false, kActNone, CT>;
    case kActHalf:
      return Tile<kVecs, false, kActHalf, CT>;
    default:
      return Tile<kVecs, false, kActFloat, CT>;
  }
}

// `vecs` as Tile's kVecs.
template <typename CT>
TileFn<CT> TileFor(int vecs, const TileEpilogue& epilogue) {
  switch (vecs) {
    case -1:
      return TileFor<-1, CT>(epilogue);
    case -2:
      return TileFor<-2, CT>(epilogue);
    case -3:
      return TileFor<-3, CT>(epilogue);
    case -4:
      return TileFor<-4, CT>(epilogue);
    default:
      break;
  }
  if (vecs == 3) return TileFor<3, CT>(epilogue);
  if (vecs == 2) return TileFor<2, CT>(epilogue);
  return TileFor<1, CT>(epilogue);
}

template <typename CT>
void StagedTile(TileFn<CT> tile, int64_t kc, const float16_t* a, const float16_t* b, CT* c,
                int64_t ldc, int rows, int cols, const TileEpilogue& epilogue);

// Fp16GemmTile for C of floats or of halves.
template <typename CT>
void GemmTile(int64_t kc, const uint16_t* a_bits, const uint16_t* b_bits, CT* c, int64_t ldc,
              int rows, int cols, const TileEpilogue& epilogue) {
  const float16_t* a = reinterpret_cast<const float16_t*>(a_bits);
  const float16_t* b = reinterpret_cast<const float16_t*>(b_bits);
  // Whole vectors of 8 columns: a tile narrower than 24 for a panel's last
  // columns computes no more of them than it needs; at most 4 columns take
  // the narrow tile of exactly that many.
  const int vecs = cols <= 4 ? -cols : (cols + 7) / 8;
  const TileFn<CT> tile = TileFor<CT>(vecs, epilogue);
  if (rows == kFp16GemmMr && (vecs < 0 || cols == 8 * vecs)) {
    tile(kc, a, b, c, ldc, epilogue.row_bias, epilogue);
    return;
  }
  // 1 to 4 columns past whole vectors (9, 17 or 20 of them): the vectors'
  // tile, then the narrow one for the rest. A step of the narrow tile costs
  // 1.75 + cols instructions where one more vector of 8 costs about 8.6.
  const int rest = cols % 8;
  if (rows == kFp16GemmMr && rest <= 4) {
    const int whole = cols - rest;
    TileFor<CT>(whole / 8, epilogue)(kc, a, b, c, ldc, epilogue.row_bias, epilogue);
    TileFor<CT>(-rest, epilogue)(kc, a, b + whole, c + whole, ldc, epilogue.row_bias, epilogue);
    return;
  }
  StagedTile(tile, kc, a, b, c, ldc, rows, cols, epilogue);
}

// A tile that sticks out of C: computed into a staging tile (holding C's
// values when accumulating), whose inside part is copied back. Not inlined:
// its stack frame would cost every full tile.
template <typename CT>
__attribute__((noinline)) void StagedTile(TileFn<CT> tile, int64_t kc, const float16_t* a,
                                          const float16_t* b, CT* c, int64_t ldc, int rows,
                                          int cols, const TileEpilogue& epilogue) {
  CT staging[kFp16GemmMr * kFp16GemmNr];
  float bias[kFp16GemmMr] = {};
  for (int r = 0; r < rows; ++r) {
    if (epilogue.row_bias != nullptr) bias[r] = epilogue.row_bias[r];
    if (epilogue.accumulate) std::copy(c + r * ldc, c + r * ldc + cols, staging + r * kFp16GemmNr);
  }
  tile(kc, a, b, staging, kFp16GemmNr, bias, epilogue);
  for (int r = 0; r < rows; ++r) {
    std::copy(staging + r * kFp16GemmNr, staging + r * kFp16GemmNr + cols, c + r * ldc);
  }
}

}  // namespace

void Fp16GemmTile(int64_t kc, const uint16_t* a, const uint16_t* b, float* c, int64_t ldc,
                  int rows, int cols, const TileEpilogue& epilogue) {
  GemmTile(kc, a, b, c, ldc, rows, cols, epilogue);
}

void Fp16GemmTileHalf(int64_t kc, const uint16_t* a, const uint16_t* b, uint16_t* c, int64_t ldc,
                      int rows, int cols, const TileEpilogue& epilogue) {
  GemmTile(kc, a, b, reinterpret_cast<float16_t*>(c), ldc, rows, cols, epilogue);
}

namespace {

// Fp16GemmTileHalfRows for one form of the store: per panel only its bias
// (as the reduction's start) and the assembly reduction and store.
template <ReduceOut kOut>
static void HalfRows(int64_t kc, const float16_t* a, int64_t a_stride, const float16_t* b,
                     float16_t* c, int64_t ldc, int64_t panels, const TileEpilogue& epilogue) {
  float16_t bounds[16];
  vst1q_f16(bounds, vdupq_n_f16(static_cast<float16_t>(epilogue.lo)));
  vst1q_f16(bounds + 8, vdupq_n_f16(static_cast<float16_t>(epilogue.hi)));
  const bool add_c = kOut == kAddHalfRowsOut || kOut == kClampedAddHalfRowsOut;
  const float* bias = add_c ? nullptr : epilogue.row_bias;
  const int64_t ldc_bytes = ldc * static_cast<int64_t>(sizeof(float16_t));
  if constexpr (kOut == kHalfRowsOut || kOut == kClampedHalfRowsOut) {
    if (panels <= 0) return;
    static const float kZeroBias[8] = {};
    const int64_t a_skip_bytes = (a_stride - 8 * kc) * static_cast<int64_t>(sizeof(float16_t));
    HalfRowsPanels<kOut == kClampedHalfRowsOut>(
        kc, a, a_skip_bytes, b, bias != nullptr ? bias : kZeroBias,
        bias != nullptr ? 8 * static_cast<int64_t>(sizeof(float)) : 0, c, ldc_bytes, panels,
        bounds);
    return;
  }
  float16_t init[8];
  vst1q_f16(init, vdupq_n_f16(0));
  for (int64_t p = 0; p < panels; ++p, a += a_stride, c += 8 * ldc) {
    if (bias != nullptr) {
      vst1q_f16(init, vcombine_f16(vcvt_f16_f32(vld1q_f32(bias + 8 * p)),
                                   vcvt_f16_f32(vld1q_f32(bias + 8 * p + 4))));
    }
    Reduce8x24<kOut>(kc, a, b, init, c, ldc_bytes, bounds);
  }
}

}  // namespace

void Fp16GemmTileHalfRows(int64_t kc, const uint16_t* a_bits, int64_t a_stride,
                          const uint16_t* b_bits, uint16_t* c_bits, int64_t ldc, int64_t panels,
                          const TileEpilogue& epilogue) {
  const float16_t* a = reinterpret_cast<const float16_t*>(a_bits);
  const float16_t* b = reinterpret_cast<const float16_t*>(b_bits);
  float16_t* c = reinterpret_cast<float16_t*>(c_bits);
  const bool act = epilogue.last && epilogue.activation != kTileActNone;
  const TileAct form = act ? ActFor(epilogue) : kActNone;
  if (form == kActFloat) {
    // An activation in single precision: the tile of one panel.
    for (int64_t p = 0; p < panels; ++p, a_bits += a_stride, c_bits += 8 * ldc) {
      TileEpilogue tile = epilogue;
      if (tile.row_bias != nullptr) tile.row_bias += 8 * p;
      Fp16GemmTileHalf(kc, a_bits, b_bits, c_bits, ldc, kFp16GemmMr, kFp16GemmNr, tile);
    }
    return;
  }
  if (epilogue.accumulate) {
    if (form == kActHalf) return HalfRows<kClampedAddHalfRowsOut>(kc, a, a_stride, b, c, ldc, panels, epilogue);
    return HalfRows<kAddHalfRowsOut>(kc, a, a_stride, b, c, ldc, panels, epilogue);
  }
  if (form == kActHalf) return HalfRows<kClampedHalfRowsOut>(kc, a, a_stride, b, c, ldc, panels, epilogue);
  HalfRows<kHalfRowsOut>(kc, a, a_stride, b, c, ldc, panels, epilogue);
}

namespace {

// Fp16GemmHalfPositions' products of one position for kCols <= 4 columns:
// row panels in threes, the rest one at a time.
template <int kCols>
static void NarrowRows(int64_t kc, const float16_t* a, const float16_t* b, float16_t* c,
                       int64_t ldc, int64_t panels) {
  const int64_t a_stride = kFp16GemmMr * kc;
  int64_t p = 0;
  for (; p + 3 <= panels; p += 3) {
    NarrowTriple<kCols>(kc, a + p * a_stride, a_stride, b, c + 8 * p * ldc, ldc);
  }
  static const TileEpilogue kPlain = [] {
    TileEpilogue plain;
    plain.last = true;
    return plain;
  }();
  for (; p < panels; ++p) {
    NarrowTile<kCols, false, kActNone>(kc, a + p * a_stride, b, c + 8 * p * ldc, ldc, nullptr,
                                       kPlain);
  }
}

// The same for kVecs whole vectors of columns: the assembly reduction and
// store of each tile, with nothing per tile around it.
template <int kVecs>
static void VectorRows(int64_t kc, const float16_t* a, const float16_t* b, float16_t* c,
                       int64_t ldc, int64_t panels) {
  float16_t zeros[8];
  vst1q_f16(zeros, vdupq_n_f16(0));
  const int64_t ldc_bytes = ldc * static_cast<int64_t>(sizeof(float16_t));
  for (int64_t p = 0; p < panels; ++p, a += kFp16GemmMr * kc, c += kFp16GemmMr * ldc) {
    ReduceTile<kVecs, kHalfRowsOut>(kc, a, b, zeros, c, ldc_bytes, nullptr);
  }
}

// Fp16GemmHalfPositions with kRows for each position's row panels.
template <void (*kRows)(int64_t, const float16_t*, const float16_t*, float16_t*, int64_t, int64_t)>
static void EachPosition(int64_t kc, const uint16_t* const* a, int64_t a_offset,
                         const uint16_t* b, int64_t b_stride, uint16_t* c, int64_t c_stride,
                         int64_t ldc, int64_t positions, int64_t panels) {
  for (int64_t x = 0; x < positions; ++x) {
    kRows(kc, reinterpret_cast<const float16_t*>(a[x] + a_offset),
          reinterpret_cast<const float16_t*>(b + x * b_stride),
          reinterpret_cast<float16_t*>(c + x * c_stride), ldc, panels);
  }
}

}  // namespace

void Fp16GemmHalfPositions(int64_t kc, const uint16_t* const* a, int64_t a_offset,
                           const uint16_t* b, int64_t b_stride, uint16_t* c, int64_t c_stride,
                           int64_t ldc, int64_t positions, int64_t panels, int cols) {
  using PositionsFn = void (*)(int64_t, const uint16_t* const*, int64_t, const uint16_t*,
                               int64_t, uint16_t*, int64_t, int64_t, int64_t, int64_t);
  static constexpr PositionsFn kByCols[25] = {
      nullptr,
      EachPosition<NarrowRows<1>>,
      EachPosition<NarrowRows<2>>,
      EachPosition<NarrowRows<3>>,
      EachPosition<NarrowRows<4>>,
      nullptr, nullptr, nullptr,
      EachPosition<VectorRows<1>>,
      nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
      EachPosition<VectorRows<2>>,
      nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
      EachPosition<VectorRows<3>>};
  if (cols >= 1 && cols <= kFp16GemmNr && kByCols[cols] != nullptr) {
    return kByCols[cols](kc, a, a_offset, b, b_stride, c, c_stride, ldc, positions, panels);
  }
  // Whole vectors and a narrow rest: the general tile.
  TileEpilogue plain;
  plain.last = true;
  for (int64_t x = 0; x < positions; ++x) {
    for (int64_t p = 0; p < panels; ++p) {
      Fp16GemmTileHalf(kc, a[x] + a_offset + p * kFp16GemmMr * kc, b + x * b_stride,
                       c + x * c_stride + p * kFp16GemmMr * ldc, ldc, kFp16GemmMr, cols, plain);
    }
  }
}

void Fp16PanelDot(const uint16_t* panel_bits, int64_t depth, const uint16_t* x_bits, float* out) {
  const float16_t* panel = reinterpret_cast<const float16_t*>(panel_bits);
  const float16_t* x = reinterpret_cast<const float16_t*>(x_bits);
  float32x4_t lo = vdupq_n_f32(0.f), hi = vdupq_n_f32(0.f);
  for (int64_t d0 = 0; d0 < depth; d0 += kDotChunk) {
    const int64_t end = std::min(depth, d0 + kDotChunk);
    float16x8_t s0 = vdupq_n_f16(0), s1 = vdupq_n_f16(0);
    int64_t d = d0;
    for (; d + 8 <= end; d += 8) {
      const float16x8_t xv = vld1q_f16(x + d);
      const float16_t* p = panel + d * 8;
      s0 = vfmaq_laneq_f16(s0, vld1q_f16(p), xv, 0);
      s1 = vfmaq_laneq_f16(s1, vld1q_f16(p + 8), xv, 1);
      s0 = vfmaq_laneq_f16(s0, vld1q_f16(p + 16), xv, 2);
      s1 = vfmaq_laneq_f16(s1, vld1q_f16(p + 24), xv, 3);
      s0 = vfmaq_laneq_f16(s0, vld1q_f16(p + 32), xv, 4);
      s1 = vfmaq_laneq_f16(s1, vld1q_f16(p + 40), xv, 5);
      s0 = vfmaq_laneq_f16(s0, vld1q_f16(p + 48), xv, 6);
      s1 = vfmaq_laneq_f16(s1, vld1q_f16(p + 56), xv, 7);
    }
    for (; d < end; ++d) s0 = vfmaq_f16(s0, vld1q_f16(panel + d * 8), vdupq_n_f16(x[d]));
    lo = vaddq_f32(lo, vaddq_f32(vcvt_f32_f16(vget_low_f16(s0)), vcvt_f32_f16(vget_low_f16(s1))));
    hi = vaddq_f32(hi, vaddq_f32(vcvt_high_f32_f16(s0), vcvt_high_f32_f16(s1)));
  }
  vst1q_f32(out, lo);
  vst1q_f32(out + 4, hi);
}

}  // namespace arm
}  // namespace ops
}  // namespace mace
