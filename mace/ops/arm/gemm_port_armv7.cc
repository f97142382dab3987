// The GEMM driver's armv7 port: blocks of twice the NEON table's kc, and
// its 6 x 8 assembly (sgemm_neon_armv7.h) for the walk's hooks
// (gemm_block.h): partial tiles of 4 rows or columns, runs of full tiles
// (with A prefetched on a first column panel), whole column panels over a
// B block split once for all row blocks, the last 4- or 1-column panel and
// 2- or 4-row panel in one call each; 8-wide panels packed with vld1 and
// vstmia, and its panel kernel for 6- and 8-wide matrix-vector panels.
#include <algorithm>
#include <limits>

#include "mace/ops/arm/sgemm_neon_armv7.h"
#include "mace/ops/cpu/gemm_block.h"

namespace mace {
namespace ops {

using gemm_block::BlockColumns;
using gemm_block::kRowsOuterBlockFloats;
using gemm_block::Offset;
using gemm_block::PackTailRows;
using gemm_block::PanelBlock;

int64_t GemmReductionDepth(const KernelTable& t, int64_t k) {
  if (k <= t.kc) return k;
  // armv7 NEON (6 x 8 tiles): blocks of twice kc, the last one shallower.
  // The B micro-panel is 8 KiB at kc 256 (the x86 tables' 16 KiB at
  // theirs). Each further block stores C and loads it back (12 vst1 and
  // vld1 a tile as 6 x 4 halves) and its tiles pay their set-up again:
  // MobileNet v2's 320- and 384-deep 1x1 layers run in one block and its
  // 576- and 960-deep ones in two.
  if (t.isa == KernelIsa::kNeon && t.mr == 6 && t.nr == 8) {
    return std::min<int64_t>(k, 2 * int64_t{t.kc});
  }
  return t.kc;
}

GemmRunMicroKernel GemmRunKernel(const KernelTable& table) { return table.gemm_run; }

int64_t GemmColumnSlack(const KernelTable&) { return 0; }

// The B block split for the armv7 runs (GemmBlock), when it may be.
int64_t GemmPortScratchFloats(const KernelTable& table, int64_t m, int64_t n, int64_t kc) {
  if (table.isa == KernelIsa::kNeon && table.mr == 6 && table.nr == 8 && m > table.mc) {
    return BlockColumns(table, n) * kc;
  }
  return 0;
}

// armv7 NEON: the assembly for its 6- and 8-wide panels (the portable
// loop took about 60 instructions per 4 depths of a panel).
PanelDotKernel GemmPanelDot(const KernelTable& table, int width) {
  if (table.isa == KernelIsa::kNeon && (width == 6 || width == 8)) return arm::Armv7PanelDot;
  return table.panel_dot;
}

bool PackAdjacentPanels(const float* src, int64_t rows, int64_t depth, int64_t depth_stride,
                        int width, float* dst) {
  constexpr int kWidth = 8;
  if (width != kWidth || depth <= 0) return false;
  const int64_t full = rows / kWidth;
  const int tail = static_cast<int>(rows - full * kWidth);
// armv7 (8-wide panels): a depth row is one vld1 of four d registers,
// post-incremented by the depth stride; GCC's inlined memcpy took 8
// loads, 8 stores and the loop, 20 instructions a row (2.1 % of
// MobileNet v1's count). Eight rows share two vstmia of 16 d registers
// (the 256 bytes are consecutive in the panel) and the loop: 1.5
// instructions a row, where four rows a loop took 1.75 and a vst1 and
// the loop per row 4; then at most four rows in one vstmia, then single
// rows.
  const int stride_bytes = static_cast<int>(depth_stride * sizeof(float));
  for (int64_t p = 0; p < full; ++p, dst += kWidth * depth) {
    const float* in = src + p * kWidth;
    float* out = dst;
    int n = static_cast<int>(depth);
    __asm__ volatile(
        "subs %[n], %[n], #8\n"
        "blt 6f\n"
        "5:\n"
        "vld1.32 {d0-d3}, [%[in]], %[stride]\n"
        "vld1.32 {d4-d7}, [%[in]], %[stride]\n"
        "vld1.32 {d8-d11}, [%[in]], %[stride]\n"
        "vld1.32 {d12-d15}, [%[in]], %[stride]\n"
        "vld1.32 {d16-d19}, [%[in]], %[stride]\n"
        "vld1.32 {d20-d23}, [%[in]], %[stride]\n"
        "vld1.32 {d24-d27}, [%[in]], %[stride]\n"
        "vld1.32 {d28-d31}, [%[in]], %[stride]\n"
        "subs %[n], %[n], #8\n"
        "vstmia %[out]!, {d0-d15}\n"
        "vstmia %[out]!, {d16-d31}\n"
        "bge 5b\n"
        "6:\n"
        "adds %[n], %[n], #4\n"
        "blt 2f\n"
        "vld1.32 {d16-d19}, [%[in]], %[stride]\n"
        "vld1.32 {d20-d23}, [%[in]], %[stride]\n"
        "vld1.32 {d24-d27}, [%[in]], %[stride]\n"
        "vld1.32 {d28-d31}, [%[in]], %[stride]\n"
        "subs %[n], %[n], #4\n"
        "vstmia %[out]!, {d16-d31}\n"
        "2:\n"
        "adds %[n], %[n], #4\n"
        "beq 4f\n"
        "3:\n"
        "vld1.32 {d16-d19}, [%[in]], %[stride]\n"
        "subs %[n], %[n], #1\n"
        "vst1.32 {d16-d19}, [%[out]]!\n"
        "bne 3b\n"
        "4:\n"
        : [in] "+r"(in), [out] "+r"(out), [n] "+r"(n)
        : [stride] "r"(stride_bytes)
        : "cc", "memory", "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8", "d9", "d10",
          "d11", "d12", "d13", "d14", "d15", "d16", "d17", "d18", "d19", "d20", "d21", "d22",
          "d23", "d24", "d25", "d26", "d27", "d28", "d29", "d30", "d31");
  }
  // A last panel of 4 columns (a 14x14 map's 196) or 1 (a 7x7 map's
  // 49) is one vld1 and zeros a depth row, where the generic tail called
  // memcpy for each.
  if (tail == 4 || tail == 1) {
    const float* in = src + full * kWidth;
    float* out = dst;
    int n = static_cast<int>(depth);
    // Each depth row: `load` into the low lanes of q0, then q0-q1 out.
#define MACE_PACK8_TAIL(load)                                        \
  __asm__ volatile("vmov.i32 q0, #0\n"                               \
                   "vmov.i32 q1, #0\n"                               \
                   "1:\n"                                            \
                   "vld1.32 {" load "}, [%[in]], %[stride]\n"         \
                   "subs %[n], %[n], #1\n"                           \
                   "vst1.32 {d0-d3}, [%[out]]!\n"                    \
                   "bne 1b\n"                                        \
                   : [in] "+r"(in), [out] "+r"(out), [n] "+r"(n)     \
                   : [stride] "r"(stride_bytes)                      \
                   : "cc", "memory", "d0", "d1", "d2", "d3")
    if (tail == 4) {
      MACE_PACK8_TAIL("d0-d1");
    } else {
      MACE_PACK8_TAIL("d0[0]");
    }
#undef MACE_PACK8_TAIL
    return true;
  }
  if (tail > 0) PackTailRows<kWidth>(src + full * kWidth, tail, depth, depth_stride, dst);
  return true;
}

namespace {

// The armv7 NEON table, with an epilogue its assembly finishes itself (no
// column bias or hard-swish).
bool PlainArmv7Neon(const KernelTable& t, const TileEpilogue& epilogue) {
  return t.isa == KernelIsa::kNeon && t.mr == 6 && t.nr == 8 && epilogue.col_bias == nullptr &&
         epilogue.activation != kTileActHardSwish;
}

// The assembly's clamp arguments for an epilogue.
struct Armv7Clamp {
  explicit Armv7Clamp(const TileEpilogue& epilogue)
      : clamp(epilogue.last && epilogue.activation == kTileActClamp),
        clamp_hi(clamp && !(epilogue.hi == std::numeric_limits<float>::infinity())),
        bounds{epilogue.lo, epilogue.hi} {}
  bool clamp, clamp_hi;
  float bounds[2];
};

// armv7 NEON: a partial tile of all 6 rows and at most 4 columns (the last
// column panel of a 7x7 map's 49 columns or a 14x14 map's 196) on half of
// the B panel, or of at most 4 rows (the last row panel of 16, 64 or 160
// output channels) on two thirds of the A panel, in C where the tile's
// rows and columns all lie in it, else through a dense staging tile; a
// single column on 6 rows (6x1). False where the tile is another or the
// epilogue has a column bias or hard-swish.
bool NarrowArmv7Tile(const KernelTable& t, int64_t kc, const float* a, const float* b, float* c,
                     int64_t ldc, int rows, int cols, const TileEpilogue& epilogue) {
  constexpr int kMr = 6, kNr = 8, kShort = 4;
  const bool narrow = rows == kMr && cols <= kShort;
  if (t.isa != KernelIsa::kNeon || t.mr != kMr || t.nr != kNr || !(narrow || rows <= kShort) ||
      epilogue.col_bias != nullptr || epilogue.activation == kTileActHardSwish) {
    return false;
  }
  const bool clamp = epilogue.last && epilogue.activation == kTileActClamp;
  const bool clamp_hi = clamp && !(epilogue.hi == std::numeric_limits<float>::infinity());
  const float bounds[2] = {epilogue.lo, epilogue.hi};
  if (narrow && cols == 1) {
    // A 7x7 map's 49th column: four depths a step and no staging.
    arm::Armv7GemmTile6x1(static_cast<int>(kc), a, b, c, static_cast<int>(ldc * sizeof(float)),
                          epilogue.accumulate, epilogue.row_bias, clamp, clamp_hi, bounds);
    return true;
  }
  const auto small_tile = narrow ? arm::Armv7GemmTile6x4
                          : rows == 2 && cols == kNr ? arm::Armv7GemmTile2x8
                                                     : arm::Armv7GemmTile4x8;
  if (narrow ? cols == kShort : (rows == kShort || rows == 2) && cols == kNr) {
    // The tile lies in C: no staging.
    small_tile(static_cast<int>(kc), a, b, c, static_cast<int>(ldc * sizeof(float)),
               epilogue.accumulate, epilogue.row_bias, clamp, clamp_hi, bounds);
    return true;
  }
  const int tile_cols = narrow ? kShort : kNr;
  alignas(16) float tile[kShort * kNr];  // 6 x 4 or 4 x 8
  if (epilogue.accumulate) {
    for (int i = 0; i < rows; ++i) {
      for (int j = 0; j < cols; ++j) tile[i * tile_cols + j] = c[i * ldc + j];
    }
  }
  // The 4x8 tile reads 4 row biases: the missing ones staged as zeros.
  float bias[kShort] = {};
  const float* row_bias = epilogue.row_bias;
  if (!narrow && row_bias != nullptr) {
    for (int i = 0; i < rows; ++i) bias[i] = row_bias[i];
    row_bias = bias;
  }
  small_tile(static_cast<int>(kc), a, b, tile, static_cast<int>(tile_cols * sizeof(float)),
             epilogue.accumulate, row_bias, clamp, clamp_hi, bounds);
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < cols; ++j) c[i * ldc + j] = tile[i * tile_cols + j];
  }
  return true;
}

// Whether GemmBlock splits a B block (nc x kc) for the armv7 runs: where
// its rows (m) take more than one block and the walk goes columns outer
// (kRowsOuterBlockFloats) over full blocks of rows that split their panel.
bool SplitsArmv7Block(const KernelTable& t, const TileEpilogue& epilogue, int64_t m, int64_t nc,
                      int64_t kc) {
  return PlainArmv7Neon(t, epilogue) && m > t.mc && nc >= t.nr && kc * nc > kRowsOuterBlockFloats &&
         arm::Armv7RunsSplitPanel(t.mc / t.mr, static_cast<int>(kc));
}

// armv7 NEON: a walk's `tiles` full tiles, each with its A, B and C and
// the epilogue's row bias a step after the previous one's, of which the
// first prefetch_tiles prefetch the A panel two ahead, in one run of the
// assembly; false (nothing done) where the table or epilogue is another.
// The table's run kernel (NeonGemmRun) took 64-bit arguments through the
// stack and converted them, about 75 instructions a call where
// MobileNet v2 makes some 7,700 calls an inference; the first walk over
// weights that come from memory ran its tiles alone before.
// Its counts and steps are 32-bit: offsets within one buffer, which is
// what ptrdiff_t holds on armv7.
bool Armv7Run(const KernelTable& t, int tiles, int kc, const float* a, int a_step, const float* b,
              int b_step, float* c, int c_step, int ldc_bytes, int bias_step, int prefetch_tiles,
              const TileEpilogue& epilogue) {
  if (!PlainArmv7Neon(t, epilogue)) return false;
  const Armv7Clamp clamp(epilogue);
  arm::Armv7GemmRun6x8(tiles, kc, a, a_step, b, b_step, c, c_step, ldc_bytes, epilogue.accumulate,
                       epilogue.accumulate ? nullptr : epilogue.row_bias, bias_step, clamp.clamp,
                       clamp.clamp_hi, clamp.bounds, prefetch_tiles);
  return true;
}

// The plain walk's hooks with armv7's runs; see PlainGemmPort for each.
class Armv7GemmPort : public gemm_block::PlainGemmPort {
 public:
  Armv7GemmPort(const GemmCall& call, int64_t depth, float* b_buffer)
      : PlainGemmPort(call, depth, b_buffer),
        b_split_buffer_(b_buffer +
                        (call.b->NeedsPacking() ? BlockColumns(*call.table, call.n) * depth : 0)) {}

