#include "mace/libmace/custom_op_adapter.h"

namespace mace {
namespace {

class CustomOpAdapter : public Operation, private CustomOpContext {
 public:
  explicit CustomOpAdapter(std::unique_ptr<CustomOp> op) : op_(std::move(op)) {}

  MaceStatus Init() override {
    OP_CHECK(op_ != nullptr, "the custom op factory returned null");
    for (int i = 0; i < InputSize(); ++i) {
      OP_CHECK(Input(i) != nullptr && Input(i)->dtype() == DT_FLOAT,
               "custom ops take float inputs; input ", i, " is missing or not float");
    }
    return MaceStatus();
  }
  MaceStatus Prepare(OpContext*) override { return Wrap(op_->Prepare(this)); }
  MaceStatus Run(OpContext*) override { return Wrap(op_->Run(this)); }

 private:
  // The app's op reads its arguments in Prepare and Run, so only it knows
  // their names; a wrong-type one it met there fails that call.
  bool RefusesUnreadArgs() const override { return false; }

  MaceStatus Wrap(MaceStatus status) const {
    if (status.ok()) return ArgTypeError();
    return MaceStatus(status.code(), StrCat(Describe(), ": ", status.information()));
  }

  int InputCount() const override { return InputSize(); }
  int OutputCount() const override { return OutputSize(); }
  std::vector<int64_t> InputShape(int index) const override {
    return index >= 0 && index < InputSize() ? Input(index)->shape() : std::vector<int64_t>();
  }
  const float* InputData(int index) const override {
    return index >= 0 && index < InputSize() ? Input(index)->data<float>() : nullptr;
  }
  MaceStatus SetOutputShape(int index, const std::vector<int64_t>& shape) override {
    OP_CHECK(index >= 0 && index < OutputSize(), "output index ", index, " is out of range");
    for (int64_t d : shape) OP_CHECK(d >= 0, "output shape has a negative dimension");
    Output(index)->Reshape(shape);
    return MaceStatus();
  }
  float* OutputData(int index) override {
    return index >= 0 && index < OutputSize() ? Output(index)->mutable_data<float>() : nullptr;
  }
  bool HasArg(const std::string& name) const override { return Operation::HasArg(name); }
  int64_t GetIntArg(const std::string& name, int64_t default_value) const override {
    return GetInt(name, default_value);
  }
  float GetFloatArg(const std::string& name, float default_value) const override {
    return GetFloat(name, default_value);
  }
  std::vector<int64_t> GetIntsArg(const std::string& name) const override { return GetInts(name); }

  std::unique_ptr<CustomOp> op_;
};

}  // namespace

MaceStatus RegisterCustomOps(const MaceEngineConfig& config, OpRegistry* registry) {
  for (const auto& [type, factory] : config.custom_ops()) {
    MACE_CHECK_ARG(!registry->Has(type, DeviceType::CPU, DT_FLOAT), "custom op '", type,
                   "' has the name of a built-in op");
    CustomOpFactory make = factory;
    MACE_RETURN_IF_ERROR(registry->Register(type, DeviceType::CPU, DT_FLOAT, [make] {
      return std::unique_ptr<Operation>(new CustomOpAdapter(make()));
    }));
  }
  return MaceStatus();
}

}  // namespace mace
