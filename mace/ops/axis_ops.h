// Ops that work along one axis or on trailing matrices, following ONNX:
//   Trilu (upper, default 1; k, default 0): keeps the upper or lower
//     triangle of each matrix in the last two dimensions; k may instead come
//     from an optional second input (one value, read at run time).
//   CumSum (axis, default 0; exclusive; reverse): cumulative sum; axis may
//     instead come from an optional second input (read at run time).
//   Tile (repeats): repeats the input repeats[d] times along dimension d.
//     An optional second input holds the repeats computed at run time; each
//     run checks they equal the argument, which sets the planned shape. With
//     `expand` 1 that input is instead ONNX Expand's target shape, and each
//     run checks the input broadcast to it gives the planned shape.
//   TopK (k, axis default -1, largest default 1): outputs [values, indices],
//     the k largest or smallest values along axis in order (ties to the
//     lower index) and their indices as float32 values. An optional second
//     input holds k computed at run time (one value); each run checks it
//     equals the argument, which sets the planned shape.
//
// AxisOpBase is the device-neutral part of the four; the CPU kernel is
// mace/ops/cpu/axis_ops_cpu.cc.
#ifndef MACE_OPS_AXIS_OPS_H_
#define MACE_OPS_AXIS_OPS_H_

#include <cstdint>
#include <vector>

#include "mace/core/operation.h"
#include "mace/ops/ref/axis_ops.h"

namespace mace {
namespace ops {

enum class AxisOpKind { TRILU, CUM_SUM, TILE, TOP_K };

class AxisOpBase : public Operation {
 public:
  explicit AxisOpBase(AxisOpKind kind) : kind_(kind) {}
  MaceStatus Init() override;

 protected:
  // Checks the inputs, fills the parameters and sets the outputs' shapes.
  MaceStatus InferShapes();
  // Trilu's k or CumSum's axis from the optional second input, at run time;
  // TopK's k and Tile's repeats checked against the planned ones.
  MaceStatus ReadInputArgs();

  AxisOpKind kind() const { return kind_; }
  const ref::TriluParams& trilu() const { return trilu_; }
  const ref::CumSumParams& cum_sum() const { return cum_sum_; }
  const ref::TileParams& tile() const { return tile_; }
  const ref::TopKParams& top_k() const { return top_k_; }

 private:
  // Checks that input 1 (called `what`) holds one float32 or int32 value.
  MaceStatus CheckScalarInput(const char* what);
  // Splits the input's shape at `axis` into [outer, axis_size, inner].
  MaceStatus SplitAtAxis(int64_t axis, int64_t* outer, int64_t* axis_size, int64_t* inner);

  AxisOpKind kind_;
  int64_t axis_ = 0;
  std::vector<int64_t> repeats_;
  bool expand_ = false;  // Tile's input 1 is an Expand target shape
  ref::TriluParams trilu_;
  ref::CumSumParams cum_sum_;
  ref::TileParams tile_;
  ref::TopKParams top_k_;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_AXIS_OPS_H_
