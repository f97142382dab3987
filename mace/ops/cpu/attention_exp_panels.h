// The packer of Attention's second product (cpu/attention_cpu.cc): its A
// operand is e^(score - shift) of a block of score rows, which the packer
// computes as the GEMM asks for each part of it, in PackPanels' layout, and
// whose row sums it keeps.
#ifndef MACE_OPS_CPU_ATTENTION_EXP_PANELS_H_
#define MACE_OPS_CPU_ATTENTION_EXP_PANELS_H_

#include <cstdint>

#include "mace/ops/cpu/transformer_kernels.h"

namespace mace {
namespace ops {

// What PackExpPanels reads and writes. A call for rows [row0, row0 +
// rows) and keys [depth0, depth0 + depth) computes the exponentials into
// `buffer` and packs them. Its row sums go to sums[row * blocks + depth0 /
// depth] when the range is one reduction block of `depth` keys (or a whole
// row); any other range sets *mismatch, and the caller then sums the rows
// itself. A range larger than `capacity` floats goes row by row, which
// needs capacity >= stride.
struct ExpPanels {
  ExpShiftedKernel exp = nullptr;
  const float* scores = nullptr;  // rows of `stride` scores (Sk)
  int64_t stride = 0;
  int64_t depth = 0;   // keys per reduction block
  int64_t blocks = 0;  // reduction blocks per row
  const float* shift = nullptr;  // per row
  float* buffer = nullptr;
  int64_t capacity = 0;
  float* row_sums = nullptr;  // [rows]: one call's
  float* sums = nullptr;      // [rows, blocks]
  bool* mismatch = nullptr;
};

// A PanelPacker (gemm.h) over an ExpPanels context.
void PackExpPanels(const void* context, int64_t row0, int64_t rows, int64_t depth0,
                   int64_t depth, int width, float* dst);

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_ATTENTION_EXP_PANELS_H_
