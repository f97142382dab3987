#include "mace/ops/common/activation.h"

#include <map>

namespace mace {
namespace ops {

MaceStatus ParseActivation(const Operation& op, bool allow_prelu, Activation* activation) {
  static const std::map<std::string, ActivationType> kTypes = {
      {"NOOP", ActivationType::NOOP},           {"", ActivationType::NOOP},
      {"RELU", ActivationType::RELU},           {"RELUX", ActivationType::RELUX},
      {"RELU6", ActivationType::RELUX},         {"LEAKYRELU", ActivationType::LEAKYRELU},
      {"PRELU", ActivationType::PRELU},         {"SIGMOID", ActivationType::SIGMOID},
      {"TANH", ActivationType::TANH},           {"HARDSWISH", ActivationType::HARDSWISH},
      {"HARDSIGMOID", ActivationType::HARDSIGMOID},
  };
  const std::string name = op.GetString("activation", "NOOP");
  auto it = kTypes.find(name);
  if (it == kTypes.end()) {
    return MaceStatus(MaceStatus::MACE_INVALID_ARGS,
                      StrCat(op.Describe(), ": unknown activation '", name, "'"));
  }
  if (it->second == ActivationType::PRELU && !allow_prelu) {
    return MaceStatus(MaceStatus::MACE_INVALID_ARGS,
                      StrCat(op.Describe(), ": PRELU cannot be fused here"));
  }
  activation->type = it->second;
  // Read for RELU6 too, as the other activation arguments are read for every
  // activation: then it is a known, type-checked argument wherever it goes.
  const float max_limit = op.GetFloat("activation_max_limit", 6.f);
  activation->max_limit = name == "RELU6" ? 6.f : max_limit;
  const bool hard_sigmoid = it->second == ActivationType::HARDSIGMOID;
  activation->alpha = op.GetFloat("activation_coefficient", hard_sigmoid ? 1.f / 6.f : 0.f);
  activation->beta = op.GetFloat("activation_beta", 0.5f);
  if (it->second == ActivationType::RELUX && activation->max_limit <= 0.f) {
    return MaceStatus(MaceStatus::MACE_INVALID_ARGS,
                      StrCat(op.Describe(), ": RELUX needs a positive activation_max_limit"));
  }
  return MaceStatus();
}

}  // namespace ops
}  // namespace mace
