// The GEMM driver's arm64 port: deeper reduction blocks, column blocks
// that take a short rest, and the NEON 8 x 12 table's runs of tiles
// (sgemm_neon_runs.h) for the walk's hooks (gemm_block.h): from a row bias
// widened once a block, down a first column panel that prefetches A, over
// whole column panels, and the last 4- or 1-column panel and 2- or 4-row
// panel in one call each; 12-wide panels packed with ld1/st1.
#include <algorithm>

#include "mace/ops/arm/sgemm_neon_runs.h"
#include "mace/ops/cpu/gemm_block.h"

namespace mace {
namespace ops {

using gemm_block::Offset;
using gemm_block::PanelBlock;
using gemm_block::PackTailRows;

int64_t GemmReductionDepth(const KernelTable& t, int64_t k) {
  if (k <= t.kc) return k;
  // arm64 NEON (8 x 12 tiles): a reduction of up to kMaxDepth runs as one
  // block, a deeper one as equal blocks, each a multiple of 16 (the
  // kernel's loop). Every block past the first reloads and restores each
  // tile of C and runs the first column panel tile by tile, prefetching:
  // at kc = 256, MobileNet v2's 384-, 576- and 960-deep 1x1 layers and its
  // 320-deep one ran 2 to 4 blocks. A 576-deep B micro-panel is 27 KiB,
  // inside the 32 KiB L1d usual on Cortex-A53 and A55 (not timed on a
  // phone: qemu counts instructions only).
  constexpr int64_t kMaxDepth = 576;
  if (t.isa == KernelIsa::kNeon && t.mr == 8 && t.nr == 12) {
    return gemm_block::RoundUp(gemm_block::CeilDiv(k, gemm_block::CeilDiv(k, kMaxDepth)), 16);
  }
  return t.kc;
}

// On arm64 NEON a rest of at most nc / 16 columns joins the block before
// it. ShuffleNet v2's 784-column maps ran as 768 + 16, and the 16-column
// block paid its own B packing, bias widening and walk set-up for two
// tiles.
int64_t GemmColumnSlack(const KernelTable& t) { return t.isa == KernelIsa::kNeon ? t.nc / 16 : 0; }

// The table leaves arm64's run kernel out (sgemm_neon_runs.h).
GemmRunMicroKernel GemmRunKernel(const KernelTable& table) {
  if (table.gemm_run == nullptr && table.isa == KernelIsa::kNeon && table.mr == 8 &&
      table.nr == 12) {
    return arm::NeonGemmRun;
  }
  return table.gemm_run;
}

int64_t GemmPortScratchFloats(const KernelTable&, int64_t, int64_t, int64_t) { return 0; }

PanelDotKernel GemmPanelDot(const KernelTable& table, int) { return table.panel_dot; }

bool PackAdjacentPanels(const float* src, int64_t rows, int64_t depth, int64_t depth_stride,
                        int width, float* dst) {
  constexpr int kWidth = 12;
  if (width != kWidth || depth <= 0) return false;
  const int64_t full = rows / kWidth;
  const int tail = static_cast<int>(rows - full * kWidth);
  // 12-wide panels: a depth row is one ld1 of three registers,
  // post-incremented by the depth stride, and one st1, 4 instructions with
  // the loop where GCC's inlined memcpy took 8. A last panel of 4 or 8 rows
  // (MobileNets' maps from 14x14 to 112x112 are 4 columns past a whole
  // panel) is one or two vectors and zeros a depth row, where the generic
  // tail called memcpy for each.
  const int64_t stride_bytes = depth_stride * static_cast<int64_t>(sizeof(float));
  // `depth` rows of 12 floats to dst, each loaded as `regs` (the rest of
  // v0-v2 set by `zero`) from src, stride_bytes apart.
#define MACE_PACK12_ROWS(zero, regs)                                      \
  do {                                                                    \
    const float* in = src;                                                \
    float* out = dst;                                                     \
    int64_t n = depth;                                                    \
    __asm__ volatile(zero                                                 \
                     "1:\n"                                               \
                     "ld1 {" regs "}, [%[in]], %[stride]\n"               \
                     "subs %[n], %[n], #1\n"                              \
                     "st1 {v0.4s, v1.4s, v2.4s}, [%[out]], #48\n"         \
                     "b.ne 1b\n"                                          \
                     : [in] "+r"(in), [out] "+r"(out), [n] "+r"(n)        \
                     : [stride] "r"(stride_bytes)                         \
                     : "cc", "memory", "v0", "v1", "v2");                 \
  } while (0)
  // Whole panels four depth rows a loop: four three-register ld1 and
  // three four-register st1 of the 48 floats, 2.25 instructions a row with
  // the loop's where one row a loop took 4 (MobileNet v2 packs some 240
  // thousand rows); the last depth % 4 rows one at a time.
  const int64_t quads = depth >> 2;
  for (int64_t p = 0; p < full; ++p, src += kWidth, dst += kWidth * depth) {
    const float* in = src;
    float* out = dst;
    int64_t n = quads, rest = depth & 3;
    __asm__ volatile(
        "cbz %[n], 2f\n"
        "1:\n"
        "ld1 {v0.4s, v1.4s, v2.4s}, [%[in]], %[stride]\n"
        "ld1 {v3.4s, v4.4s, v5.4s}, [%[in]], %[stride]\n"
        "ld1 {v6.4s, v7.4s, v8.4s}, [%[in]], %[stride]\n"
        "ld1 {v9.4s, v10.4s, v11.4s}, [%[in]], %[stride]\n"
        "subs %[n], %[n], #1\n"
        "st1 {v0.4s, v1.4s, v2.4s, v3.4s}, [%[out]], #64\n"
        "st1 {v4.4s, v5.4s, v6.4s, v7.4s}, [%[out]], #64\n"
        "st1 {v8.4s, v9.4s, v10.4s, v11.4s}, [%[out]], #64\n"
        "b.ne 1b\n"
        "2:\n"
        "cbz %[rest], 4f\n"
        "3:\n"
        "ld1 {v0.4s, v1.4s, v2.4s}, [%[in]], %[stride]\n"
        "subs %[rest], %[rest], #1\n"
        "st1 {v0.4s, v1.4s, v2.4s}, [%[out]], #48\n"
        "b.ne 3b\n"
        "4:\n"
        : [in] "+r"(in), [out] "+r"(out), [n] "+r"(n), [rest] "+r"(rest)
        : [stride] "r"(stride_bytes)
        : "cc", "memory", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10",
          "v11");
  }
  if (tail == 4) {
    MACE_PACK12_ROWS("movi v1.16b, #0\nmovi v2.16b, #0\n", "v0.4s");
  } else if (tail == 8) {
    MACE_PACK12_ROWS("movi v2.16b, #0\n", "v0.4s, v1.4s");
  } else if (tail > 0) {
    PackTailRows<kWidth>(src, tail, depth, depth_stride, dst);
  }
#undef MACE_PACK12_ROWS
  return true;
}

namespace {

// The most rows of an arm64 NEON block (the table's mc) whose row bias
// a block widens on its stack (4.5 KiB).
constexpr int64_t kWideBiasRows = 96;

// The plain walk's hooks with arm64's runs; see PlainGemmPort for each.
class Aarch64GemmPort : public gemm_block::PlainGemmPort {
 public:
  Aarch64GemmPort(const GemmCall& call, int64_t depth, float* b_buffer)
      : PlainGemmPort(call, depth, b_buffer) {}

