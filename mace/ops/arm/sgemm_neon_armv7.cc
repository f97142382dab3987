// The armv7 NEON 6 x 8 SGEMM tile in assembly (NeonGemm's full tile), and
// runs of such tiles along a row or a column of C (NeonGemmRun).
//
// Written with intrinsics, GCC 12 spent 22 instructions on a step of the
// reduction: 12 vmla, 4 loads and 6 integer instructions. Here a step is one
// vld1 of the 6 A values (d0-d2), one of the 8 B values (q2-q3), both with
// the pointer increment folded in, and 12 vmla by lane; eight steps share the
// loop's subs and bne, so a step costs 14.25 instructions for 48
// multiply-adds (2 loads a step is the floor: the 14 operands of a step fill
// all but one of the 8 d registers the accumulators leave). Row i of the
// tile accumulates in q(4+2i) and q(5+2i), whose four d registers are
// consecutive, so one vld1 or vst1 moves a row of C.
//
// The accumulators start from C (later reduction blocks), from the row bias
// (the first block: the same sum as adding it with the last, at no cost) or
// from zero. The last block clamps in place; each row is stored with one
// vst1.
//
// A run of tiles inlines the assembly into one loop, so a tile costs its
// reduction, its start and stores, and about 20 instructions of the loop,
// where a call per tile through the GEMM driver and NeonGemm cost about
// 140 more (MobileNet v1 runs some 74,000 tiles).
#include "mace/ops/arm/sgemm_neon_armv7.h"

