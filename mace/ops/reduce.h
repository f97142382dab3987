// Reduce: MEAN, MIN, MAX, PROD or SUM over the axes listed in `axis` (all of
// them when empty), keeping reduced axes as size 1 unless keepdims is 0. Axes
// index the tensor as stored (NCHW for activations). A result that would
// have no dimensions left is shaped [1].
//
// Arguments: reduce_type (int 0 MEAN ... 4 SUM, default MEAN), axis (ints),
// keepdims (int 0 or 1, default 1).
//
// ReduceBase is the device-neutral part: arguments (Init) and shapes
// (InferShapes), shared by every device's kernel. The CPU kernel is
// mace/ops/cpu/reduce_cpu.cc.
#ifndef MACE_OPS_REDUCE_H_
#define MACE_OPS_REDUCE_H_

#include <vector>

#include "mace/core/operation.h"
#include "mace/ops/ref/reduce.h"

namespace mace {
namespace ops {

class ReduceBase : public Operation {
 public:
  MaceStatus Init() override;

 protected:
  // Checks the input's type and shape against the axes, fills params() and
  // sets the output's shape.
  MaceStatus InferShapes();
  const ref::ReduceParams& params() const { return params_; }
  // Whether only trailing axes are reduced, so that each output reduces a
  // contiguous run of the input.
  bool trailing() const { return trailing_; }

 private:
  std::vector<int64_t> axes_;
  bool keepdims_ = true;
  ref::ReduceParams params_;
  bool trailing_ = false;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REDUCE_H_
