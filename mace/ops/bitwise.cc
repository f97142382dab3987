// Bitwise: `type` "and", "or", "xor" (two inputs, numpy-style broadcasting)
// or "not" (one input) of int32 tensors, on their two's complement bits.
// Only an int32 kernel: integers wider than float32's 24 bits of mantissa
// reach it as int32 model inputs, and the result is an int32 tensor.
#include "mace/ops/ref/bitwise.h"

#include <memory>
#include <string>
#include <vector>

#include "mace/ops/common/element_count.h"
#include "mace/ops/common/op_checks.h"
#include "mace/ops/op_registration.h"

namespace mace {
namespace ops {
namespace {

class BitwiseCpu final : public Operation {
 public:
  MaceStatus Init() override {
    const std::string type = GetString("type", "");
    OP_CHECK(ref::ParseBitwiseType(type, &type_), "needs the string argument type (and, or, ",
             "xor, not), got '", type, "'");
    const int inputs = type_ == ref::BitwiseType::NOT ? 1 : 2;
    OP_CHECK(InputSize() == inputs && OutputSize() == 1, "needs ", inputs,
             " input(s) and one output, got ", InputSize(), " inputs and ", OutputSize(),
             " outputs");
    for (int i = 0; i < InputSize(); ++i) OP_CHECK(Input(i) != nullptr, "input ", i, " is missing");
    return MaceStatus();
  }

  MaceStatus Prepare(OpContext* /*context*/) override {
    MACE_RETURN_IF_ERROR(CheckInputsTypeAndShape(*this, DT_INT32));
    std::vector<std::vector<int64_t>> shapes;
    for (int i = 0; i < InputSize(); ++i) shapes.push_back(Input(i)->shape());
    std::string all;
    for (const auto& shape : shapes) all += (all.empty() ? "" : " and ") + ShapeToString(shape);
    OP_CHECK(ref::MakeBroadcast(shapes, &params_), "input shapes ", all, " do not broadcast");
    MACE_RETURN_IF_ERROR(CheckElementCount(*this, "output", params_.shape));
    Output(0)->Reshape(params_.shape);
    return MaceStatus();
  }

  MaceStatus Run(OpContext* /*context*/) override {
    ref::Bitwise(type_, params_, Input(0)->data<int32_t>(),
                 InputSize() > 1 ? Input(1)->data<int32_t>() : nullptr,
                 Output(0)->mutable_data<int32_t>());
    return MaceStatus();
  }

 private:
  ref::BitwiseType type_ = ref::BitwiseType::AND;
  ref::BroadcastParams params_;
};

std::unique_ptr<Operation> NewBitwiseCpu() { return std::make_unique<BitwiseCpu>(); }

}  // namespace

MaceStatus RegisterBitwise(OpRegistry* registry) {
  return registry->Register("Bitwise", DeviceType::CPU, DT_INT32, NewBitwiseCpu);
}

}  // namespace ops
}  // namespace mace
