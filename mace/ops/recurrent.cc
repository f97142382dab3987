#include "mace/ops/recurrent.h"

#include <algorithm>
#include <cmath>

#include "mace/ops/common/op_checks.h"
#include "mace/ops/cpu/recurrent_cpu.h"
#include "mace/ops/op_registration.h"

namespace mace {
namespace ops {

float ApplyRecurrentFunction(const RecurrentFunction& function, float x) {
  switch (function.code) {
    case kRecurrentSigmoid:
      return 1.f / (1.f + std::exp(-x));
    case kRecurrentTanh:
      return std::tanh(x);
    case kRecurrentRelu:
      return std::max(x, 0.f);
    case kRecurrentAffine:
      return function.alpha * x + function.beta;
    case kRecurrentLeakyRelu:
      return x >= 0.f ? x : function.alpha * x;
    case kRecurrentThresholdedRelu:
      return x > function.alpha ? x : 0.f;
    case kRecurrentScaledTanh:
      return function.alpha * std::tanh(function.beta * x);
    case kRecurrentHardSigmoid:
      return std::min(1.f, std::max(0.f, function.alpha * x + function.beta));
    case kRecurrentElu:
      return x >= 0.f ? x : function.alpha * (std::exp(x) - 1.f);
    case kRecurrentSoftsign:
      return x / (1.f + std::fabs(x));
    default:  // kRecurrentSoftplus; Init refuses other codes
      return x > 20.f ? x : std::log1p(std::exp(x));
  }
}

MaceStatus RecurrentBase::Init() {
  RecurrentParams& p = params_;
  OP_CHECK(InputSize() >= 3 && InputSize() <= (p.kind == RecurrentKind::kLstm ? 8 : 6),
           "needs inputs X, W, R and at most ",
           p.kind == RecurrentKind::kLstm ? "B, sequence_lens, initial_h, initial_c and P"
                                          : "B, sequence_lens and initial_h",
           ", got ", InputSize(), " inputs");
  const int max_outputs = p.kind == RecurrentKind::kLstm ? 3 : 2;
  OP_CHECK(OutputSize() >= 1 && OutputSize() <= max_outputs, "needs 1 to ", max_outputs,
           " outputs (Y, Y_h", p.kind == RecurrentKind::kLstm ? ", Y_c" : "", "), got ",
           OutputSize());
  for (int i = 0; i < 3; ++i) OP_CHECK(Input(i) != nullptr, "input ", i, " is missing");
  p.hidden = GetInt("hidden_size", 0);
  OP_CHECK(p.hidden > 0, "hidden_size ", p.hidden, " must be positive");
  const int64_t direction = GetInt("direction", 0);
  OP_CHECK(direction >= 0 && direction <= 2, "direction ", direction,
           " must be 0 (forward), 1 (reverse) or 2 (bidirectional)");
  p.direction = static_cast<int>(direction);
  p.directions = p.direction == 2 ? 2 : 1;
  const int64_t layout = GetInt("layout", 0);
  OP_CHECK(layout == 0 || layout == 1, "layout ", layout, " must be 0 or 1");
  p.layout = static_cast<int>(layout);
  p.clip = GetFloat("clip", 0.f);
  OP_CHECK(p.clip >= 0.f && std::isfinite(p.clip), "clip ", p.clip, " must be positive (0: none)");
  if (p.kind == RecurrentKind::kLstm) {
    MACE_RETURN_IF_ERROR(ParseFlag(*this, "input_forget", &p.input_forget));
    p.cell_clip = GetFloat("cell_clip", 0.f);
    OP_CHECK(p.cell_clip >= 0.f && std::isfinite(p.cell_clip), "cell_clip ", p.cell_clip,
             " must be positive (0: none)");
  }
  if (p.kind == RecurrentKind::kGru) {
    MACE_RETURN_IF_ERROR(ParseFlag(*this, "linear_before_reset", &p.linear_before_reset));
  }
  const std::vector<int64_t> codes = GetInts("gate_activations");
  std::vector<float> alphas = GetFloats("gate_alpha");
  std::vector<float> betas = GetFloats("gate_beta");
  const size_t count = static_cast<size_t>(p.gate_functions() * p.directions);
  p.functions.assign(count, RecurrentFunction());
  if (codes.empty()) {
    for (size_t i = 0; i < count; ++i) {
      const bool sigmoid = p.kind != RecurrentKind::kRnn && i % p.gate_functions() == 0;
      p.functions[i].code = sigmoid ? kRecurrentSigmoid : kRecurrentTanh;
    }
  } else {
    OP_CHECK(codes.size() == count, "gate_activations has ", codes.size(), " values but needs ",
             count, " (", p.gate_functions(), " per direction)");
    OP_CHECK(alphas.empty() || alphas.size() == count, "gate_alpha has ", alphas.size(),
             " values but needs ", count);
    OP_CHECK(betas.empty() || betas.size() == count, "gate_beta has ", betas.size(),
             " values but needs ", count);
    for (size_t i = 0; i < count; ++i) {
      OP_CHECK(codes[i] >= 0 && codes[i] < kRecurrentActivationCount, "gate activation code ",
               codes[i], " is unknown");
      p.functions[i].code = static_cast<int>(codes[i]);
      p.functions[i].alpha = alphas.empty() ? 0.f : alphas[i];
      p.functions[i].beta = betas.empty() ? 0.f : betas[i];
    }
  }
  return MaceStatus();
}

MaceStatus RecurrentBase::CheckShape(int index, const char* what,
                                     const std::vector<int64_t>& shape) const {
  const Tensor* tensor = Input(index);
  MACE_RETURN_IF_ERROR(CheckTensor(*this, tensor, DT_FLOAT));
  OP_CHECK(tensor->shape() == shape, what, " has shape ", ShapeToString(tensor->shape()),
           " but needs ", ShapeToString(shape));
  return MaceStatus();
}

MaceStatus RecurrentBase::InferShapes() {
  RecurrentParams& p = params_;
  const Tensor* x = Input(kX);
  MACE_RETURN_IF_ERROR(CheckTensor(*this, x, DT_FLOAT));
  OP_CHECK(x->dim_size() == 3, "X has shape ", ShapeToString(x->shape()), " but needs rank 3");
  p.seq = x->dim(p.layout == 0 ? 0 : 1);
  p.batch = x->dim(p.layout == 0 ? 1 : 0);
  p.input_size = x->dim(2);
  const int64_t dirs = p.directions, h = p.hidden, g = p.gates();
  MACE_RETURN_IF_ERROR(CheckShape(kW, "W", {dirs, g * h, p.input_size}));
  MACE_RETURN_IF_ERROR(CheckShape(kR, "R", {dirs, g * h, h}));
  if (OptionalInput(kB) != nullptr) MACE_RETURN_IF_ERROR(CheckShape(kB, "B", {dirs, 2 * g * h}));
  if (OptionalInput(kSequenceLens) != nullptr) {
    MACE_RETURN_IF_ERROR(CheckShape(kSequenceLens, "sequence_lens", {p.batch}));
  }
  const std::vector<int64_t> state = p.layout == 0 ? std::vector<int64_t>{dirs, p.batch, h}
                                                   : std::vector<int64_t>{p.batch, dirs, h};
  if (OptionalInput(kInitialH) != nullptr) {
    MACE_RETURN_IF_ERROR(CheckShape(kInitialH, "initial_h", state));
  }
  if (OptionalInput(kInitialC) != nullptr) {
    MACE_RETURN_IF_ERROR(CheckShape(kInitialC, "initial_c", state));
  }
  if (OptionalInput(kPeepholes) != nullptr) {
    MACE_RETURN_IF_ERROR(CheckShape(kPeepholes, "P", {dirs, 3 * h}));
  }
  Output(0)->Reshape(p.layout == 0 ? std::vector<int64_t>{p.seq, dirs, p.batch, h}
                                   : std::vector<int64_t>{p.batch, p.seq, dirs, h});
  for (int i = 1; i < OutputSize(); ++i) Output(i)->Reshape(state);
  return MaceStatus();
}

MaceStatus RecurrentBase::CheckSequenceLengths() const {
  const Tensor* lengths = OptionalInput(kSequenceLens);
  if (lengths == nullptr) return MaceStatus();
  const float* data = lengths->data<float>();
  for (int64_t b = 0; b < params_.batch; ++b) {
    OP_CHECK(data[b] >= 1.f && data[b] <= static_cast<float>(params_.seq) &&
                 data[b] == std::floor(data[b]),
             "sequence_lens[", b, "] is ", data[b], " but must be a whole number from 1 to ",
             params_.seq);
  }
  return MaceStatus();
}

int64_t RecurrentBase::Macs() const {
  const RecurrentParams& p = params_;
  return p.directions * p.seq * p.batch * p.gates() * p.hidden * (p.input_size + p.hidden);
}

MaceStatus RegisterRecurrent(OpRegistry* registry) {
  MACE_RETURN_IF_ERROR(registry->Register("GRU", DeviceType::CPU, DT_FLOAT, NewGruCpu));
  MACE_RETURN_IF_ERROR(registry->Register("LSTM", DeviceType::CPU, DT_FLOAT, NewLstmCpu));
  return registry->Register("RNN", DeviceType::CPU, DT_FLOAT, NewRnnCpu);
}

}  // namespace ops
}  // namespace mace
