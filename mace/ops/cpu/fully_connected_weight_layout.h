// Where FullyConnected's float kernel (fully_connected_cpu.cc) reads its
// weight at batch 1: in place, row by row (RowsTimesVector), or packed into
// GEMM panels at Prepare. A port's choice, made at build time.
#ifndef MACE_OPS_CPU_FULLY_CONNECTED_WEIGHT_LAYOUT_H_
#define MACE_OPS_CPU_FULLY_CONNECTED_WEIGHT_LAYOUT_H_

namespace mace {
namespace ops {

// Whether batch-1 FullyConnected may read its weight in place: false in
// fully_connected_weight_layout.cc (ARM keeps the packed panels its
// instruction counts were measured with), true on x86-64
// (x86/fully_connected_weight_layout_x86_64.cc).
bool FullyConnectedWeightInPlace();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_FULLY_CONNECTED_WEIGHT_LAYOUT_H_
