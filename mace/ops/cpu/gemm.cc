#include "mace/ops/cpu/gemm.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <limits>

#include "mace/runtimes/cpu/scratch_buffer.h"

#if defined(__ARM_NEON) && !defined(__aarch64__)
#include "mace/ops/arm/sgemm_neon_armv7.h"
#endif

namespace mace {
namespace ops {
namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t RoundUp(int64_t a, int64_t b) { return CeilDiv(a, b) * b; }

// The largest micro-tile of any table (AVX2 6 x 16, AVX-512 8 x 32) and its
// longest side; partial tiles are staged here.
constexpr int kMaxTile = 16 * 16;
constexpr int kMaxTileSide = 32;
// A B block (kc x nc) up to this size is walked rows outer (see GemmBlock):
// 32 KiB, within every table's L1.
constexpr int64_t kRowsOuterBlockFloats = 8 * 1024;
#if defined(__aarch64__)
// The most rows of an arm64 NEON block (the table's mc) whose row bias
// GemmBlock widens on its stack (4.5 KiB).
constexpr int64_t kWideBiasRows = 96;
#endif

// How many columns past nc a column block may take: on arm64 NEON a rest
// of at most nc / 16 columns joins the block before it. ShuffleNet v2's
// 784-column maps ran as 768 + 16, and the 16-column block paid its own B
// packing, bias widening and walk set-up for two tiles.
int64_t ColumnSlack(const KernelTable& t) {
#if defined(__aarch64__)
  return t.isa == KernelIsa::kNeon ? t.nc / 16 : 0;
#else
  return 0;
#endif
}

// The most columns of a B block.
int64_t BlockColumns(const KernelTable& t, int64_t n) {
  return std::min<int64_t>(t.nc + ColumnSlack(t), RoundUp(n, t.nr));
}

}  // namespace

int64_t GemmReductionDepth(const KernelTable& t, int64_t k) {
  if (k <= t.kc) return k;
#if defined(__aarch64__)
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
    return RoundUp(CeilDiv(k, CeilDiv(k, kMaxDepth)), 16);
  }
#elif defined(__ARM_NEON)
  // armv7 NEON (6 x 8 tiles): blocks of twice kc, the last one shallower.
  // The B micro-panel is 8 KiB at kc 256 (the x86 tables' 16 KiB at
  // theirs). Each further block stores C and loads it back (12 vst1 and
  // vld1 a tile as 6 x 4 halves) and its tiles pay their set-up again:
  // MobileNet v2's 320- and 384-deep 1x1 layers run in one block and its
  // 576- and 960-deep ones in two.
  if (t.isa == KernelIsa::kNeon && t.mr == 6 && t.nr == 8) {
    return std::min<int64_t>(k, 2 * int64_t{t.kc});
  }
#endif
  return t.kc;
}