  // The block's row bias widened to the tile's 12 columns once, for every
  // column panel's run of whole tiles: a tile then sets its 24
  // accumulators with 6 loads where the 8 broadcasts and 16 copies took 24
  // instructions (ShuffleNet v2 runs some 12,000 such tiles an inference).
  void StartRows(GemmRunMicroKernel gemm_run, const TileEpilogue& epilogue, int64_t ic,
                 int64_t mc, int mr) {
    wide_bias_ = nullptr;
    if (gemm_run == arm::NeonGemmRun && !epilogue.accumulate && epilogue.row_bias != nullptr &&
        epilogue.col_bias == nullptr && epilogue.activation != kTileActHardSwish &&
        mc <= kWideBiasRows && mc >= mr) {
      arm::NeonWidenRowBias(epilogue.row_bias + ic, mc / mr * mr, wide_bias_block_);
      wide_bias_ = wide_bias_block_;
    }
  }

  // A last row panel of 2 or 4 rows (58 or 116 output channels) runs as
  // one row of tiles after the walk, where each of its tiles went through
  // the walk's tile and the partial kernel's checks, some 150
  // instructions a tile.
  static constexpr bool kRowTails = true;
  bool TakesRowTail(const KernelTable&, GemmRunMicroKernel gemm_run,
                    const TileEpilogue& epilogue) const {
    return Plain(gemm_run, epilogue);
  }