#if defined(__ARM_NEON) && !defined(__aarch64__)

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace mace {
namespace ops {
namespace arm {

namespace {
// The asm's mode bits.
constexpr int kFromC = 1, kClamp = 2, kClampHi = 4;

// clang-format off
// The 12 multiply-adds of a step: B (q2, q3) times each A lane (d0-d2).
#define MACE_V7_MACS                           \
  "vmla.f32 q4, q2, d0[0]\n"                   \
  "vmla.f32 q6, q2, d0[1]\n"                   \
  "vmla.f32 q8, q2, d1[0]\n"                   \
  "vmla.f32 q10, q2, d1[1]\n"                  \
  "vmla.f32 q12, q2, d2[0]\n"                  \
  "vmla.f32 q14, q2, d2[1]\n"                  \
  "vmla.f32 q5, q3, d0[0]\n"                   \
  "vmla.f32 q7, q3, d0[1]\n"                   \
  "vmla.f32 q9, q3, d1[0]\n"                   \
  "vmla.f32 q11, q3, d1[1]\n"                  \
  "vmla.f32 q13, q3, d2[0]\n"                  \
  "vmla.f32 q15, q3, d2[1]\n"

// Four depths of a 6-wide panel (depth 0 in d0-d2, 1 in d3-d5, 2 in
// d6-d8, 3 in d9-d11) times their 4 values in d12-d13: rows 0-3 and 4-5
// of even depths accumulate in q10 and d22, rows 0-1 and 2-5 of odd ones
// in d23 and q12 (d24-d25).
#define MACE_V7_SIX_BY_FOUR_DEPTHS             \
  "vmla.f32 q10, q0, d12[0]\n"                 \
  "vmla.f32 d22, d2, d12[0]\n"                 \
  "vmla.f32 d23, d3, d12[1]\n"                 \
  "vmla.f32 q12, q2, d12[1]\n"                 \
  "vmla.f32 q10, q3, d13[0]\n"                 \
  "vmla.f32 d22, d8, d13[0]\n"                 \
  "vmla.f32 d23, d9, d13[1]\n"                 \
  "vmla.f32 q12, q5, d13[1]\n"

#define MACE_V7_STEP                           \
  "vld1.32 {d0-d2}, [%[a]]!\n"                 \
  "vld1.32 {d4-d7}, [%[b]]!\n"                 \
  MACE_V7_MACS

// The accumulators from the 6 row biases at the operand named `ptr`
// (which advances), or (at label 11, which the caller branches to when
// there is no bias) from zero; both continue at label 12.
#define MACE_V7_BIAS_OR_ZERO(ptr)                                          \
  "vld1.32 {d8[], d9[]}, [%[" ptr "]]!\n"                                 \
  "vld1.32 {d12[], d13[]}, [%[" ptr "]]!\n"                               \
  "vld1.32 {d16[], d17[]}, [%[" ptr "]]!\n"                               \
  "vld1.32 {d20[], d21[]}, [%[" ptr "]]!\n"                               \
  "vld1.32 {d24[], d25[]}, [%[" ptr "]]!\n"                               \
  "vld1.32 {d28[], d29[]}, [%[" ptr "]]\n"                                \
  "vmov q5, q4\n vmov q7, q6\n vmov q9, q8\n"                           \
  "vmov q11, q10\n vmov q13, q12\n vmov q15, q14\n"                     \
  "b 12f\n"                                                               \
  MACE_V7_ZERO_AT_11
// Label 11: the accumulators zeroed; then label 12.
#define MACE_V7_ZERO_AT_11                                                  \
  "11:\n"                                                                 \
  "vmov.i32 q4, #0\n vmov.i32 q5, #0\n vmov.i32 q6, #0\n vmov.i32 q7, #0\n"   \
  "vmov.i32 q8, #0\n vmov.i32 q9, #0\n vmov.i32 q10, #0\n vmov.i32 q11, #0\n" \
  "vmov.i32 q12, #0\n vmov.i32 q13, #0\n vmov.i32 q14, #0\n vmov.i32 q15, #0\n" \
  "12:\n"
// The accumulators from the 8 column biases at %[bias] (a FullyConnected's
// bias; the same for every row), or from zero at label 11 as above: one
// load and 10 copies, where staging the tile to add them after the
// reduction cost a store, a load and an add per accumulator.
#define MACE_V7_COL_BIAS_OR_ZERO                                           \
  "vld1.32 {d8-d11}, [%[bias]]\n"                                         \
  "vmov q6, q4\n vmov q7, q5\n vmov q8, q4\n vmov q9, q5\n"             \
  "vmov q10, q4\n vmov q11, q5\n vmov q12, q4\n vmov q13, q5\n"         \
  "vmov q14, q4\n vmov q15, q5\n"                                       \
  "b 12f\n"                                                               \
  MACE_V7_ZERO_AT_11

#define MACE_V7_ROWS(op)                       \
  op " {d8-d11}, [%[row]], %[ldc]\n"           \
  op " {d12-d15}, [%[row]], %[ldc]\n"          \
  op " {d16-d19}, [%[row]], %[ldc]\n"          \
  op " {d20-d23}, [%[row]], %[ldc]\n"          \
  op " {d24-d27}, [%[row]], %[ldc]\n"          \
  op " {d28-d31}, [%[row]], %[ldc]\n"

#define MACE_V7_ALL(op, q)                                          \
  op " q4, q4, " q "\n" op " q5, q5, " q "\n"                       \
  op " q6, q6, " q "\n" op " q7, q7, " q "\n"                       \
  op " q8, q8, " q "\n" op " q9, q9, " q "\n"                       \
  op " q10, q10, " q "\n" op " q11, q11, " q "\n"                   \
  op " q12, q12, " q "\n" op " q13, q13, " q "\n"                   \
  op " q14, q14, " q "\n" op " q15, q15, " q "\n"

// The reduction, clamp and stores of a tile after its start (label 12).
#define MACE_V7_TILE_STEPS_AND_STORE                                        \
  "cmp %[eights], #0\n"                                                     \
  "beq 2f\n"                                                                \
  "1:\n"                                                                    \
  MACE_V7_STEP MACE_V7_STEP MACE_V7_STEP MACE_V7_STEP                       \
  MACE_V7_STEP MACE_V7_STEP MACE_V7_STEP MACE_V7_STEP                       \
  "subs %[eights], %[eights], #1\n"                                         \
  "bne 1b\n"                                                                \
  "2:\n"                                                                    \
  "cmp %[rest], #4\n"                                                       \
  "blt 3f\n"                                                                \
  MACE_V7_STEP MACE_V7_STEP MACE_V7_STEP MACE_V7_STEP                       \
  "subs %[rest], %[rest], #4\n"                                             \
  "beq 4f\n"                                                                \
  "3:\n"                                                                    \
  "cmp %[rest], #0\n"                                                       \
  "beq 4f\n"                                                                \
  "5:\n"                                                                    \
  MACE_V7_STEP                                                              \
  "subs %[rest], %[rest], #1\n"                                             \
  "bne 5b\n"                                                                \
  "4:\n"                                                                    \
  "tst %[flags], %[clamp]\n"                                                \
  "beq 6f\n"                                                                \
  "vld1.32 {d0[], d1[]}, [%[bounds]]!\n"                                    \
  MACE_V7_ALL("vmax.f32", "q0")                                             \
  "tst %[flags], %[clamp_hi]\n"                                             \
  "beq 6f\n"                                                                \
  "vld1.32 {d2[], d3[]}, [%[bounds]]\n"                                     \
  MACE_V7_ALL("vmin.f32", "q1")                                             \
  "6:\n"                                                                    \
  "mov %[row], %[c]\n"                                                      \
  MACE_V7_ROWS("vst1.32")
// A tile from C (kFromC), else from `start` (which reads %[bias], not
// null) or from zero (label 11).
#define MACE_V7_TILE_ASM(start)                                             \
  "tst %[flags], %[from_c]\n"                                               \
  "beq 10f\n"                                                               \
  "mov %[row], %[c]\n"                                                      \
  MACE_V7_ROWS("vld1.32")                                                   \
  "b 12f\n"                                                                 \
  "10:\n"                                                                   \
  "cmp %[bias], #0\n"                                                       \
  "beq 11f\n"                                                               \
  start                                                                     \
  MACE_V7_TILE_STEPS_AND_STORE                                              \
  : [a] "+r"(a), [b] "+r"(b), [eights] "+r"(eights), [rest] "+r"(rest), [bias] "+r"(bias), \
    [bounds] "+r"(bounds), [row] "=&r"(row)                                 \
  : [c] "r"(c), [ldc] "r"(ldc_bytes), [flags] "r"(flags), [from_c] "I"(kFromC), \
    [clamp] "I"(kClamp), [clamp_hi] "I"(kClampHi)                           \
  : "cc", "memory", "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8", "d9", "d10", "d11", \
    "d12", "d13", "d14", "d15", "d16", "d17", "d18", "d19", "d20", "d21", "d22", "d23", \
    "d24", "d25", "d26", "d27", "d28", "d29", "d30", "d31"

// C rows (ldc_bytes apart) = (flags & kFromC ? C : bias ? bias[i] : 0) +
// A x B, then clamped below at bounds[0] (and above at bounds[1] if
// kClampHi) if kClamp. kColBias: the start is bias[j] in column j (a
// column bias) instead.
template <bool kColBias = false>
__attribute__((always_inline)) inline void Tile(int kc, const float* a, const float* b, float* c,
                                                int ldc_bytes, int flags, const float* bias,
                                                const float* bounds) {
  int eights = kc >> 3;
  int rest = kc & 7;
  float* row;
  if constexpr (kColBias) {
    __asm__ volatile(MACE_V7_TILE_ASM(MACE_V7_COL_BIAS_OR_ZERO));
  } else {
    __asm__ volatile(MACE_V7_TILE_ASM(MACE_V7_BIAS_OR_ZERO("bias")));
  }
}
#undef MACE_V7_TILE_ASM
#undef MACE_V7_TILE_STEPS_AND_STORE
// clang-format on

inline int Flags(bool from_c, bool clamp, bool clamp_hi) {
  return (from_c ? kFromC : 0) | (clamp ? kClamp : 0) | (clamp_hi ? kClampHi : 0);
}

}  // namespace

void Armv7GemmTile6x8(int kc, const float* a, const float* b, float* c, int ldc_bytes, bool from_c,
                      const float* bias, bool clamp, bool clamp_hi, const float* bounds) {
  Tile(kc, a, b, c, ldc_bytes, Flags(from_c, clamp, clamp_hi), bias, bounds);
}

void Armv7GemmColBiasRun6x8(int tiles, int kc, const float* a, int a_step, const float* b,
                            int b_step, float* c, int c_step, int ldc_bytes, bool from_c,
                            const float* col_bias, int col_bias_step, bool clamp, bool clamp_hi,
                            const float* bounds) {
  const int flags = Flags(from_c, clamp, clamp_hi);
  for (; tiles > 0; --tiles, a += a_step, b += b_step, c += c_step, col_bias += col_bias_step) {
    Tile<true>(kc, a, b, c, ldc_bytes, flags, col_bias, bounds);
  }
}

// A run of tiles in one assembly loop, for the tiles that do not prefetch.
// The loop above pays about 75 instructions a tile besides the steps: the
// start, clamp and store branches on the flags, the prefetch test and the
// pointer updates in C++ with their operands spilled to the stack, and the
// reduction's remainder branches. Here the start and clamp are chosen at
// compile time (kStart, kClamp), the steps, C and bias advance by their
// post-increments and one add each corrects A, B and C for the next tile,
// and the reduction is a loop of 16 steps entered part-way (Duff's device)
// so that kc % 16 costs no branches: a pass's subs/bne and two loads
// (the pass count, the entry) for the whole reduction. 58 and 116 deep
// (ShuffleNet v2's 1x1 layers) took 24 and 34 instructions of loop
// control and now take 10 and 18; a tile's own set-up is 38.
//
// A tile's accumulators start from C, from the 6 row biases duplicated in
// the asm (6 vld1 and 6 vmov), or from a start tile built once per call:
// the row biases (or zeros) already repeated across each row, so that two
// vldmia load all 12 accumulators. 1x1 layers with 16 to 32 input
// channels (MobileNet v2's expansions, some 56,000 tiles of 16 to 32
// steps) spent 12 of a tile's ~56 instructions of set-up on the start.
namespace {
// kRunBias: the biases duplicated, a tile's 6 after the previous tile's
// (the 6 x 8 run only). kRunStarts: start tiles, one a tile. kRunSameStart:
// one start tile for every tile (the same row biases, or zeros).
enum RunStart { kRunFromC, kRunBias, kRunStarts, kRunSameStart };
enum RunClamp { kRunNoClamp, kRunClampLo, kRunClampBoth };

// The clamp bounds as the runs' frames hold them, at offset 0: the lower
// bound 4 times, then the upper one 4 times, so that one vld1 puts both
// vectors in q0 and q1 where loading the pair and duplicating each lane
// took 3 instructions (a tile of the 6 x 8 runs, or each 6 x 4 half of a
// deep one, clamps once). Left unset by construction: a run sets the
// bounds its clamp reads (SetBounds) and no others, so that the runs
// without a clamp (Winograd's, thousands of calls) pay nothing for them.
struct DupBounds {
  DupBounds() {}
  float lo[4], hi[4];
};
inline void SetBounds(bool clamp, bool clamp_hi, const float* bounds, DupBounds* out) {
  if (!clamp) return;
  std::fill_n(out->lo, 4, bounds[0]);
  if (clamp_hi) std::fill_n(out->hi, 4, bounds[1]);
}

// What the run's loop reads through its frame pointer, at fixed offsets.
struct RunFrame {
  DupBounds bounds;   // 0
  int passes;         // 32: passes of the 16-step loop, the first partial
  const void* entry;  // 36: where the first pass enters (set by the asm)
  int skip_bytes;     // 40: the steps the first pass skips, in bytes
  // A run of runs (the GEMM's column panels): the runs left, counted
  // down by the asm, each run's tiles, and the bytes A, B, C and the bias
  // move from the end of one run to the start of the next.
  int runs;           // 44
  int run_tiles;      // 48
  int a_next, b_next, c_next, bias_next;  // 52, 56, 60, 64
};
static_assert(offsetof(RunFrame, passes) == 32 && offsetof(RunFrame, entry) == 36 &&
                  offsetof(RunFrame, skip_bytes) == 40 && offsetof(RunFrame, runs) == 44 &&
                  offsetof(RunFrame, run_tiles) == 48 && offsetof(RunFrame, a_next) == 52 &&
                  offsetof(RunFrame, bias_next) == 64,
              "the offsets MACE_V7_RUN reads");

// clang-format off
#define MACE_V7_STEPS_4 MACE_V7_STEP MACE_V7_STEP MACE_V7_STEP MACE_V7_STEP
// The accumulators from 6 row biases that advance a tile's worth (the
// next tile's rows) or stay (the same rows).
#define MACE_V7_RUN_DUP6(last)                                              \
  "vld1.32 {d8[], d9[]}, [%[bias]]!\n"                                      \
  "vld1.32 {d12[], d13[]}, [%[bias]]!\n"                                    \
  "vld1.32 {d16[], d17[]}, [%[bias]]!\n"                                    \
  "vld1.32 {d20[], d21[]}, [%[bias]]!\n"                                    \
  "vld1.32 {d24[], d25[]}, [%[bias]]!\n"                                    \
  "vld1.32 {d28[], d29[]}, [%[bias]]" last "\n"                             \
  "vmov q5, q4\n vmov q7, q6\n vmov q9, q8\n"                             \
  "vmov q11, q10\n vmov q13, q12\n vmov q15, q14\n"
// The accumulators from a start tile of 48 floats at the bias operand,
// which moves on to the next tile's, or stays.
#define MACE_V7_RUN_STARTS "vldmia %[bias]!, {d8-d23}\n vldmia %[bias]!, {d24-d31}\n"
#define MACE_V7_RUN_SAME_START                                              \
  "vldmia %[bias]!, {d8-d23}\n vldmia %[bias], {d24-d31}\n"                \
  "sub %[bias], %[bias], #128\n"
#define MACE_V7_RUN_FROM_C "mov %[n], %[c]\n" MACE_V7_RUN_ROWS("vld1.32", "n")
#define MACE_V7_RUN_ROWS(op, p)                                             \
  op " {d8-d11}, [%[" p "]], %[ldc]\n"                                      \
  op " {d12-d15}, [%[" p "]], %[ldc]\n"                                     \
  op " {d16-d19}, [%[" p "]], %[ldc]\n"                                     \
  op " {d20-d23}, [%[" p "]], %[ldc]\n"                                     \
  op " {d24-d27}, [%[" p "]], %[ldc]\n"                                     \
  op " {d28-d31}, [%[" p "]], %[ldc]\n"
#define MACE_V7_RUN_CLAMP_LO                                                \
  "vld1.32 {d0-d1}, [%[prm]]\n"                                             \
  MACE_V7_ALL("vmax.f32", "q0")
#define MACE_V7_RUN_CLAMP_BOTH                                              \
  "vld1.32 {d0-d3}, [%[prm]]\n"                                             \
  MACE_V7_ALL("vmax.f32", "q0")                                             \
  MACE_V7_ALL("vmin.f32", "q1")
// GNU as checks the code sizes the computed entries count on; clang's
// integrated assembler cannot evaluate label differences in `.if` (it
// needs an absolute expression), so a clang build goes without the check.
#if defined(__clang__)
#define MACE_V7_SIZE_CHECK(cond, message) ""
#else
#define MACE_V7_SIZE_CHECK(cond, message) \
  ".if " cond "\n"                        \
  ".error \"" message "\"\n"              \
  ".endif\n"
#endif
// A Thumb adr counts from the instruction's address rounded down to 4
// bytes. clang's integrated assembler resolves an adr to a label of the
// same function when it assembles, as if the function's section started
// on 4 bytes, yet leaves that section 2-byte aligned (GCC's functions
// start on 4), so a linker that puts the function 2 bytes off makes
// every entry 2 bytes off, inside an instruction. Each entry label is
// therefore aligned to 4, which also makes its section so; the padding
// follows a load into pc and never runs.
#if defined(__thumb__) && defined(__clang__)
#define MACE_V7_ENTRY_ALIGN ".p2align 2\n"
#else
#define MACE_V7_ENTRY_ALIGN ""
#endif
// Thumb-2 (the armhf default) branches to an address loaded into pc in
// the state its bit 0 names; ARM mode needs it clear.
// The address of local label `l` (e.g. "1f") into n. A Thumb-2 adr reaches
// 4095 bytes; an ARM adr only an 8-bit rotated constant, which the entries
// 0x400-0x4ff bytes on are not, so ARM mode aims 1024 bytes short and adds
// them back (any 4-byte multiple up to 2044 bytes then fits both).
#if defined(__thumb__)
#define MACE_V7_RUN_THUMB_BIT "orr %[n], %[n], #1\n"
#define MACE_V7_ADR(l) "adr %[n], " l "\n"
#else
#define MACE_V7_RUN_THUMB_BIT ""
#define MACE_V7_ADR(l) "adr %[n], " l " - 1024\n add %[n], %[n], #1024\n"
#endif
#define MACE_V7_RUN(start, clamp)                                           \
  MACE_V7_ADR("1f")                                                         \
  "ldr %[t], [%[prm], #40]\n"                                               \
  "add %[n], %[n], %[t]\n"                                                  \
  MACE_V7_RUN_THUMB_BIT                                                     \
  "str %[n], [%[prm], #36]\n"                                               \
  "0:\n"                                                                    \
  start                                                                     \
  "ldr %[n], [%[prm], #32]\n"                                               \
  "ldr pc, [%[prm], #36]\n"                                                 \
  MACE_V7_ENTRY_ALIGN                                                       \
  "1:\n"                                                                    \
  MACE_V7_STEPS_4 MACE_V7_STEPS_4 MACE_V7_STEPS_4 MACE_V7_STEPS_4           \
  "2:\n"                                                                    \
  MACE_V7_SIZE_CHECK("(2b - 1b) - 16 * 56", "a step is not 14 four-byte instructions") \
  "subs %[n], %[n], #1\n"                                                   \
  "bne 1b\n"                                                                \
  clamp                                                                     \
  MACE_V7_RUN_ROWS("vst1.32", "c")                                          \
  "add %[a], %[a], %[a_adj]\n"                                              \
  "add %[b], %[b], %[b_adj]\n"                                              \
  "add %[c], %[c], %[c_adj]\n"                                              \
  "subs %[tiles], %[tiles], #1\n"                                           \
  "bne 0b\n"                                                                \
  "ldr %[t], [%[prm], #44]\n"                                               \
  "subs %[t], %[t], #1\n"                                                   \
  "beq 9f\n"                                                                \
  "str %[t], [%[prm], #44]\n"                                               \
  "ldr %[tiles], [%[prm], #48]\n"                                           \
  "ldr %[t], [%[prm], #52]\n"                                               \
  "add %[a], %[a], %[t]\n"                                                  \
  "ldr %[t], [%[prm], #56]\n"                                               \
  "add %[b], %[b], %[t]\n"                                                  \
  "ldr %[t], [%[prm], #60]\n"                                               \
  "add %[c], %[c], %[t]\n"                                                  \
  "ldr %[t], [%[prm], #64]\n"                                               \
  "add %[bias], %[bias], %[t]\n"                                            \
  "b 0b\n"                                                                  \
  "9:\n"
// clang-format on

// `run_asm(start, clamp)` with the clamp kClamp names.
#define MACE_V7_BY_CLAMP(run_asm, start)                \
  if constexpr (kClamp == kRunNoClamp) {                \
    run_asm(start, "");                                 \
  } else if constexpr (kClamp == kRunClampLo) {         \
    run_asm(start, MACE_V7_RUN_CLAMP_LO);               \
  } else {                                              \
    run_asm(start, MACE_V7_RUN_CLAMP_BOTH);             \
  }

template <RunStart kStart, RunClamp kClamp>
void RunTiles(int tiles, const float* a, int a_adj, const float* b, int b_adj, float* c,
              int c_adj, int ldc_bytes, const float* bias, RunFrame* prm) {
  int n, t;
#define MACE_V7_RUN_ASM(start, clamp)                                                           \
  __asm__ volatile(MACE_V7_RUN(start, clamp)                                                    \
                   : [a] "+r"(a), [b] "+r"(b), [c] "+r"(c), [tiles] "+r"(tiles),               \
                     [bias] "+r"(bias), [n] "=&r"(n), [t] "=&r"(t)                             \
                   : [prm] "r"(prm), [ldc] "r"(ldc_bytes), [a_adj] "r"(a_adj),                \
                     [b_adj] "r"(b_adj), [c_adj] "r"(c_adj)                                    \
                   : "cc", "memory", "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8",     \
                     "d9", "d10", "d11", "d12", "d13", "d14", "d15", "d16", "d17", "d18",     \
                     "d19", "d20", "d21", "d22", "d23", "d24", "d25", "d26", "d27", "d28",    \
                     "d29", "d30", "d31")
#define MACE_V7_RUN_CLAMPS(start) MACE_V7_BY_CLAMP(MACE_V7_RUN_ASM, start)
  if constexpr (kStart == kRunFromC) {
    MACE_V7_RUN_CLAMPS(MACE_V7_RUN_FROM_C)
  } else if constexpr (kStart == kRunBias) {
    MACE_V7_RUN_CLAMPS(MACE_V7_RUN_DUP6("!"))
  } else if constexpr (kStart == kRunStarts) {
    MACE_V7_RUN_CLAMPS(MACE_V7_RUN_STARTS)
  } else {
    MACE_V7_RUN_CLAMPS(MACE_V7_RUN_SAME_START)
  }
#undef MACE_V7_RUN_CLAMPS
#undef MACE_V7_RUN_ASM
}

template <RunStart kStart>
void RunTilesClamped(RunClamp clamp, int tiles, const float* a, int a_adj, const float* b,
                     int b_adj, float* c, int c_adj, int ldc_bytes, const float* bias,
                     RunFrame* prm) {
  if (clamp == kRunNoClamp) {
    RunTiles<kStart, kRunNoClamp>(tiles, a, a_adj, b, b_adj, c, c_adj, ldc_bytes, bias, prm);
  } else if (clamp == kRunClampLo) {
    RunTiles<kStart, kRunClampLo>(tiles, a, a_adj, b, b_adj, c, c_adj, ldc_bytes, bias, prm);
  } else {
    RunTiles<kStart, kRunClampBoth>(tiles, a, a_adj, b, b_adj, c, c_adj, ldc_bytes, bias, prm);
  }
}
}  // namespace

namespace {
// The 6 x 8 tiles of a run as their 6 x 4 halves (below), started from C
// or 6 x 4 start tiles and clamped as RunTiles' are. Not inlined: its asm
// takes 12 core registers, which RunsOfTiles' frame does not leave.
// SplitHalvesRun: the same on a split copy of their common B panel;
// SplitHalvesRunOn on one split before (Armv7SplitPanels).
// The first prefetch_tiles of its tiles run one at a time, each after
// prefetching the A panel two tiles ahead (PrefetchPanel).
__attribute__((noinline)) void SplitHalvesRun(RunStart start, RunClamp clamp, int tiles, int kc,
                                              const float* a, int a_step, const float* b,
                                              float* c, int c_step, int ldc_bytes,
                                              const float* starts, const float* bounds,
                                              int prefetch_tiles);
__attribute__((noinline)) void SplitHalvesRunOn(RunStart start, RunClamp clamp, int tiles, int kc,
                                                const float* a, int a_step, const float* split,
                                                float* c, int c_step, int ldc_bytes,
                                                const float* starts, const float* bounds);
__attribute__((noinline)) void HalvesRun(RunStart start, RunClamp clamp, int tiles, int kc,
                                         const float* a, int a_step, const float* b,
                                         int b_step, float* c, int c_step, int ldc_bytes,
                                         const float* starts, const float* bounds);
// From this depth on, the halves' steps (27 instructions for 4 depths
// where the tile's take 28, and a shorter loop) save more than their
// second start and stores cost.
constexpr int kHalvesMinKc = 64;
// The depths of one pass of the halves' loop (8 units of 4); of the split
// halves' loop over whole passes, 16 units (NarrowRun).
constexpr int kWholePassDepth = 32;
constexpr int kWholeSplitPassDepth = 64;

// Runs that reuse one B panel (b_step 0) over at least this many tiles
// split it first (SplitPanel): its 2 instructions a depth against half an
// instruction a depth saved per tile, and B's move between the halves.
constexpr int kSplitMinTiles = 5;
// The deepest panel split, on the stack (16 KiB): the driver's blocks.
constexpr int kSplitMaxKc = 512;

// The most tiles a run builds start tiles for (3 KiB of stack); longer
// runs go in parts. The GEMM's runs along a column panel have mc / 6 = 16.
constexpr int kMaxStartTiles = 16;
// The start tile of no bias (also the 6 x 4 one).
alignas(16) constexpr float kZeroStart[6 * 8] = {};

// The start tiles of `tiles` tiles: each tile's 6 row biases (6 floats
// after the previous tile's), each repeated `width` (4 or 8) times, into
// out. One vld1, 6 or 12 vdup and 2 vstmia a tile: GCC's loop of the same
// took about 50.
void FillStarts(const float* bias, int tiles, int width, float* out) {
  if (tiles <= 0) return;
  // clang-format off
#define MACE_V7_FILL(dups_and_stores, ...)                                       \
  __asm__ volatile("1:\n"                                                        \
                   "vld1.32 {d0-d2}, [%[bias]]!\n"                               \
                   dups_and_stores                                               \
                   "subs %[tiles], %[tiles], #1\n"                               \
                   "bne 1b\n"                                                    \
                   : [bias] "+r"(bias), [out] "+r"(out), [tiles] "+r"(tiles)     \
                   :                                                             \
                   : "cc", "memory", "d0", "d1", "d2", __VA_ARGS__)
  if (width == 4) {
    MACE_V7_FILL("vdup.32 q2, d0[0]\n vdup.32 q3, d0[1]\n vdup.32 q8, d1[0]\n"
                 "vdup.32 q9, d1[1]\n vdup.32 q10, d2[0]\n vdup.32 q11, d2[1]\n"
                 "vstmia %[out]!, {d4-d7}\n"
                 "vstmia %[out]!, {d16-d23}\n",
                 "d4", "d5", "d6", "d7", "d16", "d17", "d18", "d19", "d20", "d21", "d22", "d23");
  } else {
    MACE_V7_FILL("vdup.32 q2, d0[0]\n vdup.32 q3, d0[0]\n vdup.32 q4, d0[1]\n"
                 "vdup.32 q5, d0[1]\n vdup.32 q6, d1[0]\n vdup.32 q7, d1[0]\n"
                 "vdup.32 q8, d1[1]\n vdup.32 q9, d1[1]\n vdup.32 q10, d2[0]\n"
                 "vdup.32 q11, d2[0]\n vdup.32 q12, d2[1]\n vdup.32 q13, d2[1]\n"
                 "vstmia %[out]!, {d4-d19}\n"
                 "vstmia %[out]!, {d20-d27}\n",
                 "d4", "d5", "d6", "d7", "d8", "d9", "d10", "d11", "d12", "d13", "d14", "d15",
                 "d16", "d17", "d18", "d19", "d20", "d21", "d22", "d23", "d24", "d25", "d26",
                 "d27");
  }
#undef MACE_V7_FILL
  // clang-format on
}

// Prefetches a 6 x kc A panel: 6 x kc floats are 24 * kc bytes, (24 * kc +
// 255) / 256 blocks of four 64-byte lines. A pld of four lines takes 7
// instructions with its loop.
inline void PrefetchPanel(const float* panel, int kc) {
  int n = (24 * kc + 255) >> 8;
  if (n <= 0) return;
  __asm__ volatile(
      "1:\n"
      "pld [%[line]]\n"
      "pld [%[line], #64]\n"
      "pld [%[line], #128]\n"
      "pld [%[line], #192]\n"
      "add %[line], %[line], #256\n"
      "subs %[n], %[n], #1\n"
      "bne 1b\n"
      : [line] "+r"(panel), [n] "+r"(n)
      :
      : "cc");
}

// RunTiles over `runs` runs of `tiles` tiles, each run's B and C
// b_run_step and c_run_step floats after the previous one's and its A and
// bias where the previous one's started; bias_step 0 or 6 unless from_c
// or no bias. The first prefetch_tiles tiles of a run that splits its B
// panel prefetch A as Armv7GemmRun6x8's (a single run's). b_split: null,
// or the runs' B panels split already (Armv7GemmRun6x8Panels).
void RunsOfTiles(int runs, int b_run_step, int c_run_step, int tiles, int kc, const float* a,
                 int a_step, const float* b, int b_step, float* c, int c_step, int ldc_bytes,
                 bool from_c, const float* bias, int bias_step, bool clamp, bool clamp_hi,
                 const float* bounds, const float* b_split = nullptr, int prefetch_tiles = 0) {
  constexpr int kMr = 6, kNr = 8, kStepBytes = 14 * 4, kPassSteps = 16;
  constexpr int kFloat = sizeof(float);
  if (from_c || bias == nullptr) bias_step = 0;
  const bool halves = kc >= kHalvesMinKc;
  if (bias_step == kMr && tiles > kMaxStartTiles && (halves || runs > 1)) {
    // The tiles are independent: a part at a time.
    for (int done = 0; done < tiles; done += kMaxStartTiles) {
      RunsOfTiles(runs, b_run_step, c_run_step, std::min(kMaxStartTiles, tiles - done), kc,
                  a + done * a_step, a_step, b + done * b_step, b_step, c + done * c_step, c_step,
                  ldc_bytes, from_c, bias + done * kMr, bias_step, clamp, clamp_hi, bounds,
                  b_split, prefetch_tiles - done);
    }
    return;
  }
  const RunClamp run_clamp = !clamp ? kRunNoClamp : clamp_hi ? kRunClampBoth : kRunClampLo;
  // The start tiles, but for a single run of 6 x 8 tiles from biases that
  // step, which would build as many start tiles as it loads: its asm
  // duplicates the biases.
  alignas(16) float starts[kMaxStartTiles * kMr * kNr];
  RunStart start = kRunFromC;
  const float* first = nullptr;
  if (from_c) {
    // From C.
  } else if (bias == nullptr) {
    start = kRunSameStart;
    first = kZeroStart;
  } else if (bias_step == 0) {
    start = kRunSameStart;
    FillStarts(bias, 1, halves ? 4 : kNr, starts);
    first = starts;
  } else if (halves || runs > 1) {
    start = kRunStarts;
    FillStarts(bias, tiles, halves ? 4 : kNr, starts);
    first = starts;
  } else {
    start = kRunBias;
    first = bias;
  }
  if (halves) {
    const bool split = b_step == 0 && Armv7RunsSplitPanel(tiles, kc);
    for (; runs > 0; --runs, b += b_run_step, c += c_run_step) {
      if (split && b_split != nullptr) {
        SplitHalvesRunOn(start, run_clamp, tiles, kc, a, a_step, b_split, c, c_step, ldc_bytes,
                         first, bounds);
        b_split += kNr * kc;
      } else if (split) {
        SplitHalvesRun(start, run_clamp, tiles, kc, a, a_step, b, c, c_step, ldc_bytes, first,
                       bounds, prefetch_tiles);
      } else {
        HalvesRun(start, run_clamp, tiles, kc, a, a_step, b, b_step, c, c_step, ldc_bytes, first,
                  bounds);
      }
    }
    return;
  }
  const int start_step = start == kRunStarts ? kMr * kNr : start == kRunBias ? kMr : 0;
  RunFrame frame = {DupBounds(),
                    (kc + kPassSteps - 1) / kPassSteps,
                    nullptr,
                    ((-kc) & (kPassSteps - 1)) * kStepBytes,
                    runs,
                    tiles,
                    -tiles * a_step * kFloat,
                    (b_run_step - tiles * b_step) * kFloat,
                    (c_run_step - tiles * c_step) * kFloat,
                    -tiles * start_step * kFloat};
  SetBounds(clamp, clamp_hi, bounds, &frame.bounds);
  const int a_adj = (a_step - kMr * kc) * kFloat;
  const int b_adj = (b_step - kNr * kc) * kFloat;
  const int c_adj = c_step * kFloat - kMr * ldc_bytes;
  if (start == kRunFromC) {
    RunTilesClamped<kRunFromC>(run_clamp, tiles, a, a_adj, b, b_adj, c, c_adj, ldc_bytes, first,
                               &frame);
  } else if (start == kRunSameStart) {
    RunTilesClamped<kRunSameStart>(run_clamp, tiles, a, a_adj, b, b_adj, c, c_adj, ldc_bytes,
                                   first, &frame);
  } else if (start == kRunStarts) {
    RunTilesClamped<kRunStarts>(run_clamp, tiles, a, a_adj, b, b_adj, c, c_adj, ldc_bytes, first,
                                &frame);
  } else {
    RunTilesClamped<kRunBias>(run_clamp, tiles, a, a_adj, b, b_adj, c, c_adj, ldc_bytes, first,
                              &frame);
  }
}
}  // namespace

// `tiles` tiles: tile t reads the A panel a_step floats after tile t - 1's,
// the B panel b_step floats after, writes C c_step floats after, and (from
// the first block) starts from the bias bias_step floats after. The first
// prefetch_tiles tiles each first prefetch the A panel (6 x kc floats) two
// tiles ahead: the GEMM driver's first walk over weights that come from
// memory (PrefetchPanel), where the driver's burst before a tile took 7
// instructions a line (a 64-bit counter) and the tile ran alone, through
// NeonGemm. The tiles after them go to RunTiles, but for a bias that steps
// otherwise than by a tile's rows or not at all. A deep column of 5 tiles
// or more on one B panel runs all its tiles as halves on the split panel,
// the prefetching ones one at a time: through Tile they took 28
// instructions per 96 multiply-adds and about 75 a tile around them.
void Armv7GemmRun6x8(int tiles, int kc, const float* a, int a_step, const float* b, int b_step,
                     float* c, int c_step, int ldc_bytes, bool from_c, const float* bias,
                     int bias_step, bool clamp, bool clamp_hi, const float* bounds,
                     int prefetch_tiles) {
  constexpr int kMr = 6;
  const int flags = Flags(from_c, clamp, clamp_hi);
  if (from_c || bias == nullptr) bias_step = 0;
  const bool run_bias = from_c || bias == nullptr || bias_step == 0 || bias_step == kMr;
  if (prefetch_tiles > 0 && run_bias && b_step == 0 && tiles >= kSplitMinTiles &&
      tiles <= kMaxStartTiles && kc >= kHalvesMinKc && kc <= kSplitMaxKc) {
    RunsOfTiles(1, 0, 0, tiles, kc, a, a_step, b, b_step, c, c_step, ldc_bytes, from_c, bias,
                bias_step, clamp, clamp_hi, bounds, nullptr, prefetch_tiles);
    return;
  }
  for (; tiles > 0 && (prefetch_tiles > 0 || !run_bias || kc <= 0);
       --tiles, --prefetch_tiles) {
    if (prefetch_tiles > 0) PrefetchPanel(a + 2 * a_step, kc);
    Tile(kc, a, b, c, ldc_bytes, flags, from_c ? nullptr : bias, bounds);
    a += a_step;
    b += b_step;
    c += c_step;
    bias += bias_step;
  }
  if (tiles > 0) {
    RunsOfTiles(1, 0, 0, tiles, kc, a, a_step, b, b_step, c, c_step, ldc_bytes, from_c, bias,
                bias_step, clamp, clamp_hi, bounds);
  }
}

// `runs` runs of Armv7GemmRun6x8's tiles (none prefetching), run r + 1
// starting with A where run r did, B b_run_step floats and C c_run_step
// floats after (the GEMM's full column panels, a run of row panels each):
// one call for a whole block where the driver's walk and the run's set-up
// cost about 250 instructions a column panel.
void Armv7GemmRun6x8Panels(int runs, int b_run_step, int c_run_step, int tiles, int kc,
                           const float* a, int a_step, const float* b, int b_step, float* c,
                           int c_step, int ldc_bytes, bool from_c, const float* bias,
                           int bias_step, bool clamp, bool clamp_hi, const float* bounds,
                           const float* b_split) {
  constexpr int kMr = 6;
  if (runs <= 0 || tiles <= 0) return;
  if (from_c || bias == nullptr) bias_step = 0;
  if (kc <= 0 || (bias_step != 0 && bias_step != kMr)) {
    for (; runs > 0; --runs, b += b_run_step, c += c_run_step) {
      Armv7GemmRun6x8(tiles, kc, a, a_step, b, b_step, c, c_step, ldc_bytes, from_c, bias,
                      bias_step, clamp, clamp_hi, bounds, 0);
    }
    return;
  }
  RunsOfTiles(runs, b_run_step, c_run_step, tiles, kc, a, a_step, b, b_step, c, c_step, ldc_bytes,
              from_c, bias, bias_step, clamp, clamp_hi, bounds, b_split);
}

// A direct convolution's tile (NeonConvRows): as Tile from the bias or
// zero, with B's k-th row the 8 floats at base + offsets[k]. A step adds
// two integer instructions to the GEMM's (the offset's load and the
// address); the offsets are 64-bit, and their low word is the offset.
// The asm's other values come through `params` to leave it registers.
namespace {
struct ConvParams {
  const float* bias;
  const float* bounds;
  int flags;
  int ldc_bytes;
};
}  // namespace

// clang-format off
// A reduction of n steps: four per loop iteration, then one at a time.
#define MACE_V7_REDUCE(step)                   \
  "subs %[n], %[n], #4\n"                      \
  "blt 2f\n"                                   \
  "1:\n"                                       \
  step step step step                          \
  "subs %[n], %[n], #4\n"                      \
  "bge 1b\n"                                   \
  "2:\n"                                       \
  "adds %[n], %[n], #4\n"                      \
  "beq 4f\n"                                   \
  "3:\n"                                       \
  step                                         \
  "subs %[n], %[n], #1\n"                      \
  "bne 3b\n"                                   \
  "4:\n"
// The clamp (flags in t; the bounds' address at prm + 4) over the
// accumulators `all(op, q)` names.
#define MACE_V7_CLAMP(all)                     \
  "tst %[t], %[clamp]\n"                       \
  "beq 6f\n"                                   \
  "ldr %[p], [%[prm], #4]\n"                   \
  "vld1.32 {d0[], d1[]}, [%[p]]!\n"            \
  all("vmax.f32", "q0")                        \
  "tst %[t], %[clamp_hi]\n"                    \
  "beq 6f\n"                                   \
  "vld1.32 {d2[], d3[]}, [%[p]]\n"             \
  all("vmin.f32", "q1")                        \
  "6:\n"

#define MACE_V7_CONV_STEP                      \
  "ldr %[p], [%[offs]], #8\n"                  \
  "vld1.32 {d0-d2}, [%[a]]!\n"                 \
  "add %[p], %[base], %[p], lsl #2\n"          \
  "vld1.32 {d4-d7}, [%[p]]\n"                  \
  MACE_V7_MACS

void Armv7ConvTile6x8(int kc, const float* a, const float* base, const int64_t* offsets, float* c,
                      int ldc_bytes, const float* bias, bool clamp, bool clamp_hi,
                      const float* bounds) {
  const ConvParams params = {bias, bounds, Flags(false, clamp, clamp_hi), ldc_bytes};
  const ConvParams* prm = &params;
  int n = kc;
  const int64_t* offs = offsets;
  int p, t;
  __asm__ volatile(
      "ldr %[p], [%[prm]]\n"
      "cmp %[p], #0\n"
      "beq 11f\n"
      MACE_V7_BIAS_OR_ZERO("p")
      MACE_V7_REDUCE(MACE_V7_CONV_STEP)
      "ldr %[t], [%[prm], #8]\n"
      MACE_V7_CLAMP(MACE_V7_ALL)
      "ldr %[t], [%[prm], #12]\n"
      "vst1.32 {d8-d11}, [%[c]], %[t]\n"
      "vst1.32 {d12-d15}, [%[c]], %[t]\n"
      "vst1.32 {d16-d19}, [%[c]], %[t]\n"
      "vst1.32 {d20-d23}, [%[c]], %[t]\n"
      "vst1.32 {d24-d27}, [%[c]], %[t]\n"
      "vst1.32 {d28-d31}, [%[c]]\n"
      : [a] "+r"(a), [offs] "+r"(offs), [c] "+r"(c), [n] "+r"(n), [p] "=&r"(p), [t] "=&r"(t)
      : [base] "r"(base), [prm] "r"(prm), [clamp] "I"(kClamp), [clamp_hi] "I"(kClampHi)
      : "cc", "memory", "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8", "d9", "d10", "d11",
        "d12", "d13", "d14", "d15", "d16", "d17", "d18", "d19", "d20", "d21", "d22", "d23",
        "d24", "d25", "d26", "d27", "d28", "d29", "d30", "d31");
}

// The same tile where B's rows come kKw (3 or 7) taps of a kernel row at
// a time: kernel row r's first tap at base + offsets[r * kKw], and tap
// j + 1's row `sa` bytes after tap j's for even j, `sb` after for odd j
// (stride 1: both 4; at stride 2 a padded row is stored as its even
// columns and then its odd ones, so half a row on, then back and one
// column on). A tap is then the GEMM's step, its B load post-incremented
// by sa or sb, 14 instructions; a kernel row adds 4 (its offset's load and
// address, the loop), where the offsets form spends 2 on every tap. It is
// a run of one tile (Armv7ConvKernelRowsRun, below).
bool Armv7ConvKernelRowsTile6x8(int kc, int kernel_w, const float* a, const float* base,
                                const int64_t* offsets, float* c, int ldc_bytes,
                                const float* bias, bool clamp, bool clamp_hi,
                                const float* bounds) {
  return Armv7ConvKernelRowsRun(6, 1, kc, kernel_w, a, base, offsets, c, ldc_bytes, bias, clamp,
                                clamp_hi, bounds, nullptr);
}

// Runs of the kernel-rows tile along an output row, and its first 4 or 2
// rows (a convolution's last output channel tile: the 3x3 stems' 64 = 10 x
// 6 + 4 and 32 = 5 x 6 + 2 channels).
//
// A run is `tiles` tiles of 8 columns, each 8 floats on from the one
// before it in B (a padded row) and in C: the assembly loops over them, so
// a tile costs its taps, start, clamp and stores and 9 instructions, where
// a call per tile through the direct convolution's task loop and
// Armv7ConvRows cost about 100. Tiles of 4 or 2 rows load A as the full
// tile does (6 values: one vld1 whichever part is used) and do 8 or 4 vmla
// a tap, 10 or 6 instructions where the full tile's 14 also computed rows
// of zeros (and went through a staging tile). Row i accumulates in
// q(4+2i), q(5+2i), as in the full tile, so one vld1 or vst1 moves a row
// of C. The tile's start, its A panel and offsets and the tiles left come
// through RunParams, whose first four fields are ConvParams' (the clamp
// reads them there).
// clang-format off
#define MACE_V7_FEW_MACS_2                     \
  "vmla.f32 q4, q2, d0[0]\n"                   \
  "vmla.f32 q6, q2, d0[1]\n"                   \
  "vmla.f32 q5, q3, d0[0]\n"                   \
  "vmla.f32 q7, q3, d0[1]\n"
#define MACE_V7_FEW_MACS_4                     \
  MACE_V7_FEW_MACS_2                           \
  "vmla.f32 q8, q2, d1[0]\n"                   \
  "vmla.f32 q10, q2, d1[1]\n"                  \
  "vmla.f32 q9, q3, d1[0]\n"                   \
  "vmla.f32 q11, q3, d1[1]\n"
#define MACE_V7_FEW_TAP(macs, s)               \
  "vld1.32 {d0-d2}, [%[a]]!\n"                 \
  "vld1.32 {d4-d7}, [%[p]], %[" s "]\n"        \
  macs
#define MACE_V7_FEW_TAPS_3(macs)                                           \
  MACE_V7_FEW_TAP(macs, "sa") MACE_V7_FEW_TAP(macs, "sb")                  \
  MACE_V7_FEW_TAP(macs, "sa")
#define MACE_V7_FEW_TAPS_7(macs)                                           \
  MACE_V7_FEW_TAPS_3(macs) MACE_V7_FEW_TAP(macs, "sb")                     \
  MACE_V7_FEW_TAPS_3(macs)
#define MACE_V7_FEW_ALL_2(op, q)                                     \
  op " q4, q4, " q "\n" op " q5, q5, " q "\n"                        \
  op " q6, q6, " q "\n" op " q7, q7, " q "\n"
#define MACE_V7_FEW_ALL_4(op, q)                                     \
  MACE_V7_FEW_ALL_2(op, q)                                           \
  op " q8, q8, " q "\n" op " q9, q9, " q "\n"                        \
  op " q10, q10, " q "\n" op " q11, q11, " q "\n"
#define MACE_V7_FEW_DUP(d, e, inc) "vld1.32 {" d "[], " e "[]}, [%[p]]" inc "\n"
#define MACE_V7_FEW_BIAS_2                                                 \
  MACE_V7_FEW_DUP("d8", "d9", "!") MACE_V7_FEW_DUP("d12", "d13", "")      \
  "vmov q5, q4\n vmov q7, q6\n"
#define MACE_V7_FEW_BIAS_4                                                 \
  MACE_V7_FEW_DUP("d8", "d9", "!") MACE_V7_FEW_DUP("d12", "d13", "!")     \
  MACE_V7_FEW_DUP("d16", "d17", "!") MACE_V7_FEW_DUP("d20", "d21", "")    \
  "vmov q5, q4\n vmov q7, q6\n vmov q9, q8\n vmov q11, q10\n"
#define MACE_V7_FEW_BIAS_6                                                 \
  MACE_V7_FEW_DUP("d8", "d9", "!") MACE_V7_FEW_DUP("d12", "d13", "!")     \
  MACE_V7_FEW_DUP("d16", "d17", "!") MACE_V7_FEW_DUP("d20", "d21", "!")   \
  MACE_V7_FEW_DUP("d24", "d25", "!") MACE_V7_FEW_DUP("d28", "d29", "")    \
  "vmov q5, q4\n vmov q7, q6\n vmov q9, q8\n"                            \
  "vmov q11, q10\n vmov q13, q12\n vmov q15, q14\n"
#define MACE_V7_FEW_ZERO_2                                                 \
  "vmov.i32 q4, #0\n vmov.i32 q5, #0\n vmov.i32 q6, #0\n vmov.i32 q7, #0\n"
#define MACE_V7_FEW_ZERO_4                                                 \
  MACE_V7_FEW_ZERO_2                                                       \
  "vmov.i32 q8, #0\n vmov.i32 q9, #0\n vmov.i32 q10, #0\n vmov.i32 q11, #0\n"
#define MACE_V7_FEW_ZERO_6                                                 \
  MACE_V7_FEW_ZERO_4                                                       \
  "vmov.i32 q12, #0\n vmov.i32 q13, #0\n vmov.i32 q14, #0\n vmov.i32 q15, #0\n"
#define MACE_V7_FEW_ROW(d, last) "vst1.32 {" d "}, [%[p]]" last "\n"
#define MACE_V7_FEW_STORE_2                                                \
  MACE_V7_FEW_ROW("d8-d11", ", %[t]") MACE_V7_FEW_ROW("d12-d15", "")
#define MACE_V7_FEW_STORE_4                                                \
  MACE_V7_FEW_ROW("d8-d11", ", %[t]") MACE_V7_FEW_ROW("d12-d15", ", %[t]") \
  MACE_V7_FEW_ROW("d16-d19", ", %[t]") MACE_V7_FEW_ROW("d20-d23", "")
#define MACE_V7_FEW_STORE_6                                                \
  MACE_V7_FEW_ROW("d8-d11", ", %[t]") MACE_V7_FEW_ROW("d12-d15", ", %[t]") \
  MACE_V7_FEW_ROW("d16-d19", ", %[t]") MACE_V7_FEW_ROW("d20-d23", ", %[t]") \
  MACE_V7_FEW_ROW("d24-d27", ", %[t]") MACE_V7_FEW_ROW("d28-d31", "")
#define MACE_V7_FEW_RUN(bias, zero, taps, all, store)                      \
  "0:\n"                                                                   \
  "ldr %[p], [%[prm]]\n"                                                   \
  "cmp %[p], #0\n"                                                         \
  "beq 11f\n"                                                              \
  bias                                                                     \
  "b 12f\n"                                                                \
  "11:\n"                                                                  \
  zero                                                                     \
  "12:\n"                                                                  \
  "ldr %[a], [%[prm], #16]\n"                                              \
  "ldr %[offs], [%[prm], #20]\n"                                           \
  "ldr %[n], [%[prm], #24]\n"                                              \
  "1:\n"                                                                   \
  "ldr %[p], [%[offs]], %[row_bytes]\n"                                    \
  "add %[p], %[base], %[p], lsl #2\n"                                      \
  taps                                                                     \
  "subs %[n], %[n], #1\n"                                                  \
  "bne 1b\n"                                                               \
  "ldr %[t], [%[prm], #8]\n"                                               \
  MACE_V7_CLAMP(all)                                                       \
  "ldr %[t], [%[prm], #12]\n"                                              \
  "mov %[p], %[c]\n"                                                       \
  store                                                                    \
  "add %[c], %[c], #32\n"                                                  \
  "add %[base], %[base], #32\n"                                            \
  "ldr %[t], [%[prm], #28]\n"                                              \
  "subs %[t], %[t], #1\n"                                                  \
  "str %[t], [%[prm], #28]\n"                                              \
  "bne 0b\n"
#define MACE_V7_FEW_OPERANDS                                                                   \
  : [a] "=&r"(a), [offs] "=&r"(offs), [c] "+r"(c), [base] "+r"(base), [n] "=&r"(n),            \
    [p] "=&r"(p), [t] "=&r"(t)                                                                 \
  : [prm] "r"(prm), [sa] "r"(sa), [sb] "r"(sb),                                                \
    [row_bytes] "I"(kKw * sizeof(int64_t)), [clamp] "I"(kClamp), [clamp_hi] "I"(kClampHi)     \
  : "cc", "memory", "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8", "d9", "d10", "d11", \
    "d12", "d13", "d14", "d15", "d16", "d17", "d18", "d19", "d20", "d21", "d22", "d23",       \
    "d24", "d25", "d26", "d27", "d28", "d29", "d30", "d31"

namespace {
struct RunParams {
  const float* bias;
  const float* bounds;
  int flags;
  int ldc_bytes;
  const float* a;
  const int64_t* offsets;
  int kernel_rows;
  int tiles;  // left, counted down by the assembly
};

template <int kRows, int kKw>
void KernelRowsRun(RunParams* prm, const float* base, int sa, int sb, float* c) {
  const float* a;
  const int64_t* offs;
  int n, p, t;
  static_assert(kKw == 3 || kKw == 7, "kernel rows of 3 or 7 taps");
  if constexpr (kRows == 2 && kKw == 3) {
    __asm__ volatile(MACE_V7_FEW_RUN(
        MACE_V7_FEW_BIAS_2, MACE_V7_FEW_ZERO_2, MACE_V7_FEW_TAPS_3(MACE_V7_FEW_MACS_2),
        MACE_V7_FEW_ALL_2, MACE_V7_FEW_STORE_2) MACE_V7_FEW_OPERANDS);
  } else if constexpr (kRows == 2) {
    __asm__ volatile(MACE_V7_FEW_RUN(
        MACE_V7_FEW_BIAS_2, MACE_V7_FEW_ZERO_2, MACE_V7_FEW_TAPS_7(MACE_V7_FEW_MACS_2),
        MACE_V7_FEW_ALL_2, MACE_V7_FEW_STORE_2) MACE_V7_FEW_OPERANDS);
  } else if constexpr (kRows == 4 && kKw == 3) {
    __asm__ volatile(MACE_V7_FEW_RUN(
        MACE_V7_FEW_BIAS_4, MACE_V7_FEW_ZERO_4, MACE_V7_FEW_TAPS_3(MACE_V7_FEW_MACS_4),
        MACE_V7_FEW_ALL_4, MACE_V7_FEW_STORE_4) MACE_V7_FEW_OPERANDS);
  } else if constexpr (kRows == 4) {
    __asm__ volatile(MACE_V7_FEW_RUN(
        MACE_V7_FEW_BIAS_4, MACE_V7_FEW_ZERO_4, MACE_V7_FEW_TAPS_7(MACE_V7_FEW_MACS_4),
        MACE_V7_FEW_ALL_4, MACE_V7_FEW_STORE_4) MACE_V7_FEW_OPERANDS);
  } else if constexpr (kKw == 3) {
    static_assert(kRows == 6, "tiles of 2, 4 or 6 rows");
    __asm__ volatile(MACE_V7_FEW_RUN(
        MACE_V7_FEW_BIAS_6, MACE_V7_FEW_ZERO_6, MACE_V7_FEW_TAPS_3(MACE_V7_MACS),
        MACE_V7_ALL, MACE_V7_FEW_STORE_6) MACE_V7_FEW_OPERANDS);
  } else {
    static_assert(kRows == 6, "tiles of 2, 4 or 6 rows");
    __asm__ volatile(MACE_V7_FEW_RUN(
        MACE_V7_FEW_BIAS_6, MACE_V7_FEW_ZERO_6, MACE_V7_FEW_TAPS_7(MACE_V7_MACS),
        MACE_V7_ALL, MACE_V7_FEW_STORE_6) MACE_V7_FEW_OPERANDS);
  }
}

// 6-row tiles of 3x3 kernels (a stem's 3 input channels, kc = 27): the
// taps of a tile are one chain through the padded image, each B load
// post-incremented to the next tap's row, so a kernel row costs its 3
// taps and nothing else where KernelRowsRun loads and adds its offset
// and loops (4 instructions), and a channel of 3 kernel rows costs its
// 9 taps and the loop's 2. Taps j + 1 of a kernel row are `sa` or `sb`
// bytes after tap j (as in KernelRowsRun), its first tap `rs` bytes after
// the previous row's last, or `cs` across channels. The start and clamp
// are compile-time (no flag tests), the tile's A, bias and channel count
// come from the frame. A tile then costs its 27 taps and 46 instructions
// (ShuffleNet v2's stem: 466 -> 424 a tile, 6,272 tiles).
//
// 7x7 kernels (ResNet-18's stem, stride 2) chain the same way, a kernel
// row's taps alternating sa and sb: a channel is 49 taps, unrolled, where
// KernelRowsRun spent 4 instructions on each of a tile's 21 kernel rows.
// So do a stem's last 4 or 2 output channels (64 = 10 x 6 + 4, 32 = 5 x 6
// + 2), with KernelRowsRun's 4- and 2-row multiply-adds.
//
// A tile starts from a start tile, its rows' biases (or zeros) each 8
// times over, the accumulators' layout: one or two vldm, where a vld1 and
// a vmov a row (6 vmov.i32 without a bias) cost 13 (12) a 6-row tile. A
// 3x3 kernel over 3 channels (the stems) is one straight chain of 27
// taps, without the channel loop's 7 instructions a tile.
struct ChainFrame {
  DupBounds bounds;    // 0
  const float* start;  // 32: the start tile, kRows x 8 floats
  const float* a;      // 36: the A panel
  int channels;        // 40: kc / (kernel_w * kernel_w)
};
static_assert(offsetof(ChainFrame, start) == 32 && offsetof(ChainFrame, a) == 36 &&
                  offsetof(ChainFrame, channels) == 40,
              "the offsets MACE_V7_CHAIN_RUN reads");

// clang-format off
// A tap: A's 6 values (the tile's rows of them) and B's 8, then the
// tile's multiply-adds (macs).
#define MACE_V7_CHAIN_TAP(macs, s)             \
  "vld1.32 {d0-d2}, [%[a]]!\n"                 \
  "vld1.32 {d4-d7}, [%[p]], %[" s "]\n"        \
  macs
#define MACE_V7_CHAIN_ROW(macs, next)                                    \
  MACE_V7_CHAIN_TAP(macs, "sa") MACE_V7_CHAIN_TAP(macs, "sb")            \
  MACE_V7_CHAIN_TAP(macs, next)
#define MACE_V7_CHAIN_ROW7(macs, next)                                   \
  MACE_V7_CHAIN_TAP(macs, "sa") MACE_V7_CHAIN_TAP(macs, "sb")            \
  MACE_V7_CHAIN_TAP(macs, "sa") MACE_V7_CHAIN_TAP(macs, "sb")            \
  MACE_V7_CHAIN_ROW(macs, next)
// A channel's kernel rows: 3 or 7 of them.
#define MACE_V7_CHAIN_CHANNEL3(macs)                                     \
  MACE_V7_CHAIN_ROW(macs, "rs") MACE_V7_CHAIN_ROW(macs, "rs")            \
  MACE_V7_CHAIN_ROW(macs, "cs")
#define MACE_V7_CHAIN_CHANNEL7(macs)                                     \
  MACE_V7_CHAIN_ROW7(macs, "rs") MACE_V7_CHAIN_ROW7(macs, "rs")          \
  MACE_V7_CHAIN_ROW7(macs, "rs") MACE_V7_CHAIN_ROW7(macs, "rs")          \
  MACE_V7_CHAIN_ROW7(macs, "rs") MACE_V7_CHAIN_ROW7(macs, "rs")          \
  MACE_V7_CHAIN_ROW7(macs, "cs")
// The channels' taps: a loop over them, or three channels straight.
#define MACE_V7_CHAIN_LOOP(channel)                                      \
  "ldr %[n], [%[prm], #40]\n"                                            \
  "1:\n"                                                                 \
  channel                                                                \
  "subs %[n], %[n], #1\n"                                                \
  "bne 1b\n"
#define MACE_V7_CHAIN_THREE(channel) channel channel channel
// The start tile into the accumulators of 2, 4 or 6 rows.
#define MACE_V7_CHAIN_START_2                                            \
  "ldr %[p], [%[prm], #32]\n"                                            \
  "vldmia %[p], {d8-d15}\n"
#define MACE_V7_CHAIN_START_4                                            \
  "ldr %[p], [%[prm], #32]\n"                                            \
  "vldmia %[p], {d8-d23}\n"
#define MACE_V7_CHAIN_START_6                                            \
  "ldr %[p], [%[prm], #32]\n"                                            \
  "vldmia %[p]!, {d8-d23}\n"                                             \
  "vldmia %[p], {d24-d31}\n"
#define MACE_V7_CHAIN_RUN(channels, store, start, clamp)                 \
  "0:\n"                                                                 \
  start                                                                  \
  "ldr %[a], [%[prm], #36]\n"                                            \
  "mov %[p], %[base]\n"                                                  \
  channels                                                               \
  clamp                                                                  \
  "mov %[p], %[c]\n"                                                     \
  store                                                                  \
  "add %[c], %[c], #32\n"                                                \
  "add %[base], %[base], #32\n"                                          \
  "subs %[tiles], %[tiles], #1\n"                                        \
  "bne 0b\n"
// The clamps over the accumulators all(op, q) names.
#define MACE_V7_CHAIN_CLAMP_LO(all)                                      \
  "vld1.32 {d0-d1}, [%[prm]]\n"                                          \
  all("vmax.f32", "q0")
#define MACE_V7_CHAIN_CLAMP_BOTH(all)                                    \
  "vld1.32 {d0-d3}, [%[prm]]\n"                                          \
  all("vmax.f32", "q0")                                                  \
  all("vmin.f32", "q1")
// clang-format on

template <int kKw, int kRows, bool kThree, RunClamp kClamp>
void ChainRun(int tiles, const float* base, int sa, int sb, int rs, int cs, float* c,
              int ldc_bytes, const ChainFrame* prm) {
  static_assert(!kThree || kKw == 3, "three channels straight: 3x3 kernels");
  static_assert(kKw == 3 || kKw == 7, "3x3 or 7x7 kernels");
  static_assert(kRows == 2 || kRows == 4 || kRows == 6, "tiles of 2, 4 or 6 rows");
  const float* a;
  const float* p;
  int n;
  const int t = ldc_bytes;  // the stores' row step
#define MACE_V7_CHAIN_ASM(channel, store, start, clamp)                                         \
  __asm__ volatile(MACE_V7_CHAIN_RUN(channel, store, start, clamp)                              \
                   : [a] "=&r"(a), [p] "=&r"(p), [n] "=&r"(n), [c] "+r"(c), [base] "+r"(base), \
                     [tiles] "+r"(tiles)                                                        \
                   : [prm] "r"(prm), [sa] "r"(sa), [sb] "r"(sb), [rs] "r"(rs), [cs] "r"(cs),   \
                     [t] "r"(t)                                                                 \
                   : "cc", "memory", "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8",     \
                     "d9", "d10", "d11", "d12", "d13", "d14", "d15", "d16", "d17", "d18",     \
                     "d19", "d20", "d21", "d22", "d23", "d24", "d25", "d26", "d27", "d28",    \
                     "d29", "d30", "d31")
#define MACE_V7_CHAIN_CLAMPS(channel, all, store, start)                            \
  if constexpr (kClamp == kRunNoClamp) {                                            \
    MACE_V7_CHAIN_ASM(channel, store, start, "");                                   \
  } else if constexpr (kClamp == kRunClampLo) {                                     \
    MACE_V7_CHAIN_ASM(channel, store, start, MACE_V7_CHAIN_CLAMP_LO(all));          \
  } else {                                                                          \
    MACE_V7_CHAIN_ASM(channel, store, start, MACE_V7_CHAIN_CLAMP_BOTH(all));        \
  }
// The tile's rows: their multiply-adds, accumulators, stores and start.
#define MACE_V7_CHAIN_ROWS(macs, all, store, start)                                 \
  if constexpr (kThree) {                                                           \
    MACE_V7_CHAIN_CLAMPS(MACE_V7_CHAIN_THREE(MACE_V7_CHAIN_CHANNEL3(macs)), all,    \
                         store, start)                                              \
  } else if constexpr (kKw == 3) {                                                  \
    MACE_V7_CHAIN_CLAMPS(MACE_V7_CHAIN_LOOP(MACE_V7_CHAIN_CHANNEL3(macs)), all,     \
                         store, start)                                              \
  } else {                                                                          \
    MACE_V7_CHAIN_CLAMPS(MACE_V7_CHAIN_LOOP(MACE_V7_CHAIN_CHANNEL7(macs)), all,     \
                         store, start)                                              \
  }
  if constexpr (kRows == 6) {
    MACE_V7_CHAIN_ROWS(MACE_V7_MACS, MACE_V7_ALL, MACE_V7_FEW_STORE_6, MACE_V7_CHAIN_START_6)
  } else if constexpr (kRows == 4) {
    MACE_V7_CHAIN_ROWS(MACE_V7_FEW_MACS_4, MACE_V7_FEW_ALL_4, MACE_V7_FEW_STORE_4,
                       MACE_V7_CHAIN_START_4)
  } else {
    MACE_V7_CHAIN_ROWS(MACE_V7_FEW_MACS_2, MACE_V7_FEW_ALL_2, MACE_V7_FEW_STORE_2,
                       MACE_V7_CHAIN_START_2)
  }
#undef MACE_V7_CHAIN_ROWS
#undef MACE_V7_CHAIN_CLAMPS
#undef MACE_V7_CHAIN_ASM
}
#undef MACE_V7_CHAIN_CLAMP_BOTH
#undef MACE_V7_CHAIN_CLAMP_LO
#undef MACE_V7_CHAIN_RUN
#undef MACE_V7_CHAIN_START_6
#undef MACE_V7_CHAIN_START_4
#undef MACE_V7_CHAIN_START_2
#undef MACE_V7_CHAIN_THREE
#undef MACE_V7_CHAIN_LOOP
#undef MACE_V7_BY_CLAMP
#undef MACE_V7_CHAIN_CHANNEL3
#undef MACE_V7_CHAIN_CHANNEL7
#undef MACE_V7_CHAIN_ROW7
#undef MACE_V7_CHAIN_ROW
#undef MACE_V7_CHAIN_TAP

// ChainRun on the tap steps Armv7ConvKernelRowsChain found, kc a multiple
// of kKw * kKw, over the rows of Armv7ConvKernelRowsRows: the start tile,
// bounds and dispatch once for all of them, where a call per row and
// per ragged end through the direct convolution's task loop cost about
// 300 instructions (SqueezeNet 1.1's stem: 2,442 calls).
template <int kKw, int kRows>
void ChainedKernelRowsRun(int out_rows, int tiles, int tail_back, int row_b, int row_c, int kc,
                          const float* a, const float* base, const int64_t* offsets, float* c,
                          int ldc_bytes, const float* bias, bool clamp, bool clamp_hi,
                          const float* bounds, const int32_t* chain) {
  constexpr int kTaps = kKw * kKw, kMr = 6, kNr = 8;
  // FillStarts writes a 6-row tile from 6 biases; a tile of fewer rows has
  // only its own.
  alignas(16) float start[kMr * kNr];
  if (bias != nullptr && kRows == kMr) {
    FillStarts(bias, 1, kNr, start);
  } else if (bias != nullptr) {
    float biases[kMr] = {};
    for (int i = 0; i < kRows; ++i) biases[i] = bias[i];
    FillStarts(biases, 1, kNr, start);
  }
  const int channels = kc / kTaps;
  ChainFrame frame = {DupBounds(), bias != nullptr ? start : kZeroStart, a, channels};
  SetBounds(clamp, clamp_hi, bounds, &frame.bounds);
  const float* first = base + offsets[0];
  const RunClamp mode = !clamp ? kRunNoClamp : clamp_hi ? kRunClampBoth : kRunClampLo;
  const int tail = tiles * kNr - tail_back;  // the ragged tile's column
  const auto run = [&](auto three_tag, auto clamp_tag) {
    const auto tiles_at = [&](int count, const float* b, float* out) {
      ChainRun<kKw, kRows, decltype(three_tag)::value, decltype(clamp_tag)::value>(
          count, b, chain[0], chain[1], chain[2], chain[3], out, ldc_bytes, &frame);
    };
    const float* b = first;
    float* out = c;
    for (int r = 0; r < out_rows; ++r, b += row_b, out += row_c) {
      tiles_at(tiles, b, out);
      if (tail_back > 0) tiles_at(1, b + tail, out + tail);
    }
  };
  using NoClamp = std::integral_constant<RunClamp, kRunNoClamp>;
  using ClampLo = std::integral_constant<RunClamp, kRunClampLo>;
  using ClampBoth = std::integral_constant<RunClamp, kRunClampBoth>;
  const auto with_channels = [&](auto three_tag) {
    if (mode == kRunNoClamp) {
      run(three_tag, NoClamp());
    } else if (mode == kRunClampLo) {
      run(three_tag, ClampLo());
    } else {
      run(three_tag, ClampBoth());
    }
  };
  if (kKw == 3 && channels == 3) {
    with_channels(std::integral_constant<bool, kKw == 3>());
  } else {
    with_channels(std::false_type());
  }
}
}  // namespace
// clang-format on

// Whether the offsets of a 3x3 or 7x7 kernel's taps form one chain, each
// kernel row's taps stepping by sa and sb in turn, rows of a channel one
// step apart (rs) and channels another (cs), as PaddedImage lays them
// out; if so the four steps in bytes (chain), for ChainRun. A direct
// convolution asks once per run: the check walks all kc offsets, about
// 300 instructions at 27 taps, where a run of an output row's tiles
// costs some 6,000.
bool Armv7ConvKernelRowsChain(int kc, int kernel_w, const int64_t* offsets, int32_t chain[4]) {
  if ((kernel_w != 3 && kernel_w != 7) || kc <= 0) return false;
  // Divisions by constants only (see Armv7ConvKernelRowsRun).
  const int taps = kernel_w == 3 ? 9 : 49;
  if (kernel_w == 3 ? kc % 9 != 0 : kc % 49 != 0) return false;
  const int64_t sa = offsets[1] - offsets[0], sb = offsets[2] - offsets[1];
  const int64_t rs = offsets[kernel_w] - offsets[kernel_w - 1];
  const int64_t cs = kc > taps ? offsets[taps] - offsets[taps - 1] : 0;
  for (int k = 0, tap = 0; k < kc; k += kernel_w, tap += kernel_w) {
    if (tap == taps) tap = 0;
    for (int j = 0; j + 1 < kernel_w; ++j) {
      if (offsets[k + j + 1] - offsets[k + j] != (j % 2 == 0 ? sa : sb)) return false;
    }
    if (k > 0 && offsets[k] - offsets[k - 1] != (tap == 0 ? cs : rs)) return false;
  }
  constexpr int64_t kBytes = sizeof(float), kLimit = INT32_MAX / kBytes;
  const int64_t steps[4] = {sa, sb, rs, cs};
  for (int i = 0; i < 4; ++i) {
    if (steps[i] > kLimit || steps[i] < -kLimit) return false;
    chain[i] = static_cast<int32_t>(steps[i] * kBytes);
  }
  return true;
}

bool Armv7ConvKernelRowsRun(int tile_rows, int tiles, int kc, int kernel_w, const float* a,
                            const float* base, const int64_t* offsets, float* c, int ldc_bytes,
                            const float* bias, bool clamp, bool clamp_hi, const float* bounds,
                            const int32_t* chain) {
  // Divisions only by the constants 3 and 7: armv7-a has no divide
  // instruction, and a division by a variable is a libgcc call per tile
  // (about 1 M instructions on SqueezeNet's stem).
  const bool rows_of_3 = kernel_w == 3 && kc % 3 == 0;
  const bool rows_of_7 = kernel_w == 7 && kc % 7 == 0;
  if (kc <= 0 || tiles <= 0 || !(rows_of_3 || rows_of_7) ||
      !(tile_rows == 2 || tile_rows == 4 || tile_rows == 6)) {
    return false;
  }
  if (chain != nullptr && (rows_of_3 ? kc % 9 == 0 : kc % 49 == 0)) {
    return Armv7ConvKernelRowsRows(tile_rows, 1, tiles, 0, 0, 0, kc, kernel_w, a, base, offsets,
                                   c, ldc_bytes, bias, clamp, clamp_hi, bounds, chain);
  }
  const int sa = static_cast<int>(offsets[1] - offsets[0]) * static_cast<int>(sizeof(float));
  const int sb = static_cast<int>(offsets[2] - offsets[1]) * static_cast<int>(sizeof(float));
  RunParams params = {bias,    bounds, Flags(false, clamp, clamp_hi), ldc_bytes, a,
                      offsets, rows_of_3 ? kc / 3 : kc / 7, tiles};
  if (rows_of_3) {
    if (tile_rows == 2) {
      KernelRowsRun<2, 3>(&params, base, sa, sb, c);
    } else if (tile_rows == 4) {
      KernelRowsRun<4, 3>(&params, base, sa, sb, c);
    } else {
      KernelRowsRun<6, 3>(&params, base, sa, sb, c);
    }
  } else if (tile_rows == 2) {
    KernelRowsRun<2, 7>(&params, base, sa, sb, c);
  } else if (tile_rows == 4) {
    KernelRowsRun<4, 7>(&params, base, sa, sb, c);
  } else {
    KernelRowsRun<6, 7>(&params, base, sa, sb, c);
  }
  return true;
}
bool Armv7ConvKernelRowsRows(int tile_rows, int out_rows, int tiles, int tail_back, int row_b,
                             int row_c, int kc, int kernel_w, const float* a, const float* base,
                             const int64_t* offsets, float* c, int ldc_bytes, const float* bias,
                             bool clamp, bool clamp_hi, const float* bounds,
                             const int32_t* chain) {
  const bool rows_of_3 = kernel_w == 3 && kc > 0 && kc % 9 == 0;
  const bool rows_of_7 = kernel_w == 7 && kc > 0 && kc % 49 == 0;
  if (chain == nullptr || out_rows <= 0 || tiles <= 0 || tail_back < 0 || tail_back >= 8 ||
      !(rows_of_3 || rows_of_7) || !(tile_rows == 2 || tile_rows == 4 || tile_rows == 6)) {
    return false;
  }
  const auto chained = [&](auto kw, auto rows) {
    ChainedKernelRowsRun<decltype(kw)::value, decltype(rows)::value>(
        out_rows, tiles, tail_back, row_b, row_c, kc, a, base, offsets, c, ldc_bytes, bias,
        clamp, clamp_hi, bounds, chain);
  };
  const auto by_rows = [&](auto kw) {
    if (tile_rows == 2) {
      chained(kw, std::integral_constant<int, 2>());
    } else if (tile_rows == 4) {
      chained(kw, std::integral_constant<int, 4>());
    } else {
      chained(kw, std::integral_constant<int, 6>());
    }
  };
  if (rows_of_3) {
    by_rows(std::integral_constant<int, 3>());
  } else {
    by_rows(std::integral_constant<int, 7>());
  }
  return true;
}

#undef MACE_V7_FEW_OPERANDS
#undef MACE_V7_FEW_RUN
#undef MACE_V7_FEW_STORE_6
#undef MACE_V7_FEW_STORE_4
#undef MACE_V7_FEW_STORE_2
#undef MACE_V7_FEW_ROW
#undef MACE_V7_FEW_ZERO_6
#undef MACE_V7_FEW_ZERO_4
#undef MACE_V7_FEW_ZERO_2
#undef MACE_V7_FEW_BIAS_6
#undef MACE_V7_FEW_BIAS_4
#undef MACE_V7_FEW_BIAS_2
#undef MACE_V7_FEW_DUP
#undef MACE_V7_FEW_ALL_4
#undef MACE_V7_FEW_ALL_2
#undef MACE_V7_FEW_TAPS_7
#undef MACE_V7_FEW_TAPS_3
#undef MACE_V7_FEW_TAP
#undef MACE_V7_FEW_MACS_4
#undef MACE_V7_FEW_MACS_2


// The first 4 columns of a 6 x 8 tile (GEMM's last column panel when it
// holds at most 4 columns, as a 14x14 map's last 4), the first 4 rows
// (the last row panel of 16, 64 or 160 output channels) or the first 2
// (32, 128, 320, 512 or 1280), into C (rows ldc_bytes apart). Each starts
// as Tile: from c, the row biases or zero; clamped if kClamp. Values come
// through ConvParams, as the convolution tile's.
//
// vldmia moves up to 16 consecutive d registers in one instruction, where
// vld1 moves at most 4: the steps load several depths of a panel at once.
// A panel's depths are consecutive, so 2 depths of the B panel are 16
// floats (8 d registers) and 4 depths of the A panel 24 (12). A by-lane
// vmla takes its scalar from d0-d15, so the A values sit there and the
// accumulators at the top.
//
// The 6 x 4 tile: 4 depths of A (d0-d11) and 2 of B at a time (q6 and q8
// the used halves of d12-d19), 24 vmla; row i accumulates in q(10+i).
// 60 instructions for 8 depths with the loop's, where one depth a step
// took 68.
// clang-format off
// The 6 rows' multiply-adds of one depth: B's 4 values in q, A's 6 in
// the lanes of d registers x, y, z.
#define MACE_V7_COLS4_MACS(q, x, y, z)         \
  "vmla.f32 q10, " q ", " x "[0]\n"            \
  "vmla.f32 q11, " q ", " x "[1]\n"            \
  "vmla.f32 q12, " q ", " y "[0]\n"            \
  "vmla.f32 q13, " q ", " y "[1]\n"            \
  "vmla.f32 q14, " q ", " z "[0]\n"            \
  "vmla.f32 q15, " q ", " z "[1]\n"
// B's columns 0-3 (q6 and q8 of the 2 depths in d12-d19) or, for the
// right half of a 6 x 8 tile, 4-7 (q7 and q9).
#define MACE_V7_COLS4_DEPTHS4_OF(even, odd)    \
  "vldmia %[a]!, {d0-d11}\n"                   \
  "vldmia %[b]!, {d12-d19}\n"                  \
  MACE_V7_COLS4_MACS(even, "d0", "d1", "d2")   \
  MACE_V7_COLS4_MACS(odd, "d3", "d4", "d5")    \
  "vldmia %[b]!, {d12-d19}\n"                  \
  MACE_V7_COLS4_MACS(even, "d6", "d7", "d8")   \
  MACE_V7_COLS4_MACS(odd, "d9", "d10", "d11")
#define MACE_V7_COLS4_DEPTHS4 MACE_V7_COLS4_DEPTHS4_OF("q6", "q8")
#define MACE_V7_COLS4_DEPTH                    \
  "vld1.32 {d0-d2}, [%[a]]!\n"                 \
  "vld1.32 {d12-d13}, [%[b]], %[stride]\n"     \
  MACE_V7_COLS4_MACS("q6", "d0", "d1", "d2")
#define MACE_V7_COLS4_RIGHT_DEPTH              \
  "vld1.32 {d0-d2}, [%[a]]!\n"                 \
  "vld1.32 {d12-d15}, [%[b]], %[stride]\n"     \
  MACE_V7_COLS4_MACS("q7", "d0", "d1", "d2")
// A half of a 6 x 8 tile on its split B panel (SplitPanel): 4 depths of
// its 4 columns are 16 consecutive floats, one vldmia into q6-q9, so 4
// depths take 26 instructions where the 8-wide panel's took 27.
#define MACE_V7_SPLIT_DEPTHS4                  \
  "vldmia %[a]!, {d0-d11}\n"                   \
  "vldmia %[b]!, {d12-d19}\n"                  \
  MACE_V7_COLS4_MACS("q6", "d0", "d1", "d2")   \
  MACE_V7_COLS4_MACS("q7", "d3", "d4", "d5")   \
  MACE_V7_COLS4_MACS("q8", "d6", "d7", "d8")   \
  MACE_V7_COLS4_MACS("q9", "d9", "d10", "d11")
#define MACE_V7_SPLIT_DEPTH                    \
  "vld1.32 {d0-d2}, [%[a]]!\n"                 \
  "vld1.32 {d12-d13}, [%[b]]!\n"               \
  MACE_V7_COLS4_MACS("q6", "d0", "d1", "d2")
#define MACE_V7_COLS4_ALL(op, q)                                    \
  op " q10, q10, " q "\n" op " q11, q11, " q "\n"                   \
  op " q12, q12, " q "\n" op " q13, q13, " q "\n"                   \
  op " q14, q14, " q "\n" op " q15, q15, " q "\n"

// The 4 x 8 tile: 2 depths of A (d0-d5; each depth's first 4 values,
// rows 0-3) and of B (q3-q4, q5-q6) at a time, 16 vmla; row i
// accumulates in q(8+2i) and q(9+2i). 38 instructions for 4 depths with
// the loop's, where one depth a step took 42.
#define MACE_V7_ROWS4_MACS(lo, hi, x, y)       \
  "vmla.f32 q8, " lo ", " x "[0]\n"            \
  "vmla.f32 q9, " hi ", " x "[0]\n"            \
  "vmla.f32 q10, " lo ", " x "[1]\n"           \
  "vmla.f32 q11, " hi ", " x "[1]\n"           \
  "vmla.f32 q12, " lo ", " y "[0]\n"           \
  "vmla.f32 q13, " hi ", " y "[0]\n"           \
  "vmla.f32 q14, " lo ", " y "[1]\n"           \
  "vmla.f32 q15, " hi ", " y "[1]\n"
#define MACE_V7_ROWS4_DEPTHS2                  \
  "vldmia %[a]!, {d0-d5}\n"                    \
  "vldmia %[b]!, {d6-d13}\n"                   \
  MACE_V7_ROWS4_MACS("q3", "q4", "d0", "d1")   \
  MACE_V7_ROWS4_MACS("q5", "q6", "d3", "d4")
#define MACE_V7_ROWS4_DEPTH                    \
  "vld1.32 {d0-d1}, [%[a]], %[stride]\n"       \
  "vld1.32 {d6-d9}, [%[b]]!\n"                 \
  MACE_V7_ROWS4_MACS("q3", "q4", "d0", "d1")
#define MACE_V7_ROWS4_ALL(op, q)                                    \
  op " q8, q8, " q "\n" op " q9, q9, " q "\n"                       \
  MACE_V7_COLS4_ALL(op, q)

// The 2 x 8 tile: 4 depths of A (d0-d11; rows 0-1 of depth k in d(3k))
// and 2 of B (q8-q9, q10-q11) at a time, 16 vmla; rows 0 and 1
// accumulate in q12-q13 and q14-q15. 40 instructions for 8 depths with
// the loop's, where one depth a step took 52.
#define MACE_V7_ROWS2_MACS(lo, hi, x)          \
  "vmla.f32 q12, " lo ", " x "[0]\n"           \
  "vmla.f32 q13, " hi ", " x "[0]\n"           \
  "vmla.f32 q14, " lo ", " x "[1]\n"           \
  "vmla.f32 q15, " hi ", " x "[1]\n"
#define MACE_V7_ROWS2_DEPTHS4                  \
  "vldmia %[a]!, {d0-d11}\n"                   \
  "vldmia %[b]!, {d16-d23}\n"                  \
  MACE_V7_ROWS2_MACS("q8", "q9", "d0")         \
  MACE_V7_ROWS2_MACS("q10", "q11", "d3")       \
  "vldmia %[b]!, {d16-d23}\n"                  \
  MACE_V7_ROWS2_MACS("q8", "q9", "d6")         \
  MACE_V7_ROWS2_MACS("q10", "q11", "d9")
#define MACE_V7_ROWS2_DEPTH                    \
  "vld1.32 {d0}, [%[a]], %[stride]\n"          \
  "vld1.32 {d16-d19}, [%[b]]!\n"               \
  MACE_V7_ROWS2_MACS("q8", "q9", "d0")
#define MACE_V7_ROWS2_ALL(op, q)                                    \
  op " q12, q12, " q "\n" op " q13, q13, " q "\n"                   \
  op " q14, q14, " q "\n" op " q15, q15, " q "\n"

// A reduction of n depths: `depths` (k of them) per loop iteration, then
// `depth` one at a time. The tiles' loops take 8 depths (4 for the 4 x 8
// tile): MobileNets' 1x1 layers are mostly 8k channels deep.
#define MACE_V7_REDUCE_BY(k, depths, depth)    \
  "subs %[n], %[n], #" #k "\n"                 \
  "blt 2f\n"                                   \
  "1:\n"                                       \
  depths                                       \
  "subs %[n], %[n], #" #k "\n"                 \
  "bge 1b\n"                                   \
  "2:\n"                                       \
  "adds %[n], %[n], #" #k "\n"                 \
  "beq 4f\n"                                   \
  "3:\n"                                       \
  depth                                        \
  "subs %[n], %[n], #1\n"                      \
  "bne 3b\n"                                   \
  "4:\n"

// The body of all three: c (rows ldc apart) from c, the row biases or
// zero; the reduction; the clamp; the stores.
#define MACE_V7_SMALL_TILE(load_c, bias, zero, reduce, all, store)        \
  "ldr %[t], [%[prm], #8]\n"                                              \
  "tst %[t], %[from_c]\n"                                                 \
  "beq 10f\n"                                                             \
  "mov %[p], %[c]\n"                                                      \
  load_c                                                                  \
  "b 12f\n"                                                               \
  "10:\n"                                                                 \
  "ldr %[p], [%[prm]]\n"                                                  \
  "cmp %[p], #0\n"                                                        \
  "beq 11f\n"                                                             \
  bias                                                                    \
  "b 12f\n"                                                               \
  "11:\n"                                                                 \
  zero                                                                    \
  "12:\n"                                                                 \
  reduce                                                                  \
  MACE_V7_CLAMP(all)                                                      \
  store
// The 6 rows of the 6 x 4 tile or the 4 of the 4 x 8 tile, ldc bytes apart.
#define MACE_V7_COLS4_ROWS(op, p)                                                      \
  op " {d20-d21}, [%[" p "]], %[ldc]\n" op " {d22-d23}, [%[" p "]], %[ldc]\n"           \
  op " {d24-d25}, [%[" p "]], %[ldc]\n" op " {d26-d27}, [%[" p "]], %[ldc]\n"           \
  op " {d28-d29}, [%[" p "]], %[ldc]\n" op " {d30-d31}, [%[" p "]]\n"
#define MACE_V7_ROWS4_ROWS(op, p)                                                      \
  op " {d16-d19}, [%[" p "]], %[ldc]\n" op " {d20-d23}, [%[" p "]], %[ldc]\n"           \
  op " {d24-d27}, [%[" p "]], %[ldc]\n" op " {d28-d31}, [%[" p "]]\n"
#define MACE_V7_DUP(d, e) "vld1.32 {" d "[], " e "[]}, [%[p]]!\n"
#define MACE_V7_SMALL_OPERANDS                                                                 \
  : [a] "+r"(a), [b] "+r"(b), [c] "+r"(c), [n] "+r"(n), [p] "=&r"(p), [t] "=&r"(t)           \
  : [prm] "r"(prm), [stride] "r"(stride), [ldc] "r"(ldc_bytes), [from_c] "I"(kFromC),       \
    [clamp] "I"(kClamp), [clamp_hi] "I"(kClampHi)                                              \
  : "cc", "memory", "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8", "d9", "d10", "d11", \
    "d12", "d13", "d14", "d15", "d16", "d17", "d18", "d19", "d20", "d21", "d22", "d23",       \
    "d24", "d25", "d26", "d27", "d28", "d29", "d30", "d31"

namespace {
// kRows 6: the 6 x 4 tile (stride: B's, 32 bytes; kDenseB: B a dense
// 4-wide panel, a split panel's left half, whose 4 depths are one vldmia:
// 26 instructions for 4 depths where the 8-wide panel's 2 loads took 27);
// 4 and 2: the 4 x 8 and 2 x 8 tiles (stride: A's, 24 bytes). C's rows are
// ldc_bytes apart: C itself where the tile's rows or columns are all in
// it, or a dense staging tile.
template <int kRows, bool kDenseB = false>
void SmallTile(int kc, const float* a, const float* b, float* c, int ldc_bytes, bool from_c,
               const float* bias, bool clamp, bool clamp_hi, const float* bounds) {
  static_assert(!kDenseB || kRows == 6, "a dense B panel: the 6 x 4 tile");
  const ConvParams params = {from_c ? nullptr : bias, bounds, Flags(from_c, clamp, clamp_hi), 0};
  const ConvParams* prm = &params;
  int n = kc;
  int p, t;
  const int stride = (kRows == 6 ? 8 : 6) * sizeof(float);
#define MACE_V7_SMALL_TILE_6x4(reduce)                                                   \
  __asm__ volatile(                                                                      \
      MACE_V7_SMALL_TILE(                                                                \
          MACE_V7_COLS4_ROWS("vld1.32", "p"),                                            \
          MACE_V7_DUP("d20", "d21") MACE_V7_DUP("d22", "d23") MACE_V7_DUP("d24", "d25") \
          MACE_V7_DUP("d26", "d27") MACE_V7_DUP("d28", "d29") MACE_V7_DUP("d30", "d31"), \
          "vmov.i32 q10, #0\n vmov.i32 q11, #0\n vmov.i32 q12, #0\n"                     \
          "vmov.i32 q13, #0\n vmov.i32 q14, #0\n vmov.i32 q15, #0\n",                    \
          reduce, MACE_V7_COLS4_ALL, MACE_V7_COLS4_ROWS("vst1.32", "c"))                 \
      MACE_V7_SMALL_OPERANDS)
  if constexpr (kRows == 6 && kDenseB) {
    MACE_V7_SMALL_TILE_6x4(MACE_V7_REDUCE_BY(8, MACE_V7_SPLIT_DEPTHS4 MACE_V7_SPLIT_DEPTHS4,
                                             MACE_V7_SPLIT_DEPTH));
  } else if constexpr (kRows == 6) {
    MACE_V7_SMALL_TILE_6x4(MACE_V7_REDUCE_BY(8, MACE_V7_COLS4_DEPTHS4 MACE_V7_COLS4_DEPTHS4,
                                             MACE_V7_COLS4_DEPTH));
  } else if constexpr (kRows == 4) {
    __asm__ volatile(
        MACE_V7_SMALL_TILE(
            MACE_V7_ROWS4_ROWS("vld1.32", "p"),
            MACE_V7_DUP("d16", "d17") MACE_V7_DUP("d20", "d21") MACE_V7_DUP("d24", "d25")
            MACE_V7_DUP("d28", "d29")
            "vmov q9, q8\n vmov q11, q10\n vmov q13, q12\n vmov q15, q14\n",
            "vmov.i32 q8, #0\n vmov.i32 q9, #0\n vmov.i32 q10, #0\n vmov.i32 q11, #0\n"
            "vmov.i32 q12, #0\n vmov.i32 q13, #0\n vmov.i32 q14, #0\n vmov.i32 q15, #0\n",
            MACE_V7_REDUCE_BY(4, MACE_V7_ROWS4_DEPTHS2 MACE_V7_ROWS4_DEPTHS2,
                              MACE_V7_ROWS4_DEPTH),
            MACE_V7_ROWS4_ALL, MACE_V7_ROWS4_ROWS("vst1.32", "c"))
        MACE_V7_SMALL_OPERANDS);
  } else {
    static_assert(kRows == 2, "tiles of 6 x 4, 4 x 8 or 2 x 8");
    __asm__ volatile(
        MACE_V7_SMALL_TILE(
            "vld1.32 {d24-d27}, [%[p]], %[ldc]\n vld1.32 {d28-d31}, [%[p]]\n",
            MACE_V7_DUP("d24", "d25") MACE_V7_DUP("d28", "d29") "vmov q13, q12\n vmov q15, q14\n",
            "vmov.i32 q12, #0\n vmov.i32 q13, #0\n vmov.i32 q14, #0\n vmov.i32 q15, #0\n",
            MACE_V7_REDUCE_BY(8, MACE_V7_ROWS2_DEPTHS4 MACE_V7_ROWS2_DEPTHS4,
                              MACE_V7_ROWS2_DEPTH),
            MACE_V7_ROWS2_ALL,
            "vst1.32 {d24-d27}, [%[c]], %[ldc]\n vst1.32 {d28-d31}, [%[c]]\n")
        MACE_V7_SMALL_OPERANDS);
  }
#undef MACE_V7_SMALL_TILE_6x4
}
}  // namespace
// clang-format on

void Armv7GemmTile6x4(int kc, const float* a, const float* b, float* c, int ldc_bytes,
                      bool from_c, const float* bias, bool clamp, bool clamp_hi,
                      const float* bounds) {
  SmallTile<6>(kc, a, b, c, ldc_bytes, from_c, bias, clamp, clamp_hi, bounds);
}

void Armv7GemmTile4x8(int kc, const float* a, const float* b, float* c, int ldc_bytes,
                      bool from_c, const float* bias, bool clamp, bool clamp_hi,
                      const float* bounds) {
  SmallTile<4>(kc, a, b, c, ldc_bytes, from_c, bias, clamp, clamp_hi, bounds);
}

void Armv7GemmTile2x8(int kc, const float* a, const float* b, float* c, int ldc_bytes,
                      bool from_c, const float* bias, bool clamp, bool clamp_hi,
                      const float* bounds) {
  SmallTile<2>(kc, a, b, c, ldc_bytes, from_c, bias, clamp, clamp_hi, bounds);
}

// A last row panel of 4 or 2 rows along `tiles` full column panels: the
// 4 x 8 or 2 x 8 tile on B panels b_step floats apart, C 8 floats apart,
// all with the same row biases. The GEMM driver's columns-outer walk
// reached each such tile through its generic tile path, about 170
// instructions a tile around the tile's own (MobileNet v2 has some 4,500
// an inference); here a tile costs its call.
void Armv7GemmRowTail(int rows, int tiles, int kc, const float* a, const float* b, int b_step,
                      float* c, int ldc_bytes, bool from_c, const float* bias, bool clamp,
                      bool clamp_hi, const float* bounds) {
  constexpr int kNr = 8;
  for (; tiles > 0; --tiles, b += b_step, c += kNr) {
    if (rows == 4) {
      SmallTile<4>(kc, a, b, c, ldc_bytes, from_c, bias, clamp, clamp_hi, bounds);
    } else {
      SmallTile<2>(kc, a, b, c, ldc_bytes, from_c, bias, clamp, clamp_hi, bounds);
    }
  }
}

// The first column of a 6 x 8 tile (GEMM's last column panel when it
// holds one column: a 7x7 map's 49th), straight into C (rows ldc_bytes
// apart, as Tile). The 6 x 4 tile spends 7.5 instructions a depth on it;
// here four depths are one step, as Armv7PanelDot's 6-wide panel but with
// A's values the vectors and B's the scalars: the 24 A values in one vldmia
// (d8-d19), B's 4 values as lane 0 of d0 and d4 of two vldmia of 2 depth
// rows each (the panel's stride is 32 bytes; four loads of one lane took
// 2 more), 8 vmla by lane in two accumulator sets, 11 instructions and
// the loop's (8 depths an iteration: 24 for 8 depths where four depths a
// step with 3 A loads took 34). Rows 0-3 and 4-5 of even depths
// accumulate in q10 and d22, rows 0-1 and 2-5 of odd ones in d23 and q12;
// C or the 6 row biases (one vld1: they are consecutive) start the first
// set. Values come through ConvParams, as the other small tiles'.
// clang-format off
#define MACE_V7_COL1_DEPTHS4                   \
  "vldmia %[a]!, {d8-d19}\n"                   \
  "vldmia %[b]!, {d0-d7}\n"                    \
  "vmla.f32 q10, q4, d0[0]\n"                  \
  "vmla.f32 d22, d10, d0[0]\n"                 \
  "vmla.f32 d23, d11, d4[0]\n"                 \
  "vmla.f32 q12, q6, d4[0]\n"                  \
  "vldmia %[b]!, {d0-d7}\n"                    \
  "vmla.f32 q10, q7, d0[0]\n"                  \
  "vmla.f32 d22, d16, d0[0]\n"                 \
  "vmla.f32 d23, d17, d4[0]\n"                 \
  "vmla.f32 q12, q9, d4[0]\n"
#define MACE_V7_COL1_DEPTH                     \
  "vld1.32 {d0[0]}, [%[b]], %[stride]\n"       \
  "vld1.32 {d8-d10}, [%[a]]!\n"                \
  "vmla.f32 q10, q4, d0[0]\n"                  \
  "vmla.f32 d22, d10, d0[0]\n"
// The same 4 depths on a 4-wide panel: one vldmia holds B's 4 values (lane
// 0 of d0, d2, d4, d6).
#define MACE_V7_COL1_DEPTHS4_OF4               \
  "vldmia %[a]!, {d8-d19}\n"                   \
  "vldmia %[b]!, {d0-d7}\n"                    \
  "vmla.f32 q10, q4, d0[0]\n"                  \
  "vmla.f32 d22, d10, d0[0]\n"                 \
  "vmla.f32 d23, d11, d2[0]\n"                 \
  "vmla.f32 q12, q6, d2[0]\n"                  \
  "vmla.f32 q10, q7, d4[0]\n"                  \
  "vmla.f32 d22, d16, d4[0]\n"                 \
  "vmla.f32 d23, d17, d6[0]\n"                 \
  "vmla.f32 q12, q9, d6[0]\n"
// B a dense column (Armv7DensePanel): 4 depths' values in one vld4, each
// in both lanes of d0-d3, so that q0 and q1 are (b0, b0, b1, b1) and
// (b2, b2, b3, b3); A's 4 depths, one vldmia into q4-q9, are then 6
// vectors whose lanes are rows 0-3, rows 4-5 and 0-1 of the next depth,
// and rows 2-5: 6 vmla, q4 and q7 by lane 0 of d0 and d2 into q10 (rows
// 0-3 of even depths), q5 and q8 by q0 and q1 into q11 (rows 4-5 of even
// depths and 0-1 of odd ones, as d22 and d23 above), q6 and q9 by d1 and
// d3 into q12 (rows 2-5 of odd ones): 8 instructions for 4 depths where
// the 8-wide panel's took 11.
#define MACE_V7_COL1_DENSE_DEPTHS4             \
  "vldmia %[a]!, {d8-d19}\n"                   \
  "vld4.32 {d0[], d1[], d2[], d3[]}, [%[b]]!\n" \
  "vmla.f32 q10, q4, d0[0]\n"                  \
  "vmla.f32 q11, q5, q0\n"                     \
  "vmla.f32 q12, q6, d1[0]\n"                  \
  "vmla.f32 q10, q7, d2[0]\n"                  \
  "vmla.f32 q11, q8, q1\n"                     \
  "vmla.f32 q12, q9, d3[0]\n"
#define MACE_V7_COL1_DENSE_DEPTH               \
  "vld1.32 {d0[]}, [%[b]]!\n"                  \
  "vld1.32 {d8-d10}, [%[a]]!\n"                \
  "vmla.f32 q10, q4, d0[0]\n"                  \
  "vmla.f32 d22, d10, d0[0]\n"
namespace {
// kDenseB: B a dense column, not a panel b_width (8 or 4) wide.
template <bool kDenseB>
void ColumnTile(int kc, const float* a, const float* b, float* c, int ldc_bytes, bool from_c,
                const float* bias, bool clamp, bool clamp_hi, const float* bounds, int b_width) {
  const ConvParams params = {from_c ? nullptr : bias, bounds, Flags(from_c, clamp, clamp_hi),
                             ldc_bytes};
  const ConvParams* prm = &params;
  const int stride = b_width * static_cast<int>(sizeof(float));  // the B panel's
  int n = kc;
  int p, t;
#define MACE_V7_COL1_TILE(reduce)                                                                 \
  __asm__ volatile(                                                                               \
      "ldr %[t], [%[prm], #8]\n"                                                                  \
      "tst %[t], %[from_c]\n"                                                                     \
      "beq 10f\n"                                                                                 \
      "ldr %[t], [%[prm], #12]\n"                                                                 \
      "mov %[p], %[c]\n"                                                                          \
      "vld1.32 {d20[0]}, [%[p]], %[t]\n"                                                          \
      "vld1.32 {d20[1]}, [%[p]], %[t]\n"                                                          \
      "vld1.32 {d21[0]}, [%[p]], %[t]\n"                                                          \
      "vld1.32 {d21[1]}, [%[p]], %[t]\n"                                                          \
      "vld1.32 {d22[0]}, [%[p]], %[t]\n"                                                          \
      "vld1.32 {d22[1]}, [%[p]]\n"                                                                \
      "b 12f\n"                                                                                   \
      "10:\n"                                                                                     \
      "ldr %[p], [%[prm]]\n"                                                                      \
      "cmp %[p], #0\n"                                                                            \
      "beq 11f\n"                                                                                 \
      "vld1.32 {d20-d22}, [%[p]]\n"                                                               \
      "b 12f\n"                                                                                   \
      "11:\n"                                                                                     \
      "vmov.i32 q10, #0\n vmov.i32 d22, #0\n"                                                     \
      "12:\n"                                                                                     \
      "vmov.i32 d23, #0\n vmov.i32 q12, #0\n"                                                     \
      reduce                                                                                      \
      "vadd.f32 d20, d20, d23\n"                                                                  \
      "vadd.f32 d21, d21, d24\n"                                                                  \
      "vadd.f32 d22, d22, d25\n"                                                                  \
      "ldr %[t], [%[prm], #8]\n"                                                                  \
      "tst %[t], %[clamp]\n"                                                                      \
      "beq 6f\n"                                                                                  \
      "ldr %[p], [%[prm], #4]\n"                                                                  \
      "vld1.32 {d0[], d1[]}, [%[p]]!\n"                                                           \
      "vmax.f32 q10, q10, q0\n vmax.f32 d22, d22, d0\n"                                           \
      "tst %[t], %[clamp_hi]\n"                                                                   \
      "beq 6f\n"                                                                                  \
      "vld1.32 {d2[], d3[]}, [%[p]]\n"                                                            \
      "vmin.f32 q10, q10, q1\n vmin.f32 d22, d22, d2\n"                                           \
      "6:\n"                                                                                      \
      "ldr %[t], [%[prm], #12]\n"                                                                 \
      "vst1.32 {d20[0]}, [%[c]], %[t]\n"                                                          \
      "vst1.32 {d20[1]}, [%[c]], %[t]\n"                                                          \
      "vst1.32 {d21[0]}, [%[c]], %[t]\n"                                                          \
      "vst1.32 {d21[1]}, [%[c]], %[t]\n"                                                          \
      "vst1.32 {d22[0]}, [%[c]], %[t]\n"                                                          \
      "vst1.32 {d22[1]}, [%[c]]\n"                                                                \
      : [a] "+r"(a), [b] "+r"(b), [c] "+r"(c), [n] "+r"(n), [p] "=&r"(p), [t] "=&r"(t)            \
      : [prm] "r"(prm), [stride] "r"(stride), [from_c] "I"(kFromC), [clamp] "I"(kClamp),          \
        [clamp_hi] "I"(kClampHi)                                                                  \
      : "cc", "memory", "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8", "d9", "d10", "d11", \
        "d12", "d13", "d14", "d15", "d16", "d17", "d18", "d19", "d20", "d21", "d22", "d23",       \
        "d24", "d25")
  // B a dense column, or its panel 8 wide, or 4 (Winograd's V in 4-wide
  // panels, where one vldmia takes 4 depths' values: 10 instructions for 4
  // depths).
  if constexpr (kDenseB) {
    MACE_V7_COL1_TILE(MACE_V7_REDUCE_BY(8, MACE_V7_COL1_DENSE_DEPTHS4 MACE_V7_COL1_DENSE_DEPTHS4,
                                        MACE_V7_COL1_DENSE_DEPTH));
  } else if (b_width == 4) {
    MACE_V7_COL1_TILE(MACE_V7_REDUCE_BY(8, MACE_V7_COL1_DEPTHS4_OF4 MACE_V7_COL1_DEPTHS4_OF4,
                                        MACE_V7_COL1_DEPTH));
  } else {
    MACE_V7_COL1_TILE(MACE_V7_REDUCE_BY(8, MACE_V7_COL1_DEPTHS4 MACE_V7_COL1_DEPTHS4,
                                        MACE_V7_COL1_DEPTH));
  }
#undef MACE_V7_COL1_TILE
}
}  // namespace

void Armv7GemmTile6x1(int kc, const float* a, const float* b, float* c, int ldc_bytes, bool from_c,
                      const float* bias, bool clamp, bool clamp_hi, const float* bounds,
                      int b_width) {
  ColumnTile<false>(kc, a, b, c, ldc_bytes, from_c, bias, clamp, clamp_hi, bounds, b_width);
}
#undef MACE_V7_COL1_DENSE_DEPTH
#undef MACE_V7_COL1_DENSE_DEPTHS4
#undef MACE_V7_COL1_DEPTH
#undef MACE_V7_COL1_DEPTHS4_OF4
#undef MACE_V7_COL1_DEPTHS4
// clang-format on

// A last column panel of 4 columns (the 6 x 4 tile) or 1 (the 6 x 1 tile)
// along `tiles` full row panels: A panels a_step floats apart, C c_step
// floats apart, the row biases 6 floats apart. As Armv7GemmRowTail for
// the columns-outer walk's last column panel, whose tiles went through the
// driver's generic tile path one by one. b_dense: B's columns as a dense
// panel (Armv7DensePanel).
void Armv7GemmColumnTail(int cols, int tiles, int kc, const float* a, int a_step, const float* b,
                         bool b_dense, float* c, int c_step, int ldc_bytes, bool from_c,
                         const float* bias, bool clamp, bool clamp_hi, const float* bounds) {
  constexpr int kMr = 6;
  if (from_c) bias = nullptr;
  for (; tiles > 0; --tiles, a += a_step, c += c_step) {
    if (cols == 4 && b_dense) {
      SmallTile<kMr, true>(kc, a, b, c, ldc_bytes, from_c, bias, clamp, clamp_hi, bounds);
    } else if (cols == 4) {
      SmallTile<kMr>(kc, a, b, c, ldc_bytes, from_c, bias, clamp, clamp_hi, bounds);
    } else if (b_dense) {
      ColumnTile<true>(kc, a, b, c, ldc_bytes, from_c, bias, clamp, clamp_hi, bounds, 1);
    } else {
      ColumnTile<false>(kc, a, b, c, ldc_bytes, from_c, bias, clamp, clamp_hi, bounds, 8);
    }
    if (bias != nullptr) bias += kMr;
  }
}

// Runs of 6 x 4 tiles, each the first 4 columns of a 6 x 8 tile (B's rows
// 8 floats apart), for a GEMM whose last column panel holds at most 4
// columns: Winograd's last panel of tiles (a 7x7 map's 4 F(4x4) tiles, or
// the 1 to 4 tiles past whole panels), one or two micro-tiles of output
// channels at a time, from C or zero with no bias or clamp (the caller's
// epilogue adds them). The same loop runs deep 6 x 8 tiles as their two
// halves, started and clamped as RunTiles' (RunsOfTiles).
//
// The 12 x 4 tile took one depth a step: the two A panels' 6 values and
// B's 4 in three loads for 12 vmla, 15 instructions for 48 multiply-adds,
// since its 12 accumulators leave no room for a second depth. Its halves
// are 6 x 4 tiles, whose 6 accumulators leave room for 4 depths of A and
// 2 of B at a time (MACE_V7_COLS4_DEPTHS4): 27 instructions for 96, so
// the pair now runs as one 6 x 4 tile after the other on the same B,
// which stays in L1 between them. As Armv7GemmRun6x8's runs, a run is one
// assembly loop with the start chosen at compile time and C, A and B
// advanced by post-increments and one add each; the reduction is a
// 32-depth loop of 4-depth units entered part-way (Duff's device), after
// kc % 4 single depths entered the same way, so a tail costs no branches.
// (A 16-depth loop spent 2 more instructions a half on every further 16
// depths: 8 of a 64-deep 6 x 8 tile's ~100 outside the units.)
namespace {
// What the narrow runs' loop reads through its frame pointer.
struct NarrowFrame {
  DupBounds bounds;      // 0
  int passes;            // 32: passes of the 32-depth loop, the first partial
  int depth_skip;        // 36: the single depths the tail skips, in bytes
  int unit_skip;         // 40: the units the first pass skips, in bytes
  const void* entry[4];  // 44: the tail's and loop's entries, per half (set by the asm)
  // 60, 64, 68: A, B and C from the first half's end to the second's start
  int a_half, b_half, c_half;
};
static_assert(offsetof(NarrowFrame, passes) == 32 && offsetof(NarrowFrame, depth_skip) == 36 &&
                  offsetof(NarrowFrame, unit_skip) == 40 && offsetof(NarrowFrame, entry) == 44 &&
                  offsetof(NarrowFrame, a_half) == 60 && offsetof(NarrowFrame, c_half) == 68,
              "the offsets MACE_V7_NARROW_RUN and MACE_V7_NARROW_PAIR_RUN read");
// A run's tiles: 6 x 4, 12 x 4 (two micro-tiles of output channels, one
// after the other) or 6 x 8 (its left and right halves).
// kNarrowSplitHalves: the halves on a split B panel (SplitPanel).
// kNarrowPanel*: on B panels 4 wide (Winograd's V as 4-tile panels): 6 x
// 4, 12 x 4, and 6 x 8 whose halves' panels are b_pair floats apart.
enum NarrowKind {
  kNarrowSingle,
  kNarrowPair,
  kNarrowHalves,
  kNarrowSplitHalves,
  kNarrowPanelSingle,
  kNarrowPanelPair,
  kNarrowPanelHalves
};

// clang-format off
// The 6 rows, ldc apart, from or to the accumulators; the pointer ends
// 6 rows on (the pair's second half's first row).
#define MACE_V7_NARROW_ROWS(op, p)                                          \
  op " {d20-d21}, [%[" p "]], %[ldc]\n" op " {d22-d23}, [%[" p "]], %[ldc]\n" \
  op " {d24-d25}, [%[" p "]], %[ldc]\n" op " {d26-d27}, [%[" p "]], %[ldc]\n" \
  op " {d28-d29}, [%[" p "]], %[ldc]\n" op " {d30-d31}, [%[" p "]], %[ldc]\n"
#define MACE_V7_NARROW_FROM_C "mov %[n], %[c]\n" MACE_V7_NARROW_ROWS("vld1.32", "n")
// Each half starts from the tile's start tile (both halves: the same), in
// one vldmia where duplicating the 6 row biases took 6 vld1 and zeroing 6
// vmov. The start tile's address stays in a register: loading it from the
// frame took an ldr a half, and stepping it there an ldr and a str a tile.
#define MACE_V7_NARROW_START "vldmia %[s], {d20-d31}\n"
#define MACE_V7_NARROW_CLAMP_LO                                             \
  "vld1.32 {d0-d1}, [%[prm]]\n"                                             \
  MACE_V7_COLS4_ALL("vmax.f32", "q0")
#define MACE_V7_NARROW_CLAMP_BOTH                                           \
  "vld1.32 {d0-d3}, [%[prm]]\n"                                             \
  MACE_V7_COLS4_ALL("vmax.f32", "q0")                                       \
  MACE_V7_COLS4_ALL("vmin.f32", "q1")
// Label `l`'s address plus the bytes at prm + `skip`, into prm + `entry`.
#define MACE_V7_NARROW_ENTRY(l, skip, entry)                                \
  MACE_V7_ADR(l "f")                                                        \
  "ldr %[t], [%[prm], #" skip "]\n"                                         \
  "add %[n], %[n], %[t]\n"                                                  \
  MACE_V7_RUN_THUMB_BIT                                                     \
  "str %[n], [%[prm], #" entry "]\n"
// One 6 x 4 tile: its start, the tail (labels `tail` to `tail_end`), the
// loop of units (`units` to `units_end`; entries at prm + `te` and + `ue`),
// the clamp, the stores. The entries count on the steps' sizes, which the
// assembler checks.
#define MACE_V7_NARROW_TILE(start, clamp, depth, unit, tail, tail_end, te, units, units_end, ue) \
  MACE_V7_NARROW_TILE_OF(start, clamp, depth, unit, "27", tail, tail_end, te, units, units_end, ue)
// As MACE_V7_NARROW_TILE for units of `unit_insns` instructions.
#define MACE_V7_NARROW_TILE_OF(start, clamp, depth, unit, unit_insns, tail, tail_end, te, units, \
                               units_end, ue)                               \
  start                                                                     \
  "ldr pc, [%[prm], #" te "]\n"                                             \
  MACE_V7_ENTRY_ALIGN                                                       \
  tail ":\n"                                                                \
  depth depth depth                                                         \
  tail_end ":\n"                                                            \
  "ldr %[n], [%[prm], #32]\n"                                               \
  "ldr pc, [%[prm], #" ue "]\n"                                             \
  MACE_V7_ENTRY_ALIGN                                                       \
  units ":\n"                                                               \
  unit unit unit unit unit unit unit unit                                   \
  units_end ":\n"                                                           \
  MACE_V7_SIZE_CHECK("(" tail_end "b - " tail "b) - 3 * 32 || (" units_end "b - " units     \
                     "b) - 32 * " unit_insns,                                             \
                     "a depth is not 8 or a unit " unit_insns " four-byte instructions") \
  "subs %[n], %[n], #1\n"                                                   \
  "bne " units "b\n"                                                        \
  clamp                                                                     \
  MACE_V7_NARROW_ROWS("vst1.32", "c")
// A run of single tiles, or of pairs: the first half, A, B and C to the
// second's start, the second half (`depth`, `unit`: its steps).
#define MACE_V7_NARROW_RUN(start, clamp)                                    \
  MACE_V7_NARROW_ENTRY("1", "36", "44")                                     \
  MACE_V7_NARROW_ENTRY("2", "40", "48")                                     \
  "0:\n"                                                                    \
  MACE_V7_NARROW_TILE(start, clamp, MACE_V7_COLS4_DEPTH, MACE_V7_COLS4_DEPTHS4, "1", "5", \
                      "44", "2", "6", "48")
#define MACE_V7_NARROW_PAIR_RUN(start, clamp, depth, unit, c_half)         \
  MACE_V7_NARROW_ENTRY("1", "36", "44")                                     \
  MACE_V7_NARROW_ENTRY("2", "40", "48")                                     \
  MACE_V7_NARROW_ENTRY("3", "36", "52")                                     \
  MACE_V7_NARROW_ENTRY("4", "40", "56")                                     \
  "0:\n"                                                                    \
  MACE_V7_NARROW_TILE(start, clamp, MACE_V7_COLS4_DEPTH, MACE_V7_COLS4_DEPTHS4, "1", "5", \
                      "44", "2", "6", "48")                                 \
  "ldr %[t], [%[prm], #60]\n"                                               \
  "add %[a], %[a], %[t]\n"                                                  \
  "ldr %[t], [%[prm], #64]\n"                                               \
  "add %[b], %[b], %[t]\n"                                                  \
  c_half                                                                    \
  MACE_V7_NARROW_TILE(start, clamp, depth, unit, "3", "7", "52", "4", "8", "56")
// The halves of a 6 x 8 tile: C's columns 4-7 of the same rows.
#define MACE_V7_NARROW_HALVES_RUN(start, clamp)                             \
  MACE_V7_NARROW_PAIR_RUN(start, clamp, MACE_V7_COLS4_RIGHT_DEPTH,          \
                          MACE_V7_COLS4_DEPTHS4_OF("q7", "q9"),             \
                          "ldr %[t], [%[prm], #68]\n"                       \
                          "add %[c], %[c], %[t]\n")
// The halves of a 6 x 8 tile on a split B panel (SplitPanel): each half
// reads its own 4-wide panel in order, the right one where the left one
// ends, so B needs no move between them.
#define MACE_V7_NARROW_SPLIT_TILE(start, clamp, tail, tail_end, te, units, units_end, ue) \
  MACE_V7_NARROW_TILE_OF(start, clamp, MACE_V7_SPLIT_DEPTH, MACE_V7_SPLIT_DEPTHS4, "26", tail, \
                         tail_end, te, units, units_end, ue)
// Two tiles on 4-wide B panels, A, B and C moved between them by
// `between`: a split panel's halves (the right one where the left one
// ends), and on Winograd's V the pair's second micro-tile on the same B or
// a 6 x 8 tile's right half on its own panel.
#define MACE_V7_NARROW_PANEL_RUN(start, clamp, between)                     \
  MACE_V7_NARROW_ENTRY("1", "36", "44")                                     \
  MACE_V7_NARROW_ENTRY("2", "40", "48")                                     \
  MACE_V7_NARROW_ENTRY("3", "36", "52")                                     \
  MACE_V7_NARROW_ENTRY("4", "40", "56")                                     \
  "0:\n"                                                                    \
  MACE_V7_NARROW_SPLIT_TILE(start, clamp, "1", "5", "44", "2", "6", "48")   \
  between                                                                   \
  MACE_V7_NARROW_SPLIT_TILE(start, clamp, "3", "7", "52", "4", "8", "56")
#define MACE_V7_NARROW_SPLIT_RUN(start, clamp)                              \
  MACE_V7_NARROW_PANEL_RUN(start, clamp, MACE_V7_NARROW_MOVE_A MACE_V7_NARROW_MOVE_C)
// One 6 x 4 tile on a 4-wide B panel.
#define MACE_V7_NARROW_PANEL_SINGLE_RUN(start, clamp)                       \
  MACE_V7_NARROW_ENTRY("1", "36", "44")                                     \
  MACE_V7_NARROW_ENTRY("2", "40", "48")                                     \
  "0:\n"                                                                    \
  MACE_V7_NARROW_SPLIT_TILE(start, clamp, "1", "5", "44", "2", "6", "48")
// A, B and C from the first tile's end to the second's start.
#define MACE_V7_NARROW_MOVE_A "ldr %[t], [%[prm], #60]\n add %[a], %[a], %[t]\n"
#define MACE_V7_NARROW_MOVE_B "ldr %[t], [%[prm], #64]\n add %[b], %[b], %[t]\n"
#define MACE_V7_NARROW_MOVE_C "ldr %[t], [%[prm], #68]\n add %[c], %[c], %[t]\n"
// A 6 x 4 tile of whole passes (kc a multiple of 32, not 0): no tail and
// no computed entries, which took two loads into pc a half.
#define MACE_V7_NARROW_WHOLE_TILE(start, clamp, unit, units)                \
  start                                                                     \
  "ldr %[n], [%[prm], #32]\n"                                               \
  units ":\n"                                                               \
  unit unit unit unit unit unit unit unit                                   \
  "subs %[n], %[n], #1\n"                                                   \
  "bne " units "b\n"                                                        \
  clamp                                                                     \
  MACE_V7_NARROW_ROWS("vst1.32", "c")
// The halves runs of whole passes, on the 8-wide B panel or the split one.
#define MACE_V7_NARROW_WHOLE_HALVES_RUN(start, clamp)                       \
  "0:\n"                                                                    \
  MACE_V7_NARROW_WHOLE_TILE(start, clamp, MACE_V7_COLS4_DEPTHS4, "2")       \
  "ldr %[t], [%[prm], #60]\n"                                               \
  "add %[a], %[a], %[t]\n"                                                  \
  "ldr %[t], [%[prm], #64]\n"                                               \
  "add %[b], %[b], %[t]\n"                                                  \
  "ldr %[t], [%[prm], #68]\n"                                               \
  "add %[c], %[c], %[t]\n"                                                  \
  MACE_V7_NARROW_WHOLE_TILE(start, clamp, MACE_V7_COLS4_DEPTHS4_OF("q7", "q9"), "4")
// The split halves' passes are 64 depths (two units a unit argument):
// a pass's subs and bne cost 2 instructions a 208, about 1.4 M of
// MobileNet v1's halves at 32 depths a pass.
#define MACE_V7_SPLIT_DEPTHS8 MACE_V7_SPLIT_DEPTHS4 MACE_V7_SPLIT_DEPTHS4
#define MACE_V7_NARROW_WHOLE_SPLIT_RUN(start, clamp)                        \
  "0:\n"                                                                    \
  MACE_V7_NARROW_WHOLE_TILE(start, clamp, MACE_V7_SPLIT_DEPTHS8, "2")       \
  "ldr %[t], [%[prm], #60]\n"                                               \
  "add %[a], %[a], %[t]\n"                                                  \
  "ldr %[t], [%[prm], #68]\n"                                               \
  "add %[c], %[c], %[t]\n"                                                  \
  MACE_V7_NARROW_WHOLE_TILE(start, clamp, MACE_V7_SPLIT_DEPTHS8, "4")
// The 6 x 8 tiles' halves on their own 4-wide panels, of whole passes.
#define MACE_V7_NARROW_WHOLE_PANEL_RUN(start, clamp)                        \
  "0:\n"                                                                    \
  MACE_V7_NARROW_WHOLE_TILE(start, clamp, MACE_V7_SPLIT_DEPTHS8, "2")       \
  MACE_V7_NARROW_MOVE_A MACE_V7_NARROW_MOVE_B MACE_V7_NARROW_MOVE_C          \
  MACE_V7_NARROW_WHOLE_TILE(start, clamp, MACE_V7_SPLIT_DEPTHS8, "4")
// The next tile; `bias` moves the start tiles on.
#define MACE_V7_NARROW_NEXT(bias)                                           \
  "add %[a], %[a], %[a_adj]\n"                                              \
  "add %[b], %[b], %[b_adj]\n"                                              \
  "add %[c], %[c], %[c_adj]\n"                                              \
  bias                                                                      \
  "subs %[tiles], %[tiles], #1\n"                                           \
  "bne 0b\n"
#define MACE_V7_NARROW_NEXT_BIAS "add %[s], %[s], #96\n"
// clang-format on

// Tiles as kKind says, each starting as kStart (from C, or the 6 x 4
// start tiles at `starts`) and clamped as kClamp (Armv7GemmRun6x8's runs),
// A pairs a_pair floats apart, the right halves' B panels (kNarrowPanelHalves)
// b_pair floats after the left ones'. kWhole (the halves only): kc is a
// whole number of passes (32 depths, the split and panel halves' 64) and
// not 0.
template <RunStart kStart, RunClamp kClamp, NarrowKind kKind, bool kWhole = false>
void NarrowRun(int tiles, int kc, const float* a, int a_pair, int a_step, const float* b,
               int b_step, float* c, int c_step, int ldc_bytes, const float* starts,
               const float* bounds, int b_pair = 0) {
  static_assert(kStart != kRunBias, "the narrow runs start from C or start tiles");
  constexpr bool kHalves =
      kKind == kNarrowHalves || kKind == kNarrowSplitHalves || kKind == kNarrowPanelHalves;
  constexpr bool kPair = kKind == kNarrowPair || kKind == kNarrowPanelPair;
  static_assert(!kWhole || kHalves, "whole passes: the halves only");
  constexpr int kMr = 6, kNr = 8, kFloat = sizeof(float);
  // B's values a depth: 4 on split or 4-wide panels.
  constexpr bool kSplit = kKind == kNarrowSplitHalves || kKind == kNarrowPanelSingle ||
                          kKind == kNarrowPanelPair || kKind == kNarrowPanelHalves;
  constexpr int kBWidth = kSplit ? 4 : kNr;
  constexpr int kDepthBytes = 8 * 4, kUnitBytes = (kSplit ? 26 : 27) * 4;
  constexpr int kPassUnits = (kWhole && kSplit ? kWholeSplitPassDepth : kWholePassDepth) / 4;
  if (tiles <= 0) return;
  if (kc < 0) kc = 0;
  const int units = kc / 4;
  const int row_bytes = kMr * ldc_bytes;
  // The second tile's B (halves and pairs) from the first's start, and
  // where a tile's B ends.
  const int b_second = kKind == kNarrowSplitHalves   ? 4 * kc
                       : kKind == kNarrowPanelHalves ? b_pair
                                                     : 0;
  const bool two = kHalves || kPair;
  const int b_end = (two ? b_second : 0) + kBWidth * kc;
  // No units: the first pass enters at the loop's end, once.
  NarrowFrame frame = {DupBounds(),
                       units > 0 ? (units + kPassUnits - 1) / kPassUnits : 1,
                       (3 - kc % 4) * kDepthBytes,
                       (units > 0 ? (-units) & (kPassUnits - 1) : kPassUnits) * kUnitBytes,
                       {nullptr, nullptr, nullptr, nullptr},
                       (kPair ? a_pair : 0) * kFloat - kMr * kc * kFloat,
                       (b_second - kBWidth * kc) * kFloat,
                       4 * kFloat - row_bytes};
  const int a_adj = ((kPair ? a_step - a_pair : a_step) - kMr * kc) * kFloat;
  const int b_adj = (b_step - b_end) * kFloat;
  const int c_adj = c_step * kFloat - (kPair     ? 2 * row_bytes
                                       : kHalves ? row_bytes + 4 * kFloat
                                                 : row_bytes);
  SetBounds(kClamp != kRunNoClamp, kClamp == kRunClampBoth, bounds, &frame.bounds);
  NarrowFrame* prm = &frame;
  int n, t;
  // clang-format off
#define MACE_V7_NARROW_ASM(run, next)                                                       \
  __asm__ volatile(run MACE_V7_NARROW_NEXT(next)                                            \
                   : [a] "+r"(a), [b] "+r"(b), [c] "+r"(c), [tiles] "+r"(tiles),           \
                     [s] "+r"(starts), [n] "=&r"(n), [t] "=&r"(t)                          \
                   : [prm] "r"(prm), [ldc] "r"(ldc_bytes), [a_adj] "r"(a_adj),            \
                     [b_adj] "r"(b_adj), [c_adj] "r"(c_adj), [stride] "r"(kDepthBytes)    \
                   : "cc", "memory", "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8", \
                     "d9", "d10", "d11", "d12", "d13", "d14", "d15", "d16", "d17", "d18", \
                     "d19", "d20", "d21", "d22", "d23", "d24", "d25", "d26", "d27", "d28", \
                     "d29", "d30", "d31")
#define MACE_V7_NARROW_KIND(start, clamp, next)                                             \
  if constexpr (kKind == kNarrowPair) {                                                     \
    MACE_V7_NARROW_ASM(MACE_V7_NARROW_PAIR_RUN(start, clamp, MACE_V7_COLS4_DEPTH,           \
                                               MACE_V7_COLS4_DEPTHS4, ""), next);           \
  } else if constexpr (kKind == kNarrowPanelSingle) {                                       \
    MACE_V7_NARROW_ASM(MACE_V7_NARROW_PANEL_SINGLE_RUN(start, clamp), next);                \
  } else if constexpr (kKind == kNarrowPanelPair) {                                         \
    MACE_V7_NARROW_ASM(MACE_V7_NARROW_PANEL_RUN(start, clamp, MACE_V7_NARROW_MOVE_A         \
                                                MACE_V7_NARROW_MOVE_B), next);              \
  } else if constexpr (kWhole && kKind == kNarrowPanelHalves) {                             \
    MACE_V7_NARROW_ASM(MACE_V7_NARROW_WHOLE_PANEL_RUN(start, clamp), next);                 \
  } else if constexpr (kKind == kNarrowPanelHalves) {                                       \
    MACE_V7_NARROW_ASM(MACE_V7_NARROW_PANEL_RUN(start, clamp, MACE_V7_NARROW_MOVE_A         \
                       MACE_V7_NARROW_MOVE_B MACE_V7_NARROW_MOVE_C), next);                 \
  } else if constexpr (kWhole && kSplit) {                                                  \
    MACE_V7_NARROW_ASM(MACE_V7_NARROW_WHOLE_SPLIT_RUN(start, clamp), next);                 \
  } else if constexpr (kWhole) {                                                            \
    MACE_V7_NARROW_ASM(MACE_V7_NARROW_WHOLE_HALVES_RUN(start, clamp), next);                \
  } else if constexpr (kKind == kNarrowHalves) {                                            \
    MACE_V7_NARROW_ASM(MACE_V7_NARROW_HALVES_RUN(start, clamp), next);                      \
  } else if constexpr (kSplit) {                                                            \
    MACE_V7_NARROW_ASM(MACE_V7_NARROW_SPLIT_RUN(start, clamp), next);                       \
  } else {                                                                                  \
    MACE_V7_NARROW_ASM(MACE_V7_NARROW_RUN(start, clamp), next);                             \
  }
#define MACE_V7_NARROW_CLAMPS(start, next)                                                  \
  if constexpr (kClamp == kRunNoClamp) {                                                    \
    MACE_V7_NARROW_KIND(start, "", next)                                                    \
  } else if constexpr (kClamp == kRunClampLo) {                                             \
    MACE_V7_NARROW_KIND(start, MACE_V7_NARROW_CLAMP_LO, next)                               \
  } else {                                                                                  \
    MACE_V7_NARROW_KIND(start, MACE_V7_NARROW_CLAMP_BOTH, next)                             \
  }
  // clang-format on
  if constexpr (kStart == kRunFromC) {
    MACE_V7_NARROW_CLAMPS(MACE_V7_NARROW_FROM_C, "")
  } else if constexpr (kStart == kRunStarts) {
    MACE_V7_NARROW_CLAMPS(MACE_V7_NARROW_START, MACE_V7_NARROW_NEXT_BIAS)
  } else {
    MACE_V7_NARROW_CLAMPS(MACE_V7_NARROW_START, "")
  }
#undef MACE_V7_NARROW_CLAMPS
#undef MACE_V7_NARROW_KIND
#undef MACE_V7_NARROW_ASM
}

template <RunStart kStart, NarrowKind kKind, bool kWhole>
void HalvesRunOfPasses(RunClamp clamp, int tiles, int kc, const float* a, int a_step,
                       const float* b, int b_step, float* c, int c_step, int ldc_bytes,
                       const float* starts, const float* bounds) {
  if (clamp == kRunNoClamp) {
    NarrowRun<kStart, kRunNoClamp, kKind, kWhole>(tiles, kc, a, 0, a_step, b, b_step, c, c_step,
                                                  ldc_bytes, starts, bounds);
  } else if (clamp == kRunClampLo) {
    NarrowRun<kStart, kRunClampLo, kKind, kWhole>(tiles, kc, a, 0, a_step, b, b_step, c, c_step,
                                                  ldc_bytes, starts, bounds);
  } else {
    NarrowRun<kStart, kRunClampBoth, kKind, kWhole>(tiles, kc, a, 0, a_step, b, b_step, c,
                                                    c_step, ldc_bytes, starts, bounds);
  }
}

// MobileNets' deep 1x1 layers are 32k channels deep (MobileNet v1's all
// 64k): their halves take the loop without the tail and entries. The
// split halves' passes are 64 deep, so a 32k + 32 deep split run (96, 160)
// takes the loop with them.
template <RunStart kStart, NarrowKind kKind>
void HalvesRunClamped(RunClamp clamp, int tiles, int kc, const float* a, int a_step,
                      const float* b, int b_step, float* c, int c_step, int ldc_bytes,
                      const float* starts, const float* bounds) {
  constexpr int kPass = kKind == kNarrowSplitHalves ? kWholeSplitPassDepth : kWholePassDepth;
  if (kc > 0 && kc % kPass == 0) {
    HalvesRunOfPasses<kStart, kKind, true>(clamp, tiles, kc, a, a_step, b, b_step, c, c_step,
                                           ldc_bytes, starts, bounds);
  } else {
    HalvesRunOfPasses<kStart, kKind, false>(clamp, tiles, kc, a, a_step, b, b_step, c, c_step,
                                            ldc_bytes, starts, bounds);
  }
}

template <NarrowKind kKind>
__attribute__((always_inline)) inline void HalvesRunOf(RunStart start, RunClamp clamp, int tiles,
                                                       int kc, const float* a, int a_step,
                                                       const float* b, int b_step, float* c,
                                                       int c_step, int ldc_bytes,
                                                       const float* starts, const float* bounds) {
  if (start == kRunFromC) {
    HalvesRunClamped<kRunFromC, kKind>(clamp, tiles, kc, a, a_step, b, b_step, c, c_step,
                                       ldc_bytes, starts, bounds);
  } else if (start == kRunStarts) {
    HalvesRunClamped<kRunStarts, kKind>(clamp, tiles, kc, a, a_step, b, b_step, c, c_step,
                                        ldc_bytes, starts, bounds);
  } else {
    HalvesRunClamped<kRunSameStart, kKind>(clamp, tiles, kc, a, a_step, b, b_step, c, c_step,
                                           ldc_bytes, starts, bounds);
  }
}

// An 8-wide B panel of kc depths as two 4-wide panels, columns 0-3 of
// every depth and then columns 4-7, into out (8 * kc floats). 4 depths
// are one vldmia, 2 vswp that put each half's two depths in consecutive
// registers, and 4 vst1; the loop takes 8 depths: 16 instructions.
void SplitPanel(const float* b, int kc, float* out) {
  float* right = out + 4 * kc;
  int groups = kc >> 3;
  int rest = kc & 7;
  // clang-format off
#define MACE_V7_SPLIT_4                                                   \
  "vldmia %[b]!, {d0-d15}\n"                                              \
  "vswp q1, q2\n"                                                         \
  "vswp q5, q6\n"                                                         \
  "vst1.32 {d0-d3}, [%[l]]!\n"                                            \
  "vst1.32 {d8-d11}, [%[l]]!\n"                                           \
  "vst1.32 {d4-d7}, [%[r]]!\n"                                            \
  "vst1.32 {d12-d15}, [%[r]]!\n"
  if (groups > 0) {
    __asm__ volatile(
        "1:\n"
        MACE_V7_SPLIT_4 MACE_V7_SPLIT_4
        "subs %[n], %[n], #1\n"
        "bne 1b\n"
        : [b] "+r"(b), [l] "+r"(out), [r] "+r"(right), [n] "+r"(groups)
        :
        : "cc", "memory", "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8", "d9", "d10",
          "d11", "d12", "d13", "d14", "d15");
  }
  if (rest >= 4) {
    __asm__ volatile(MACE_V7_SPLIT_4
                     : [b] "+r"(b), [l] "+r"(out), [r] "+r"(right)
                     :
                     : "memory", "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8", "d9",
                       "d10", "d11", "d12", "d13", "d14", "d15");
    rest -= 4;
  }
#undef MACE_V7_SPLIT_4
  // clang-format on
  for (; rest > 0; --rest, b += 8, out += 4, right += 4) {
    std::copy_n(b, 4, out);
    std::copy_n(b + 4, 4, right);
  }
}

// Its own function, so that the copy's 16 KiB frame is set up only for
// the runs that split.
void SplitHalvesRun(RunStart start, RunClamp clamp, int tiles, int kc, const float* a, int a_step,
                    const float* b, float* c, int c_step, int ldc_bytes, const float* starts,
                    const float* bounds, int prefetch_tiles) {
  constexpr int kStartFloats = 6 * 4;  // a 6 x 4 start tile
  alignas(16) float split[8 * kSplitMaxKc];
  SplitPanel(b, kc, split);
  for (; tiles > 0 && prefetch_tiles > 0; --tiles, --prefetch_tiles) {
    PrefetchPanel(a + 2 * a_step, kc);
    HalvesRunOf<kNarrowSplitHalves>(start, clamp, 1, kc, a, a_step, split, 0, c, c_step,
                                    ldc_bytes, starts, bounds);
    a += a_step;
    c += c_step;
    if (start == kRunStarts) starts += kStartFloats;
  }
  if (tiles > 0) {
    HalvesRunOf<kNarrowSplitHalves>(start, clamp, tiles, kc, a, a_step, split, 0, c, c_step,
                                    ldc_bytes, starts, bounds);
  }
}

void SplitHalvesRunOn(RunStart start, RunClamp clamp, int tiles, int kc, const float* a,
                      int a_step, const float* split, float* c, int c_step, int ldc_bytes,
                      const float* starts, const float* bounds) {
  HalvesRunOf<kNarrowSplitHalves>(start, clamp, tiles, kc, a, a_step, split, 0, c, c_step,
                                  ldc_bytes, starts, bounds);
}

void HalvesRun(RunStart start, RunClamp clamp, int tiles, int kc, const float* a, int a_step,
               const float* b, int b_step, float* c, int c_step, int ldc_bytes,
               const float* starts, const float* bounds) {
  HalvesRunOf<kNarrowHalves>(start, clamp, tiles, kc, a, a_step, b, b_step, c, c_step, ldc_bytes,
                             starts, bounds);
}
}  // namespace

bool Armv7RunsSplitPanel(int tiles, int kc) {
  return tiles >= kSplitMinTiles && kc >= kHalvesMinKc && kc <= kSplitMaxKc;
}

void Armv7SplitPanels(int panels, int kc, const float* b, int panel_stride, float* out) {
  for (; panels > 0; --panels, b += panel_stride, out += 8 * kc) SplitPanel(b, kc, out);
}

namespace {
// Winograd's runs of kKind from C or zero, no clamp.
template <NarrowKind kKind, bool kWhole = false>
void WinogradRun(int tiles, int kc, const float* a, int a_pair, int a_step, const float* b,
                 int b_pair, int b_step, float* c, int c_step, int ldc_bytes, bool from_c) {
  if (from_c) {
    NarrowRun<kRunFromC, kRunNoClamp, kKind, kWhole>(tiles, kc, a, a_pair, a_step, b, b_step, c,
                                                     c_step, ldc_bytes, nullptr, nullptr, b_pair);
  } else {
    NarrowRun<kRunSameStart, kRunNoClamp, kKind, kWhole>(
        tiles, kc, a, a_pair, a_step, b, b_step, c, c_step, ldc_bytes, kZeroStart, nullptr, b_pair);
  }
}
}  // namespace

void Armv7DensePanel(int cols, int kc, const float* b, float* out) {
  if (cols == 4) {
    SplitPanel(b, kc, out);
    return;
  }
  for (int d = 0; d < kc; ++d) out[d] = b[8 * d];
}

// Tile t reads the A panel a_step floats after tile t - 1's and the B
// panel b_step floats after, and writes C c_step floats after.
void Armv7GemmRun6x4(int tiles, int kc, const float* a, int a_step, const float* b, int b_step,
                     float* c, int c_step, int ldc_bytes, bool from_c, int b_width) {
  if (b_width == 4) {
    WinogradRun<kNarrowPanelSingle>(tiles, kc, a, 0, a_step, b, 0, b_step, c, c_step, ldc_bytes,
                                    from_c);
  } else {
    WinogradRun<kNarrowSingle>(tiles, kc, a, 0, a_step, b, 0, b_step, c, c_step, ldc_bytes, from_c);
  }
}

// Two micro-tiles of output channels at once: 12 x 4 tiles whose A rows
// 0-5 are a panel and rows 6-11 the panel a_pair floats after it, into 12
// C rows ldc_bytes apart (the second micro-tile's rows follow the first's).
void Armv7GemmRun12x4(int tiles, int kc, const float* a, int a_pair, int a_step, const float* b,
                      int b_step, float* c, int c_step, int ldc_bytes, bool from_c, int b_width) {
  if (b_width == 4) {
    WinogradRun<kNarrowPanelPair>(tiles, kc, a, a_pair, a_step, b, 0, b_step, c, c_step, ldc_bytes,
                                  from_c);
  } else {
    WinogradRun<kNarrowPair>(tiles, kc, a, a_pair, a_step, b, 0, b_step, c, c_step, ldc_bytes,
                             from_c);
  }
}

// The halves' loop of whole 64-depth passes where kc has them (the
// 64- to 512-channel layers), else the one with the tail and entries.
void Armv7GemmRun6x8OnPanels(int tiles, int kc, const float* a, int a_step, const float* b,
                             int b_right, int b_step, float* c, int c_step, int ldc_bytes,
                             bool from_c) {
  if (kc > 0 && kc % kWholeSplitPassDepth == 0) {
    WinogradRun<kNarrowPanelHalves, true>(tiles, kc, a, 0, a_step, b, b_right, b_step, c, c_step,
                                          ldc_bytes, from_c);
  } else {
    WinogradRun<kNarrowPanelHalves>(tiles, kc, a, 0, a_step, b, b_right, b_step, c, c_step,
                                    ldc_bytes, from_c);
  }
}

#undef MACE_V7_SMALL_OPERANDS
#undef MACE_V7_DUP
#undef MACE_V7_ROWS4_ROWS
#undef MACE_V7_COLS4_ROWS
#undef MACE_V7_SMALL_TILE
#undef MACE_V7_REDUCE_BY
#undef MACE_V7_ROWS2_ALL
#undef MACE_V7_ROWS2_DEPTH
#undef MACE_V7_ROWS2_DEPTHS4
#undef MACE_V7_ROWS2_MACS
#undef MACE_V7_ROWS4_ALL
#undef MACE_V7_ROWS4_DEPTH
#undef MACE_V7_ROWS4_DEPTHS2
#undef MACE_V7_ROWS4_MACS
#undef MACE_V7_COLS4_ALL
#undef MACE_V7_COLS4_DEPTH
#undef MACE_V7_COLS4_RIGHT_DEPTH
#undef MACE_V7_SPLIT_DEPTH
#undef MACE_V7_SPLIT_DEPTHS4
#undef MACE_V7_COLS4_DEPTHS4
#undef MACE_V7_COLS4_DEPTHS4_OF
#undef MACE_V7_COLS4_MACS
// The matrix-vector product of a 6- or 8-wide panel (a classifier's
// weights) and x: out[j] = sum_d panel[d * width + j] * x[d]. Four depths a
// step: the x values in one vld1 (d12-d13, which a multiply by lane may
// name), the panel in 3 or 4 loads of 8 floats, one vmla per 4 (or 2)
// products, with even and odd depths in two sets of accumulators. Two pld
// a step fetch the panel kAhead bytes ahead, as the portable loop does: a
// classifier's weights are megabytes read once. 14 instructions for 24
// multiply-adds (width 6), where GCC's code for the portable loop took
// about 60; the 8-wide panel takes 8 depths a loop (below).
namespace {
constexpr int kAhead = 8192;
}  // namespace

// clang-format off
// The loop of both widths: `zero` the accumulators, steps of 4 depths
// (x into d12-d13 and the first 24 floats of the panel into d0-d11 with
// the two pld; `more` loads the rest, `macs` multiplies), then one depth at
// a time (`one`: x into d12[0]), then `finish`.
#define MACE_V7_DOT(zero, more, macs, one, finish)                         \
  zero                                                                    \
  "cmp %[steps], #0\n"                                                     \
  "beq 2f\n"                                                               \
  "1:\n"                                                                   \
  "vld1.32 {d12-d13}, [%[x]]!\n"                                           \
  "vld1.32 {d0-d3}, [%[p]]!\n"                                             \
  "pld [%[p], %[ahead]]\n"                                                 \
  "vld1.32 {d4-d7}, [%[p]]!\n"                                             \
  "vld1.32 {d8-d11}, [%[p]]!\n"                                            \
  "pld [%[p], %[ahead]]\n"                                                 \
  more macs                                                               \
  "subs %[steps], %[steps], #1\n"                                          \
  "bne 1b\n"                                                               \
  "2:\n"                                                                   \
  "cmp %[rest], #0\n"                                                      \
  "beq 4f\n"                                                               \
  "3:\n"                                                                   \
  "vld1.32 {d12[0]}, [%[x]]!\n"                                            \
  one                                                                     \
  "subs %[rest], %[rest], #1\n"                                            \
  "bne 3b\n"                                                               \
  "4:\n"                                                                   \
  finish
#define MACE_V7_DOT_OPERANDS                                                \
  : [p] "+r"(panel), [x] "+r"(x), [steps] "+r"(steps), [rest] "+r"(rest)   \
  : [out] "r"(out), [ahead] "r"(ahead)                                     \
  : "cc", "memory", "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8", "d9", "d10", "d11", \
    "d12", "d13", "d16", "d17", "d18", "d19", "d20", "d21", "d22", "d23", "d24", "d25",      \
    "d26", "d27"

bool Armv7PanelDot(const float* panel, int64_t depth, int32_t width, const float* x, float* out) {
  if (width != 6 && width != 8) return false;
  int steps = static_cast<int>(depth >> 2);
  int rest = static_cast<int>(depth & 3);
  const int ahead = kAhead;
  if (width == 6) {
    // Depth 0 in d0-d2, 1 in d3-d5, 2 in d6-d8, 3 in d9-d11; rows 0-1,
    // 2-3 and 4-5 accumulate in d20-d22 (even depths) and d23-d25 (odd).
    __asm__ volatile(
        MACE_V7_DOT(
            "vmov.i32 q10, #0\n vmov.i32 q11, #0\n vmov.i32 q12, #0\n",
            "",
            MACE_V7_SIX_BY_FOUR_DEPTHS,
            "vld1.32 {d0-d2}, [%[p]]!\n"
            "vmla.f32 q10, q0, d12[0]\n"
            "vmla.f32 d22, d2, d12[0]\n",
            "vadd.f32 d20, d20, d23\n"
            "vadd.f32 d21, d21, d24\n"
            "vadd.f32 d22, d22, d25\n"
            "vst1.32 {d20-d22}, [%[out]]\n")
        MACE_V7_DOT_OPERANDS);
  } else {
    // 8 depths a loop: x in one vld1 (d12-d15) and each 2 depths of the
    // panel (16 floats) in one vldmia, where vld1 moves at most 8: depths
    // 0-1 in q0-q3 and 2-3 in q8-q11, the 8 rows accumulating in q12-q13
    // (even depths) and q14-q15 (odd); four pld fetch the lines kAhead
    // bytes past the iteration's 256. 27 instructions for 64
    // multiply-adds where the 4-depth loop took 34 (a classifier whose
    // batch-1 product runs on 8-wide B panels, as ShuffleNet v2's 1024 ->
    // 1000: 0.55 M instructions). Then at most one 4-depth step and
    // single depths.
    int eights = static_cast<int>(depth >> 3);
    int four = static_cast<int>(depth & 4);
    const int ahead1 = kAhead + 64, ahead2 = kAhead + 128, ahead3 = kAhead + 192;
#define MACE_V7_DOT8_DEPTHS4(lo, hi)                                   \
  "vldmia %[p]!, {d0-d7}\n"                                            \
  "vldmia %[p]!, {d16-d23}\n"                                          \
  "vmla.f32 q12, q0, " lo "[0]\n"                                      \
  "vmla.f32 q13, q1, " lo "[0]\n"                                      \
  "vmla.f32 q14, q2, " lo "[1]\n"                                      \
  "vmla.f32 q15, q3, " lo "[1]\n"                                      \
  "vmla.f32 q12, q8, " hi "[0]\n"                                      \
  "vmla.f32 q13, q9, " hi "[0]\n"                                      \
  "vmla.f32 q14, q10, " hi "[1]\n"                                     \
  "vmla.f32 q15, q11, " hi "[1]\n"
    __asm__ volatile(
        "vmov.i32 q12, #0\n vmov.i32 q13, #0\n vmov.i32 q14, #0\n vmov.i32 q15, #0\n"
        "cmp %[eights], #0\n"
        "beq 2f\n"
        "1:\n"
        "pld [%[p], %[ahead]]\n"
        "pld [%[p], %[ahead1]]\n"
        "pld [%[p], %[ahead2]]\n"
        "pld [%[p], %[ahead3]]\n"
        "vld1.32 {d12-d15}, [%[x]]!\n"
        MACE_V7_DOT8_DEPTHS4("d12", "d13")
        MACE_V7_DOT8_DEPTHS4("d14", "d15")
        "subs %[eights], %[eights], #1\n"
        "bne 1b\n"
        "2:\n"
        "cmp %[four], #0\n"
        "beq 5f\n"
        "pld [%[p], %[ahead]]\n"
        "pld [%[p], %[ahead1]]\n"
        "vld1.32 {d12-d13}, [%[x]]!\n"
        MACE_V7_DOT8_DEPTHS4("d12", "d13")
        "5:\n"
        "cmp %[rest], #0\n"
        "beq 4f\n"
        "3:\n"
        "vld1.32 {d12[0]}, [%[x]]!\n"
        "vld1.32 {d0-d3}, [%[p]]!\n"
        "vmla.f32 q12, q0, d12[0]\n"
        "vmla.f32 q13, q1, d12[0]\n"
        "subs %[rest], %[rest], #1\n"
        "bne 3b\n"
        "4:\n"
        "vadd.f32 q12, q12, q14\n"
        "vadd.f32 q13, q13, q15\n"
        "vst1.32 {d24-d27}, [%[out]]\n"
        : [p] "+r"(panel), [x] "+r"(x), [eights] "+r"(eights), [four] "+r"(four),
          [rest] "+r"(rest)
        : [out] "r"(out), [ahead] "r"(ahead), [ahead1] "r"(ahead1), [ahead2] "r"(ahead2),
          [ahead3] "r"(ahead3)
        : "cc", "memory", "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "d12", "d13", "d14",
          "d15", "d16", "d17", "d18", "d19", "d20", "d21", "d22", "d23", "d24", "d25", "d26",
          "d27", "d28", "d29", "d30", "d31");
#undef MACE_V7_DOT8_DEPTHS4
  }
  return true;
}
#undef MACE_V7_DOT_OPERANDS
#undef MACE_V7_DOT
// clang-format on

#undef MACE_V7_CONV_STEP
#undef MACE_V7_CLAMP
#undef MACE_V7_REDUCE
#undef MACE_V7_STEP
#undef MACE_V7_SIX_BY_FOUR_DEPTHS
#undef MACE_V7_MACS
#undef MACE_V7_BIAS_OR_ZERO
#undef MACE_V7_COL_BIAS_OR_ZERO
#undef MACE_V7_ZERO_AT_11
#undef MACE_V7_ROWS
#undef MACE_V7_ALL

}  // namespace arm
}  // namespace ops
}  // namespace mace

#endif  // __ARM_NEON && !__aarch64__