namespace {

// A block of `operand` as micro-kernel panels: `first` points at the panel
// for row `row0` and consecutive panels are `panel_stride` floats apart.
struct PanelBlock {
  const float* first = nullptr;
  int64_t panel_stride = 0;
};

PanelBlock PreparePanels(const GemmOperand& operand, int width, int64_t row0, int64_t rows,
                         int64_t depth0, int64_t depth, float* buffer) {
  if (operand.packed != nullptr) {
    const PackedPanels& packed = *operand.packed;
    return {packed.Panel(row0 / width) + depth0 * width, width * packed.depth()};
  }
  if (operand.packer != nullptr) {
    operand.packer(operand.packer_context, row0, rows, depth0, depth, width, buffer);
  } else {
    PackPanels(operand.data + row0 * operand.stride + depth0 * operand.depth_stride, rows, depth,
               operand.stride, operand.depth_stride, width, buffer);
  }
  return {buffer, width * depth};
}

// Runs one micro-tile that sticks out of C through a staging tile, for tables
// without a partial-tile kernel.
void PartialTile(const KernelTable& table, int64_t kc, const float* a, const float* b, float* c,
                 int64_t ldc, int rows, int cols, const TileEpilogue& epilogue) {
  alignas(64) float tile[kMaxTile];
  alignas(64) float row_bias[kMaxTileSide] = {0};
  alignas(64) float col_bias[kMaxTileSide] = {0};
  const int nr = table.nr;
  TileEpilogue staged = epilogue;
  if (epilogue.accumulate) {
    for (int i = 0; i < rows; ++i) std::memcpy(tile + i * nr, c + i * ldc, cols * sizeof(float));
  }
  if (epilogue.row_bias != nullptr) {
    std::memcpy(row_bias, epilogue.row_bias, rows * sizeof(float));
    staged.row_bias = row_bias;
  }
  if (epilogue.col_bias != nullptr) {
    std::memcpy(col_bias, epilogue.col_bias, cols * sizeof(float));
    staged.col_bias = col_bias;
  }
  table.gemm(kc, a, b, tile, nr, staged);
  for (int i = 0; i < rows; ++i) std::memcpy(c + i * ldc, tile + i * nr, cols * sizeof(float));
}

#if defined(__ARM_NEON) && !defined(__aarch64__)

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
#endif

#if defined(__aarch64__)
}  // namespace
namespace arm {
// sgemm_neon.cc: a run of 8 x 12 tiles (GemmRunMicroKernel). The arm64
// table leaves it out: Winograd lays out its panels otherwise for a table
// with a run kernel. Only the driver below takes it.
void NeonGemmRun(int64_t tiles, int64_t kc, const float* a, int64_t a_step, const float* b,
                 int64_t b_step, float* c, int64_t c_step, int64_t ldc, int64_t row_bias_step,
                 int64_t col_bias_step, const TileEpilogue& epilogue);
// A row of `tiles` whole-width tiles of 2 or 4 rows (a last row panel), B
// panels b_step floats apart, C 12 floats apart; the epilogue has no
// column bias or hard-swish.
void NeonGemmRowTail(int rows, int64_t tiles, int64_t kc, const float* a, const float* b,
                     int64_t b_step, float* c, int64_t ldc, const TileEpilogue& epilogue);
// wide[12 i + j] = bias[i] for i < rows and j < 12: a row bias widened to
// the tile's columns, for NeonGemmRunWideBias.
void NeonWidenRowBias(const float* bias, int64_t rows, float* wide);
// A last column panel of `cols` (4 or 1) columns: `tiles` whole row
// panels, A panels a_step and C c_step floats apart, the row bias (if any)
// from the epilogue's; the epilogue has no column bias or hard-swish.
void NeonGemmColumnTail(int cols, int64_t tiles, int64_t kc, const float* a, int64_t a_step,
                        const float* b, float* c, int64_t c_step, int64_t ldc,
                        const TileEpilogue& epilogue);
// NeonGemmRun's tiles from the first reduction block (not from C), the
// row bias of tile t widened (NeonWidenRowBias) at wide_bias + t *
// wide_bias_step; the epilogue has no column bias or hard-swish.
void NeonGemmRunWideBias(int64_t tiles, int64_t kc, const float* a, int64_t a_step,
                         const float* b, int64_t b_step, float* c, int64_t c_step, int64_t ldc,
                         const float* wide_bias, int64_t wide_bias_step,
                         const TileEpilogue& epilogue);
// `panels` column panels (B panels b_panel_step and C c_panel_step floats
// apart), each NeonGemmRunWideBias's `tiles` tiles down it (A panels a_step
// and C c_step floats apart), the row bias of tile t widened at wide_bias
// + 96 t.
void NeonGemmRunWideBiasPanels(int64_t panels, int64_t b_panel_step, int64_t c_panel_step,
                               int64_t tiles, int64_t kc, const float* a, int64_t a_step,
                               const float* b, float* c, int64_t c_step, int64_t ldc,
                               const float* wide_bias, const TileEpilogue& epilogue);
// `tiles` tiles down a column panel (A panels a_step and C c_step floats
// apart), of which the first prefetch_tiles each first prefetch the A
// panel two tiles on (8 kc floats), from the widened bias (96 floats a
// tile) if wide_bias is set, else from C or the epilogue's row bias; the
// epilogue has no column bias or hard-swish.
void NeonGemmRunPrefetchingA(int64_t tiles, int64_t prefetch_tiles, int64_t kc, const float* a,
                             int64_t a_step, const float* b, float* c, int64_t c_step,
                             int64_t ldc, const float* wide_bias, const TileEpilogue& epilogue);
}  // namespace arm
namespace {
#endif

// Asks for `floats` consecutive floats to be brought into cache.
// Eight lines a loop: one line a loop took 5 instructions a line on arm64
// (ShuffleNet v2's last 1x1 layer prefetches 30,000 lines an inference),
// eight take 11 for the eight.
inline void PrefetchPanel(const float* data, int64_t floats) {
  constexpr int64_t kLineFloats = 64 / sizeof(float);
  int64_t i = 0;
  for (; i + 7 * kLineFloats < floats; i += 8 * kLineFloats) {
    const float* line = data + i;
    __builtin_prefetch(line, 0, 3);
    __builtin_prefetch(line + kLineFloats, 0, 3);
    __builtin_prefetch(line + 2 * kLineFloats, 0, 3);
    __builtin_prefetch(line + 3 * kLineFloats, 0, 3);
    __builtin_prefetch(line + 4 * kLineFloats, 0, 3);
    __builtin_prefetch(line + 5 * kLineFloats, 0, 3);
    __builtin_prefetch(line + 6 * kLineFloats, 0, 3);
    __builtin_prefetch(line + 7 * kLineFloats, 0, 3);
  }
  for (; i < floats; i += kLineFloats) __builtin_prefetch(data + i, 0, 3);
}

struct GemmCall {
  const KernelTable* table;
  int64_t m, n, k;
  const GemmOperand* a;
  const GemmOperand* b;
  float* c;
  int64_t ldc;
  const TileEpilogue* epilogue;
};

// The run kernel a walk's full tiles go to: the table's, or arm64 NEON's
// 8 x 12 one. Null where there is none.
GemmRunMicroKernel GemmRunKernel(const KernelTable& table) {
#if defined(__aarch64__)
  if (table.gemm_run == nullptr && table.isa == KernelIsa::kNeon && table.mr == 8 &&
      table.nr == 12) {
    return arm::NeonGemmRun;
  }
#endif
  return table.gemm_run;
}

// One thread's share: rows [m0, m1) and columns [n0, n1) of C.
void GemmBlock(const GemmCall& call, int64_t m0, int64_t m1, int64_t n0, int64_t n1,
               float* scratch) {
  const KernelTable& t = *call.table;
  const int mr = t.mr, nr = t.nr;
  const GemmRunMicroKernel gemm_run = GemmRunKernel(t);
  float* a_buffer = scratch;
  // Matches GemmScratchFloatsPerThread: the A block first, then the B block.
  const int64_t depth = GemmReductionDepth(t, call.k);
  float* b_buffer = scratch + (call.a->NeedsPacking() ? int64_t{t.mc} * depth : 0);
  const int64_t nc_slack = ColumnSlack(t);
#if defined(__ARM_NEON) && !defined(__aarch64__)
  float* b_split_buffer = b_buffer + (call.b->NeedsPacking() ? BlockColumns(t, call.n) * depth : 0);
#endif
  for (int64_t jc = n0, nc = 0; jc < n1; jc += nc) {
    nc = n1 - jc <= t.nc + nc_slack ? n1 - jc : t.nc;
    for (int64_t pc = 0; pc < call.k; pc += depth) {
      const int64_t kc = std::min<int64_t>(depth, call.k - pc);
      const PanelBlock b = PreparePanels(*call.b, nr, jc, nc, pc, kc, b_buffer);
      TileEpilogue epilogue = *call.epilogue;
      epilogue.accumulate = pc > 0;
      epilogue.last = pc + kc == call.k;
#if defined(__ARM_NEON) && !defined(__aarch64__)
      // armv7 NEON: the deep runs down a full column panel read its B panel
      // as two 4-wide ones, each copy 2 instructions a depth. With more
      // than one block of rows the block's full panels are split once here
      // for all of them, where each run split its panel again per block of
      // 96 rows (a 512 x 512 x 196 product: 6 copies).
      // A last panel of 4 columns (a 14x14 map's 196) or 1 (a 7x7 map's
      // 49) is copied dense after them: its 6 x 4 tiles then read 4
      // depths of B in one load, not two, and its 6 x 1 tiles 4 depths'
      // values in one, not two.
      const float* b_split = nullptr;
      if (SplitsArmv7Block(t, *call.epilogue, m1 - m0, nc, kc)) {
        const int64_t full = nc / nr, tail = nc % nr;
        arm::Armv7SplitPanels(static_cast<int>(full), static_cast<int>(kc), b.first,
                              static_cast<int>(b.panel_stride), b_split_buffer);
        if (tail == 4 || tail == 1) {
          arm::Armv7DensePanel(static_cast<int>(tail), static_cast<int>(kc),
                               b.first + full * b.panel_stride, b_split_buffer + full * nr * kc);
        }
        b_split = b_split_buffer;
      }
#endif
      for (int64_t ic = m0; ic < m1; ic += t.mc) {
        const int64_t mc = std::min<int64_t>(t.mc, m1 - ic);
        const PanelBlock a = PreparePanels(*call.a, mr, ic, mc, pc, kc, a_buffer);
#if defined(__aarch64__)
        // arm64 NEON: the block's row bias widened to the tile's 12
        // columns once, for every column panel's run of whole tiles: a
        // tile then sets its 24 accumulators with 6 loads where the 8
        // broadcasts and 16 copies took 24 instructions (ShuffleNet v2
        // runs some 12,000 such tiles an inference).
        alignas(16) float wide_bias_block[kWideBiasRows * 12];
        const float* wide_bias = nullptr;
        if (gemm_run == arm::NeonGemmRun && !epilogue.accumulate &&
            epilogue.row_bias != nullptr && epilogue.col_bias == nullptr &&
            epilogue.activation != kTileActHardSwish && mc <= kWideBiasRows && mc >= mr) {
          arm::NeonWidenRowBias(epilogue.row_bias + ic, mc / mr * mr, wide_bias_block);
          wide_bias = wide_bias_block;
        }
#endif
        // A prepacked operand (weights) was last read a whole inference ago,
        // so it comes from L3 or memory. With k > kc its whole-depth panels
        // make a kc block of consecutive tiles no single stream, and the
        // hardware prefetcher restarts at every tile; with k <= kc it is one
        // stream, but a 1x1 layer on a 7x7 map (49 columns) computes too
        // little per weight for the prefetcher to keep ahead. So on the
        // first column panel (after which the block is in cache) a kernel
        // that prefetches is handed the next tile's slice, which it fetches
        // a line or two per unrolled step; the next tile may be in the next
        // mc block, since panels are consecutive. Other tables get the slice
        // two tiles ahead in a burst before each tile, which stalls on the
        // core's limit of outstanding misses (so they get none at k <= kc,
        // where it was not measured). In-kernel prefetch took
        // ResNet-18 at one AVX-512 thread from 39.1 to 35.9 ms and
        // SqueezeNet 1.1 from 8.9 to 7.6 ms; with k <= kc too, MobileNet v2's
        // 960 x 49 x 160 layers went from 0.19 to 0.145 ms
        // (BM_Sgemm1x1ColdWeights and the model agree).
        const bool prefetch_a =
            call.a->packed != nullptr && (t.gemm_prefetches_a || a.panel_stride != mr * kc);
        // Usually a B micro-panel stays in L1 while the A block streams
        // past it from L2, and C is written a panel of columns of every row
        // at a time. When the whole B block fits in L1 (a shallow
        // reduction), rows go outer instead: C is then written mr rows at a
        // time, a few store streams the hardware prefetcher follows. A
        // 1x1 conv with 16 input channels does 16 multiply-adds per output,
        // and on a map larger than L2 (MobileNet v2's 112x112x96 is 4.8 MB)
        // its stores missed on every line when all rows were written at
        // once: BM_Sgemm1x1 96x12544x16 went from 687 to 612 us (medians of
        // 9 alternating runs), 64x3025x16 from 86 to 82 us; at 32 input
        // channels (a 64 KiB block) the order made no difference.
        const bool rows_outer = kc * nc <= kRowsOuterBlockFloats;
        // The tile walks advance pointers (no division or 64-bit multiply
        // per tile: on armv7 those are library calls or several
        // instructions) and update three fields of one epilogue rather
        // than copying it per tile.
        TileEpilogue tile = epilogue;
        const auto run_tile = [&](const float* a_panel, const float* b_panel, float* c, int64_t ir,
                                  int64_t jr) {
          const int rows = static_cast<int>(std::min<int64_t>(mr, mc - ir));
          const int cols = static_cast<int>(std::min<int64_t>(nr, nc - jr));
          tile.prefetch_a = nullptr;
          if (prefetch_a && jr == 0) {
            if (t.gemm_prefetches_a) {
              if (ic + ir + mr < m1) tile.prefetch_a = a_panel + a.panel_stride;
            } else if (ir + 2 * mr < mc) {
              PrefetchPanel(a_panel + 2 * a.panel_stride, mr * kc);
            }
          }
          tile.row_bias = epilogue.row_bias != nullptr ? epilogue.row_bias + ic + ir : nullptr;
          tile.col_bias = epilogue.col_bias != nullptr ? epilogue.col_bias + jc + jr : nullptr;
          if (rows == mr && cols == nr) {
            t.gemm(kc, a_panel, b_panel, c, call.ldc, tile);
#if defined(__ARM_NEON) && !defined(__aarch64__)
          } else if (NarrowArmv7Tile(t, kc, a_panel, b_panel, c, call.ldc, rows, cols, tile)) {
#endif
          } else if (t.gemm_partial != nullptr) {
            t.gemm_partial(kc, a_panel, b_panel, c, call.ldc, rows, cols, tile);
          } else {
            PartialTile(t, kc, a_panel, b_panel, c, call.ldc, rows, cols, tile);
          }
        };
        // One walk for both orders: the outer index runs over rows (A
        // panels, mr rows of C apart) or columns (B panels, nr columns of C
        // apart), the inner over the other; consecutive panels are
        // panel_stride apart.
        // The walk's indices and steps are offsets within the A, B and C
        // buffers, so ptrdiff_t holds them: on armv7 one register each,
        // where int64_t took register pairs, multiply sequences and a
        // library call for each division (the same type elsewhere).
        using Offset = std::ptrdiff_t;
        const Offset block_rows = static_cast<Offset>(mc), block_cols = static_cast<Offset>(nc);
        const Offset ldc = static_cast<Offset>(call.ldc);
        const Offset c_tile_rows = mr * ldc;
#if defined(__ARM_NEON) && !defined(__aarch64__)
        // Columns outer, a last row panel of 4 or 2 rows under the full
        // column panels runs as one row of tiles after the walk.
        const int tail_rows = static_cast<int>(block_rows % mr);
        const bool row_tail_after = !rows_outer && block_cols >= nr &&
                                    (tail_rows == 4 || tail_rows == 2) &&
                                    PlainArmv7Neon(t, epilogue);
        const int kc32 = static_cast<int>(kc);
        const int ldc_bytes = static_cast<int>(ldc * sizeof(float));
#elif defined(__aarch64__)
        // The same on arm64 NEON: a last row panel of 2 or 4 rows (58 or
        // 116 output channels) runs as one row of tiles after the walk,
        // where each of its tiles went through run_tile and the partial
        // kernel's checks, some 150 instructions a tile.
        const int tail_rows = static_cast<int>(block_rows % mr);
        const bool row_tail_after = !rows_outer && block_cols >= nr &&
                                    (tail_rows == 4 || tail_rows == 2) &&
                                    gemm_run == arm::NeonGemmRun && epilogue.col_bias == nullptr &&
                                    epilogue.activation != kTileActHardSwish;
#else
        const bool row_tail_after = false;
#endif
        const PanelBlock& outer_panels = rows_outer ? a : b;
        const PanelBlock& inner_panels = rows_outer ? b : a;
        const Offset outer_stride = static_cast<Offset>(outer_panels.panel_stride);
        const Offset inner_stride = static_cast<Offset>(inner_panels.panel_stride);
        const Offset outer_end = rows_outer ? block_rows : block_cols;
        const Offset outer_step = rows_outer ? mr : nr;
        const Offset inner_end = rows_outer ? block_cols : block_rows;
        const Offset inner_step = rows_outer ? nr : mr;
        const Offset outer_c_step = rows_outer ? c_tile_rows : nr;
        const Offset inner_c_step = rows_outer ? nr : c_tile_rows;
        const float* outer_panel = outer_panels.first;
        float* c_outer = call.c + ic * call.ldc + jc;
        const float* row_bias = epilogue.row_bias != nullptr ? epilogue.row_bias + ic : nullptr;
        const float* col_bias = epilogue.col_bias != nullptr ? epilogue.col_bias + jc : nullptr;
        // Where the table has a run kernel, the full tiles of an inner walk
        // go to it in one call, but for the tiles that prefetch A.
        const Offset full_inner = inner_end / inner_step;
        for (Offset outer = 0; outer < outer_end;
             outer += outer_step, outer_panel += outer_stride, c_outer += outer_c_step) {
          const float* inner_panel = inner_panels.first;
          float* c = c_outer;
          Offset inner = 0;
          const bool outer_full = outer + outer_step <= outer_end;
          // Rows outer, only a walk's first tile (jr == 0) prefetches;
          // columns outer, the whole first walk does.
          const Offset run_begin = !prefetch_a ? 0 : rows_outer ? 1 : outer == 0 ? full_inner : 0;
#if defined(__ARM_NEON) && !defined(__aarch64__)
          // Columns outer, the first walk's tiles prefetch A panels two
          // ahead while inside the block (ir + 2 * mr < mc, as run_tile).
          if (prefetch_a && !rows_outer && outer == 0 && outer_full && full_inner >= 2) {
            const Offset panels = full_inner + (full_inner * inner_step < inner_end ? 1 : 0);
            tile.prefetch_a = nullptr;
            tile.row_bias = row_bias;
            tile.col_bias = col_bias;
            if (Armv7Run(t, static_cast<int>(full_inner), kc32, inner_panel,
                         static_cast<int>(inner_stride), outer_panel, 0, c,
                         static_cast<int>(inner_c_step), ldc_bytes, mr,
                         static_cast<int>(std::max<Offset>(0, panels - 2)), tile)) {
              inner = full_inner * inner_step;
              inner_panel += full_inner * inner_stride;
              c += full_inner * inner_c_step;
            }
          }
#endif
#if defined(__ARM_NEON) && !defined(__aarch64__)
          // Columns outer, the full column panels from here on, whose row
          // panels are all full or leave a row tail for after the walk, go
          // in one call: each panel's pass through this loop and the run
          // kernel's set-up cost about 250 instructions (ShuffleNet v2's
          // 1x1 layers walk some 2,000 column panels an inference).
          if (!rows_outer && outer_full && full_inner > 0 && !(prefetch_a && outer == 0) &&
              (tail_rows == 0 || row_tail_after) && PlainArmv7Neon(t, epilogue)) {
            const Offset panels = (outer_end - outer) / outer_step;
            const Armv7Clamp clamp(epilogue);
            arm::Armv7GemmRun6x8Panels(
                static_cast<int>(panels), static_cast<int>(outer_stride),
                static_cast<int>(outer_c_step), static_cast<int>(full_inner), kc32, inner_panel,
                static_cast<int>(inner_stride), outer_panel, 0, c, static_cast<int>(inner_c_step),
                ldc_bytes, epilogue.accumulate, epilogue.accumulate ? nullptr : row_bias, mr,
                clamp.clamp, clamp.clamp_hi, clamp.bounds,
                b_split != nullptr ? b_split + outer / nr * nr * kc : nullptr);
            // The loop's step moves past the last of them.
            outer += (panels - 1) * outer_step;
            outer_panel += (panels - 1) * outer_stride;
            c_outer += (panels - 1) * outer_c_step;
            continue;
          }
#endif
#if defined(__aarch64__)
          // Columns outer, the first walk's full tiles, which prefetch A
          // panels two ahead while inside the block (ir + 2 * mr < mc, as
          // run_tile), in one call.
          if (prefetch_a && !rows_outer && outer == 0 && outer_full && full_inner >= 1 &&
              gemm_run == arm::NeonGemmRun && epilogue.col_bias == nullptr &&
              epilogue.activation != kTileActHardSwish) {
            const Offset panels = full_inner + (full_inner * inner_step < inner_end ? 1 : 0);
            tile.prefetch_a = nullptr;
            tile.row_bias = row_bias;
            tile.col_bias = nullptr;
            arm::NeonGemmRunPrefetchingA(full_inner, std::max<Offset>(0, panels - 2), kc,
                                         inner_panel, inner_stride, outer_panel, c, inner_c_step,
                                         call.ldc, wide_bias, tile);
            inner = full_inner * inner_step;
            inner_panel += full_inner * inner_stride;
            c += full_inner * inner_c_step;
          }
          // Columns outer from a widened bias, the full column panels from
          // here on whose row panels are all full (or leave a 2- or 4-row
          // tail for after the walk) go in one call.
          if (wide_bias != nullptr && !rows_outer && outer_full && full_inner >= 1 &&
              run_begin == 0 && (tail_rows == 0 || row_tail_after)) {
            const Offset panels = (outer_end - outer) / outer_step;
            arm::NeonGemmRunWideBiasPanels(panels, outer_stride, outer_c_step, full_inner, kc,
                                           inner_panel, inner_stride, outer_panel, c,
                                           inner_c_step, call.ldc, wide_bias, tile);
            // The loop's step moves past the last of them.
            outer += (panels - 1) * outer_step;
            outer_panel += (panels - 1) * outer_stride;
            c_outer += (panels - 1) * outer_c_step;
            continue;
          }
#endif
          if (gemm_run != nullptr && outer_full && full_inner - run_begin >= 2) {
            if (run_begin == 1) {
              run_tile(outer_panel, inner_panel, c, outer, 0);
              inner += inner_step;
              inner_panel += inner_stride;
              c += inner_c_step;
            }
            const Offset run = full_inner - run_begin;
            const Offset ir = rows_outer ? outer : inner, jr = rows_outer ? inner : outer;
            tile.prefetch_a = nullptr;
            tile.row_bias = row_bias != nullptr ? row_bias + ir : nullptr;
            tile.col_bias = col_bias != nullptr ? col_bias + jr : nullptr;
#if defined(__ARM_NEON) && !defined(__aarch64__)
            const bool direct =
                rows_outer ? Armv7Run(t, static_cast<int>(run), kc32, outer_panel, 0, inner_panel,
                                      static_cast<int>(inner_stride), c,
                                      static_cast<int>(inner_c_step), ldc_bytes, 0, 0, tile)
                           : Armv7Run(t, static_cast<int>(run), kc32, inner_panel,
                                      static_cast<int>(inner_stride), outer_panel, 0, c,
                                      static_cast<int>(inner_c_step), ldc_bytes, mr, 0, tile);
#else
            const bool direct = false;
#endif
#if defined(__aarch64__)
            if (wide_bias != nullptr) {
              arm::NeonGemmRunWideBias(
                  run, kc, rows_outer ? outer_panel : inner_panel, rows_outer ? 0 : inner_stride,
                  rows_outer ? inner_panel : outer_panel, rows_outer ? inner_stride : 0, c,
                  inner_c_step, call.ldc, wide_bias + ir * 12, rows_outer ? 0 : mr * 12, tile);
            } else
#endif
            if (direct) {
              // The armv7 assembly ran the tiles.
            } else if (rows_outer) {
              gemm_run(run, kc, outer_panel, 0, inner_panel, inner_stride, c, inner_c_step,
                       call.ldc, 0, nr, tile);
            } else {
              gemm_run(run, kc, inner_panel, inner_stride, outer_panel, 0, c, inner_c_step,
                       call.ldc, mr, 0, tile);
            }
            inner += run * inner_step;
            inner_panel += run * inner_stride;
            c += run * inner_c_step;
          }
#if defined(__aarch64__)
          // The same on arm64 NEON.
          const Offset last_cols = outer_end - outer;
          if (!rows_outer && (last_cols == 4 || last_cols == 1) && full_inner > 0 &&
              !(prefetch_a && outer == 0) && gemm_run == arm::NeonGemmRun &&
              epilogue.col_bias == nullptr && epilogue.activation != kTileActHardSwish) {
            tile.row_bias = row_bias;
            arm::NeonGemmColumnTail(static_cast<int>(last_cols), full_inner, kc, inner_panel,
                                    inner_stride, outer_panel, c, inner_c_step, call.ldc, tile);
            inner = full_inner * inner_step;
            inner_panel += full_inner * inner_stride;
            c += full_inner * inner_c_step;
          }
#endif
#if defined(__ARM_NEON) && !defined(__aarch64__)
          // Columns outer, a last column panel of 4 columns or 1 runs its
          // full row panels in one call (but for a first walk that
          // prefetches).
          const int tail_cols = static_cast<int>(outer_end - outer);
          if (!rows_outer && !outer_full && (tail_cols == 4 || tail_cols == 1) && full_inner > 0 &&
              !(prefetch_a && outer == 0) && PlainArmv7Neon(t, epilogue)) {
            const Armv7Clamp clamp(epilogue);
            const bool dense = b_split != nullptr;
            arm::Armv7GemmColumnTail(tail_cols, static_cast<int>(full_inner), kc32, inner_panel,
                                     static_cast<int>(inner_stride),
                                     dense ? b_split + outer / nr * nr * kc : outer_panel, dense, c,
                                     static_cast<int>(inner_c_step), ldc_bytes, epilogue.accumulate,
                                     row_bias, clamp.clamp, clamp.clamp_hi, clamp.bounds);
            inner = full_inner * inner_step;
            inner_panel += full_inner * inner_stride;
            c += full_inner * inner_c_step;
          }
#endif
          for (; inner < inner_end;
               inner += inner_step, inner_panel += inner_stride, c += inner_c_step) {
            if (row_tail_after && outer_full && inner + inner_step > inner_end) break;
            if (rows_outer) {
              run_tile(outer_panel, inner_panel, c, outer, inner);
            } else {
              run_tile(inner_panel, outer_panel, c, inner, outer);
            }
          }
        }
#if defined(__ARM_NEON) && !defined(__aarch64__)
        if (row_tail_after) {
          // full_inner is mc / mr here (columns outer).
          const Offset ir = full_inner * mr;
          const Armv7Clamp clamp(epilogue);
          arm::Armv7GemmRowTail(tail_rows, static_cast<int>(block_cols / nr), kc32,
                                a.first + full_inner * inner_stride, b.first,
                                static_cast<int>(outer_stride), call.c + (ic + ir) * call.ldc + jc,
                                ldc_bytes, epilogue.accumulate,
                                row_bias != nullptr ? row_bias + ir : nullptr, clamp.clamp,
                                clamp.clamp_hi, clamp.bounds);
        }
#elif defined(__aarch64__)
        if (row_tail_after) {
          // full_inner is mc / mr here (columns outer).
          const Offset ir = full_inner * mr;
          tile.prefetch_a = nullptr;
          tile.row_bias = row_bias != nullptr ? row_bias + ir : nullptr;
          tile.col_bias = nullptr;
          arm::NeonGemmRowTail(tail_rows, block_cols / nr, kc, a.first + full_inner * inner_stride,
                               b.first, outer_stride, call.c + (ic + ir) * call.ldc + jc, call.ldc,
                               tile);
        }
#endif
      }
    }
  }
}

float ActivateScalar(float v, const TileEpilogue& epilogue) {
  if (epilogue.activation == kTileActClamp) return std::min(std::max(v, epilogue.lo), epilogue.hi);
  if (epilogue.activation == kTileActHardSwish) {
    return v * std::min(std::max(v + 3.f, 0.f), 6.f) / 6.f;
  }
  return v;
}

// y[i] = sum_d panels[i][d] * x[d] for the panels [first, last) of a packed
// operand: the matrix-vector case (batch-1 FullyConnected, 1x1 conv on a 1x1
// image), which is bound by reading the panels once. The panel width is a
// compile-time constant so the loop over it vectorizes in baseline code.
template <int kWidth>
void PanelsTimesVector(const PackedPanels& packed, int64_t first, int64_t last, const float* x,
                       int64_t rows, const float* bias, const TileEpilogue& epilogue, float* y,
                       int64_t y_stride) {
  const int64_t depth = packed.depth();
  for (int64_t p = first; p < last; ++p) {
    const float* panel = packed.Panel(p);
    float acc[kWidth] = {0};
    for (int64_t d = 0; d < depth; ++d) {
      const float xd = x[d];
      for (int j = 0; j < kWidth; ++j) acc[j] += panel[d * kWidth + j] * xd;
    }
    const int valid = static_cast<int>(std::min<int64_t>(kWidth, rows - p * kWidth));
    for (int j = 0; j < valid; ++j) {
      const int64_t row = p * kWidth + j;
      const float value = acc[j] + (bias != nullptr ? bias[row] : 0.f);
      y[row * y_stride] = ActivateScalar(value, epilogue);
    }
  }
}

void PanelsTimesVector(const PackedPanels& packed, int64_t first, int64_t last, const float* x,
                       int64_t rows, const float* bias, const TileEpilogue& epilogue, float* y,
                       int64_t y_stride) {
  switch (packed.width()) {
    case 6:
      return PanelsTimesVector<6>(packed, first, last, x, rows, bias, epilogue, y, y_stride);
    case 8:
      return PanelsTimesVector<8>(packed, first, last, x, rows, bias, epilogue, y, y_stride);
    case 12:
      return PanelsTimesVector<12>(packed, first, last, x, rows, bias, epilogue, y, y_stride);
    case 16:
      return PanelsTimesVector<16>(packed, first, last, x, rows, bias, epilogue, y, y_stride);
    case 32:
      return PanelsTimesVector<32>(packed, first, last, x, rows, bias, epilogue, y, y_stride);
  }
}

bool IsVectorCase(int64_t m, int64_t n, const GemmOperand& a, const GemmOperand& b) {
  const auto supported = [](const PackedPanels* packed) {
    if (packed == nullptr) return false;
    const int width = packed->width();
    return width == 6 || width == 8 || width == 12 || width == 16 || width == 32;
  };
  return (m == 1 && supported(b.packed)) || (n == 1 && supported(a.packed));
}

// PanelsTimesVector through the table's vectorized panel kernel; false
// (nothing written) when the table has none for this panel width.
bool PanelsTimesVectorKernel(const KernelTable& table, const PackedPanels& packed, int64_t first,
                             int64_t last, const float* x, int64_t rows, const float* bias,
                             const TileEpilogue& epilogue, float* y, int64_t y_stride) {
  const int width = packed.width();
  if (table.panel_dot == nullptr || width > kMaxTileSide) return false;
  bool (*panel_dot)(const float* panel, int64_t depth, int32_t width, const float* x,
                    float* out) = table.panel_dot;
#if defined(__ARM_NEON) && !defined(__aarch64__)
  // armv7 NEON: the assembly for its 6- and 8-wide panels (the portable
  // loop took about 60 instructions per 4 depths of a panel).
  if (table.isa == KernelIsa::kNeon && (width == 6 || width == 8)) panel_dot = arm::Armv7PanelDot;
#endif
  alignas(64) float acc[kMaxTileSide];
  for (int64_t p = first; p < last; ++p) {
    // The width is the same for every panel: an unsupported one fails on the
    // first, before anything is written.
    if (!panel_dot(packed.Panel(p), packed.depth(), width, x, acc)) return false;
    const int valid = static_cast<int>(std::min<int64_t>(width, rows - p * width));
    for (int j = 0; j < valid; ++j) {
      const int64_t row = p * width + j;
      const float value = acc[j] + (bias != nullptr ? bias[row] : 0.f);
      y[row * y_stride] = ActivateScalar(value, epilogue);
    }
  }
  return true;
}

void GemmVector(const KernelTable& table, int64_t m, int64_t n, int64_t k, const GemmOperand& a,
                const GemmOperand& b, float* c, int64_t ldc, const TileEpilogue& epilogue,
                ThreadPool* pool, float* scratch) {
  // The vector side is gathered once so the hot loop reads it contiguously.
  const bool row_vector = m == 1 && b.packed != nullptr;
  const GemmOperand& vector = row_vector ? a : b;
  const PackedPanels& packed = row_vector ? *b.packed : *a.packed;
  if (vector.packer != nullptr) {
    vector.packer(vector.packer_context, 0, 1, 0, k, 1, scratch);
  } else {
    for (int64_t d = 0; d < k; ++d) scratch[d] = vector.data[d * vector.depth_stride];
  }
  const int64_t rows = row_vector ? n : m;
  const float* bias = row_vector ? epilogue.col_bias : epilogue.row_bias;
  const int64_t y_stride = row_vector ? 1 : ldc;
  ParallelFor(pool, CeilDiv(rows, packed.width()), [&](int64_t first, int64_t last) {
    if (!PanelsTimesVectorKernel(table, packed, first, last, scratch, rows, bias, epilogue, c,
                                 y_stride)) {
      PanelsTimesVector(packed, first, last, scratch, rows, bias, epilogue, c, y_stride);
    }
  });
}

// PackPanels for rows adjacent in memory (B stored row-major), one panel at
// a time: each panel is written sequentially while it sits in L1, from runs
// of kWidth (a compile-time size, so each copy is inlined) at the same place
// in every depth row. Filling the panels a depth row at a time instead
// streams the source but scatters the writes over the whole block, which
// measured up to 1.4x slower end to end for small m.
// The last panel of PackAdjacentRows, `tail` (< kWidth) rows then zeros.
template <int kWidth>
void PackTailRows(const float* run, int tail, int64_t depth, int64_t depth_stride, float* dst) {
  for (int64_t d = 0; d < depth; ++d) {
    float padded[kWidth] = {0};
    std::memcpy(padded, run + d * depth_stride, tail * sizeof(float));
    std::memcpy(dst + d * kWidth, padded, kWidth * sizeof(float));
  }
}

template <int kWidth>
void PackAdjacentRows(const float* src, int64_t rows, int64_t depth, int64_t depth_stride,
                      float* dst) {
  const int64_t full = rows / kWidth;
  const int tail = static_cast<int>(rows - full * kWidth);
#if defined(__aarch64__)
  // arm64 (12-wide panels): a depth row is one ld1 of three registers,
  // post-incremented by the depth stride, and one st1, 4 instructions with
  // the loop where GCC's inlined memcpy took 8. A last panel of 4 or 8 rows
  // (MobileNets' maps from 14x14 to 112x112 are 4 columns past a whole
  // panel) is one or two vectors and zeros a depth row, where the generic
  // tail called memcpy for each.
  if (kWidth == 12 && depth > 0) {
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
    return;
  }
#endif
#if defined(__ARM_NEON) && !defined(__aarch64__)
  // armv7 (8-wide panels): a depth row is one vld1 of four d registers,
  // post-incremented by the depth stride; GCC's inlined memcpy took 8
  // loads, 8 stores and the loop, 20 instructions a row (2.1 % of
  // MobileNet v1's count). Eight rows share two vstmia of 16 d registers
  // (the 256 bytes are consecutive in the panel) and the loop: 1.5
  // instructions a row, where four rows a loop took 1.75 and a vst1 and
  // the loop per row 4; then at most four rows in one vstmia, then single
  // rows.
  if (kWidth == 8 && depth > 0) {
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
      return;
    }
  } else
#endif
  for (int64_t p = 0; p < full; ++p, dst += kWidth * depth) {
    const float* run = src + p * kWidth;
    for (int64_t d = 0; d < depth; ++d) {
      std::memcpy(dst + d * kWidth, run + d * depth_stride, kWidth * sizeof(float));
    }
  }
  if (tail > 0) PackTailRows<kWidth>(src + full * kWidth, tail, depth, depth_stride, dst);
}

}  // namespace