  // The first walk's full tiles, which prefetch A panels two ahead while
  // inside the block (ir + 2 * mr < mc, as the walk's tiles), in one call.
  static constexpr bool kFirstWalkRuns = true;
  bool FirstWalkRun(const KernelTable&, GemmRunMicroKernel gemm_run, const TileEpilogue& epilogue,
                    Offset tiles, Offset prefetch_tiles, int64_t kc, const float* inner_panel,
                    Offset inner_stride, const float* outer_panel, float* c, Offset inner_c_step,
                    Offset ldc, const float* row_bias, const float*, TileEpilogue* tile) const {
    if (!Plain(gemm_run, epilogue)) return false;
    tile->prefetch_a = nullptr;
    tile->row_bias = row_bias;
    tile->col_bias = nullptr;
    arm::NeonGemmRunPrefetchingA(tiles, prefetch_tiles, kc, inner_panel, inner_stride,
                                 outer_panel, c, inner_c_step, ldc, wide_bias_, *tile);
    return true;
  }

  // From a widened bias, the full column panels whose row panels are all
  // full (or leave a 2- or 4-row tail for after the walk) in one call.
  static constexpr bool kPanelRuns = true;
  bool PanelsRun(const KernelTable&, const TileEpilogue&, Offset panels, Offset,
                 Offset outer_stride, Offset outer_c_step, Offset tiles, int64_t kc,
                 const float* inner_panel, Offset inner_stride, const float* outer_panel,
                 float* c, Offset inner_c_step, Offset ldc, const float*,
                 const TileEpilogue& tile) const {
    if (wide_bias_ == nullptr) return false;
    arm::NeonGemmRunWideBiasPanels(panels, outer_stride, outer_c_step, tiles, kc, inner_panel,
                                   inner_stride, outer_panel, c, inner_c_step, ldc, wide_bias_,
                                   tile);
    return true;
  }

  // Runs from a widened bias.
  static constexpr bool kRuns = true;
  bool Run(const KernelTable& t, const TileEpilogue&, bool rows_outer, Offset run, int64_t kc,
           const float* outer_panel, const float* inner_panel, Offset inner_stride, float* c,
           Offset inner_c_step, Offset ldc, Offset ir, const TileEpilogue& tile) const {
    if (wide_bias_ == nullptr) return false;
    arm::NeonGemmRunWideBias(
        run, kc, rows_outer ? outer_panel : inner_panel, rows_outer ? 0 : inner_stride,
        rows_outer ? inner_panel : outer_panel, rows_outer ? inner_stride : 0, c, inner_c_step,
        ldc, wide_bias_ + ir * 12, rows_outer ? 0 : t.mr * 12, tile);
    return true;
  }

  static constexpr bool kColumnTails = true;
  bool ColumnTail(const KernelTable&, GemmRunMicroKernel gemm_run, const TileEpilogue& epilogue,
                  int cols, bool, Offset, Offset tiles, int64_t kc, const float* inner_panel,
                  Offset inner_stride, const float* outer_panel, float* c, Offset inner_c_step,
                  Offset ldc, const float* row_bias, TileEpilogue* tile) const {
    if (!Plain(gemm_run, epilogue)) return false;
    tile->row_bias = row_bias;
    arm::NeonGemmColumnTail(cols, tiles, kc, inner_panel, inner_stride, outer_panel, c,
                            inner_c_step, ldc, *tile);
    return true;
  }

  void RowTail(const KernelTable&, const TileEpilogue&, int rows, Offset, Offset tiles,
               int64_t kc, const float* a, const float* b, Offset b_step, float* c, Offset ldc,
               const float* row_bias, TileEpilogue* tile) const {
    tile->prefetch_a = nullptr;
    tile->row_bias = row_bias;
    tile->col_bias = nullptr;
    arm::NeonGemmRowTail(rows, tiles, kc, a, b, b_step, c, ldc, *tile);
  }

 private:
  // The 8 x 12 run kernel with an epilogue it finishes itself (no column
  // bias or hard-swish).
  static bool Plain(GemmRunMicroKernel gemm_run, const TileEpilogue& epilogue) {
    return gemm_run == arm::NeonGemmRun && epilogue.col_bias == nullptr &&
           epilogue.activation != kTileActHardSwish;
  }

  alignas(16) float wide_bias_block_[kWideBiasRows * 12];
  const float* wide_bias_ = nullptr;
};

}  // namespace

void GemmBlock(const GemmCall& call, int64_t m0, int64_t m1, int64_t n0, int64_t n1,
               float* scratch) {
  gemm_block::GemmBlockWalk<Aarch64GemmPort>(call, m0, m1, n0, n1, scratch);
}

}  // namespace ops
}  // namespace mace
