// The kernels written once in portable C++ (cpu/gemv_kernels.inc,
// cpu/blocked_kernels.inc), built here with this library's AVX2 + FMA flags so
// the compiler vectorizes them for this instruction set. The Winograd
// transforms are in winograd_avx2.cc: each of the two is a long compile, and
// apart they build in parallel.
#include <immintrin.h>

#include "mace/ops/x86/avx2_asm.h"
#include "mace/ops/x86/avx2_kernels.h"

namespace mace {
namespace ops {
namespace x86 {
namespace {
#include "mace/ops/cpu/gemv_kernels.inc"
#include "mace/ops/cpu/winograd_common.inc"
// Channel blocks of 8 lanes; a conv tile keeps 12 accumulators (6
// positions x 2 blocks, or 4 x 3), a weight vector per block and a
// broadcast input value in the 16 YMM registers.
constexpr int kBkLanes = 8;
constexpr int kBkPos = 6;
constexpr int kBkBlocks = 3;
constexpr int kBkAccumulators = 12;
constexpr bool kBkUnrollBlocks = true;
#include "mace/ops/cpu/blocked_kernels.inc"

inline BkVec BkAtLeast(const BkVec& x, float bound) {
  return reinterpret_cast<BkVec>(_mm256_max_ps(_mm256_set1_ps(bound), reinterpret_cast<__m256>(x)));
}
inline BkVec BkAtMost(const BkVec& x, float bound) {
  return reinterpret_cast<BkVec>(_mm256_min_ps(_mm256_set1_ps(bound), reinterpret_cast<__m256>(x)));
}
inline BkVec BkMaxOf(const BkVec& a, const BkVec& b) {
  return reinterpret_cast<BkVec>(
      _mm256_max_ps(reinterpret_cast<__m256>(a), reinterpret_cast<__m256>(b)));
}
// An empty asm statement holding v in a YMM register.
inline void BkInRegister(BkVec& v) { __asm__("" : "+v"(v)); }

// The tiles of 6 or 5 positions by 2 blocks and of 4 positions by 3 (1x1
// convolutions, and each tap of larger windows on blocked inputs) keep 12
// or 10 accumulators, a weight vector per block and a broadcast input in
// the 16 YMM registers. A group of 8 channels of a 6 x 2 tile is 96
// multiply-adds, 48 broadcasts and 16 weight loads, of a 4 x 3 tile 96, 32
// and 24: 19 instructions and 7 loads per 12 multiply-adds instead of 20
// and 8, and each input value read once per 24 output channels instead of
// 16. GCC's code for the generic loop adds register moves and spills
// around them, so a group is written out here, the accumulators in
// registers throughout. Position j reads in + j * step: positions 0-2 from
// in and 3-5 from in + 3 * step, each at a base plus step times 1 or 2;
// the 4 x 3 tile's blocks are a weight stride apart.
//
// What a group's asm reads, as memory operands (it names no memory
// clobber, which would keep the accumulators in memory): everything from
// the first block's weights on (the second block's lie after them) and
// from the first position's input on (the others lie `step` apart).
struct BkFromHere {
  char bytes[0x7fffffff];
};
inline const BkFromHere& BkReadFrom(const float* p) {
  return *reinterpret_cast<const BkFromHere*>(p);
}

// clang-format off
#define MACE_BK_WEIGHTS(WD)                 \
  "vmovups " #WD "(%[w0]), %%ymm13\n\t"     \
  "vmovups " #WD "(%[w1]), %%ymm14\n\t"
#define MACE_BK_CHANNEL5(WD, XD)                     \
  MACE_BK_WEIGHTS(WD)                                \
  MACE_AVX2_ASM_FMA2(#XD "(%[x0])", a00, a01)        \
  MACE_AVX2_ASM_FMA2(#XD "(%[x0],%[s],1)", a10, a11) \
  MACE_AVX2_ASM_FMA2(#XD "(%[x0],%[s],2)", a20, a21) \
  MACE_AVX2_ASM_FMA2(#XD "(%%rax)", a30, a31)        \
  MACE_AVX2_ASM_FMA2(#XD "(%%rax,%[s],1)", a40, a41)
#define MACE_BK_CHANNEL6(WD, XD) \
  MACE_BK_CHANNEL5(WD, XD) MACE_AVX2_ASM_FMA2(#XD "(%%rax,%[s],2)", a50, a51)
#define MACE_BK_WEIGHTS3(WD)                        \
  "vmovups " #WD "(%[w0]), %%ymm12\n\t"            \
  "vmovups " #WD "(%[w0],%[ws],1), %%ymm13\n\t"    \
  "vmovups " #WD "(%[w0],%[ws],2), %%ymm14\n\t"
#define MACE_BK_CHANNEL4X3(WD, XD)                        \
  MACE_BK_WEIGHTS3(WD)                                    \
  MACE_AVX2_ASM_FMA3(#XD "(%[x0])", b00, b01, b02)        \
  MACE_AVX2_ASM_FMA3(#XD "(%[x0],%[s],1)", b10, b11, b12) \
  MACE_AVX2_ASM_FMA3(#XD "(%[x0],%[s],2)", b20, b21, b22) \
  MACE_AVX2_ASM_FMA3(#XD "(%%rax)", b30, b31, b32)
// Channel i's weights are i * 32 bytes into each block's, its input i * 4
// bytes into each position's; rax holds in + 3 * step.
#define MACE_BK_START "lea (%[x0],%[s],2), %%rax\n\tadd %[s], %%rax\n\t"
#define MACE_BK_GROUP(CHANNEL)                                                            \
  MACE_BK_START CHANNEL(0, 0) CHANNEL(32, 4) CHANNEL(64, 8) CHANNEL(96, 12) CHANNEL(128, 16) \
      CHANNEL(160, 20) CHANNEL(192, 24) CHANNEL(224, 28)
#define MACE_BK_ONE(CHANNEL) MACE_BK_START CHANNEL(0, 0)
#define MACE_BK_OUTPUTS5                                                                \
  [a00] "+x"(acc[0][0]), [a01] "+x"(acc[0][1]), [a10] "+x"(acc[1][0]),                 \
      [a11] "+x"(acc[1][1]), [a20] "+x"(acc[2][0]), [a21] "+x"(acc[2][1]),             \
      [a30] "+x"(acc[3][0]), [a31] "+x"(acc[3][1]), [a40] "+x"(acc[4][0]),             \
      [a41] "+x"(acc[4][1])
#define MACE_BK_OUTPUTS6 MACE_BK_OUTPUTS5, [a50] "+x"(acc[5][0]), [a51] "+x"(acc[5][1])
#define MACE_BK_INPUTS                                                                   \
  [w0] "r"(weights[0]), [w1] "r"(weights[1]), [x0] "r"(in), [s] "r"(step * 4),         \
      "m"(BkReadFrom(weights[0])), "m"(BkReadFrom(in))
#define MACE_BK_ASM(TEXT, OUTPUTS) \
  __asm__(TEXT : OUTPUTS : MACE_BK_INPUTS : "rax", "xmm13", "xmm14", "xmm15")
#define MACE_BK_OUTPUTS4X3                                                               \
  [b00] "+x"(acc[0][0]), [b01] "+x"(acc[0][1]), [b02] "+x"(acc[0][2]),                  \
      [b10] "+x"(acc[1][0]), [b11] "+x"(acc[1][1]), [b12] "+x"(acc[1][2]),              \
      [b20] "+x"(acc[2][0]), [b21] "+x"(acc[2][1]), [b22] "+x"(acc[2][2]),              \
      [b30] "+x"(acc[3][0]), [b31] "+x"(acc[3][1]), [b32] "+x"(acc[3][2])
// Block o's weights at weights[0] + o * (weights[1] - weights[0]).
#define MACE_BK_INPUTS3                                                                  \
  [w0] "r"(weights[0]), [ws] "r"(static_cast<int64_t>(weights[1] - weights[0]) * 4),    \
      [x0] "r"(in), [s] "r"(step * 4), "m"(BkReadFrom(weights[0])), "m"(BkReadFrom(in))
#define MACE_BK_ASM3(TEXT)                                                            \
  __asm__(TEXT : MACE_BK_OUTPUTS4X3 : MACE_BK_INPUTS3 : "rax", "xmm12", "xmm13", "xmm14", \
          "xmm15")
// clang-format on

// Run does a group of kBkLanes channels, RunOne one channel (the channels
// after the last whole group, whose weights are at `weights` likewise).
// With the generic loop for those, GCC keeps the accumulators in memory
// across the groups.
template <int kPos>
struct BkAvx2ChannelGroup {
  static_assert(kPos == 5 || kPos == 6, "the asm has 5 or 6 positions");
  static constexpr bool kHas = true;
  __attribute__((always_inline)) static void Run(BkVec (&acc)[kPos][2],
                                                 const float* const (&weights)[2], const float* in,
                                                 int64_t step) {
    if constexpr (kPos == 6) {
      MACE_BK_ASM(MACE_BK_GROUP(MACE_BK_CHANNEL6), MACE_BK_OUTPUTS6);
    } else {
      MACE_BK_ASM(MACE_BK_GROUP(MACE_BK_CHANNEL5), MACE_BK_OUTPUTS5);
    }
  }
  __attribute__((always_inline)) static void RunOne(BkVec (&acc)[kPos][2],
                                                    const float* const (&weights)[2],
                                                    const float* in, int64_t step) {
    if constexpr (kPos == 6) {
      MACE_BK_ASM(MACE_BK_ONE(MACE_BK_CHANNEL6), MACE_BK_OUTPUTS6);
    } else {
      MACE_BK_ASM(MACE_BK_ONE(MACE_BK_CHANNEL5), MACE_BK_OUTPUTS5);
    }
  }
};
template <>
struct BkChannelGroup<6, 2> : BkAvx2ChannelGroup<6> {};
template <>
struct BkChannelGroup<5, 2> : BkAvx2ChannelGroup<5> {};
// The 4 x 3 tile: its blocks' weights lie a fixed stride apart (a tile's
// weights[o] is its first block's plus o weight block strides).
template <>
struct BkChannelGroup<4, 3> {
  static constexpr bool kHas = true;
  __attribute__((always_inline)) static void Run(BkVec (&acc)[4][3],
                                                 const float* const (&weights)[3], const float* in,
                                                 int64_t step) {
    MACE_BK_ASM3(MACE_BK_GROUP(MACE_BK_CHANNEL4X3));
  }
  __attribute__((always_inline)) static void RunOne(BkVec (&acc)[4][3],
                                                    const float* const (&weights)[3],
                                                    const float* in, int64_t step) {
    MACE_BK_ASM3(MACE_BK_ONE(MACE_BK_CHANNEL4X3));
  }
};
#undef MACE_BK_ASM3
#undef MACE_BK_INPUTS3
#undef MACE_BK_OUTPUTS4X3
#undef MACE_BK_CHANNEL4X3
#undef MACE_BK_WEIGHTS3
#undef MACE_BK_ASM
#undef MACE_BK_INPUTS
#undef MACE_BK_OUTPUTS6
#undef MACE_BK_OUTPUTS5
#undef MACE_BK_ONE
#undef MACE_BK_START
#undef MACE_BK_GROUP
#undef MACE_BK_CHANNEL6
#undef MACE_BK_CHANNEL5
#undef MACE_BK_WEIGHTS

// A panel of width 1 is one row of a matrix read in place (a FullyConnected
// weight that is not packed). Four accumulators keep the loop bound by
// reading the row rather than by one multiply-add chain; the rows of a
// classifier are read back to back, so the loop fetches kGemvAhead bytes
// ahead as the panel kernel does.
float RowDot(const float* row, int64_t depth, const float* x) {
  __m256 acc0 = _mm256_setzero_ps(), acc1 = acc0, acc2 = acc0, acc3 = acc0;
  int64_t d = 0;
  for (; d + 32 <= depth; d += 32) {
    const char* ahead = reinterpret_cast<const char*>(row + d) + kGemvAhead;
    __builtin_prefetch(ahead);
    __builtin_prefetch(ahead + 64);
    acc0 = _mm256_fmadd_ps(_mm256_loadu_ps(row + d), _mm256_loadu_ps(x + d), acc0);
    acc1 = _mm256_fmadd_ps(_mm256_loadu_ps(row + d + 8), _mm256_loadu_ps(x + d + 8), acc1);
    acc2 = _mm256_fmadd_ps(_mm256_loadu_ps(row + d + 16), _mm256_loadu_ps(x + d + 16), acc2);
    acc3 = _mm256_fmadd_ps(_mm256_loadu_ps(row + d + 24), _mm256_loadu_ps(x + d + 24), acc3);
  }
  for (; d + 8 <= depth; d += 8) {
    acc0 = _mm256_fmadd_ps(_mm256_loadu_ps(row + d), _mm256_loadu_ps(x + d), acc0);
  }
  if (d < depth) {
    // Masked loads: the row (and x) may end at the last valid float.
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i mask =
        _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int32_t>(depth - d)), lane);
    acc1 =
        _mm256_fmadd_ps(_mm256_maskload_ps(row + d, mask), _mm256_maskload_ps(x + d, mask), acc1);
  }
  const __m256 sum = _mm256_add_ps(_mm256_add_ps(acc0, acc1), _mm256_add_ps(acc2, acc3));
  __m128 half = _mm_add_ps(_mm256_castps256_ps128(sum), _mm256_extractf128_ps(sum, 1));
  half = _mm_add_ps(half, _mm_movehl_ps(half, half));
  half = _mm_add_ss(half, _mm_movehdup_ps(half));
  return _mm_cvtss_f32(half);
}
}  // namespace

bool Avx2PanelDot(const float* panel, int64_t depth, int32_t width, const float* x, float* out) {
  if (width == 1) {
    out[0] = RowDot(panel, depth, x);
    return true;
  }
  return GemvDot(panel, depth, width, x, out);
}

void Avx2BlockedConv(const BlockedConvRun& run) { BkConv(run); }

// One gather per column: lane l reads row l (index l * stride, masked to
// `lanes`, zeros elsewhere).
void Avx2BlockedPack(const float* src, int64_t stride, int lanes, int64_t count, float* dst) {
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i index = _mm256_mullo_epi32(lane, _mm256_set1_epi32(static_cast<int32_t>(stride)));
  const __m256 mask = _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_set1_epi32(lanes), lane));
  for (int64_t j = 0; j < count; ++j) {
    _mm256_storeu_ps(dst + j * 8,
                     _mm256_mask_i32gather_ps(_mm256_setzero_ps(), src + j, index, mask, 4));
  }
}
void Avx2BlockedWindow(const BlockedWindowRun& run) { BkWindow(run); }
void Avx2BlockedWinogradInput(const BlockedWinogradInputRun& run) { BkWinogradInput(run); }
void Avx2BlockedWinogradOutput(const BlockedWinogradOutputRun& run) { BkWinogradOutput(run); }

}  // namespace x86
}  // namespace ops
}  // namespace mace
