// The CPU kernels of Compare, Mod and Where: flat loops when no operand
// broadcasts except as a single value (cpu/logic_fast.h), else the
// reference kernels.
#include "mace/ops/cpu/logic_cpu.h"

#include <memory>

#include "mace/ops/cpu/logic_fast.h"
#include "mace/ops/logic.h"

namespace mace {
namespace ops {
namespace {

class LogicCpu final : public LogicBase {
 public:
  explicit LogicCpu(LogicKind kind) : LogicBase(kind) {}

  MaceStatus Prepare(OpContext* /*context*/) override { return InferShapes(); }

  MaceStatus Run(OpContext* /*context*/) override {
    float* out = Output(0)->mutable_data<float>();
    const float* a = Input(0)->data<float>();
    const float* b = InputSize() > 1 ? Input(1)->data<float>() : nullptr;
    switch (kind()) {
      case LogicKind::COMPARE:
        if (!CompareFlat(compare_type(), params(), a, b, out)) {
          ref::Compare(compare_type(), params(), a, b, out);
        }
        break;
      case LogicKind::MOD:
        if (!ModFlat(fmod(), params(), a, b, out)) ref::Mod(fmod(), params(), a, b, out);
        break;
      case LogicKind::WHERE:
        if (!WhereFlat(params(), a, b, Input(2)->data<float>(), out)) {
          ref::Where(params(), a, b, Input(2)->data<float>(), out);
        }
        break;
    }
    return MaceStatus();
  }
};

}  // namespace

std::unique_ptr<Operation> NewCompareCpu() {
  return std::make_unique<LogicCpu>(LogicKind::COMPARE);
}
std::unique_ptr<Operation> NewModCpu() { return std::make_unique<LogicCpu>(LogicKind::MOD); }
std::unique_ptr<Operation> NewWhereCpu() { return std::make_unique<LogicCpu>(LogicKind::WHERE); }

}  // namespace ops
}  // namespace mace