bool RowsTimesVectorSupported(const KernelTable& table) {
  // A kernel without width-1 code says so before writing anything.
  float zero = 0.f, out = 0.f;
  return table.panel_dot != nullptr && table.panel_dot(&zero, 1, 1, &zero, &out);
}

void RowsTimesVector(const KernelTable& table, const float* rows, int64_t count, int64_t depth,
                     int64_t stride, const float* x, const float* bias,
                     const TileEpilogue& epilogue, float* y, ThreadPool* pool) {
  ParallelFor(pool, count, [&](int64_t first, int64_t last) {
    for (int64_t i = first; i < last; ++i) {
      float sum = 0.f;
      table.panel_dot(rows + i * stride, depth, 1, x, &sum);
      y[i] = ActivateScalar(sum + (bias != nullptr ? bias[i] : 0.f), epilogue);
    }
  });
}

void PackPanels(const float* src, int64_t rows, int64_t depth, int64_t stride, int64_t depth_stride,
                int width, float* dst) {
  const int64_t panels = CeilDiv(rows, width);
  if (stride == 1) {
    switch (width) {
      case 8:
        return PackAdjacentRows<8>(src, rows, depth, depth_stride, dst);
      case 12:
        return PackAdjacentRows<12>(src, rows, depth, depth_stride, dst);
      case 16:
        return PackAdjacentRows<16>(src, rows, depth, depth_stride, dst);
      case 32:
        return PackAdjacentRows<32>(src, rows, depth, depth_stride, dst);
    }
    for (int64_t p = 0; p < panels; ++p, dst += width * depth) {
      const int valid = static_cast<int>(std::min<int64_t>(width, rows - p * width));
      for (int64_t d = 0; d < depth; ++d) {
        std::memcpy(dst + d * width, src + p * width + d * depth_stride, valid * sizeof(float));
        std::fill(dst + d * width + valid, dst + (d + 1) * width, 0.f);
      }
    }
    return;
  }
  if (depth_stride == 1) {
    // Rows stored one after another (a weight matrix as B^T): a panel is
    // written in order, reading the panel's rows side by side. Row by row,
    // each store went to another line of the panel (a 1000 x 1280
    // FullyConnected took a fifth of MobileNet v2's engine creation).
    for (int64_t p = 0; p < panels; ++p, dst += depth * width) {
      const int valid = static_cast<int>(std::min<int64_t>(width, rows - p * width));
      const float* base = src + p * width * stride;
      for (int64_t d = 0; d < depth; ++d) {
        float* out = dst + d * width;
        for (int i = 0; i < valid; ++i) out[i] = base[i * stride + d];
        for (int i = valid; i < width; ++i) out[i] = 0.f;
      }
    }
    return;
  }
  for (int64_t p = 0; p < panels; ++p, dst += depth * width) {
    const int valid = static_cast<int>(std::min<int64_t>(width, rows - p * width));
    const float* base = src + p * width * stride;
    for (int i = 0; i < valid; ++i) {
      const float* row = base + i * stride;
      for (int64_t d = 0; d < depth; ++d) dst[d * width + i] = row[d * depth_stride];
    }
    for (int i = valid; i < width; ++i) {
      for (int64_t d = 0; d < depth; ++d) dst[d * width + i] = 0.f;
    }
  }
}

