// The recurrent ops LSTM, GRU and RNN, with ONNX's semantics (opset 7 to
// 22): inputs X, W, R and the optional B, sequence_lens, initial_h,
// initial_c and P (peepholes, LSTM only) in ONNX's order, any of the optional
// ones left out as "" inputs; outputs Y, Y_h and (LSTM) Y_c, the first one to
// three of them.
//
// Arguments:
//   hidden_size          H
//   direction            0 forward, 1 reverse, 2 bidirectional
//   layout               0: X [seq, batch, input], Y [seq, dirs, batch, H],
//                        states [dirs, batch, H]; 1: X [batch, seq, input],
//                        Y [batch, seq, dirs, H], states [batch, dirs, H]
//   gate_activations     one RecurrentActivation code per gate function
//                        (LSTM f, g, h; GRU f, g; RNN f), per direction
//   gate_alpha           alpha and beta of each of them (unused ones 0)
//   gate_beta
//   clip                 bounds the gates' pre-activations to [-clip, clip]
//                        (absent or 0: no clip)
//   cell_clip            LSTM: bounds the cell state to [-cell_clip, cell_clip]
//                        after each step's update, before the output gate's
//                        peephole and the output function read it, as
//                        TensorFlow's LSTM cells do (absent or 0: no clip)
//   input_forget         LSTM: couple the forget gate to 1 - input gate
//   linear_before_reset  GRU: apply the reset gate after R_h and its bias
//
// sequence_lens holds each batch entry's length (float values, as the
// engine carries integer model inputs); steps past it leave Y zero and the
// state as it was, and a reverse direction starts at the entry's last step.
//
// RecurrentBase is the device-neutral part: arguments (Init) and shapes
// (InferShapes). The CPU kernel is mace/ops/cpu/recurrent_cpu.cc.
#ifndef MACE_OPS_RECURRENT_H_
#define MACE_OPS_RECURRENT_H_

#include <cstdint>
#include <vector>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

enum class RecurrentKind { kRnn, kGru, kLstm };

// The gate functions ONNX names, as the converter codes them.
enum RecurrentActivation : int {
  kRecurrentSigmoid = 0,
  kRecurrentTanh = 1,
  kRecurrentRelu = 2,
  kRecurrentAffine = 3,
  kRecurrentLeakyRelu = 4,
  kRecurrentThresholdedRelu = 5,
  kRecurrentScaledTanh = 6,
  kRecurrentHardSigmoid = 7,
  kRecurrentElu = 8,
  kRecurrentSoftsign = 9,
  kRecurrentSoftplus = 10,
  kRecurrentActivationCount = 11,
};

struct RecurrentFunction {
  int code = kRecurrentTanh;
  float alpha = 0.f, beta = 0.f;
};

float ApplyRecurrentFunction(const RecurrentFunction& function, float x);

struct RecurrentParams {
  RecurrentKind kind = RecurrentKind::kLstm;
  int64_t seq = 0, batch = 0, input_size = 0, hidden = 0;
  int directions = 1;
  int direction = 0;  // 0 forward, 1 reverse, 2 bidirectional
  int layout = 0;
  float clip = 0.f;  // 0: none
  float cell_clip = 0.f;  // LSTM; 0: none
  bool input_forget = false;
  bool linear_before_reset = false;
  // gate_functions() per direction, direction-major.
  std::vector<RecurrentFunction> functions;

  int gates() const {
    return kind == RecurrentKind::kLstm ? 4 : kind == RecurrentKind::kGru ? 3 : 1;
  }
  int gate_functions() const {
    return kind == RecurrentKind::kLstm ? 3 : kind == RecurrentKind::kGru ? 2 : 1;
  }
  // Whether direction `d` (0 or 1 of directions) walks time backwards.
  bool reversed(int d) const { return direction == 1 || (direction == 2 && d == 1); }
  // Offsets of element 0 of step t, direction d, batch entry b.
  int64_t y_offset(int64_t t, int d, int64_t b) const {
    return layout == 0 ? ((t * directions + d) * batch + b) * hidden
                       : ((b * seq + t) * directions + d) * hidden;
  }
  int64_t state_offset(int d, int64_t b) const {
    return layout == 0 ? (d * batch + b) * hidden : (b * directions + d) * hidden;
  }
  int64_t x_row(int64_t t, int64_t b) const { return layout == 0 ? t * batch + b : b * seq + t; }
};

class RecurrentBase : public Operation {
 public:
  explicit RecurrentBase(RecurrentKind kind) { params_.kind = kind; }
  MaceStatus Init() override;
  int64_t Macs() const override;

 protected:
  // Input indices in ONNX's order.
  enum { kX = 0, kW, kR, kB, kSequenceLens, kInitialH, kInitialC, kPeepholes };
  const Tensor* OptionalInput(int index) const {
    return index < InputSize() ? Input(index) : nullptr;
  }
  // Checks every input's type and shape, fills params() and sets the
  // outputs' shapes.
  MaceStatus InferShapes();
  // Checks sequence_lens' values (1 to seq), which only Run sees.
  MaceStatus CheckSequenceLengths() const;
  const RecurrentParams& params() const { return params_; }

 private:
  MaceStatus CheckShape(int index, const char* what, const std::vector<int64_t>& shape) const;
  RecurrentParams params_;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_RECURRENT_H_
