// Reference kernels of Trilu, CumSum, Tile and TopK (mace/ops/axis_ops.h).
#ifndef MACE_OPS_REF_AXIS_OPS_H_
#define MACE_OPS_REF_AXIS_OPS_H_

#include <cstdint>
#include <vector>

namespace mace {
namespace ops {
namespace ref {

// Trilu over `batch` matrices of rows x cols: keeps the elements on and
// above (upper) or on and below (lower) diagonal k, zeroes the others.
struct TriluParams {
  int64_t batch = 0, rows = 0, cols = 0, k = 0;
  bool upper = true;
};
void Trilu(const TriluParams& params, const float* input, float* output);

// Cumulative sum along the middle of [outer, axis_size, inner]; exclusive
// leaves the current element out, reverse runs from the end. Accumulates in
// double.
struct CumSumParams {
  int64_t outer = 0, axis_size = 0, inner = 0;
  bool exclusive = false, reverse = false;
};
void CumSum(const CumSumParams& params, const float* input, float* output);

// Tile: output dimension d is input dimension d times repeats[d].
struct TileParams {
  std::vector<int64_t> input_shape, output_shape;
};
void Tile(const TileParams& params, const float* input, float* output);

// TopK along the middle of [outer, axis_size, inner]: the k largest (or
// smallest) values in order, ties to the lower index, and their indices as
// float values. NaN ranks above every number, as in ArgMax.
struct TopKParams {
  int64_t outer = 0, axis_size = 0, inner = 0, k = 0;
  bool largest = true;
};
void TopK(const TopKParams& params, const float* input, float* values, float* indices);

}  // namespace ref
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_AXIS_OPS_H_