void PackedPanels::Pack(const float* src, int64_t rows, int64_t depth, int64_t stride,
                        int64_t depth_stride, int width, PersistentArena* arena) {
  rows_ = rows;
  depth_ = depth;
  width_ = width;
  // PackPanels writes every float, the padding rows too.
  storage_.AllocateUnfilled(RoundUp(rows, width) * depth, arena);
  PackPanels(src, rows, depth, stride, depth_stride, width, storage_.data());
}

int64_t GemmScratchFloatsPerThread(const KernelTable& table, int64_t m, int64_t n, int64_t k,
                                   const GemmOperand& a, const GemmOperand& b) {
  int64_t floats = 0;
  if (IsVectorCase(m, n, a, b)) return ThreadRegionFloats(k);  // the gathered vector
  const int64_t kc = GemmReductionDepth(table, k);
  if (a.NeedsPacking()) floats += int64_t{table.mc} * kc;
  if (b.NeedsPacking()) floats += BlockColumns(table, n) * kc;
#if defined(__ARM_NEON) && !defined(__aarch64__)
  // The B block split for the armv7 runs (GemmBlock), when it may be.
  if (table.isa == KernelIsa::kNeon && table.mr == 6 && table.nr == 8 && m > table.mc) {
    floats += BlockColumns(table, n) * kc;
  }
#endif
  return ThreadRegionFloats(floats);
}

