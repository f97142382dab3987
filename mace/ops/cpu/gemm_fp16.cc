#include "mace/ops/cpu/gemm_fp16.h"

#include <algorithm>
#include <vector>

#include "mace/runtimes/cpu/scratch_buffer.h"

namespace mace {
namespace ops {
namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Floats that hold `halves` half values.
int64_t HalfFloats(int64_t halves) { return (halves + 1) / 2; }

// Packs columns [col0, col0 + cols) and depth [depth0, depth0 + depth) of B
// into one float panel of `width`.
void PackColumns(const GemmOperand& b, int64_t col0, int64_t cols, int64_t depth0, int64_t depth,
                 int width, float* dst) {
  if (b.packer != nullptr) {
    b.packer(b.packer_context, col0, cols, depth0, depth, width, dst);
  } else {
    PackPanels(b.data + col0 * b.stride + depth0 * b.depth_stride, cols, depth, b.stride,
               b.depth_stride, width, dst);
  }
}

float Activate(float v, const TileEpilogue& epilogue) {
  switch (epilogue.activation) {
    case kTileActClamp:
      return std::min(std::max(v, epilogue.lo), epilogue.hi);
    case kTileActHardSwish:
      return v * std::min(std::max(v + 3.f, 0.f), 6.f) * (1.f / 6.f);
    default:
      return v;
  }
}

// The tiles of C, column panel by column panel, in reduction blocks of
// `block` steps: `pack` fills a thread's half B panel (from its float panel
// scratch when it needs one), `tile` is the table's tile for C's type. A thread's scratch: per_thread floats, a
// float panel of kc x nr first when there is room for one and the half
// panel after it.
template <typename CT, typename PackFn>
void TileLoop(const KernelTable& table, int64_t m, int64_t n, int64_t k, int64_t block,
              const Fp16Panels& a, CT* c, int64_t ldc, const TileEpilogue& epilogue,
              ThreadPool* pool, float* scratch, int64_t per_thread,
              void (*tile_fn)(int64_t, const uint16_t*, const uint16_t*, CT*, int64_t, int, int,
                              const TileEpilogue&),
              const PackFn& pack,
              void (*rows_fn)(int64_t, const uint16_t*, int64_t, const uint16_t*, CT*, int64_t,
                              int64_t, const TileEpilogue&) = nullptr) {
  const int mr = table.fp16_mr, nr = table.fp16_nr;
  const int64_t kc = std::min(block, k);
  const int64_t col_panels = CeilDiv(n, nr);
  const int64_t half_floats = ThreadRegionFloats(HalfFloats(kc * nr));
  const uint16_t* const a_panels = a.Panel(0);
  const int64_t a_panel_halves = static_cast<int64_t>(mr) * a.depth();
  ParallelFor(pool, col_panels, [&](int64_t begin, int64_t end, int chunk) {
    float* panel = scratch + chunk * per_thread;
    // The half panel ends the thread's scratch.
    uint16_t* half = reinterpret_cast<uint16_t*>(panel + per_thread - half_floats);
    // Locals for the tile loop: as far as the compiler knows a tile call may
    // change what the captured references see, and reloading them per tile
    // cost as much as the call.
    const int64_t rows = m, depth_k = k, steps = kc, c_stride = ldc;
    const int64_t tile_rows = mr;
    CT* const c0 = c;
    const float* const row_bias = epilogue.row_bias;
    const uint16_t* const a0 = a_panels;
    const int64_t a_stride = a_panel_halves;
    const auto tile_call = tile_fn;
    const auto rows_call = rows_fn;
    // Whole tiles down a full panel go to rows_fn in one call.
    const int64_t whole_rows = rows_fn != nullptr ? rows / tile_rows * tile_rows : 0;
    for (int64_t j = begin; j < end; ++j) {
      const int64_t col0 = j * nr;
      const int cols = static_cast<int>(std::min<int64_t>(nr, n - col0));
      for (int64_t d0 = 0; d0 < depth_k; d0 += steps) {
        const int64_t depth = std::min(steps, depth_k - d0);
        pack(col0, cols, d0, depth, panel, half);
        TileEpilogue tile = epilogue;
        tile.accumulate = d0 > 0;
        tile.last = d0 + depth >= depth_k;
        const uint16_t* a_block = a0 + d0 * tile_rows;
        CT* c_tile = c0 + col0;
        int64_t first_row = 0;
        if (whole_rows > 0 && cols == nr) {
          tile.row_bias = row_bias;
          rows_call(depth, a_block, a_stride, half, c_tile, c_stride, whole_rows / tile_rows, tile);
          first_row = whole_rows;
          a_block += whole_rows / tile_rows * a_stride;
          c_tile += whole_rows * c_stride;
        }
        for (int64_t row0 = first_row; row0 < rows;
             row0 += tile_rows, a_block += a_stride, c_tile += tile_rows * c_stride) {
          tile.row_bias = row_bias != nullptr ? row_bias + row0 : nullptr;
          tile_call(depth, a_block, half, c_tile, c_stride,
                    static_cast<int>(std::min(tile_rows, rows - row0)), cols, tile);
        }
      }
    }
  });
}

}  // namespace

void Fp16Panels::Pack(const KernelTable& table, const float* src, int64_t rows, int64_t depth,
                      int64_t stride, int64_t depth_stride, PersistentArena* arena) {
  rows_ = rows;
  depth_ = depth;
  width_ = table.fp16_mr;
  const int64_t count = CeilDiv(rows, width_) * width_ * depth;
  std::vector<float> panels(static_cast<size_t>(count));
  PackPanels(src, rows, depth, stride, depth_stride, width_, panels.data());
  storage_.Allocate(HalfFloats(count), arena);
  table.fp16_from_float(panels.data(), count, reinterpret_cast<uint16_t*>(storage_.data()));
}

int64_t Fp16GemmScratchFloatsPerThread(const KernelTable& table, int64_t n, int64_t k) {
  // A float panel and its half copy: kc x nr for tiles, k x 1 for a vector.
  const int64_t values = n == 1 ? k : std::min<int64_t>(table.fp16_kc, k) * table.fp16_nr;
  return ThreadRegionFloats(values) + ThreadRegionFloats(HalfFloats(values));
}

void Fp16Gemm(const KernelTable& table, int64_t m, int64_t n, int64_t k, const Fp16Panels& a,
              const GemmOperand& b, float* c, int64_t ldc, const TileEpilogue& epilogue,
              ThreadPool* pool, float* scratch) {
  const int mr = table.fp16_mr, nr = table.fp16_nr;
  const int64_t row_panels = CeilDiv(m, mr);
  const int64_t per_thread = Fp16GemmScratchFloatsPerThread(table, n, k);
  if (n == 1) {
    // One column: convert it once, then one panel product per mr rows.
    float* column = scratch;
    uint16_t* half = reinterpret_cast<uint16_t*>(scratch + ThreadRegionFloats(k));
    PackColumns(b, 0, 1, 0, k, 1, column);
    table.fp16_from_float(column, k, half);
    ParallelFor(pool, row_panels, [&](int64_t begin, int64_t end) {
      for (int64_t p = begin; p < end; ++p) {
        float sums[16];
        table.fp16_panel_dot(a.Panel(p), k, half, sums);
        const int64_t rows = std::min<int64_t>(mr, m - p * mr);
        for (int64_t r = 0; r < rows; ++r) {
          const int64_t row = p * mr + r;
          const float bias = epilogue.row_bias != nullptr ? epilogue.row_bias[row] : 0.f;
          c[row * ldc] = Activate(sums[r] + bias, epilogue);
        }
      }
    });
    return;
  }
  TileLoop(table, m, n, k, table.fp16_kc, a, c, ldc, epilogue, pool, scratch, per_thread,
           table.fp16_gemm,
           [&](int64_t col0, int cols, int64_t d0, int64_t depth, float* panel, uint16_t* half) {
             if (b.packer == nullptr && b.stride == 1 && table.fp16_pack_columns != nullptr) {
               // Adjacent columns (a 1x1 convolution's input rows): one pass.
               table.fp16_pack_columns(b.data + col0 + d0 * b.depth_stride, cols, depth,
                                       b.depth_stride, half);
             } else {
               PackColumns(b, col0, cols, d0, depth, nr, panel);
               table.fp16_from_float(panel, depth * nr, half);
             }
           });
}

int64_t Fp16GemmHalfBlock(const KernelTable& table, int64_t k) {
  return k <= kFp16HalfOneBlockDepth ? k : table.fp16_kc;
}

int64_t Fp16GemmHalfScratchFloatsPerThread(const KernelTable& table, int64_t k) {
  // One half B panel of the larger block of Fp16GemmHalf and Fp16GemmHalfPanels.
  const int64_t depth = std::max(std::min<int64_t>(table.fp16_kc, k), Fp16GemmHalfBlock(table, k));
  return ThreadRegionFloats(HalfFloats(depth * table.fp16_nr));
}

void Fp16GemmHalf(const KernelTable& table, int64_t m, int64_t n, int64_t k, const Fp16Panels& a,
                  const uint16_t* b, int64_t b_depth_stride, uint16_t* c, int64_t ldc,
                  const TileEpilogue& epilogue, ThreadPool* pool, float* scratch) {
  const int64_t per_thread = Fp16GemmHalfScratchFloatsPerThread(table, k);
  TileLoop(table, m, n, k, Fp16GemmHalfBlock(table, k), a, c, ldc, epilogue, pool, scratch,
           per_thread, table.fp16_gemm_half,
           [&](int64_t col0, int cols, int64_t d0, int64_t depth, float* /*panel*/,
               uint16_t* half) {
             table.fp16_pack_half_columns(b + col0 + d0 * b_depth_stride, cols, depth,
                                          b_depth_stride, half);
           },
           table.fp16_gemm_half_rows);
}

void Fp16GemmHalfPanels(const KernelTable& table, int64_t m, int64_t n, int64_t k,
                        const Fp16Panels& a, Fp16HalfPacker packer, const void* context, float* c,
                        int64_t ldc, const TileEpilogue& epilogue, ThreadPool* pool,
                        float* scratch) {
  const int64_t per_thread = Fp16GemmHalfScratchFloatsPerThread(table, k);
  const int nr = table.fp16_nr;
  TileLoop(table, m, n, k, table.fp16_kc, a, c, ldc, epilogue, pool, scratch, per_thread,
           table.fp16_gemm,
           [&](int64_t col0, int cols, int64_t d0, int64_t depth, float* /*panel*/,
               uint16_t* half) { packer(context, col0, cols, d0, depth, nr, half); });
}

void Fp16GemmHalfPanelsToHalves(const KernelTable& table, int64_t m, int64_t n, int64_t k,
                                const Fp16Panels& a, Fp16HalfPacker packer, const void* context,
                                uint16_t* c, int64_t ldc, const TileEpilogue& epilogue,
                                ThreadPool* pool, float* scratch) {
  const int64_t per_thread = Fp16GemmHalfScratchFloatsPerThread(table, k);
  const int nr = table.fp16_nr;
  TileLoop(table, m, n, k, table.fp16_kc, a, c, ldc, epilogue, pool, scratch, per_thread,
           table.fp16_gemm_half,
           [&](int64_t col0, int cols, int64_t d0, int64_t depth, float* /*panel*/,
               uint16_t* half) { packer(context, col0, cols, d0, depth, nr, half); },
           table.fp16_gemm_half_rows);
}

}  // namespace ops
}  // namespace mace
