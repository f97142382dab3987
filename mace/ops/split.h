// Split: cuts one tensor into N >= 1 pieces along one axis, either in equal
// parts or in the sizes the `split` argument lists. The sizes may also come
// as input 1, computed at run time: the outputs are planned for the `split`
// argument and every run checks the input gives the same sizes
// (common/runtime_ints.h). It only moves data, so
// float32 and int32 tensors go through the same kernels
// (common/moved_types.h).
//
// SplitBase is the device-neutral part: arguments (Init) and shapes
// (InferShapes), shared by every device's kernel. The CPU kernel is
// mace/ops/cpu/split_cpu.cc.
#ifndef MACE_OPS_SPLIT_H_
#define MACE_OPS_SPLIT_H_

#include <vector>

#include "mace/core/operation.h"
#include "mace/ops/common/moved_types.h"

namespace mace {
namespace ops {

class SplitBase : public DataMovementOp {
 public:
  MaceStatus Init() override;

 protected:
  // Checks the input's type and shape, resolves the axis and the sizes and
  // sets every output's shape.
  MaceStatus InferShapes();
  // The axis in [0, rank) and each output's size along it, valid after
  // InferShapes.
  int axis() const { return axis_; }
  const std::vector<int64_t>& sizes() const { return sizes_; }
  // With sizes also given as input 1 (computed at run time): checks this
  // run's values equal the planned sizes. Kernels call it in Run.
  MaceStatus CheckSizeInput() const;

 private:
  int64_t axis_arg_ = 1;
  std::vector<int64_t> size_args_;  // empty: equal parts
  int axis_ = 1;
  std::vector<int64_t> sizes_;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_SPLIT_H_
