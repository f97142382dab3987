#include "mace/ops/recurrent.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "mace/ops/registry.h"
#include "mace/ops/testing/op_tester.h"
#include "mace/runtimes/cpu/cpu_runtime.h"
#include "mace/runtimes/cpu/thread_pool.h"

namespace mace {
namespace ops {
namespace {

using testing::ExpectNear;
using testing::OpTester;
using testing::RandomFloats;

struct Case {
  std::string type = "LSTM";
  int64_t seq = 3, batch = 2, input = 4, hidden = 5;
  int direction = 0, layout = 0;
  float clip = 0.f;
  float cell_clip = 0.f;  // LSTM
  float input_scale = 1.f;  // scales X and initial_c, to drive cells to a clip
  bool input_forget = false, linear_before_reset = false;
  bool bias = true, initial_h = false, initial_c = false, peepholes = false;
  std::vector<int64_t> lengths;  // empty: no sequence_lens
  std::vector<int64_t> activations;
  std::vector<float> alphas, betas;
  bool constant_weights = true;
  int outputs = 3;

  int gates() const { return type == "LSTM" ? 4 : type == "GRU" ? 3 : 1; }
  int functions() const { return type == "LSTM" ? 3 : type == "GRU" ? 2 : 1; }
  int64_t dirs() const { return direction == 2 ? 2 : 1; }
};

struct Data {
  std::vector<float> x, w, r, b, h0, c0, p;
};

// ONNX's gate functions, written out from the operator documentation.
double Act(int code, double alpha, double beta, double x) {
  switch (code) {
    case 0:
      return 1.0 / (1.0 + std::exp(-x));
    case 1:
      return std::tanh(x);
    case 2:
      return x > 0 ? x : 0;
    case 3:
      return alpha * x + beta;
    case 4:
      return x >= 0 ? x : alpha * x;
    case 5:
      return x > alpha ? x : 0;
    case 6:
      return alpha * std::tanh(beta * x);
    case 7:
      return std::max(0.0, std::min(1.0, alpha * x + beta));
    case 8:
      return x >= 0 ? x : alpha * (std::exp(x) - 1);
    case 9:
      return x / (1 + std::fabs(x));
    default:
      return std::log(1 + std::exp(x));
  }
}

// A step-by-step evaluation of ONNX's equations in double, with every index
// spelled out: Y, Y_h, Y_c in the case's layout.
std::vector<std::vector<float>> Reference(const Case& c, const Data& d) {
  const int64_t S = c.seq, B = c.batch, I = c.input, H = c.hidden, D = c.dirs();
  const int G = c.gates();
  std::vector<float> y(S * D * B * H, 0.f), yh(D * B * H), yc(D * B * H);
  auto x_at = [&](int64_t t, int64_t b, int64_t i) {
    return c.layout == 0 ? d.x[(t * B + b) * I + i] : d.x[(b * S + t) * I + i];
  };
  auto y_index = [&](int64_t t, int64_t dir, int64_t b, int64_t j) {
    return c.layout == 0 ? ((t * D + dir) * B + b) * H + j : ((b * S + t) * D + dir) * H + j;
  };
  auto s_index = [&](int64_t dir, int64_t b, int64_t j) {
    return c.layout == 0 ? (dir * B + b) * H + j : (b * D + dir) * H + j;
  };
  for (int64_t dir = 0; dir < D; ++dir) {
    const bool reverse = c.direction == 1 || dir == 1;
    std::vector<int> code(c.functions());
    std::vector<double> alpha(c.functions()), beta(c.functions());
    for (int k = 0; k < c.functions(); ++k) {
      const size_t index = dir * c.functions() + k;
      if (c.activations.empty()) {
        code[k] = c.type == "RNN" ? 1 : (k == 0 ? 0 : 1);
      } else {
        code[k] = static_cast<int>(c.activations[index]);
        alpha[k] = c.alphas.empty() ? 0 : c.alphas[index];
        beta[k] = c.betas.empty() ? 0 : c.betas[index];
      }
    }
    auto f = [&](int k, double v) {
      if (c.clip > 0) v = std::max<double>(-c.clip, std::min<double>(c.clip, v));
      return Act(code[k], alpha[k], beta[k], v);
    };
    // Gate g's input part and recurrent part for unit j.
    auto wx = [&](int64_t t, int64_t b, int g, int64_t j) {
      double sum = c.bias ? d.b[dir * 2 * G * H + g * H + j] : 0;
      for (int64_t i = 0; i < I; ++i) sum += d.w[(dir * G * H + g * H + j) * I + i] * x_at(t, b, i);
      return sum;
    };
    auto rh = [&](const std::vector<double>& h, int g, int64_t j, bool with_bias) {
      double sum = c.bias && with_bias ? d.b[dir * 2 * G * H + G * H + g * H + j] : 0;
      for (int64_t k = 0; k < H; ++k) sum += d.r[(dir * G * H + g * H + j) * H + k] * h[k];
      return sum;
    };
    for (int64_t b = 0; b < B; ++b) {
      const int64_t length = c.lengths.empty() ? S : c.lengths[b];
      std::vector<double> h(H, 0), cell(H, 0);
      for (int64_t j = 0; j < H; ++j) {
        if (c.initial_h) h[j] = d.h0[s_index(dir, b, j)];
        if (c.initial_c) cell[j] = d.c0[s_index(dir, b, j)];
      }
      for (int64_t s = 0; s < length; ++s) {
        const int64_t t = reverse ? length - 1 - s : s;
        std::vector<double> next(H), next_cell(H);
        for (int64_t j = 0; j < H; ++j) {
          if (c.type == "RNN") {
            next[j] = f(0, wx(t, b, 0, j) + rh(h, 0, j, true));
          } else if (c.type == "GRU") {
            const double z = f(0, wx(t, b, 0, j) + rh(h, 0, j, true));
            double candidate;
            if (c.linear_before_reset) {
              const double reset = f(0, wx(t, b, 1, j) + rh(h, 1, j, true));
              candidate = f(1, wx(t, b, 2, j) + reset * rh(h, 2, j, true));
            } else {
              std::vector<double> reset_h(H);
              for (int64_t k = 0; k < H; ++k) {
                reset_h[k] = f(0, wx(t, b, 1, k) + rh(h, 1, k, true)) * h[k];
              }
              candidate = f(1, wx(t, b, 2, j) + rh(reset_h, 2, j, true));
            }
            next[j] = (1 - z) * candidate + z * h[j];
          } else {
            auto peep = [&](int k) { return c.peepholes ? d.p[dir * 3 * H + k * H + j] : 0.0; };
            const double in = f(0, wx(t, b, 0, j) + rh(h, 0, j, true) + peep(0) * cell[j]);
            const double forget =
                c.input_forget ? 1 - in
                               : f(0, wx(t, b, 2, j) + rh(h, 2, j, true) + peep(2) * cell[j]);
            const double candidate = f(1, wx(t, b, 3, j) + rh(h, 3, j, true));
            next_cell[j] = forget * cell[j] + in * candidate;
            if (c.cell_clip > 0) {
              next_cell[j] = std::max<double>(-c.cell_clip, std::min<double>(c.cell_clip,
                                                                             next_cell[j]));
            }
            const double out = f(0, wx(t, b, 1, j) + rh(h, 1, j, true) + peep(1) * next_cell[j]);
            next[j] = out * Act(code[2], alpha[2], beta[2], next_cell[j]);
          }
        }
        h = next;
        if (c.type == "LSTM") cell = next_cell;
        for (int64_t j = 0; j < H; ++j) y[y_index(t, dir, b, j)] = static_cast<float>(h[j]);
      }
      for (int64_t j = 0; j < H; ++j) {
        yh[s_index(dir, b, j)] = static_cast<float>(h[j]);
        yc[s_index(dir, b, j)] = static_cast<float>(cell[j]);
      }
    }
  }
  return {y, yh, yc};
}

Data MakeData(const Case& c, uint32_t seed) {
  const int64_t D = c.dirs(), G = c.gates(), H = c.hidden;
  Data d;
  d.x = RandomFloats(c.seq * c.batch * c.input, seed);
  for (float& v : d.x) v *= c.input_scale;
  d.w = RandomFloats(D * G * H * c.input, seed + 1, -0.6f, 0.6f);
  d.r = RandomFloats(D * G * H * H, seed + 2, -0.6f, 0.6f);
  d.b = RandomFloats(D * 2 * G * H, seed + 3, -0.3f, 0.3f);
  d.h0 = RandomFloats(D * c.batch * H, seed + 4);
  d.c0 = RandomFloats(D * c.batch * H, seed + 5);
  for (float& v : d.c0) v *= c.input_scale;
  d.p = RandomFloats(D * 3 * H, seed + 6, -0.5f, 0.5f);
  return d;
}

MaceStatus RunCase(const Case& c, const Data& d, OpTester* tester) {
  const int64_t D = c.dirs(), G = c.gates(), H = c.hidden;
  const std::vector<int64_t> state =
      c.layout == 0 ? std::vector<int64_t>{D, c.batch, H} : std::vector<int64_t>{c.batch, D, H};
  tester->Input("x",
                c.layout == 0 ? std::vector<int64_t>{c.seq, c.batch, c.input}
                              : std::vector<int64_t>{c.batch, c.seq, c.input},
                d.x);
  if (c.constant_weights) {
    tester->Weight("w", {D, G * H, c.input}, d.w).Weight("r", {D, G * H, H}, d.r);
  } else {
    tester->Input("w", {D, G * H, c.input}, d.w).Input("r", {D, G * H, H}, d.r);
  }
  const bool has_c = c.type == "LSTM" && (c.initial_c || c.peepholes);
  const bool has_h = c.initial_h || has_c;
  const bool has_lengths = !c.lengths.empty() || has_h;
  if (c.bias) {
    tester->Weight("b", {D, 2 * G * H}, d.b);
  } else if (has_lengths) {
    tester->EmptyInput();
  }
  if (!c.lengths.empty()) {
    std::vector<float> lengths(c.lengths.begin(), c.lengths.end());
    tester->Input("lengths", {c.batch}, lengths);
  } else if (has_h) {
    tester->EmptyInput();
  }
  if (c.initial_h) {
    tester->Input("h0", state, d.h0);
  } else if (has_c) {
    tester->EmptyInput();
  }
  if (c.initial_c) {
    tester->Input("c0", state, d.c0);
  } else if (c.peepholes) {
    tester->EmptyInput();
  }
  if (c.peepholes) tester->Weight("p", {D, 3 * H}, d.p);
  const char* names[] = {"y", "y_h", "y_c"};
  for (int i = 0; i < c.outputs; ++i) tester->Output(names[i]);
  tester->Arg("hidden_size", H).Arg("direction", c.direction).Arg("layout", c.layout);
  if (c.clip > 0) tester->Arg("clip", c.clip);
  if (c.cell_clip != 0) tester->Arg("cell_clip", c.cell_clip);
  if (c.type == "LSTM") tester->Arg("input_forget", c.input_forget ? 1 : 0);
  if (c.type == "GRU") tester->Arg("linear_before_reset", c.linear_before_reset ? 1 : 0);
  if (!c.activations.empty()) {
    tester->Args("gate_activations", c.activations);
    if (!c.alphas.empty()) tester->Args("gate_alpha", c.alphas);
    if (!c.betas.empty()) tester->Args("gate_beta", c.betas);
  }
  return tester->Run();
}

MaceStatus (*const kRegister)(OpRegistry*) = RegisterRecurrent;

// Runs the case and compares every output with Reference; `cells` (if
// given) receives Y_c.
void Check(const Case& c, uint32_t seed, Runtime* runtime = nullptr,
           std::vector<float>* cells = nullptr) {
  SCOPED_TRACE(c.type + " seq " + std::to_string(c.seq) + " batch " + std::to_string(c.batch) +
               " hidden " + std::to_string(c.hidden) + " direction " + std::to_string(c.direction) +
               " layout " + std::to_string(c.layout));
  const Data d = MakeData(c, seed);
  OpTester tester(c.type, kRegister);
  if (runtime != nullptr) tester.WithRuntime(runtime);
  const MaceStatus status = RunCase(c, d, &tester);
  ASSERT_TRUE(status.ok()) << status.information();
  const auto expected = Reference(c, d);
  const char* names[] = {"y", "y_h", "y_c"};
  for (int i = 0; i < c.outputs; ++i) {
    SCOPED_TRACE(names[i]);
    ExpectNear(tester.OutputData(names[i]), expected[i], 2e-5f, 1e-4f);
  }
  const std::vector<int64_t> y_shape =
      c.layout == 0 ? std::vector<int64_t>{c.seq, c.dirs(), c.batch, c.hidden}
                    : std::vector<int64_t>{c.batch, c.seq, c.dirs(), c.hidden};
  EXPECT_EQ(tester.OutputShape("y"), y_shape);
  if (cells != nullptr) *cells = tester.OutputData("y_c");
}

TEST(RecurrentTest, LstmSingleStepBatchOne) {
  Case c;
  c.seq = 1;
  c.batch = 1;
  c.hidden = 5;
  Check(c, 11);
}

TEST(RecurrentTest, LstmDefaultsWithoutBias) {
  Case c;
  c.bias = false;
  c.outputs = 1;
  Check(c, 12);
}

TEST(RecurrentTest, LstmBidirectionalEverything) {
  Case c;
  c.seq = 4;
  c.batch = 3;
  c.hidden = 9;
  c.direction = 2;
  c.initial_h = c.initial_c = c.peepholes = true;
  c.lengths = {4, 2, 1};
  Check(c, 13);
}

TEST(RecurrentTest, LstmReverseLayout1ClipInputForgetActivations) {
  Case c;
  c.seq = 5;
  c.batch = 2;
  c.hidden = 17;
  c.input = 3;
  c.direction = 1;
  c.layout = 1;
  c.clip = 0.7f;
  c.input_forget = true;
  c.initial_h = true;
  c.activations = {kRecurrentHardSigmoid, kRecurrentScaledTanh, kRecurrentSoftsign};
  c.alphas = {0.3f, 1.5f, 0.f};
  c.betas = {0.4f, 0.8f, 0.f};
  Check(c, 14);
}

// TensorFlow's cell clip: the new cell state is bounded, and the output
// gate's peephole, the output function, Y_c and the next step see the bound
// value. The inputs are scaled up so that cells reach the bound.
TEST(RecurrentTest, LstmCellClipWithPeepholes) {
  for (const float bound : {0.25f, 1.f}) {
    Case c;
    c.seq = 6;
    c.batch = 3;
    c.hidden = 7;
    c.cell_clip = bound;
    c.initial_h = c.initial_c = c.peepholes = true;
    c.lengths = {6, 3, 1};
    c.input_scale = 4.f;
    std::vector<float> cells;
    Check(c, 17, nullptr, &cells);
    // The bound is reached (so the case tests the clip) and never passed.
    int at_bound = 0;
    for (const float v : cells) {
      EXPECT_LE(std::fabs(v), bound);
      at_bound += std::fabs(v) == bound ? 1 : 0;
    }
    EXPECT_GT(at_bound, 0);
  }
}

TEST(RecurrentTest, LstmComputedWeightsLayout1Bidirectional) {
  Case c;
  c.seq = 3;
  c.batch = 4;
  c.hidden = 8;
  c.input = 10;
  c.direction = 2;
  c.layout = 1;
  c.constant_weights = false;
  c.initial_c = true;
  c.lengths = {1, 3, 2, 3};
  c.outputs = 2;
  Check(c, 15);
}

TEST(RecurrentTest, GruDefaults) {
  Case c;
  c.type = "GRU";
  c.outputs = 2;
  Check(c, 21);
}

TEST(RecurrentTest, GruLinearBeforeResetBidirectionalLengths) {
  Case c;
  c.type = "GRU";
  c.seq = 4;
  c.batch = 3;
  c.hidden = 7;
  c.direction = 2;
  c.linear_before_reset = true;
  c.initial_h = true;
  c.lengths = {2, 4, 1};
  c.outputs = 2;
  Check(c, 22);
}

TEST(RecurrentTest, GruReverseLayout1ComputedWeightsClip) {
  Case c;
  c.type = "GRU";
  c.seq = 6;
  c.batch = 1;
  c.hidden = 12;
  c.direction = 1;
  c.layout = 1;
  c.clip = 0.5f;
  c.constant_weights = false;
  c.lengths = {4};
  c.activations = {kRecurrentSigmoid, kRecurrentElu};
  c.alphas = {0.f, 0.9f};
  c.betas = {0.f, 0.f};
  c.outputs = 2;
  Check(c, 23);
}

TEST(RecurrentTest, GruBidirectionalWithoutLinearBeforeReset) {
  Case c;
  c.type = "GRU";
  c.seq = 3;
  c.batch = 5;
  c.hidden = 3;
  c.direction = 2;
  c.initial_h = true;
  c.lengths = {3, 1, 2, 3, 2};
  c.outputs = 2;
  Check(c, 24);
}

TEST(RecurrentTest, RnnDefaultsAndActivations) {
  Case c;
  c.type = "RNN";
  c.outputs = 2;
  Check(c, 31);
  Case d = c;
  d.direction = 2;
  d.seq = 1;
  d.batch = 3;
  d.hidden = 10;
  d.activations = {kRecurrentLeakyRelu, kRecurrentSoftplus};
  d.alphas = {0.1f, 0.f};
  d.betas = {0.f, 0.f};
  d.initial_h = true;
  Check(d, 32);
  Case e = c;
  e.direction = 1;
  e.layout = 1;
  e.activations = {kRecurrentThresholdedRelu};
  e.alphas = {0.2f};
  e.betas = {0.f};
  e.lengths = {2, 3};
  Check(e, 33);
  Case f = c;
  f.activations = {kRecurrentAffine};
  f.alphas = {0.5f};
  f.betas = {0.25f};
  f.bias = false;
  Check(f, 34);
}

// The plain-loop products (the reference kernel setting) and the GEMM on
// pools of several threads give the same results.
TEST(RecurrentTest, PlainLoopsAndThreadedGemm) {
  std::vector<Case> cases(3);
  cases[0].direction = 2;
  cases[0].lengths = {3, 1};
  cases[0].peepholes = true;
  cases[1].type = "GRU";
  cases[1].batch = 5;
  cases[1].hidden = 33;
  cases[1].input = 20;
  cases[1].outputs = 2;
  cases[2].type = "RNN";
  cases[2].direction = 1;
  cases[2].constant_weights = false;
  cases[2].outputs = 2;
  for (const Case& c : cases) {
    CpuRuntime reference(std::make_unique<ThreadPool>(1), KernelIsa::kReference);
    Check(c, 51, &reference);
    for (int threads : {1, 2, 3}) {
      CpuRuntime runtime(std::make_unique<ThreadPool>(threads));
      Check(c, 52, &runtime);
    }
    Case other_gru = c;
    other_gru.linear_before_reset = true;
    if (c.type == "GRU") Check(other_gru, 53, &reference);
  }
}

void ExpectInvalid(const Case& c, const Data& d, const std::string& fragment) {
  OpTester tester(c.type, kRegister);
  const MaceStatus status = RunCase(c, d, &tester);
  EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS) << status.information();
  EXPECT_NE(status.information().find(fragment), std::string::npos) << status.information();
}

TEST(RecurrentTest, RefusesBadShapesArgumentsAndLengths) {
  Case c;
  Data d = MakeData(c, 41);
  {
    OpTester tester("LSTM", kRegister);
    tester.Input("x", {3, 2, 4}, d.x)
        .Weight("w", {1, 20, 4}, d.w)
        .Weight("r", {1, 20, 5}, d.r)
        .Output("y")
        .Arg("hidden_size", 6);
    const MaceStatus status = tester.Run();
    EXPECT_NE(status.information().find("W has shape [1,20,4] but needs [1,24,4]"),
              std::string::npos)
        << status.information();
  }
  Case lengths = c;
  lengths.lengths = {3, 4};
  ExpectInvalid(lengths, d, "sequence_lens[1] is 4");
  Case zero = c;
  zero.lengths = {0, 1};
  ExpectInvalid(zero, d, "sequence_lens[0] is 0");
  Case acts = c;
  acts.activations = {0, 1};
  ExpectInvalid(acts, d, "gate_activations has 2 values but needs 3");
  Case code = c;
  code.activations = {0, 1, 11};
  ExpectInvalid(code, d, "gate activation code 11 is unknown");
  Case cell_clip = c;
  cell_clip.cell_clip = -1.f;
  ExpectInvalid(cell_clip, d, "cell_clip -1 must be positive");
}

}  // namespace
}  // namespace ops
}  // namespace mace
