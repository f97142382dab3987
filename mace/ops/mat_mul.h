// MatMul: batched A x B with numpy-style broadcasting of the batch (all but
// the last two) dimensions. Either operand may be a weight. An optional bias
// [N] is added to every output row, which is how converters fold a following
// BiasAdd.
//
// Arguments: transpose_a, transpose_b (int 0 or 1, default 0).
//
// MatMulBase is the device-neutral part: arguments (Init) and shapes
// (InferShapes), shared by every device's kernel. The CPU kernel is
// mace/ops/cpu/mat_mul_cpu.cc.
#ifndef MACE_OPS_MAT_MUL_H_
#define MACE_OPS_MAT_MUL_H_

#include <vector>

#include "mace/core/operation.h"
#include "mace/ops/common/op_checks.h"
#include "mace/ops/ref/mat_mul.h"

namespace mace {
namespace ops {

class MatMulBase : public Operation {
 public:
  MaceStatus Init() override;
  int64_t Macs() const override;

 protected:
  // Checks the operands' types and shapes, fills params() and sets the
  // output's shape.
  MaceStatus InferShapes();
  const ref::MatMulParams& params() const { return params_; }
  // The number of products: the elements of the output's batch shape.
  int64_t batch_count() const { return batch_count_; }
  const Tensor* Bias() const { return OptionalBias(*this); }

 private:
  // Right-aligns the batch dimensions of A and B, checks that each pair is
  // equal or has a 1, and records per operand how far one step along each
  // output batch dimension moves, in whole matrices.
  MaceStatus BroadcastBatch(const std::vector<int64_t>& a_shape,
                            const std::vector<int64_t>& b_shape);

  ref::MatMulParams params_;
  int64_t batch_count_ = 0;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_MAT_MUL_H_
