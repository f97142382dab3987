// Packed, cache-blocked SGEMM over the micro-kernel of a KernelTable:
//   C[m, n] (row stride ldc) = A[m, k] x B[k, n], then bias and activation.
//
// Operands are packed into panels: A into panels of mr rows, B into panels
// of nr columns, each holding k groups of mr (nr) values so the micro-kernel
// reads both sequentially. Weights are packed once (PackedPanels, in an op's
// Prepare); other operands are packed block by block into scratch during the
// call, either from a strided matrix or through a custom packer (im2col).
//
// Blocking follows the usual layered scheme (Goto, BLIS): for each nc-wide
// block of B and kc-deep slice of the reduction, pack B once, then walk mc-row
// blocks of A and run micro-tiles over them.
//
// Threads split the output into a grid of (M ranges) x (N ranges) chosen to
// balance tiles, with N cut further into up to four cells per thread while
// a cell still spans a whole B block, so the pool can rebalance cells when
// a core stalls; with a prepacked B and A packed in the call
// (FullyConnected), M is cut instead while a cell keeps half an A block,
// since cells over N would pack A again. Each thread packs what it reads
// into its own scratch, so threads never wait on each other.
#ifndef MACE_OPS_CPU_GEMM_H_
#define MACE_OPS_CPU_GEMM_H_

#include <cstdint>
#include <vector>

#include "mace/ops/cpu/kernel_table.h"
#include "mace/runtimes/cpu/persistent_arena.h"
#include "mace/runtimes/cpu/thread_pool.h"

namespace mace {
namespace ops {

// Copies a rows x depth matrix, element (i, d) = src[i * stride + d *
// depth_stride], into panels of `width` rows: panel p holds depth groups of
// width values, rows past the end zero-filled.
void PackPanels(const float* src, int64_t rows, int64_t depth, int64_t stride, int64_t depth_stride,
                int width, float* dst);

// A whole operand packed once, e.g. a weight matrix in Prepare. The panels
// live in the engine's persistent arena when one is given (so the memory
// report counts them), else in storage of their own.
class PackedPanels {
 public:
  // Movable (a moved vector keeps its buffer, so data_ stays valid), not
  // copyable (a copy would point into the original's storage).
  PackedPanels() = default;
  PackedPanels(PackedPanels&&) = default;
  PackedPanels& operator=(PackedPanels&&) = default;
  PackedPanels(const PackedPanels&) = delete;
  PackedPanels& operator=(const PackedPanels&) = delete;

  void Pack(const float* src, int64_t rows, int64_t depth, int64_t stride, int64_t depth_stride,
            int width, PersistentArena* arena = nullptr);
  // Panels already in PackPanels' layout at `data`, read in place (not
  // owned; they must outlive every use of this object or the next View).
  void View(const float* data, int64_t rows, int64_t depth, int width);
  // Panel `index` covers rows [index * width, (index + 1) * width).
  const float* Panel(int64_t index) const { return Data() + index * width_ * depth_; }
  int64_t rows() const { return rows_; }
  int64_t depth() const { return depth_; }
  int width() const { return width_; }
  // Whether the panels are in a persistent arena rather than own storage.
  bool in_arena() const { return view_ == nullptr && storage_.in_arena(); }

 private:
  const float* Data() const { return view_ != nullptr ? view_ : storage_.data(); }

  PersistentFloats storage_;
  const float* view_ = nullptr;
  int64_t rows_ = 0, depth_ = 0;
  int width_ = 0;
};

// Fills panels of `width` for rows [row0, row0 + rows) and reduction indices
// [depth0, depth0 + depth) of an operand that is computed rather than stored
// (like im2col of an image), in PackPanels' layout.
using PanelPacker = void (*)(const void* context, int64_t row0, int64_t rows, int64_t depth0,
                             int64_t depth, int width, float* dst);

// One GEMM operand, seen as rows x depth: A is m x k, B is n x k (its
// columns are the rows here). Exactly one source is used, in this order:
// `packed`, `packer`, `data`.
struct GemmOperand {
  const float* data = nullptr;
  int64_t stride = 0;        // between rows of A, or columns of B
  int64_t depth_stride = 0;  // between consecutive k
  const PackedPanels* packed = nullptr;
  PanelPacker packer = nullptr;
  const void* packer_context = nullptr;

  bool NeedsPacking() const { return packed == nullptr; }
};

// The depth of the reduction blocks Gemm cuts k into (the last may be
// shallower): min(k, table.kc), or deeper blocks on arm64 and armv7 NEON.
int64_t GemmReductionDepth(const KernelTable& table, int64_t k);

// Scratch floats the call needs per thread.
int64_t GemmScratchFloatsPerThread(const KernelTable& table, int64_t m, int64_t n, int64_t k,
                                   const GemmOperand& a, const GemmOperand& b);

// `scratch` holds NumThreads(pool) * GemmScratchFloatsPerThread floats.
// epilogue.row_bias has m values and col_bias n values (either may be null);
// the driver sets `accumulate` and `last` per reduction block. k must be > 0.
void Gemm(const KernelTable& table, int64_t m, int64_t n, int64_t k, const GemmOperand& a,
          const GemmOperand& b, float* c, int64_t ldc, const TileEpilogue& epilogue,
          ThreadPool* pool, float* scratch);

// Whether the table's panel_dot takes panels of width 1, which
// RowsTimesVector needs.
bool RowsTimesVectorSupported(const KernelTable& table);

// y[i] = bias[i] + sum over d < depth of rows[i * stride + d] * x[d], for i <
// count, then the epilogue's clamp or hard swish: a row-major matrix read in
// place, row by row, times a vector (a batch-1 FullyConnected whose weight is
// not packed), the rows split over the pool. bias may be null.
void RowsTimesVector(const KernelTable& table, const float* rows, int64_t count, int64_t depth,
                     int64_t stride, const float* x, const float* bias,
                     const TileEpilogue& epilogue, float* y, ThreadPool* pool);

// Range `part` of `parts` over [0, total): inner boundaries are the
// multiples of `align` nearest to equal shares, so ranges start on whole
// tiles and a partial last tile counts for what it holds (n = 196 in panels
// of 32 splits 96 + 100, not 128 + 68).
void AlignedRange(int64_t total, int64_t align, int parts, int part, int64_t* begin, int64_t* end);

// Splits `threads` into a tm x tn grid over an m x n product (tiles mr x
// nr) that minimizes the largest thread's cost: its tiles, with a partial
// column tile counted by its columns, plus a_panel_cost for each A panel
// and b_panel_cost for each B panel it must bring in (in tiles' worth of
// work). Every thread packs the B panels of its columns for each of its row
// ranges, so splitting M repeats B's packing, and splitting N repeats A's.
// Ties favour splitting N, or M with ties_split_m.
void SplitGemmGrid(int64_t m, int64_t n, int mr, int nr, int threads, double a_panel_cost,
                   double b_panel_cost, int* tm, int* tn, bool ties_split_m = false);

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_GEMM_H_