void AlignedRange(int64_t total, int64_t align, int parts, int part, int64_t* begin, int64_t* end) {
  const auto boundary = [&](int i) -> int64_t {
    if (i >= parts) return total;
    const int64_t ideal = total * i / parts;
    return std::min(total, (ideal + align / 2) / align * align);
  };
  *begin = boundary(part);
  *end = boundary(part + 1);
}

void SplitGemmGrid(int64_t m, int64_t n, int mr, int nr, int threads, double a_panel_cost,
                   double b_panel_cost, int* tm, int* tn) {
  double best = -1;
  for (int columns = 1; columns <= threads; ++columns) {
    if (threads % columns != 0) continue;
    const int rows = threads / columns;
    int64_t m_share = 0, n_share = 0;  // the largest range's rows and columns
    for (int i = 0; i < rows; ++i) {
      int64_t begin, end;
      AlignedRange(m, mr, rows, i, &begin, &end);
      m_share = std::max(m_share, end - begin);
    }
    for (int j = 0; j < columns; ++j) {
      int64_t begin, end;
      AlignedRange(n, nr, columns, j, &begin, &end);
      n_share = std::max(n_share, end - begin);
    }
    const double m_tiles = static_cast<double>(CeilDiv(m_share, mr));
    const double share = m_tiles * static_cast<double>(n_share) / nr + a_panel_cost * m_tiles +
                         b_panel_cost * static_cast<double>(CeilDiv(n_share, nr));
    if (best < 0 || share <= best) {
      best = share;
      *tm = rows;
      *tn = columns;
    }
  }
}

