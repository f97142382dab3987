#include "mace/ops/cpu/conv_2d_winograd.h"

#include <algorithm>

#include "mace/ops/cpu/fused_activation.h"
#include "mace/ops/cpu/gemm_fp16.h"
#include "mace/runtimes/cpu/scratch_buffer.h"

namespace mace {
namespace ops {
namespace {

constexpr int kMaxAlpha = 8;
// Budget for one block's transformed input (V): about half of a 2 MiB L2,
// so it stays there while every output channel tile passes over it.
constexpr int64_t kBlockBytes = int64_t{1} << 20;

// G for the filter transform U = G g G^T.
const float kG2[4][3] = {{1.f, 0.f, 0.f}, {.5f, .5f, .5f}, {.5f, -.5f, .5f}, {0.f, 0.f, 1.f}};
const float kG4[6][3] = {
    {1.f / 4, 0.f, 0.f},           {-1.f / 6, -1.f / 6, -1.f / 6}, {-1.f / 6, 1.f / 6, -1.f / 6},
    {1.f / 24, 1.f / 12, 1.f / 6}, {1.f / 24, -1.f / 12, 1.f / 6}, {0.f, 0.f, 1.f}};
// F(6x6): the points 0, 1, -1, 2, -2, 1/2, -1/2 and infinity, in the order
// of the transforms' rows.
const float kG6[8][3] = {{1.f, 0.f, 0.f},
                         {-2.f / 9, -2.f / 9, -2.f / 9},
                         {-2.f / 9, 2.f / 9, -2.f / 9},
                         {1.f / 90, 1.f / 45, 2.f / 45},
                         {1.f / 90, -1.f / 45, 2.f / 45},
                         {32.f / 45, 16.f / 45, 8.f / 45},
                         {32.f / 45, -16.f / 45, 8.f / 45},
                         {0.f, 0.f, 1.f}};

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t RoundUp(int64_t a, int64_t b) { return CeilDiv(a, b) * b; }

// The columns a half GEMM tile computes for a panel of `cols` tiles: 1 to
// 4 past whole vectors of 8 exactly (the narrow tile's one fmla per column
// and step), else whole vectors (the padding lanes are zeros and M has
// room for them), so that no tile goes through a staging copy.
int Fp16GemmCols(int64_t cols) {
  return static_cast<int>(cols % 8 <= 4 ? cols : RoundUp(cols, 8));
}

// The cost of Fp16GemmCols(cols) columns in columns of the 8 x 24 tile
// (about 25.4 instructions a step, 1.06 a column): the narrow tile's step
// of 1.75 + n instructions for the last n <= 4.
double Fp16GemmColumnCost(int64_t cols) {
  const int64_t rest = cols % 8;
  return rest == 0 ? cols : rest <= 4 ? cols - rest + (1.75 + rest) / 1.06 : RoundUp(cols, 8);
}

// A run of tiles of one tile row inside a block: tiles [first, first +
// count) of the image, the first at block lane `lane`. In ptrdiff_t, which
// is int64_t on 64-bit targets: on armv7 an int64_t takes register pairs,
// and these are stepped per input channel.
struct TileRun {
  ptrdiff_t row = 0, col = 0;  // tile row and column of the first tile
  ptrdiff_t lane = 0, count = 0;
};

// Calls fn(run) for the runs of at most kWinogradMaxLanes tiles that make up
// `tiles` tiles in raster order from tile (row, col). The position steps
// from run to run: callers pass it per input channel, and on armv7 each
// 64-bit division is a call of some 100 instructions.
template <typename Fn>
void ForEachRun(ptrdiff_t tiles_w, ptrdiff_t row, ptrdiff_t col, ptrdiff_t tiles, Fn&& fn) {
  for (ptrdiff_t lane = 0; lane < tiles;) {
    TileRun run;
    run.row = row;
    run.col = col;
    run.lane = lane;
    run.count = std::min<ptrdiff_t>({tiles - lane, tiles_w - col, kWinogradMaxLanes});
    fn(run);
    lane += run.count;
    col += run.count;
    if (col == tiles_w) {
      col = 0;
      ++row;
    }
  }
}

// The tile row and column of the first tile of each panel of a block, one
// panel (nr tiles) after another without dividing.
class PanelCursor {
 public:
  PanelCursor(int64_t tiles_w, int64_t first_tile, int64_t nr)
      : tiles_w_(tiles_w),
        row0_(first_tile / tiles_w),
        col0_(first_tile % tiles_w),
        step_rows_(nr / tiles_w),
        step_cols_(nr % tiles_w) {
    Rewind();
  }
  void Rewind() {
    row_ = row0_;
    col_ = col0_;
  }
  void Next() {
    row_ += step_rows_;
    col_ += step_cols_;
    if (col_ >= tiles_w_) {
      col_ -= tiles_w_;
      ++row_;
    }
  }
  int64_t row() const { return row_; }
  int64_t col() const { return col_; }
  int64_t first_row() const { return row0_; }
  int64_t first_col() const { return col0_; }

