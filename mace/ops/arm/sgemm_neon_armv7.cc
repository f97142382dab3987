// The armv7 NEON 6 x 8 SGEMM tile in assembly (NeonGemm's full tile).
//
// Written with intrinsics, GCC 12 spent 22 instructions on a step of the
// reduction: 12 vmla, 4 loads and 6 integer instructions. Here a step is one
// vld1 of the 6 A values (d0-d2), one of the 8 B values (q2-q3), both with
// the pointer increment folded in, and 12 vmla by lane; four steps share the
// loop's subs and bne, so a step costs 14.5 instructions for 48
// multiply-adds. Row i of the tile accumulates in q(4+2i) and q(5+2i), whose
// four d registers are consecutive, so one vld1 or vst1 moves a row of C.
//
// The accumulators start from C (later reduction blocks), from the row bias
// (the first block: the same sum as adding it with the last, at no cost) or
// from zero. The last block clamps in place; each row is stored with one
// vst1.
#if defined(__ARM_NEON) && !defined(__aarch64__)

namespace mace {
namespace ops {
namespace arm {

// Declared where NeonGemm (sgemm_neon.cc) calls it.
void Armv7GemmTile6x8(int kc, const float* a, const float* b, float* c, int ldc_bytes, bool from_c,
                      const float* bias, bool clamp, bool clamp_hi, const float* bounds);

namespace {
// The asm's mode bits.
constexpr int kFromC = 1, kClamp = 2, kClampHi = 4;
}  // namespace

// clang-format off
#define MACE_V7_STEP                           \
  "vld1.32 {d0-d2}, [%[a]]!\n"                 \
  "vld1.32 {d4-d7}, [%[b]]!\n"                 \
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

// C rows (ldc_bytes apart) = (from_c ? C : bias ? bias[i] : 0) + A x B, then
// clamped below at bounds[0] (and above at bounds[1] if clamp_hi) if clamp.
void Armv7GemmTile6x8(int kc, const float* a, const float* b, float* c, int ldc_bytes, bool from_c,
                      const float* bias, bool clamp, bool clamp_hi, const float* bounds) {
  const int flags = (from_c ? kFromC : 0) | (clamp ? kClamp : 0) | (clamp_hi ? kClampHi : 0);
  int quads = kc >> 2;
  int rest = kc & 3;
  float* row;
  __asm__ volatile(
      "tst %[flags], %[from_c]\n"
      "beq 10f\n"
      "mov %[row], %[c]\n"
      MACE_V7_ROWS("vld1.32")
      "b 12f\n"
      "10:\n"
      "cmp %[bias], #0\n"
      "beq 11f\n"
      "vld1.32 {d8[], d9[]}, [%[bias]]!\n"
      "vld1.32 {d12[], d13[]}, [%[bias]]!\n"
      "vld1.32 {d16[], d17[]}, [%[bias]]!\n"
      "vld1.32 {d20[], d21[]}, [%[bias]]!\n"
      "vld1.32 {d24[], d25[]}, [%[bias]]!\n"
      "vld1.32 {d28[], d29[]}, [%[bias]]\n"
      "vmov q5, q4\n vmov q7, q6\n vmov q9, q8\n"
      "vmov q11, q10\n vmov q13, q12\n vmov q15, q14\n"
      "b 12f\n"
      "11:\n"
      "vmov.i32 q4, #0\n vmov.i32 q5, #0\n vmov.i32 q6, #0\n vmov.i32 q7, #0\n"
      "vmov.i32 q8, #0\n vmov.i32 q9, #0\n vmov.i32 q10, #0\n vmov.i32 q11, #0\n"
      "vmov.i32 q12, #0\n vmov.i32 q13, #0\n vmov.i32 q14, #0\n vmov.i32 q15, #0\n"
      "12:\n"
      "cmp %[quads], #0\n"
      "beq 2f\n"
      "1:\n"
      MACE_V7_STEP MACE_V7_STEP MACE_V7_STEP MACE_V7_STEP
      "subs %[quads], %[quads], #1\n"
      "bne 1b\n"
      "2:\n"
      "cmp %[rest], #0\n"
      "beq 4f\n"
      "3:\n"
      MACE_V7_STEP
      "subs %[rest], %[rest], #1\n"
      "bne 3b\n"
      "4:\n"
      "tst %[flags], %[clamp]\n"
      "beq 6f\n"
      "vld1.32 {d0[], d1[]}, [%[bounds]]!\n"
      MACE_V7_ALL("vmax.f32", "q0")
      "tst %[flags], %[clamp_hi]\n"
      "beq 6f\n"
      "vld1.32 {d2[], d3[]}, [%[bounds]]\n"
      MACE_V7_ALL("vmin.f32", "q1")
      "6:\n"
      "mov %[row], %[c]\n"
      MACE_V7_ROWS("vst1.32")
      : [a] "+r"(a), [b] "+r"(b), [quads] "+r"(quads), [rest] "+r"(rest), [bias] "+r"(bias),
        [bounds] "+r"(bounds), [row] "=&r"(row)
      : [c] "r"(c), [ldc] "r"(ldc_bytes), [flags] "r"(flags), [from_c] "I"(kFromC),
        [clamp] "I"(kClamp), [clamp_hi] "I"(kClampHi)
      : "cc", "memory", "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8", "d9", "d10", "d11",
        "d12", "d13", "d14", "d15", "d16", "d17", "d18", "d19", "d20", "d21", "d22", "d23",
        "d24", "d25", "d26", "d27", "d28", "d29", "d30", "d31");
}
// clang-format on

#undef MACE_V7_STEP
#undef MACE_V7_ROWS
#undef MACE_V7_ALL

}  // namespace arm
}  // namespace ops
}  // namespace mace

#endif  // __ARM_NEON && !__aarch64__
