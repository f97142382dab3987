// Half-precision NEON GEMM kernels (FEAT_FP16: fmla on .8h): the 8-row
// tiles, their panel and position drivers, and the matrix-vector panel. Built
// with -march=armv8.2-a+fp16 and called only after the HWCAP check, so
// nothing here may be inlined into baseline code: every helper is static.
#include <arm_neon.h>

#include <algorithm>
#include <type_traits>

#include "mace/ops/arm/fp16_neon_common.h"
#include "mace/ops/arm/fp16_neon_kernels.h"
#include "mace/ops/arm/neon_epilogue.h"

namespace mace {
namespace ops {
namespace arm {
namespace {

// Partial sums of the matrix-vector product stay in half precision for at
// most this many steps before they are added in single precision.
constexpr int64_t kDotChunk = 64;


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

}  // namespace

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