  // The deep runs down a full column panel read its B panel as two 4-wide
  // ones, each copy 2 instructions a depth. With more than one block of
  // rows the block's full panels are split once here for all of them,
  // where each run split its panel again per block of 96 rows (a 512 x
  // 512 x 196 product: 6 copies). A last panel of 4 columns (a 14x14
  // map's 196) or 1 (a 7x7 map's 49) is copied dense after them: its 6 x 4
  // tiles then read 4 depths of B in one load, not two, and its 6 x 1
  // tiles 4 depths' values in one, not two.
  void StartColumns(const KernelTable& t, const TileEpilogue& epilogue, int64_t m, int64_t nc,
                    int64_t kc, const PanelBlock& b) {
    b_split_ = nullptr;
    if (SplitsArmv7Block(t, epilogue, m, nc, kc)) {
      const int64_t nr = t.nr, full = nc / nr, tail = nc % nr;
      arm::Armv7SplitPanels(static_cast<int>(full), static_cast<int>(kc), b.first,
                            static_cast<int>(b.panel_stride), b_split_buffer_);
      if (tail == 4 || tail == 1) {
        arm::Armv7DensePanel(static_cast<int>(tail), static_cast<int>(kc),
                             b.first + full * b.panel_stride, b_split_buffer_ + full * nr * kc);
      }
      b_split_ = b_split_buffer_;
    }
  }

