// The tile walk of one thread's block of a Gemm call (gemm.h), shared by
// every port: packing, blocking and the walk are here, and a port adds its
// own runs of tiles through the hooks of a `Port` class (see PlainGemmPort
// below for what each hook does). Each port instantiates GemmBlockWalk once
// in its gemm_port file (cpu/gemm_port.cc, arm/gemm_port_aarch64.cc,
// arm/gemm_port_armv7.cc; BUILD.bazel picks the file), with hooks inline
// there, so a port without runs of its own compiles to the plain walk.
#ifndef MACE_OPS_CPU_GEMM_BLOCK_H_
#define MACE_OPS_CPU_GEMM_BLOCK_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "mace/ops/cpu/gemm.h"

namespace mace {
namespace ops {

struct GemmCall {
  const KernelTable* table;
  int64_t m, n, k;
  const GemmOperand* a;
  const GemmOperand* b;
  float* c;
  int64_t ldc;
  const TileEpilogue* epilogue;
};

// Defined by each port's gemm_port file.
//
// One thread's share: rows [m0, m1) and columns [n0, n1) of C.
void GemmBlock(const GemmCall& call, int64_t m0, int64_t m1, int64_t n0, int64_t n1,
               float* scratch);
// The run kernel a walk's full tiles go to: the table's, or one of the
// port's. Null where there is none.
GemmRunMicroKernel GemmRunKernel(const KernelTable& table);
// How many columns past nc a column block may take.
int64_t GemmColumnSlack(const KernelTable& table);
// Scratch floats a thread needs beyond the A and B blocks, for reduction
// blocks of kc.
int64_t GemmPortScratchFloats(const KernelTable& table, int64_t m, int64_t n, int64_t kc);
// PackPanels for rows adjacent in memory (stride 1) in the port's own way;
// false (nothing written) where it has none for `width`.
bool PackAdjacentPanels(const float* src, int64_t rows, int64_t depth, int64_t depth_stride,
                        int width, float* dst);
// The kernel for panels of `width` that PanelsTimesVector runs:
// table.panel_dot or one of the port's.
PanelDotKernel GemmPanelDot(const KernelTable& table, int width);

namespace gemm_block {

inline int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
inline int64_t RoundUp(int64_t a, int64_t b) { return CeilDiv(a, b) * b; }

// The largest micro-tile of any table (AVX2 6 x 16, AVX-512 8 x 32) and its
// longest side; partial tiles are staged here.
constexpr int kMaxTile = 16 * 16;
constexpr int kMaxTileSide = 32;
// A B block (kc x nc) up to this size is walked rows outer (see GemmBlock):
// 32 KiB, within every table's L1.
constexpr int64_t kRowsOuterBlockFloats = 8 * 1024;

// The most columns of a B block.
inline int64_t BlockColumns(const KernelTable& t, int64_t n) {
  return std::min<int64_t>(t.nc + GemmColumnSlack(t), RoundUp(n, t.nr));
}

// A block of `operand` as micro-kernel panels: `first` points at the panel
// for row `row0` and consecutive panels are `panel_stride` floats apart.
struct PanelBlock {
  const float* first = nullptr;
  int64_t panel_stride = 0;
};

inline PanelBlock PreparePanels(const GemmOperand& operand, int width, int64_t row0, int64_t rows,
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
inline void PartialTile(const KernelTable& table, int64_t kc, const float* a, const float* b,
                        float* c, int64_t ldc, int rows, int cols, const TileEpilogue& epilogue) {
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

// The last panel of PackAdjacentRows (gemm.cc), `tail` (< kWidth) rows then
// zeros.
template <int kWidth>
void PackTailRows(const float* run, int tail, int64_t depth, int64_t depth_stride, float* dst) {
  for (int64_t d = 0; d < depth; ++d) {
    float padded[kWidth] = {0};
    std::memcpy(padded, run + d * depth_stride, tail * sizeof(float));
    std::memcpy(dst + d * kWidth, padded, kWidth * sizeof(float));
  }
}

// The walk's indices and steps are offsets within the A, B and C buffers,
// so ptrdiff_t holds them: on armv7 one register each, where int64_t took
// register pairs, multiply sequences and a library call for each division
// (the same type elsewhere).
using Offset = std::ptrdiff_t;

// A port with no runs of its own: every hook declines. A Port has these
// members; `port` is constructed once a block, with the call, the reduction
// depth and the B block's buffer.
struct PlainGemmPort {
  PlainGemmPort(const GemmCall&, int64_t, float*) {}
  // Once per B block of nc columns and kc depths, after packing it.
  void StartColumns(const KernelTable&, const TileEpilogue&, int64_t, int64_t, int64_t,
                    const PanelBlock&) {}
  // Once per block of mc rows starting at row `ic`, for this B block.
  void StartRows(GemmRunMicroKernel, const TileEpilogue&, int64_t, int64_t, int) {}
  // A partial tile (rows x cols) in one call; false where not.
  bool PartialTile(const KernelTable&, int64_t, const float*, const float*, float*, int64_t, int,
                   int, const TileEpilogue&) const {
    return false;
  }
  // Whether a last row panel of 4 or 2 rows, columns outer, runs as one row
  // of tiles after the walk (RowTail).
  static constexpr bool kRowTails = false;
  bool TakesRowTail(const KernelTable&, GemmRunMicroKernel, const TileEpilogue&) const {
    return false;
  }
  // Columns outer, on the first column panel of a prefetched A: `tiles`
  // full tiles down it, the first prefetch_tiles prefetching A two panels
  // ahead, in one call; false (nothing done) where not.
  static constexpr bool kFirstWalkRuns = false;
  bool FirstWalkRun(const KernelTable&, GemmRunMicroKernel, const TileEpilogue&, Offset, Offset,
                    int64_t, const float*, Offset, const float*, float*, Offset, Offset,
                    const float*, const float*, TileEpilogue*) const {
    return false;
  }
  // Columns outer, the `panels` full column panels from `outer` on in one
  // call; false (nothing done) where not.
  static constexpr bool kPanelRuns = false;
  bool PanelsRun(const KernelTable&, const TileEpilogue&, Offset, Offset, Offset, Offset, Offset,
                 int64_t, const float*, Offset, const float*, float*, Offset, Offset, const float*,
                 const TileEpilogue&) const {
    return false;
  }
  // A run of `run` full tiles in the port's own call, instead of the run
  // kernel's; false (nothing done) where not.
  static constexpr bool kRuns = false;
  bool Run(const KernelTable&, const TileEpilogue&, bool, Offset, int64_t, const float*,
           const float*, Offset, float*, Offset, Offset, Offset, const TileEpilogue&) const {
    return false;
  }
  // Columns outer, a last column panel of 4 columns or 1 at `outer`, its
  // full row panels in one call; false (nothing done) where not.
  static constexpr bool kColumnTails = false;
  bool ColumnTail(const KernelTable&, GemmRunMicroKernel, const TileEpilogue&, int, bool, Offset,
                  Offset, int64_t, const float*, Offset, const float*, float*, Offset, Offset,
                  const float*, TileEpilogue*) const {
    return false;
  }
  // The row of tiles TakesRowTail chose, after the walk.
  void RowTail(const KernelTable&, const TileEpilogue&, int, Offset, Offset, int64_t, const float*,
               const float*, Offset, float*, Offset, const float*, TileEpilogue*) const {}
};

template <class Port>
void GemmBlockWalk(const GemmCall& call, int64_t m0, int64_t m1, int64_t n0, int64_t n1,
                   float* scratch) {
  const KernelTable& t = *call.table;
  const int mr = t.mr, nr = t.nr;
  // A plain A with adjacent depth (FullyConnected's and MatMul's
  // activations) is read in place by full tiles where the table has a
  // kernel for it: packing it cost 5-6 % of a transformer's
  // FullyConnected. Partial tiles pack their rows first. The runs of
  // tiles below all take panels, so they are left out then.
  const bool direct_a = t.gemm_direct_a != nullptr && call.a->packed == nullptr &&
                        call.a->packer == nullptr && call.a->depth_stride == 1;
  const int64_t lda = call.a->stride;
  const GemmRunMicroKernel gemm_run = direct_a ? nullptr : GemmRunKernel(t);
  float* a_buffer = scratch;
  // Matches GemmScratchFloatsPerThread: the A block first, then the B block.
  const int64_t depth = GemmReductionDepth(t, call.k);
  float* b_buffer = scratch + (call.a->NeedsPacking() ? int64_t{t.mc} * depth : 0);
  const int64_t nc_slack = GemmColumnSlack(t);
  Port port(call, depth, b_buffer);
  for (int64_t jc = n0, nc = 0; jc < n1; jc += nc) {
    nc = n1 - jc <= t.nc + nc_slack ? n1 - jc : t.nc;
    for (int64_t pc = 0; pc < call.k; pc += depth) {
      const int64_t kc = std::min<int64_t>(depth, call.k - pc);
      const PanelBlock b = PreparePanels(*call.b, nr, jc, nc, pc, kc, b_buffer);
      TileEpilogue epilogue = *call.epilogue;
      epilogue.accumulate = pc > 0;
      epilogue.last = pc + kc == call.k;
      port.StartColumns(t, *call.epilogue, m1 - m0, nc, kc, b);
      for (int64_t ic = m0; ic < m1; ic += t.mc) {
        const int64_t mc = std::min<int64_t>(t.mc, m1 - ic);
        const PanelBlock a = direct_a ? PanelBlock{call.a->data + ic * lda + pc, mr * lda}
                                      : PreparePanels(*call.a, mr, ic, mc, pc, kc, a_buffer);
        // Read in place, a last panel of fewer than mr rows is packed once
        // for every column panel's tile.
        const int64_t a_tail_rows = direct_a ? mc % mr : 0;
        if (a_tail_rows != 0) {
          PackPanels(a.first + (mc - a_tail_rows) / mr * a.panel_stride, a_tail_rows, kc, lda, 1,
                     mr, a_buffer);
        }
        port.StartRows(gemm_run, epilogue, ic, mc, mr);
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
        // A block of one column panel (attention's products with a block
        // of nr queries) walks columns outer: the tiles come in the same
        // order, and its full ones make one run (rows outer, each inner
        // walk would be a single tile).
        const bool rows_outer = kc * nc <= kRowsOuterBlockFloats && nc > nr;
        // A prepacked B (a FullyConnected or MatMul weight) is as cold, and
        // no tile asks for it: the hardware prefetcher restarts at every B
        // micro-panel, and a block of 128 rows (16 tiles of 8) spends the
        // first of them waiting on it. So, columns outer, the first tiles
        // of each column panel's walk hand the kernel a slice of the next
        // B micro-panel (mr x kc floats each, ceil(nr / mr) slices), which
        // it fetches as it fetches A's. BERT-mini's 128-token layers with
        // cold weights (BM_SgemmFcColdWeights) ran 5-18 % faster on an
        // AVX-512 core; a 1500-row walk, whose tiles hide the first fetch
        // anyway, within noise.
        const bool prefetch_b =
            !prefetch_a && !rows_outer && t.gemm_prefetches_a && call.b->packed != nullptr;
        const int64_t b_slices = (nr + mr - 1) / mr;
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
          } else if (prefetch_b && ir < b_slices * mr && jc + jr + nr < call.n) {
            // Panels are consecutive: past the block's last one lies the
            // next block's first, at the same depth.
            tile.prefetch_a = b_panel + b.panel_stride + ir * kc;
          }
          tile.row_bias = epilogue.row_bias != nullptr ? epilogue.row_bias + ic + ir : nullptr;
          tile.col_bias = epilogue.col_bias != nullptr ? epilogue.col_bias + jc + jr : nullptr;
          if (direct_a) {
            if (rows < mr) {
              a_panel = a_buffer;
            } else if (cols == nr) {
              t.gemm_direct_a(kc, a_panel, lda, b_panel, c, call.ldc, tile);
              return;
            } else {
              // A full row panel over a last, partial column panel.
              PackPanels(a_panel, rows, kc, lda, 1, mr, a_buffer + mr * kc);
              a_panel = a_buffer + mr * kc;
            }
          }
          if (rows == mr && cols == nr) {
            t.gemm(kc, a_panel, b_panel, c, call.ldc, tile);
          } else if (port.PartialTile(t, kc, a_panel, b_panel, c, call.ldc, rows, cols, tile)) {
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
        const Offset block_rows = static_cast<Offset>(mc), block_cols = static_cast<Offset>(nc);
        const Offset ldc = static_cast<Offset>(call.ldc);
        const Offset c_tile_rows = mr * ldc;
        // Columns outer, a last row panel of 4 or 2 rows under the full
        // column panels may run as one row of tiles after the walk.
        const int tail_rows = static_cast<int>(block_rows % mr);
        const bool row_tail_after = Port::kRowTails && !direct_a && !rows_outer &&
                                    block_cols >= nr && (tail_rows == 4 || tail_rows == 2) &&
                                    port.TakesRowTail(t, gemm_run, epilogue);
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
          if (Port::kFirstWalkRuns && prefetch_a && !rows_outer && outer == 0 && outer_full &&
              full_inner >= 1) {
            const Offset panels = full_inner + (full_inner * inner_step < inner_end ? 1 : 0);
            if (port.FirstWalkRun(t, gemm_run, epilogue, full_inner,
                                  std::max<Offset>(0, panels - 2), kc, inner_panel, inner_stride,
                                  outer_panel, c, inner_c_step, ldc, row_bias, col_bias, &tile)) {
              inner = full_inner * inner_step;
              inner_panel += full_inner * inner_stride;
              c += full_inner * inner_c_step;
            }
          }
          // Columns outer, the full column panels from here on, whose row
          // panels are all full or leave a row tail for after the walk.
          if (Port::kPanelRuns && !direct_a && !rows_outer && outer_full && full_inner > 0 &&
              run_begin == 0 && (tail_rows == 0 || row_tail_after)) {
            const Offset panels = (outer_end - outer) / outer_step;
            if (port.PanelsRun(t, epilogue, panels, outer, outer_stride, outer_c_step, full_inner,
                               kc, inner_panel, inner_stride, outer_panel, c, inner_c_step, ldc,
                               row_bias, tile)) {
              // The loop's step moves past the last of them.
              outer += (panels - 1) * outer_step;
              outer_panel += (panels - 1) * outer_stride;
              c_outer += (panels - 1) * outer_c_step;
              continue;
            }
          }
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
            if (Port::kRuns && port.Run(t, epilogue, rows_outer, run, kc, outer_panel, inner_panel,
                                        inner_stride, c, inner_c_step, ldc, ir, tile)) {
              // The port ran the tiles.
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
          const Offset last_cols = outer_end - outer;
          if (Port::kColumnTails && !direct_a && !rows_outer &&
              (last_cols == 4 || last_cols == 1) && full_inner > 0 && !(prefetch_a && outer == 0) &&
              port.ColumnTail(t, gemm_run, epilogue, static_cast<int>(last_cols), outer_full, outer,
                              full_inner, kc, inner_panel, inner_stride, outer_panel, c,
                              inner_c_step, ldc, row_bias, &tile)) {
            inner = full_inner * inner_step;
            inner_panel += full_inner * inner_stride;
            c += full_inner * inner_c_step;
          }
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
        if (row_tail_after) {
          // full_inner is mc / mr here (columns outer).
          const Offset ir = full_inner * mr;
          port.RowTail(t, epilogue, tail_rows, ir, block_cols / nr, kc,
                       a.first + full_inner * inner_stride, b.first, outer_stride,
                       call.c + (ic + ir) * call.ldc + jc, ldc,
                       row_bias != nullptr ? row_bias + ir : nullptr, &tile);
        }
      }
    }
  }
}

}  // namespace gemm_block
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_GEMM_BLOCK_H_
