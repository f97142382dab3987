// Half-precision GEMM over a kernel table's fp16 entries (ARMv8.2 FP16):
//   C[m, n] (float, row stride ldc) = A[m, k] x B[k, n], plus row bias and
// activation, with A packed once in half precision (Fp16Panels) and B, a
// float operand (a matrix or an im2col packer, as for Gemm), converted to
// half precision panel by panel as it is packed. The tile sums kc (the
// table's fp16_kc) products in half precision and adds each block's sums
// to C in single precision, so long reductions keep float accuracy across
// blocks; the first block's sums start at the row bias. n == 1 runs the matrix-vector kernel, whose partial sums go to
// single precision every 64 steps.
#ifndef MACE_OPS_CPU_GEMM_FP16_H_
#define MACE_OPS_CPU_GEMM_FP16_H_

#include <cstdint>

#include "mace/ops/cpu/gemm.h"
#include "mace/ops/cpu/kernel_table.h"
#include "mace/runtimes/cpu/persistent_arena.h"
#include "mace/runtimes/cpu/thread_pool.h"

namespace mace {
namespace ops {

// A rows x depth float matrix, element (i, d) = src[i * stride + d *
// depth_stride], packed in panels of the table's fp16_mr rows of half values.
class Fp16Panels {
 public:
  Fp16Panels() = default;
  Fp16Panels(Fp16Panels&&) = default;
  Fp16Panels& operator=(Fp16Panels&&) = default;
  Fp16Panels(const Fp16Panels&) = delete;
  Fp16Panels& operator=(const Fp16Panels&) = delete;

  void Pack(const KernelTable& table, const float* src, int64_t rows, int64_t depth, int64_t stride,
            int64_t depth_stride, PersistentArena* arena = nullptr);
  const uint16_t* Panel(int64_t index) const {
    return reinterpret_cast<const uint16_t*>(storage_.data()) + index * width_ * depth_;
  }
  int64_t rows() const { return rows_; }
  int64_t depth() const { return depth_; }
  int width() const { return width_; }

 private:
  PersistentFloats storage_;  // half values, two per float
  int64_t rows_ = 0, depth_ = 0;
  int width_ = 0;
};

// Scratch floats Fp16Gemm needs per thread.
int64_t Fp16GemmScratchFloatsPerThread(const KernelTable& table, int64_t n, int64_t k);

// `b` is seen as n x k (its columns are the rows), from `data` or `packer`
// (not `packed`). epilogue.row_bias has m values (may be null); col_bias is
// not read. `scratch` holds NumThreads(pool) * Fp16GemmScratchFloatsPerThread
// floats. The table must have fp16 kernels, and k must be > 0.
void Fp16Gemm(const KernelTable& table, int64_t m, int64_t n, int64_t k, const Fp16Panels& a,
              const GemmOperand& b, float* c, int64_t ldc, const TileEpilogue& epilogue,
              ThreadPool* pool, float* scratch);

// Writes one width-wide B panel of halves: dst[d * width + j] = B's column
// col0 + j at depth depth0 + d for j < cols, half zeros for the rest.
using Fp16HalfPacker = void (*)(const void* context, int64_t col0, int64_t cols, int64_t depth0,
                                int64_t depth, int width, uint16_t* dst);

// Fp16Gemm (C of floats) with B packed straight into half panels by
// `packer`: no float panel and no conversion per panel. `scratch` holds
// NumThreads(pool) * Fp16GemmHalfScratchFloatsPerThread floats.
void Fp16GemmHalfPanels(const KernelTable& table, int64_t m, int64_t n, int64_t k,
                        const Fp16Panels& a, Fp16HalfPacker packer, const void* context, float* c,
                        int64_t ldc, const TileEpilogue& epilogue, ThreadPool* pool,
                        float* scratch);

// The same with C written as halves by the table's half-storing tile
// (fp16_gemm_half), for convolutions on half tensors whose columns are
// packed by an im2col packer: sums go to C in half precision after each
// kc block, and later blocks add to it and round again. k must be > 0.
void Fp16GemmHalfPanelsToHalves(const KernelTable& table, int64_t m, int64_t n, int64_t k,
                                const Fp16Panels& a, Fp16HalfPacker packer, const void* context,
                                uint16_t* c, int64_t ldc, const TileEpilogue& epilogue,
                                ThreadPool* pool, float* scratch);

// Scratch floats Fp16GemmHalf (and Fp16GemmHalfPanels) need per thread.
int64_t Fp16GemmHalfScratchFloatsPerThread(const KernelTable& table, int64_t k);

// Fp16GemmHalf sums reductions of up to this depth in one block: a 1x1
// convolution of up to 1024 input channels runs each tile once over all of
// them, with no second pass that reads C back.
constexpr int64_t kFp16HalfOneBlockDepth = 1024;

// The reduction block of Fp16GemmHalf for depth k: k itself up to
// kFp16HalfOneBlockDepth, else the table's fp16_kc.
int64_t Fp16GemmHalfBlock(const KernelTable& table, int64_t k);

// The same product on tensors kept in half precision: B's column j, depth d
// is the half b[j + d * b_depth_stride] (columns adjacent, as a 1x1
// convolution's input), C (row stride ldc) is written as halves. Sums go
// to C in half precision after each block of Fp16GemmHalfBlock steps (later
// blocks add theirs to C's halves in half precision). The table must have
// the half-tensor kernels (fp16_gemm_half), and k must be > 0.
void Fp16GemmHalf(const KernelTable& table, int64_t m, int64_t n, int64_t k, const Fp16Panels& a,
                  const uint16_t* b, int64_t b_depth_stride, uint16_t* c, int64_t ldc,
                  const TileEpilogue& epilogue, ThreadPool* pool, float* scratch);

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_GEMM_FP16_H_