  bool PartialTile(const KernelTable& t, int64_t kc, const float* a, const float* b, float* c,
                   int64_t ldc, int rows, int cols, const TileEpilogue& epilogue) const {
    return NarrowArmv7Tile(t, kc, a, b, c, ldc, rows, cols, epilogue);
  }

  static constexpr bool kRowTails = true;
  bool TakesRowTail(const KernelTable& t, GemmRunMicroKernel, const TileEpilogue& epilogue) const {
    return PlainArmv7Neon(t, epilogue);
  }

  // The first walk's tiles prefetch A panels two ahead while inside the
  // block (ir + 2 * mr < mc, as the walk's tiles).
  static constexpr bool kFirstWalkRuns = true;
  bool FirstWalkRun(const KernelTable& t, GemmRunMicroKernel, const TileEpilogue&, Offset tiles,
                    Offset prefetch_tiles, int64_t kc, const float* inner_panel,
                    Offset inner_stride, const float* outer_panel, float* c, Offset inner_c_step,
                    Offset ldc, const float* row_bias, const float* col_bias,
                    TileEpilogue* tile) const {
    if (tiles < 2) return false;
    tile->prefetch_a = nullptr;
    tile->row_bias = row_bias;
    tile->col_bias = col_bias;
    return Armv7Run(t, static_cast<int>(tiles), static_cast<int>(kc), inner_panel,
                    static_cast<int>(inner_stride), outer_panel, 0, c,
                    static_cast<int>(inner_c_step), static_cast<int>(ldc * sizeof(float)), t.mr,
                    static_cast<int>(prefetch_tiles), *tile);
  }

