#include "mace/ops/assign.h"

#include <cstring>

#include "mace/core/workspace.h"
#include "mace/ops/op_registration.h"

namespace mace {
namespace ops {
namespace {

// A copy on the host: states live in plain CPU memory of their own.
class AssignCpu final : public Operation {
 public:
  MaceStatus Init() override {
    OP_CHECK(InputSize() == 2 && OutputSize() == 0,
             "needs inputs [state, value] and no outputs, got ", InputSize(), " inputs and ",
             OutputSize(), " outputs");
    OP_CHECK(Input(0) != nullptr && Input(1) != nullptr, "an input is missing");
    return MaceStatus();
  }

  MaceStatus Prepare(OpContext* context) override {
    const Tensor* state = Input(0);
    const Tensor* value = Input(1);
    OP_CHECK(context->workspace != nullptr && context->workspace->IsState(state), "writes '",
             state->name(),
             "', which is not a state tensor of the model "
             "(NetDef.state_tensors)");
    OP_CHECK(value->dtype() == state->dtype(), "writes a ", DataTypeName(value->dtype()),
             " value '", value->name(), "' into the ", DataTypeName(state->dtype()), " state '",
             state->name(), "'");
    OP_CHECK(value->shape() == state->shape(), "writes value '", value->name(), "' of shape ",
             ShapeToString(value->shape()), " into state '", state->name(), "' of shape ",
             ShapeToString(state->shape()));
    target_ = context->workspace->GetTensor(state->name());
    return MaceStatus();
  }

  MaceStatus Run(OpContext* /*context*/) override {
    const Tensor* value = Input(1);
    if (value->raw_data() != target_->raw_data()) {
      std::memcpy(target_->raw_mutable_data(), value->raw_data(), value->raw_size());
    }
    return MaceStatus();
  }

  // The value may be of any type the state has: the kernel copies bytes.
  DataType OutputType(int /*index*/) const override { return Input(1)->dtype(); }
  Storage InputStorage(int index) const override { return Storage::Plain(Input(index)->dtype()); }

 private:
  Tensor* target_ = nullptr;
};

}  // namespace

std::unique_ptr<Operation> NewAssignCpu() { return std::make_unique<AssignCpu>(); }

MaceStatus RegisterAssign(OpRegistry* registry) {
  for (DataType dtype : {DT_FLOAT, DT_UINT8, DT_INT32, DT_INT8}) {
    MACE_RETURN_IF_ERROR(registry->Register("Assign", DeviceType::CPU, dtype, NewAssignCpu));
  }
  return MaceStatus();
}

}  // namespace ops
}  // namespace mace
