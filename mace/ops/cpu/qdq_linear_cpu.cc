// QuantizeLinear's and DequantizeLinear's CPU kernels: the reference ones
// (mace/ops/ref/qdq_linear.h).
#include "mace/ops/cpu/qdq_linear_cpu.h"

#include <memory>

#include "mace/ops/qdq_linear.h"

namespace mace {
namespace ops {
namespace {

class QdqLinearCpu final : public QdqLinearBase {
 public:
  explicit QdqLinearCpu(bool quantize) : QdqLinearBase(quantize) {}
  MaceStatus Prepare(OpContext* /*context*/) override { return InferShapes(); }
  MaceStatus Run(OpContext* /*context*/) override { return Compute(); }
};

}  // namespace

std::unique_ptr<Operation> NewQuantizeLinearCpu() {
  return std::make_unique<QdqLinearCpu>(true);
}

std::unique_ptr<Operation> NewDequantizeLinearCpu() {
  return std::make_unique<QdqLinearCpu>(false);
}

}  // namespace ops
}  // namespace mace