  // The full column panels from here on in one call: each panel's pass
  // through the walk and the run kernel's set-up cost about 250
  // instructions (ShuffleNet v2's 1x1 layers walk some 2,000 column panels
  // an inference).
  static constexpr bool kPanelRuns = true;
  bool PanelsRun(const KernelTable& t, const TileEpilogue& epilogue, Offset panels, Offset outer,
                 Offset outer_stride, Offset outer_c_step, Offset tiles, int64_t kc,
                 const float* inner_panel, Offset inner_stride, const float* outer_panel,
                 float* c, Offset inner_c_step, Offset ldc, const float* row_bias,
                 const TileEpilogue&) const {
    if (!PlainArmv7Neon(t, epilogue)) return false;
    const Armv7Clamp clamp(epilogue);
    const int nr = t.nr;
    arm::Armv7GemmRun6x8Panels(
        static_cast<int>(panels), static_cast<int>(outer_stride), static_cast<int>(outer_c_step),
        static_cast<int>(tiles), static_cast<int>(kc), inner_panel,
        static_cast<int>(inner_stride), outer_panel, 0, c, static_cast<int>(inner_c_step),
        static_cast<int>(ldc * sizeof(float)), epilogue.accumulate,
        epilogue.accumulate ? nullptr : row_bias, t.mr, clamp.clamp, clamp.clamp_hi, clamp.bounds,
        b_split_ != nullptr ? b_split_ + outer / nr * nr * kc : nullptr);
    return true;
  }

