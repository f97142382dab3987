#include "mace/ops/cpu/gemm.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <limits>

#include "mace/ops/cpu/gemm_block.h"
#include "mace/ops/cpu/gemm_pack_panels.h"
#include "mace/runtimes/cpu/scratch_buffer.h"

namespace mace {
namespace ops {
namespace {

using gemm_block::BlockColumns;
using gemm_block::CeilDiv;
using gemm_block::kMaxTileSide;
using gemm_block::PackTailRows;
using gemm_block::RoundUp;

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
  // The vector side is gathered from data or a packer, not from panels.
  return (m == 1 && supported(b.packed) && a.NeedsPacking()) ||
         (n == 1 && supported(a.packed) && b.NeedsPacking());
}

// PanelsTimesVector through the table's vectorized panel kernel; false
// (nothing written) when the table has none for this panel width.
bool PanelsTimesVectorKernel(const KernelTable& table, const PackedPanels& packed, int64_t first,
                             int64_t last, const float* x, int64_t rows, const float* bias,
                             const TileEpilogue& epilogue, float* y, int64_t y_stride) {
  const int width = packed.width();
  if (table.panel_dot == nullptr || width > kMaxTileSide) return false;
  const PanelDotKernel panel_dot = GemmPanelDot(table, width);
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
template <int kWidth>
void PackAdjacentRows(const float* src, int64_t rows, int64_t depth, int64_t depth_stride,
                      float* dst) {
  const int64_t full = rows / kWidth;
  const int tail = static_cast<int>(rows - full * kWidth);
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
    if (PackAdjacentPanels(src, rows, depth, depth_stride, width, dst)) return;
    switch (width) {
      case 6:
        return PackAdjacentRows<6>(src, rows, depth, depth_stride, dst);
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
    if (PackContiguousDepthPanels(src, rows, depth, stride, width, dst)) return;
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
  view_ = nullptr;
  rows_ = rows;
  depth_ = depth;
  width_ = width;
  // PackPanels writes every float, the padding rows too. Storage of its
  // own that already has the size is kept: an operand packed on every run
  // (attention's K and V, 4.6 MiB a layer in Whisper-tiny) would otherwise
  // map and fault in fresh pages each time.
  const int64_t floats = RoundUp(rows, width) * depth;
  const bool keep = arena == nullptr && storage_.data() != nullptr && !storage_.in_arena() &&
                    storage_.size() == floats;
  if (!keep) storage_.AllocateUnfilled(floats, arena);
  PackPanels(src, rows, depth, stride, depth_stride, width, storage_.data());
}

void PackedPanels::View(const float* data, int64_t rows, int64_t depth, int width) {
  view_ = data;
  rows_ = rows;
  depth_ = depth;
  width_ = width;
}

int64_t GemmScratchFloatsPerThread(const KernelTable& table, int64_t m, int64_t n, int64_t k,
                                   const GemmOperand& a, const GemmOperand& b) {
  int64_t floats = 0;
  if (IsVectorCase(m, n, a, b)) return ThreadRegionFloats(k);  // the gathered vector
  const int64_t kc = GemmReductionDepth(table, k);
  if (a.NeedsPacking()) floats += int64_t{table.mc} * kc;
  if (b.NeedsPacking()) floats += BlockColumns(table, n) * kc;
  floats += GemmPortScratchFloats(table, m, n, kc);
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
                   double b_panel_cost, int* tm, int* tn, bool ties_split_m) {
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
    if (best < 0 || share < best || (share == best && !ties_split_m)) {
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
  double a_panel_cost = a.NeedsPacking() ? kPackedPanelCost : kPrepackedPanelCost;
  double b_panel_cost = b.NeedsPacking() ? kPackedPanelCost : kPrepackedPanelCost;
  // FullyConnected's orientation (MatMul's with a constant B too): the
  // activations are A, packed per call, and the weight is B, prepacked.
  // A weight panel is nr columns wide, nr / mr times the floats of conv's
  // mr-row weight panel, and when M is split both cores stream all of it
  // from L3 or memory. An A panel copies mr / nr of a B panel's floats, but
  // gathers them from mr rows of contiguous depth, about twice a copy's
  // cost per float (more where mr is not a multiple of 4, as AVX2's 6).
  // With cold weights at two AVX-512 threads, 128 tokens ran 5-12 % faster
  // split over N (each thread packing all of A, reading half the weight)
  // and 197 tokens into 576 features 6 %; 1500 tokens into 1152 and 1536
  // features ran 10 % slower so. On AVX2 these costs keep 128 and 197
  // tokens of 384 and 192 features split over M, where N measured no
  // faster.
  const bool weight_b = a.NeedsPacking() && !b.NeedsPacking();
  if (weight_b) {
    a_panel_cost = 2 * kPackedPanelCost * table.mr / table.nr;
    b_panel_cost = kPrepackedPanelCost * table.nr / table.mr;
  }
  // Its ties go to an M split, which packs nothing twice and leaves each
  // thread whole rows of the output, as the row-split ops that follow
  // (LayerNorm, the residual Add) read them.
  SplitGemmGrid(m, n, table.mr, table.nr, threads, a_panel_cost, b_panel_cost, &tm, &tn, weight_b);
  if (threads > 1 && weight_b) {
    // Cells over N would each pack their rows of A again (50 tokens, warm
    // weights, ran 18 % faster in two column cells than in six), but cells
    // over M pack nothing twice (each packs its own rows of A) and only
    // read the weight again, from L2 once a cell has brought its block in.
    // So an M split gets up to four cells per thread while a cell keeps
    // half an A block (mc / 2 rows), and the pool can move cells off a
    // stalled core: 1500 tokens ran 7-11 % faster in eight cells than in
    // two.
    const int64_t m_tiles = CeilDiv(m, table.mr);
    const int64_t cell_tiles = std::max<int64_t>(1, table.mc / table.mr / 2);
    const int64_t finer = std::min<int64_t>(4, m_tiles / (int64_t{tm} * cell_tiles));
    if (finer > 1) tm *= static_cast<int>(finer);
  } else if (threads > 1) {
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
