// Comparison, logic, modulo and selection ops, element-wise with numpy-style
// broadcasting of their inputs:
//   Compare: `type` "equal", "less", "greater", "less_equal",
//            "greater_equal", "and", "or", "xor" (two inputs) or "not" (one);
//            the result is 1 or 0.
//   Mod:     a mod b; `fmod` 1 takes the sign of a, 0 (the default) the sign
//            of b.
//   Where:   inputs [condition, x, y]; x where condition is nonzero, else y.
// Booleans and integers travel as float32 values (exact up to 2^24), so
// these ops run under the net's float32 data type.
//
// LogicBase is the device-neutral part shared by the three ops; the CPU
// kernel is mace/ops/cpu/logic_cpu.cc.
#ifndef MACE_OPS_LOGIC_H_
#define MACE_OPS_LOGIC_H_

#include "mace/core/operation.h"
#include "mace/ops/ref/logic.h"

namespace mace {
namespace ops {

enum class LogicKind { COMPARE, MOD, WHERE };

class LogicBase : public Operation {
 public:
  explicit LogicBase(LogicKind kind) : kind_(kind) {}
  MaceStatus Init() override;

 protected:
  // Checks the inputs' types and shapes, broadcasts them into params() and
  // sets the output's shape.
  MaceStatus InferShapes();
  LogicKind kind() const { return kind_; }
  ref::CompareType compare_type() const { return compare_type_; }
  bool fmod() const { return fmod_; }
  const ref::BroadcastParams& params() const { return params_; }

 private:
  LogicKind kind_;
  ref::CompareType compare_type_ = ref::CompareType::EQUAL;
  bool fmod_ = false;
  ref::BroadcastParams params_;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_LOGIC_H_