 private:
  int64_t tiles_w_, row0_, col0_, step_rows_, step_cols_;
  int64_t row_ = 0, col_ = 0;
};

// The fields of the input transform's runs that all runs of a block share
// (V in panels of nr lanes, in_c rows each).
WinogradInputRun BlockInputRun(int tile, int64_t in_w, int64_t panels, int64_t in_c, int64_t nr) {
  WinogradInputRun run;
  run.tile = tile;
  run.in_w = in_w;
  run.position_stride = panels * in_c * nr;
  run.panel_stride = in_c * nr;
  run.nr = static_cast<int32_t>(nr);
  return run;
}

// Whether the port's run kernels (winograd_run_6x4 and the others,
// armv7's) take a block's last panel of at most 4 tiles, as 6 x 4 tiles
// or, two output-channel micro-tiles at a time (room for both in M), as
// 12 x 4 tiles.
bool NarrowRuns(const KernelTable& table, bool fp16, const PackedPanels& run_filter, int64_t mr,
                int64_t nr) {
  return table.winograd_run_6x4 != nullptr && !fp16 && table.isa == KernelIsa::kNeon &&
         run_filter.rows() > 0 && mr == 6 && nr == 8;
}

// The width of the panels V is written in: 4 where the narrow runs take
// the layer, so that a 6 x 8 tile's halves each read their own 4-wide
// panel (26 instructions per 4 depths; on 8-wide panels each half loaded
// 8 values a depth to use 4, 27). Below 64 input channels the runs take
// whole 6 x 8 tiles (no halves), which read 8 a depth.
int64_t VPanelWidth(bool narrow_runs, int64_t in_c, int64_t nr) {
  return narrow_runs && in_c >= 64 ? 4 : nr;
}

// A last panel of one tile (ResNet-18's 28x28 maps: 25 tiles at F(6x6),
// 49 at F(4x4)): its one column of `micro_tiles` micro-tiles (A panels
// a_pair floats apart, M rows micro_rows floats apart) position by
// position, each as the port's 6 x 1 tile (armv7: 11 instructions per 4
// depths, 10 on V's 4-wide panels; the 6 x 4 tiles spent 27 on 4 columns,
// 3 of them padding). B's panels are b_width floats a depth.
void ColumnRuns(WinogradTile6x1Kernel tile_6x1, int64_t positions, int64_t micro_tiles, int kc, const float* a, int64_t a_pair,
                int64_t a_step, const float* b, int64_t b_step, int b_width, float* m,
                int64_t micro_rows, int64_t nr, int ldc_bytes, bool from_c) {
  for (int64_t xi = 0; xi < positions; ++xi) {
    for (int64_t g = 0; g < micro_tiles; ++g) {
      tile_6x1(kc, a + xi * a_step + g * a_pair, b + xi * b_step,
                             m + g * micro_rows + xi * nr, ldc_bytes, from_c, nullptr, false, false,
                             nullptr, b_width);
    }
  }
}

}  // namespace

bool Conv2dWinograd::Supports(const ref::Conv2DParams& p) {
  return p.group == 1 && p.kernel_h == 3 && p.kernel_w == 3 && p.stride_h == 1 && p.stride_w == 1 &&
         p.dilation_h == 1 && p.dilation_w == 1;
}

int Conv2dWinograd::PickTile(const KernelTable& table, const ref::Conv2DParams& p, int requested) {
  // The half-precision GEMM tile does 8 multiply-adds per instruction where
  // the single-precision one does 4; the transforms stay in single precision.
  const bool fp16 = table.fp16_gemm != nullptr;
  const int mr = fp16 ? table.fp16_mr : table.mr, nr = fp16 ? table.fp16_nr : table.nr;
  const double gemm_cost = fp16 ? 0.5 : 1.0;
  // RunBlock hands the output transform one GEMM panel of tiles per run.
  if (!Supports(p) || table.winograd_input == nullptr || table.winograd_output == nullptr ||
      nr > kWinogradMaxLanes) {
    return 0;
  }
  if (p.in_channels < 8 || p.out_channels < 8) return 0;
  // A cost model in GEMM multiply-adds. im2col + GEMM does all 9 taps per
  // output. Winograd's GEMMs run on whole panels of tiles and micro-tiles of
  // channels; its transforms cost about 20 multiply-adds per
  // channel, position and tile, each tile row padded to a whole chunk of
  // lanes. Fitted on the BM_Conv3x3Method layers (ResNet-18 and SqueezeNet
  // 1.1) with the AVX2 and AVX-512 tables, where it picks the fastest method
  // or one within about 10 %.
  // With half-precision GEMMs the cost is the ARM one in instructions: the
  // NEON transforms of SqueezeNet 1.1's layers executed 2.8 instructions per
  // channel, position and tile under qemu (14.5 M in all), the half GEMM
  // about 1/6 instruction per multiply-add; that is 17 of its multiply-adds,
  // 8.5 in the single-precision units used here.
  // The single-precision NEON GEMM executes about 1/4 instruction per
  // multiply-add in SqueezeNet 1.1 under qemu. Its transforms, counted on
  // SqueezeNet's layer shapes (arm64, per channel, position and tile): the
  // input one 10-12 instructions (F(2x2) at 13x13, F(4x4) at 55x55 and
  // 27x27, F(6x6) at 55x55), the output one 5-7 (F(6x6) 3.7): about 40 and
  // 20 multiply-adds, charged per input and per output channel. NEON's runs
  // take tiles four at a time, not in chunks of 16.
  // The half GEMM computes whole vectors of 8 tiles, or exactly the last 1
  // to 4 (Fp16GemmColumnCost). The transforms were counted when they were
  // the NEON ones, four tiles at a time; the half ones take eight, which
  // the model does not count yet.
  const bool neon = table.isa == KernelIsa::kNeon && !fp16;
  // arm64's single-precision transforms were counted again after their
  // rework (docs/design/cpu_runtime.md): the input one 4-5 instructions per
  // channel, position and tile (8.5 on 7x7 maps), the output one about 1.5;
  // 18 and 6 multiply-adds here. Its last panels of 1 to 4 tiles run two
  // micro-tiles of output channels at once, by column (NeonWinogradGemms):
  // about a quarter of a column more than the tiles they hold. With these,
  // ResNet-18's 28x28 layers take F(6x6) (25 tiles; F(4x4): 49), which
  // executes 4 % fewer instructions there.
  const bool arm64_neon = neon && table.gemm_narrow_pair != nullptr;
  // armv7's transforms (its table has a run kernel) after their rework, per
  // channel, position and tile with each tile row padded to 4 tiles, from
  // the per-function counts of docs/reports/arm_instructions.md: the input
  // one 5.2 instructions at F(4x4) and 3.7 at F(6x6) (ResNet-18), the
  // output one 2.0 at both (SqueezeNet 1.1); 21, 15 and 8 multiply-adds. With
  // 40 and 20 the model kept ResNet-18's 28x28 layers at F(4x4), whose 49
  // tiles take 52 GEMM columns of 36 positions, where F(6x6)'s 25 take 28
  // of 64: 4 % fewer multiply-adds. At F(6x6) they execute 0.6 M fewer
  // instructions (the GEMMs 1.8 M fewer, the transforms 0.9 M more).
  const double input_cost = fp16 ? 8.5 : arm64_neon ? 18.0 : neon ? 21.0 : 20.0;
  const double output_cost = fp16 ? 8.5 : arm64_neon ? 6.0 : neon ? 8.0 : 20.0;
  // arm64's F(6x6) transforms, counted per channel and position on
  // SqueezeNet 1.1's 55x55 layers (16 to 64 channels, ReLU): the input one
  // 3.3 instructions (13 multiply-adds), the output one 2.8 (11.3): its
  // 8-point passes meet in a stack buffer and its groups of four tiles
  // often cross a tile row. With 6 the model took F(6x6) there, where
  // F(4x4) executes 0.7 M instructions fewer; ResNet-18's picks stay.
  const double input_cost6 = arm64_neon ? 13.0 : neon ? 15.0 : input_cost;
  const double output_cost6 = arm64_neon ? 11.3 : output_cost;
  const int64_t lane_group = neon || fp16 ? 4 : kWinogradChunk;
  const bool count_columns = neon && table.gemm_partial != nullptr;
  // A table with a run kernel (armv7) runs the last panel whole.
  const bool whole_panels = neon && table.gemm_run != nullptr;
  constexpr double kMargin = 0.9;  // Winograd must win clearly: it is less exact
  constexpr int64_t kMinColumns = 32;
  const double im2col =
      gemm_cost * static_cast<double>(p.out_channels) * p.in_channels * 9 * p.out_h * p.out_w;
  double best = kMargin * im2col;
  int pick = 0;
  // F(6x6) in half precision too (as ncnn's defaults run it): its
  // transforms grow values by up to 5.25^2 and scale its filter by 1/90;
  // the half products still meet fp16_test's bound, and the zoo models'
  // outputs stay close to fp32 (docs/design/cpu_runtime.md).
  const int max_tile = std::min(requested, static_cast<int>(table.winograd_max_tile));
  for (int tile = 2; tile <= max_tile; tile += 2) {
    const int64_t alpha2 = (tile + 2) * (tile + 2);
    const int64_t tiles_h = CeilDiv(p.out_h, tile), tiles_w = CeilDiv(p.out_w, tile);
    // Fewer than kMinColumns tiles leave the 4x larger filter barely reused:
    // its streaming then costs as much as that many columns would (timed on
    // x86). On arm64 the model counts executed instructions, which a
    // reused filter does not add to: whole panels, and a partial last one
    // in the partial kernel's steps of 4 columns; on armv7, whose runs
    // take the last panel whole, in whole panels, but for a last panel of
    // at most 4 tiles (below).
    const int64_t tiles = tiles_h * tiles_w;
    double columns = whole_panels    ? RoundUp(tiles, nr)
                     : fp16          ? tiles / nr * nr + Fp16GemmColumnCost(tiles % nr)
                     : count_columns ? tiles / nr * nr + RoundUp(tiles % nr, 4)
                                     : std::max(RoundUp(tiles, nr), kMinColumns);
    if (arm64_neon && tiles % nr != 0 && tiles % nr <= 4) {
      columns = tiles / nr * nr + tiles % nr + 0.25;
    }
    // armv7 (the table with a run kernel) runs a last panel of at most 4
    // tiles as 6 x 4 tiles: 8 instructions a step where the 6 x 8 tile's
    // 14.25 do 8 columns, the cost of 4.5 columns. (One of one tile runs as
    // its column, about 2; counted as 4.5 still, which keeps SqueezeNet
    // 1.1's 27x27 layers at F(4x4), a near tie at 2.)
    if (whole_panels && nr == 8 && tiles % nr != 0 && tiles % nr <= 4) columns -= 8 - 4.5;
    const double gemm = gemm_cost * static_cast<double>(RoundUp(p.out_channels, mr)) *
                        p.in_channels * alpha2 * columns;
    const double transforms = ((tile == 6 ? input_cost6 : input_cost) * p.in_channels +
                               (tile == 6 ? output_cost6 : output_cost) * p.out_channels) *
                              alpha2 * tiles_h * RoundUp(tiles_w, lane_group);
    if (gemm + transforms < best) {
      best = gemm + transforms;
      pick = tile;
    }
  }
  return pick;
}

void WinogradTransformFilters(const float* g, int lanes, int tile, float* u) {
  const int alpha = tile + 2;
  const float(*rows)[3] = tile == 2 ? kG2 : tile == 4 ? kG4 : kG6;
  float gg[kMaxAlpha * 3][kWinogradFilterLanes];  // G g, lane by lane
  for (int i = 0; i < alpha; ++i) {
    for (int j = 0; j < 3; ++j) {
      const float* row = rows[i];
      for (int l = 0; l < lanes; ++l) {
        gg[i * 3 + j][l] = row[0] * g[j * lanes + l] + row[1] * g[(3 + j) * lanes + l] +
                           row[2] * g[(6 + j) * lanes + l];
      }
    }
  }
  for (int i = 0; i < alpha; ++i) {
    for (int j = 0; j < alpha; ++j) {
      const float* row = rows[j];
      float* out = u + (i * alpha + j) * lanes;
      for (int l = 0; l < lanes; ++l) {
        out[l] = gg[i * 3][l] * row[0] + gg[i * 3 + 1][l] * row[1] + gg[i * 3 + 2][l] * row[2];
      }
    }
  }
}

void WinogradTransformChunk(const KernelTable& table, const float* g, int tile, float* u) {
  if (table.winograd_filter != nullptr) {
    table.winograd_filter(g, tile, u);
  } else {
    WinogradTransformFilters(g, kWinogradFilterLanes, tile, u);
  }
}

void WinogradFilterTransform(const KernelTable& table, const float* filter, int64_t out_channels,
                             int64_t in_channels, int tile, float* u) {
  constexpr int64_t L = kWinogradFilterLanes;
  const int64_t positions = (tile + 2) * (tile + 2);
  alignas(64) float g[9 * L];
  alignas(64) float values[kMaxAlpha * kMaxAlpha * L];
  for (int64_t oc0 = 0; oc0 < out_channels; oc0 += L) {
    const int64_t lanes = std::min(L, out_channels - oc0);
    for (int64_t ic = 0; ic < in_channels; ++ic) {
      for (int64_t l = 0; l < L; ++l) {
        const float* taps = l < lanes ? filter + ((oc0 + l) * in_channels + ic) * 9 : nullptr;
        for (int k = 0; k < 9; ++k) g[k * L + l] = taps != nullptr ? taps[k] : 0.f;
      }
      WinogradTransformChunk(table, g, tile, values);
      for (int64_t xi = 0; xi < positions; ++xi) {
        for (int64_t l = 0; l < lanes; ++l) {
          u[(xi * out_channels + oc0 + l) * in_channels + ic] = values[xi * L + l];
        }
      }
    }
  }
}

Conv2dWinograd::Conv2dWinograd(const KernelTable& table, const ref::Conv2DParams& params,
                               const float* filter, int tile, PersistentArena* arena)
    : table_(table), params_(params), tile_(tile), alpha_(tile + 2) {
  fused_activation_ = FuseActivation(params.activation, &epilogue_);
  tiles_h_ = CeilDiv(params.out_h, tile);
  tiles_w_ = CeilDiv(params.out_w, tile);
  const int positions = alpha_ * alpha_;
  const int64_t oc_count = params.out_channels, ic_count = params.in_channels;
  std::vector<float> u(positions * oc_count * ic_count);
  WinogradFilterTransform(table, filter, oc_count, ic_count, tile, u.data());
  fp16_ = table.fp16_gemm != nullptr;
  mr_ = fp16_ ? table.fp16_mr : table.mr;
  nr_ = fp16_ ? table.fp16_nr : table.nr;
  kc_ = fp16_ ? table.fp16_kc : table.kc;
  // One block of channels, up to kFp16HalfOneBlockDepth of them (ResNet-18's
  // 512-channel layers too): their half sums are M, and the output transform
  // takes them as they are.
  half_v_ = fp16_ && table.fp16_winograd_input != nullptr;
  half_m_ = fp16_ && table.fp16_gemm_half != nullptr && table.fp16_winograd_output != nullptr &&
            ic_count <= kFp16HalfOneBlockDepth;
  if (!fp16_ && table.gemm_run != nullptr) {
    // A table with a run kernel (armv7) takes a panel's alpha^2 GEMM tiles
    // in one call, which needs one stride between consecutive positions'
    // filter panels: all positions in one packing, each padded to whole
    // panels of output channels.
    const int64_t oc_padded = RoundUp(oc_count, mr_);
    if (oc_padded != oc_count) {
      std::vector<float> padded(positions * oc_padded * ic_count, 0.f);
      for (int xi = 0; xi < positions; ++xi) {
        std::copy(u.begin() + xi * oc_count * ic_count, u.begin() + (xi + 1) * oc_count * ic_count,
                  padded.begin() + xi * oc_padded * ic_count);
      }
      u.swap(padded);
    }
    run_filter_.Pack(u.data(), positions * oc_padded, ic_count, ic_count, 1, table.mr, arena);
    return;
  }
  for (int xi = 0; xi < positions; ++xi) {
    const float* u_xi = u.data() + xi * oc_count * ic_count;
    if (fp16_) {
      fp16_filter_.emplace_back();
      fp16_filter_.back().Pack(table, u_xi, oc_count, ic_count, ic_count, 1, arena);
    } else {
      transformed_filter_.emplace_back();
      transformed_filter_.back().Pack(u_xi, oc_count, ic_count, ic_count, 1, table.mr, arena);
    }
  }
  if (half_m_ && table.fp16_gemm_half_positions != nullptr) {
    for (const Fp16Panels& panels : fp16_filter_) fp16_position_filters_.push_back(panels.Panel(0));
    // At most 4 tiles (ResNet-18's 7x7 maps at F(4x4)): every panel is the
    // narrow tile's, and three micro-tiles share each load of B.
    if (tiles_h_ * tiles_w_ <= 4) narrow_group_ = 3;
  }
  // The NEON table's single-precision products go through the port's
  // position_gemms (arm64's), which take each position's filter panels
  // from here (the same offset into each).
  if (!fp16_ && table.isa == KernelIsa::kNeon && table.gemm_narrow_pair != nullptr &&
      table.winograd_position_gemms != nullptr) {
    for (const PackedPanels& panels : transformed_filter_) {
      position_filters_.push_back(panels.Panel(0));
    }
  }
}

Conv2dWinograd::Layout Conv2dWinograd::MakeLayout(int threads) const {
  Layout layout;
  const int64_t positions = alpha_ * alpha_;
  const int64_t nr = nr_;
  layout.oc_padded = RoundUp(params_.out_channels, mr_);
  const int64_t tiles = tiles_h_ * tiles_w_, panels = CeilDiv(tiles, nr);
  // As few blocks as the budget allows, but with a single image as many as
  // there are threads (or a multiple), so every thread gets work.
  const int64_t per_tile = positions * params_.in_channels * (fp16_ ? 6 : 4);
  const int64_t budget_panels = std::max<int64_t>(1, kBlockBytes / (per_tile * nr));
  int64_t blocks = CeilDiv(panels, budget_panels);
  if (params_.batch < threads) blocks = std::min(RoundUp(blocks, threads), panels);
  if (threads == 1 || params_.batch >= threads || panels % threads == 0) {
    // Whole panels per block. (A partial panel costs about as much as a
    // full one, so 49 tiles split 32:17 are balanced enough.)
    layout.block_tiles = CeilDiv(panels, blocks) * nr;
  } else {
    // Equal tile counts, each block's last panel partial: whole panels
    // split SqueezeNet 1.1's 55x55 F(4x4) (7 panels) 4:3 between two
    // threads; 98:98 tiles took that layer from 0.27-0.29 to 0.25-0.27 ms.
    layout.block_tiles = CeilDiv(tiles, blocks);
  }
  layout.panels = CeilDiv(layout.block_tiles, nr);
  const int64_t v_values = positions * params_.in_channels * layout.panels * nr;
  // V in single precision, unless the input transform writes halves.
  layout.v_floats = half_v_ ? 0 : v_values;
  // One micro-tile of M ([mr][position][nr], see RunBlock); the output
  // transform reads whole chunks of lanes, so there is room past the last row.
  // (Two micro-tiles with the narrow pair kernel: see RunBlock.)
  int64_t m_tiles = !fp16_ && table_.gemm_narrow_pair != nullptr ? 2 : 1;
  // The narrow runs' pairs (winograd_run_12x4).
  if (NarrowRuns(table_, fp16_, run_filter_, mr_, nr_)) m_tiles = 2;
  // RunBlockHalf's groups of micro-tiles: M of halves takes half the room.
  m_tiles = std::max<int64_t>(m_tiles, CeilDiv(narrow_group_, 2));
  layout.m_floats = m_tiles * mr_ * positions * nr + kWinogradMaxLanes;
  layout.v_halves = fp16_ ? v_values : 0;
  layout.per_thread =
      ThreadRegionFloats(layout.v_floats + (layout.v_halves + 1) / 2 + layout.m_floats);
  return layout;
}

int64_t Conv2dWinograd::ScratchBytes(int threads) const {
  return threads * MakeLayout(threads).per_thread * static_cast<int64_t>(sizeof(float));
}

WinogradOutputRun Conv2dWinograd::OutputRunAt(int64_t row, int64_t col, int64_t lanes) const {
  WinogradOutputRun run;
  run.tile = tile_;
  run.in_pitch = nr_;
  run.lanes = lanes;
  run.epilogue = epilogue_;
  run.out_h = params_.out_h;
  run.out_w = params_.out_w;
  run.tiles_w = tiles_w_;
  run.row0 = row;
  run.col0 = col;
  return run;
}

void Conv2dWinograd::RunBlock(const float* image, const float* bias, float* out_image,
                              int64_t first_tile, int64_t tiles, const Layout& layout,
                              float* scratch) const {
  const ref::Conv2DParams& p = params_;
  const int64_t positions = alpha_ * alpha_;
  const int64_t nr = nr_, mr = mr_;
  const int64_t in_c = p.in_channels;
  float* v = scratch;
  float* m = v + layout.v_floats;
  uint16_t* v_half = reinterpret_cast<uint16_t*>(m + layout.m_floats);
  uint16_t* m_half = reinterpret_cast<uint16_t*>(m);

  // The lanes of the last panel the GEMMs read: all nr, but with arm64's
  // single-precision partial kernel only up to a whole vector past the last
  // tile (its columns, below; armv7's runs the whole tile, but for a last
  // panel of at most 4 tiles the first 4 lanes). Zeroing the
  // rest cost a store or a memset call per position, input channel and
  // block (ResNet-18's 7x7 and 14x14 layers: 8 of 12 lanes).
  // armv7's 6 x 4 run (below) reads the first 4 lanes of a last panel of
  // at most 4 tiles: ResNet-18's 7x7 maps then zero no lanes. The lanes
  // zeroed then lie in one of V's 4-wide panels when it has them.
  const bool narrow_runs = NarrowRuns(table_, fp16_, run_filter_, mr, nr);
  const bool vector_lanes = (table_.winograd_partial_reads_vectors && !fp16_ &&
                             table_.isa == KernelIsa::kNeon && table_.gemm_partial != nullptr) ||
                            narrow_runs;
  const int64_t gemm_lanes =
      vector_lanes ? std::min(RoundUp(tiles, nr), RoundUp(tiles, 4)) : RoundUp(tiles, nr);

  // Phase 1: V[position][panel][ic][nr] = B^T d B, in the GEMM's B panels
  // (armv7: panels of v_nr lanes, two to a GEMM panel).
  // The fields every run of the block shares, set once.
  PanelCursor cursor(tiles_w_, first_tile, nr);
  WinogradInputRun run = BlockInputRun(tile_, p.in_w, layout.panels, in_c, nr);
  const int64_t v_nr = VPanelWidth(narrow_runs, in_c, nr);
  run.panel_stride = in_c * v_nr;
  run.nr = static_cast<int32_t>(v_nr);
  // Lanes past the block's last tile that the GEMM reads are zeros, so it
  // reads numbers: they all lie in the last panel (gemm_lanes is at most
  // a whole panel past the tiles).
  const int64_t zero_panel = tiles / v_nr, zero_offset = tiles % v_nr;
  const int64_t zero_count = gemm_lanes - tiles;
  // The run's rows of `plane` and its tiles.
  const auto set_tiles = [&](const TileRun& tr, const float* plane) {
    // The row offsets in ptrdiff_t too (see TileRun).
    for (int i = 0; i < alpha_; ++i) {
      const ptrdiff_t ih = tr.row * tile_ - static_cast<ptrdiff_t>(p.pad_top) + i;
      run.rows[i] = ih >= 0 && ih < static_cast<ptrdiff_t>(p.in_h)
                        ? plane + ih * static_cast<ptrdiff_t>(p.in_w)
                        : nullptr;
    }
    run.col0 = tr.col * tile_ - p.pad_left;
    run.lanes = tr.count;
    run.first_lane = tr.lane;
  };
  // Every input channel of a run of tiles in one call where the port has
  // it (NEON): a call per channel paid the call, the rows' checks and the
  // run's set-up again.
  const WinogradInputChannelsKernel input_channels =
      !half_v_ ? table_.winograd_input_channels : nullptr;
  const bool channel_runs = input_channels != nullptr;
  if (channel_runs) {
    run.out = v;
    ForEachRun(tiles_w_, cursor.first_row(), cursor.first_col(), tiles, [&](const TileRun& tr) {
      set_tiles(tr, image);
      input_channels(run, in_c, p.in_h * p.in_w, v_nr);
    });
  }
  for (int64_t ic = 0; ic < in_c; ++ic) {
    const float* plane = image + ic * p.in_h * p.in_w;
    run.out = half_v_ ? nullptr : v + ic * v_nr;
    if (!channel_runs) {
      ForEachRun(tiles_w_, cursor.first_row(), cursor.first_col(), tiles, [&](const TileRun& tr) {
        set_tiles(tr, plane);
        if (half_v_) {
          table_.fp16_winograd_input(run, v_half + ic * nr);
        } else {
          table_.winograd_input(run);
        }
      });
    }
    for (int64_t xi = 0; zero_count > 0 && xi < positions; ++xi) {
      const int64_t at =
          xi * layout.panels * in_c * nr + (zero_panel * in_c + ic) * v_nr + zero_offset;
      if (half_v_) {
        std::fill(v_half + at, v_half + at + zero_count, uint16_t{0});
      } else {
        std::fill(v + at, v + at + zero_count, 0.f);
      }
    }
  }

  const int64_t used_panels = CeilDiv(tiles, nr);
  if (fp16_ && !half_v_) {
    // The used panels of each position, to half precision for the GEMMs.
    const int64_t count = used_panels * in_c * nr;
    for (int64_t xi = 0; xi < positions; ++xi) {
      const int64_t at = xi * layout.panels * in_c * nr;
      table_.fp16_from_float(v + at, count, v_half + at);
    }
  }

  // Phases 2 and 3, one micro-tile of output channels (mr) and one panel of
  // tiles (nr) at a time: the alpha^2 GEMM tiles M[xi] = U[xi] x V[xi] go to
  // a buffer of mr x alpha^2 x nr floats that stays in L1 (36 KiB for the
  // AVX-512 table's 8 x 32 at F(4x4)), and the output transform reads them
  // from there. Output channels go outer, so a channel tile's filter panels
  // (alpha^2 x mr x in_c) stay in L2 while the block's panels pass by.
  const int64_t oc_tiles = layout.oc_padded / mr;
  const int64_t pitch = positions * nr;  // between a tile's output channels
  // Stale lanes of a partial panel are read (in whole chunks) but not used;
  // they start as zeros rather than whatever the scratch held, since
  // denormal garbage would be slow.
  std::fill(m, m + layout.m_floats, 0.f);
  // A block whose last panel is at most 4 tiles wide (ResNet-18's 7x7 maps
  // are 4 tiles at F(4x4), its 14x14 ones 12 + 4) takes two micro-tiles of
  // output channels at a time where the table has a kernel for the pair's
  // 2 mr x 4 products, which shares each B load between them.
  const int64_t last_cols = tiles - (used_panels - 1) * nr;
  int64_t group = !fp16_ && table_.gemm_narrow_pair != nullptr &&
                          run_filter_.rows() == 0 && last_cols <= 4
                      ? 2
                      : 1;
  // The narrow runs pair them too (winograd_run_12x4).
  if (last_cols <= 4 && narrow_runs) group = 2;
  for (int64_t ot = 0; ot < oc_tiles; ot += group) {
    const int64_t group_tiles = std::min(group, oc_tiles - ot);
    const int64_t oc_begin = ot * mr;
    cursor.Rewind();
    const int64_t oc_end = std::min<int64_t>(oc_begin + group_tiles * mr, p.out_channels);
    for (int64_t panel = 0; panel < used_panels; ++panel) {
      const int64_t cols = std::min(nr, tiles - panel * nr);
      if (run_filter_.rows() > 0) {
        // The panel's alpha^2 tiles per reduction block in one run, whole
        // (a partial panel's padding lanes are zeros, and M has room).
        const int64_t a_step = oc_tiles * mr * in_c;
        const int64_t b_step = layout.panels * in_c * nr;
        for (int64_t g = 0; g < group_tiles; ++g) {
          const float* a_first = run_filter_.Panel(ot + g);
          float* m_g = m + g * mr * pitch;
          for (int64_t pc = 0; pc < in_c; pc += kc_) {
            const int64_t kc = std::min<int64_t>(kc_, in_c - pc);
            // The panel's (left) B of this reduction block.
            const float* b_first = v + panel * in_c * nr + pc * v_nr;
            const int ldc_bytes = static_cast<int>(pitch * sizeof(float));
            // A last panel of at most 4 tiles: the 6 x 4 tiles, half the
            // panel's columns (the output transform reads only those), or
            // 12 x 4 over a pair of micro-tiles; of one tile, its column.
            if (cols <= 4 && narrow_runs) {
              if (cols == 1) {
                ColumnRuns(table_.winograd_tile_6x1, positions, group_tiles, static_cast<int>(kc), a_first + pc * mr,
                           group_tiles == 2 ? run_filter_.Panel(ot + 1) - a_first : 0, a_step,
                           b_first, b_step, static_cast<int>(v_nr), m_g, mr * pitch, nr, ldc_bytes,
                           pc > 0);
              } else if (group_tiles == 2) {
                table_.winograd_run_12x4(
                    static_cast<int>(positions), static_cast<int>(kc), a_first + pc * mr,
                    static_cast<int>(run_filter_.Panel(ot + 1) - a_first), static_cast<int>(a_step),
                    b_first, static_cast<int>(b_step), m_g, static_cast<int>(nr), ldc_bytes, pc > 0,
                    static_cast<int>(v_nr));
              } else {
                table_.winograd_run_6x4(static_cast<int>(positions), static_cast<int>(kc),
                                      a_first + pc * mr, static_cast<int>(a_step), b_first,
                                      static_cast<int>(b_step), m_g, static_cast<int>(nr),
                                      ldc_bytes, pc > 0, static_cast<int>(v_nr));
              }
              continue;
            }
            // Whole panels on V's 4-wide ones: each half on its own.
            if (narrow_runs && v_nr == 4) {
              table_.winograd_run_6x8_on_panels(
                  static_cast<int>(positions), static_cast<int>(kc), a_first + pc * mr,
                  static_cast<int>(a_step), b_first, static_cast<int>(in_c * v_nr),
                  static_cast<int>(b_step), m_g, static_cast<int>(nr), ldc_bytes, pc > 0);
              continue;
            }
            TileEpilogue plain;
            plain.accumulate = pc > 0;
            plain.last = pc + kc >= in_c;
            table_.gemm_run(positions, kc, a_first + pc * mr, a_step, b_first, b_step, m_g, nr,
                            pitch, 0, 0, plain);
          }
          // The pair's run took both micro-tiles.
          if (cols <= 4 && narrow_runs) break;
        }
      }
      const int64_t partial_cols =
          table_.isa == KernelIsa::kNeon ? std::min(nr, RoundUp(cols, 4)) : cols;
      if (!position_filters_.empty()) {
        // All alpha^2 products of a micro-tile (or pair) and reduction
        // block in one call, positions one B and one M pitch apart. The
        // results are those of the loop below: each position still adds
        // its reduction blocks in order.
        const bool pair = group_tiles == 2 && partial_cols == 4;
        const int64_t b_step = layout.panels * in_c * nr;
        for (int64_t g = 0; g < (pair ? 1 : group_tiles); ++g) {
          for (int64_t pc = 0; pc < in_c; pc += kc_) {
            const int64_t kc = std::min<int64_t>(kc_, in_c - pc);
            table_.winograd_position_gemms(
                positions, kc, position_filters_.data(), ((ot + g) * in_c + pc) * mr,
                pair ? mr * in_c : 0, v + (panel * in_c + pc) * nr, b_step, m + g * mr * pitch, nr,
                pitch, static_cast<int>(pair ? cols : partial_cols), pc > 0);
          }
        }
      }
      for (int64_t xi = 0; run_filter_.rows() == 0 && position_filters_.empty() && xi < positions;
           ++xi) {
        float* m_tile = m + xi * nr;
        if (half_m_) {
          // M of halves, in the place of the floats (the same pitch).
          TileEpilogue plain;
          plain.last = true;
          table_.fp16_gemm_half(in_c, fp16_filter_[xi].Panel(ot),
                                v_half + (xi * layout.panels + panel) * in_c * nr, m_half + xi * nr,
                                pitch, static_cast<int>(mr), Fp16GemmCols(cols), plain);
          continue;
        }
        if (fp16_) {
          // Every row of the micro-tile (M has room for them).
          const uint16_t* a_half = fp16_filter_[xi].Panel(ot);
          const int vector_cols = Fp16GemmCols(cols);
          for (int64_t pc = 0; pc < in_c; pc += kc_) {
            const int64_t kc = std::min<int64_t>(kc_, in_c - pc);
            TileEpilogue plain;
            plain.accumulate = pc > 0;
            plain.last = pc + kc >= in_c;
            table_.fp16_gemm(kc, a_half + pc * mr,
                             v_half + ((xi * layout.panels + panel) * in_c + pc) * nr, m_tile,
                             pitch, static_cast<int>(mr), vector_cols, plain);
          }
          continue;
        }
        if (group_tiles == 2 && partial_cols == 4) {
          const float* a_panel = transformed_filter_[xi].Panel(ot);
          const int64_t a_stride = transformed_filter_[xi].Panel(ot + 1) - a_panel;
          for (int64_t pc = 0; pc < in_c; pc += kc_) {
            const int64_t kc = std::min<int64_t>(kc_, in_c - pc);
            table_.gemm_narrow_pair(kc, a_panel + pc * mr, a_stride,
                                    v + ((xi * layout.panels + panel) * in_c + pc) * nr, m_tile,
                                    pitch, pc > 0);
          }
          continue;
        }
        for (int64_t g = 0; g < group_tiles; ++g) {
          const int64_t ot_g = ot + g;
          float* m_g = m_tile + g * mr * pitch;
          const float* a_panel = transformed_filter_[xi].Panel(ot_g);
          for (int64_t pc = 0; pc < in_c; pc += kc_) {
            const int64_t kc = std::min<int64_t>(kc_, in_c - pc);
            const float* b_panel = v + ((xi * layout.panels + panel) * in_c + pc) * nr;
            TileEpilogue plain;
            plain.accumulate = pc > 0;
            // The transformed filter is 4x (F(4x4)) the size of the filter and
            // was last read an inference ago: on the first panel a kernel
            // that prefetches fetches the slice it runs next as it goes.
            if (panel == 0 && table_.gemm_prefetches_a) {
              if (pc + kc_ < in_c) {
                plain.prefetch_a = a_panel + (pc + kc_) * mr;
              } else if (xi + 1 < positions) {
                plain.prefetch_a = transformed_filter_[xi + 1].Panel(ot_g);
              } else if (ot_g + 1 < oc_tiles) {
                plain.prefetch_a = transformed_filter_[0].Panel(ot_g + 1);
              }
            }
            // The last panel's padding lanes are zeros: a partial kernel
            // skips what it can of them. On NEON it computes whole vectors
            // of them (M has room), which it stores without staging.
            if (cols < nr && table_.gemm_partial != nullptr) {
              table_.gemm_partial(kc, a_panel + pc * mr, b_panel, m_g, pitch, static_cast<int>(mr),
                                  static_cast<int>(partial_cols), plain);
            } else {
              table_.gemm(kc, a_panel + pc * mr, b_panel, m_g, pitch, plain);
            }
          }
        }
      }
      // Y = A^T M A + bias, activation, into the output planes: the panel's
      // tiles are one run (nr <= kWinogradMaxLanes), across tile rows.
      WinogradOutputRun run = OutputRunAt(cursor.row(), cursor.col(), cols);
      cursor.Next();
      if (!half_m_ && table_.winograd_output_channels != nullptr) {
        // The micro-tiles' channels in one run: a run per channel paid the
        // call and each group's geometry and choice of stores again.
        run.in = m;
        run.plane = out_image + oc_begin * p.out_h * p.out_w;
        table_.winograd_output_channels(run, oc_end - oc_begin, pitch, p.out_h * p.out_w,
                                      bias != nullptr ? bias + oc_begin : nullptr);
        continue;
      }
      for (int64_t oc = oc_begin; oc < oc_end; ++oc) {
        run.in = m + (oc - oc_begin) * pitch;
        run.bias = bias != nullptr ? bias[oc] : 0.f;
        run.plane = out_image + oc * p.out_h * p.out_w;
        if (half_m_) {
          table_.fp16_winograd_output(run, m_half + (oc - oc_begin) * pitch);
        } else {
          table_.winograd_output(run);
        }
      }
    }
  }
}

template <typename Block>
void Conv2dWinograd::ForEachBlock(ThreadPool* pool, float* scratch, const Block& block) const {
  const Layout layout = MakeLayout(NumThreads(pool));
  const int64_t tiles = tiles_h_ * tiles_w_;
  const int64_t blocks_per_image = CeilDiv(tiles, layout.block_tiles);
  // Each thread runs whole blocks through all three phases in its own
  // scratch: no waiting on other threads between the phases.
  ParallelFor(pool, params_.batch * blocks_per_image, [&](int64_t begin, int64_t end, int chunk) {
    float* own = scratch + chunk * layout.per_thread;
    for (int64_t item = begin; item < end; ++item) {
      const int64_t n = item / blocks_per_image;
      const int64_t first = (item % blocks_per_image) * layout.block_tiles;
      const int64_t count = std::min(layout.block_tiles, tiles - first);
      block(n, first, count, layout, own);
    }
  });
}

void Conv2dWinograd::Run(const float* input, const float* bias, float* output, ThreadPool* pool,
                         float* scratch) const {
  const int64_t in_image = params_.in_channels * params_.in_h * params_.in_w;
  const int64_t out_image = params_.out_channels * params_.out_h * params_.out_w;
  ForEachBlock(pool, scratch, [&](int64_t n, int64_t first, int64_t count, const Layout& layout,
                                  float* own) {
    RunBlock(input + n * in_image, bias, output + n * out_image, first, count, layout, own);
  });
  if (!fused_activation_) {
    ApplyActivation(params_.activation, output, params_.batch * out_image, pool);
  }
}

bool Conv2dWinograd::SupportsHalf() const {
  return half_v_ && fused_activation_ && table_.fp16_winograd_half_input != nullptr &&
         (half_m_ ? table_.fp16_winograd_half_output != nullptr
                  : table_.fp16_winograd_half_output_from_floats != nullptr);
}

void Conv2dWinograd::RunBlockHalf(const uint16_t* image, const float* bias, uint16_t* out_image,
                                  int64_t first_tile, int64_t tiles, const Layout& layout,
                                  float* scratch) const {
  const ref::Conv2DParams& p = params_;
  const int64_t positions = alpha_ * alpha_;
  const int64_t nr = nr_, mr = mr_;
  const int64_t in_c = p.in_channels;
  // As RunBlock with half V (layout.v_floats is 0), and M of halves or,
  // over more than one block of channels, of floats.
  float* m = scratch;
  uint16_t* v_half = reinterpret_cast<uint16_t*>(m + layout.m_floats);
  uint16_t* m_half = reinterpret_cast<uint16_t*>(m);
  // The GEMM tiles read the last panel's first Fp16GemmCols lanes only:
  // zeroing the rest of it cost a memset per position and input channel
  // (ResNet-18's 7x7 layers: 20 of 24 lanes, 14x14: 8).
  const int64_t last_panel = (CeilDiv(tiles, nr) - 1) * nr;
  const int64_t gemm_lanes = last_panel + Fp16GemmCols(tiles - last_panel);
  // The fields every run of the block shares, set once: only the rows,
  // the first column and the lanes change from run to run.
  WinogradInputRun run = BlockInputRun(tile_, p.in_w, layout.panels, in_c, nr);
  PanelCursor cursor(tiles_w_, first_tile, nr);
  const int64_t zero_panel = tiles / nr, zero_offset = tiles % nr;
  const int64_t zero_count = gemm_lanes - tiles;
  for (int64_t ic = 0; ic < in_c; ++ic) {
    const uint16_t* plane = image + ic * p.in_h * p.in_w;
    ForEachRun(tiles_w_, cursor.first_row(), cursor.first_col(), tiles, [&](const TileRun& tr) {
      const uint16_t* rows[8];
      for (int i = 0; i < alpha_; ++i) {
        const int64_t ih = tr.row * tile_ - p.pad_top + i;
        rows[i] = ih >= 0 && ih < p.in_h ? plane + ih * p.in_w : nullptr;
      }
      run.col0 = tr.col * tile_ - p.pad_left;
      run.lanes = tr.count;
      run.first_lane = tr.lane;
      table_.fp16_winograd_half_input(run, rows, v_half + ic * nr);
    });
    // As in RunBlock: the zero lanes all lie in the last panel.
    for (int64_t xi = 0; zero_count > 0 && xi < positions; ++xi) {
      const int64_t at = ((xi * layout.panels + zero_panel) * in_c + ic) * nr + zero_offset;
      std::fill(v_half + at, v_half + at + zero_count, uint16_t{0});
    }
  }
  const int64_t used_panels = CeilDiv(tiles, nr);
  const int64_t oc_tiles = layout.oc_padded / mr;
  const int64_t pitch = positions * nr;
  std::fill(m, m + layout.m_floats, 0.f);
  const int64_t out_plane = p.out_h * p.out_w;
  // Micro-tiles of output channels per GEMM call: see narrow_group_.
  const int64_t group = narrow_group_;
  for (int64_t ot = 0; ot < oc_tiles; ot += group) {
    const int64_t oc_begin = ot * mr;
    const int64_t group_tiles = std::min(group, oc_tiles - ot);
    cursor.Rewind();
    const int64_t oc_end = std::min<int64_t>(oc_begin + group_tiles * mr, p.out_channels);
    for (int64_t panel = 0; panel < used_panels; ++panel) {
      const int64_t cols = std::min(nr, tiles - panel * nr);
      const int vector_cols = Fp16GemmCols(cols);
      if (!fp16_position_filters_.empty()) {
        // Every position's products in one call, M's rows of a position
        // nr halves apart.
        table_.fp16_gemm_half_positions(in_c, fp16_position_filters_.data(), ot * mr * in_c,
                                        v_half + panel * in_c * nr, layout.panels * in_c * nr,
                                        m_half, nr, pitch, positions, group_tiles, vector_cols);
      }
      for (int64_t xi = 0; fp16_position_filters_.empty() && xi < positions; ++xi) {
        const uint16_t* a_half = fp16_filter_[xi].Panel(ot);
        const uint16_t* b_half = v_half + (xi * layout.panels + panel) * in_c * nr;
        if (half_m_) {
          TileEpilogue plain;
          plain.last = true;
          table_.fp16_gemm_half(in_c, a_half, b_half, m_half + xi * nr, pitch,
                                static_cast<int>(mr), vector_cols, plain);
          continue;
        }
        // More than one block of channels: M sums them in floats.
        for (int64_t pc = 0; pc < in_c; pc += kc_) {
          const int64_t kc = std::min<int64_t>(kc_, in_c - pc);
          TileEpilogue plain;
          plain.accumulate = pc > 0;
          plain.last = pc + kc >= in_c;
          table_.fp16_gemm(kc, a_half + pc * mr, b_half + pc * nr, m + xi * nr, pitch,
                           static_cast<int>(mr), vector_cols, plain);
        }
      }
      WinogradOutputRun run = OutputRunAt(cursor.row(), cursor.col(), cols);
      cursor.Next();
      for (int64_t oc = oc_begin; oc < oc_end; ++oc) {
        run.bias = bias != nullptr ? bias[oc] : 0.f;
        if (half_m_) {
          table_.fp16_winograd_half_output(run, m_half + (oc - oc_begin) * pitch,
                                           out_image + oc * out_plane);
        } else {
          run.in = m + (oc - oc_begin) * pitch;
          table_.fp16_winograd_half_output_from_floats(run, out_image + oc * out_plane);
        }
      }
    }
  }
}

void Conv2dWinograd::RunHalf(const uint16_t* input, const float* bias, uint16_t* output,
                             ThreadPool* pool, float* scratch) const {
  const int64_t in_image = params_.in_channels * params_.in_h * params_.in_w;
  const int64_t out_image = params_.out_channels * params_.out_h * params_.out_w;
  ForEachBlock(pool, scratch, [&](int64_t n, int64_t first, int64_t count, const Layout& layout,
                                  float* own) {
    RunBlockHalf(input + n * in_image, bias, output + n * out_image, first, count, layout, own);
  });
}

}  // namespace ops
}  // namespace mace