void Gemm(const KernelTable& table, int64_t m, int64_t n, int64_t k, const GemmOperand& a,
          const GemmOperand& b, float* c, int64_t ldc, const TileEpilogue& epilogue,
          ThreadPool* pool, float* scratch) {
  if (m <= 0 || n <= 0 || k <= 0) return;
  if (IsVectorCase(m, n, a, b)) {
    GemmVector(table, m, n, k, a, b, c, ldc, epilogue, pool, scratch);
    return;
  }
  const GemmCall call{&table, m, n, k, &a, &b, c, ldc, &epilogue};
  const int64_t per_thread = GemmScratchFloatsPerThread(table, m, n, k, a, b);
  const int64_t n_tiles = CeilDiv(n, table.nr);
  const int threads = NumThreads(pool);
  int tm = 1, tn = 1;
  // A panel packed in the call costs about a tile (copying kc x 8-32 floats
  // that the tile then reads in cache, against 8-32 multiply-adds per value):
  // a 16-row 1x1 convolution spent 29 % of its time packing B. A prepacked
  // weight panel still streams from memory once per column range.
  constexpr double kPackedPanelCost = 1.0, kPrepackedPanelCost = 0.25;
  SplitGemmGrid(m, n, table.mr, table.nr, threads,
                a.NeedsPacking() ? kPackedPanelCost : kPrepackedPanelCost,
                b.NeedsPacking() ? kPackedPanelCost : kPrepackedPanelCost, &tm, &tn);
  if (threads > 1) {
    // Up to four column cells per thread, so the pool can move cells off a
    // stalled or late core; cells split N, so no operand is packed twice.
    // Each cell streams all of A's rows again, so while A is larger than
    // kSmallA a cell must still span a whole B block (nc); a smaller A
    // (a 1x1 layer with up to 64 output channels and 512 input channels)
    // comes from L2 and cells of two tiles will do.
    constexpr int64_t kSmallA = int64_t{128} << 10;
    const bool small_a = m * k * int64_t{sizeof(float)} <= kSmallA;
    const int64_t cell_tiles = small_a ? 2 : std::max<int64_t>(1, table.nc / table.nr);
    const int64_t finer = std::min<int64_t>(4, n_tiles / (int64_t{tn} * cell_tiles));
    if (finer > 1) tn *= static_cast<int>(finer);
  }
  ParallelFor(pool, int64_t{tm} * tn, [&](int64_t begin, int64_t end, int chunk) {
    float* own_scratch = scratch + chunk * per_thread;
    for (int64_t cell = begin; cell < end; ++cell) {
      int64_t m0, m1, n0, n1;
      AlignedRange(m, table.mr, tm, static_cast<int>(cell / tn), &m0, &m1);
      AlignedRange(n, table.nr, tn, static_cast<int>(cell % tn), &n0, &n1);
      if (m0 < m1 && n0 < n1) GemmBlock(call, m0, m1, n0, n1, own_scratch);
    }
  });
}

}  // namespace ops
}  // namespace mace
