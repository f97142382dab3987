// The interface between the device-neutral drivers (GEMM, convolutions) and
// the per-ISA micro-kernels in mace/ops/x86 and mace/ops/arm.
//
// This header is included by files built with ISA flags such as -mavx2, so
// it holds only plain structs and function pointer types: an inline function
// compiled there could be merged with baseline code at link time and run on
// a CPU without those instructions.
#ifndef MACE_OPS_CPU_MICRO_KERNELS_H_
#define MACE_OPS_CPU_MICRO_KERNELS_H_

#include <cstdint>

namespace mace {
namespace ops {

// Activations a micro-kernel applies while its results are still in
// registers. Everything else is applied by a separate pass.
enum TileActivation : int32_t {
  kTileActNone = 0,
  kTileActClamp = 1,      // min(max(x, lo), hi): RELU, RELUX, RELU6
  kTileActHardSwish = 2,  // x * clamp(x + 3, 0, 6) / 6
};

struct TileEpilogue {
  // Added once, on the last block of the reduction: one value per tile row
  // (length mr) and one per tile column (length nr); either may be null.
  const float* row_bias = nullptr;
  const float* col_bias = nullptr;
  int32_t activation = kTileActNone;
  float lo = 0.f, hi = 0.f;
  bool accumulate = false;  // add to what C already holds (later K blocks)
  bool last = true;         // this block ends the reduction: bias and activation
};

// C[mr x nr] (row stride ldc) = (accumulate ? C : 0) + A_panel x B_panel,
// where the A panel holds kc groups of mr values (one per row) and the B panel
// kc groups of nr values (one per column).
using GemmMicroKernel = void (*)(int64_t kc, const float* a, const float* b, float* c, int64_t ldc,
                                 const TileEpilogue& epilogue);

// One output row of a 3x3 depthwise convolution, over columns whose taps are
// all inside the input.
struct DepthwiseRow {
  // Input rows kh = 0, 1, 2 at the leftmost tap of the first output; null
  // for a row that falls in the vertical padding.
  const float* rows[3] = {nullptr, nullptr, nullptr};
  const float* taps = nullptr;  // 9 weights, row-major
  float bias = 0.f;
  float* out = nullptr;
  int64_t count = 0;      // outputs to write; output j reads rows[r][j * stride + kw]
  TileEpilogue epilogue;  // only activation, lo and hi are read
};

using DepthwiseRowKernel = void (*)(const DepthwiseRow& row);

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_MICRO_KERNELS_H_