  static constexpr bool kRuns = true;
  bool Run(const KernelTable& t, const TileEpilogue&, bool rows_outer, Offset run, int64_t kc,
           const float* outer_panel, const float* inner_panel, Offset inner_stride, float* c,
           Offset inner_c_step, Offset ldc, Offset, const TileEpilogue& tile) const {
    const int kc32 = static_cast<int>(kc);
    const int ldc_bytes = static_cast<int>(ldc * sizeof(float));
    return rows_outer ? Armv7Run(t, static_cast<int>(run), kc32, outer_panel, 0, inner_panel,
                                 static_cast<int>(inner_stride), c,
                                 static_cast<int>(inner_c_step), ldc_bytes, 0, 0, tile)
                      : Armv7Run(t, static_cast<int>(run), kc32, inner_panel,
                                 static_cast<int>(inner_stride), outer_panel, 0, c,
                                 static_cast<int>(inner_c_step), ldc_bytes, t.mr, 0, tile);
  }

  // A last column panel of 4 columns or 1 (but for a first walk that
  // prefetches), from the dense copy where the block was split.
  static constexpr bool kColumnTails = true;
  bool ColumnTail(const KernelTable& t, GemmRunMicroKernel, const TileEpilogue& epilogue,
                  int cols, bool outer_full, Offset outer, Offset tiles, int64_t kc,
                  const float* inner_panel, Offset inner_stride, const float* outer_panel,
                  float* c, Offset inner_c_step, Offset ldc, const float* row_bias,
                  TileEpilogue*) const {
    if (outer_full || !PlainArmv7Neon(t, epilogue)) return false;
    const Armv7Clamp clamp(epilogue);
    const bool dense = b_split_ != nullptr;
    const int nr = t.nr;
    arm::Armv7GemmColumnTail(cols, static_cast<int>(tiles), static_cast<int>(kc), inner_panel,
                             static_cast<int>(inner_stride),
                             dense ? b_split_ + outer / nr * nr * kc : outer_panel, dense, c,
                             static_cast<int>(inner_c_step), static_cast<int>(ldc * sizeof(float)),
                             epilogue.accumulate, row_bias, clamp.clamp, clamp.clamp_hi,
                             clamp.bounds);
    return true;
  }

  void RowTail(const KernelTable&, const TileEpilogue& epilogue, int rows, Offset, Offset tiles,
               int64_t kc, const float* a, const float* b, Offset b_step, float* c, Offset ldc,
               const float* row_bias, TileEpilogue*) const {
    const Armv7Clamp clamp(epilogue);
    arm::Armv7GemmRowTail(rows, static_cast<int>(tiles), static_cast<int>(kc), a, b,
                          static_cast<int>(b_step), c, static_cast<int>(ldc * sizeof(float)),
                          epilogue.accumulate, row_bias, clamp.clamp, clamp.clamp_hi,
                          clamp.bounds);
  }

 private:
  float* b_split_buffer_;
  const float* b_split_ = nullptr;
};

}  // namespace

void GemmBlock(const GemmCall& call, int64_t m0, int64_t m1, int64_t n0, int64_t n1,
               float* scratch) {
  gemm_block::GemmBlockWalk<Armv7GemmPort>(call, m0, m1, n0, n1, scratch);
}

}  // namespace ops
}  // namespace mace
