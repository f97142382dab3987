// LSTM, GRU and RNN on the CPU. Per direction, the input projection of
// every step is one GEMM (X [steps * batch, input] x W^T, with both biases
// added where they can be folded); each step is then one product of the
// state with R^T (a matrix-vector product for batch 1) and the gate math.
// GRU without linear_before_reset needs the reset gate before its candidate
// product, so its step is two products: the z and r gates, then
// (r * H) x R_h^T. Constant W and R are packed once in Prepare; computed
// ones are packed by the GEMM as it reads them. Without a kernel family
// (the engine's reference setting) the products are plain loops.
#include "mace/ops/cpu/recurrent_cpu.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "mace/ops/cpu/gemm.h"
#include "mace/ops/cpu/op_compute.h"
#include "mace/ops/recurrent.h"

namespace mace {
namespace ops {
namespace {

// One right-hand operand: rows of a row-major [n, k] matrix, packed or not.
struct Weights {
  const float* data = nullptr;
  const PackedPanels* packed = nullptr;
};

class RecurrentCpu final : public RecurrentBase {
 public:
  explicit RecurrentCpu(RecurrentKind kind) : RecurrentBase(kind) {}

  MaceStatus Prepare(OpContext* context) override {
    MACE_RETURN_IF_ERROR(InferShapes());
    const RecurrentParams& p = params();
    const int64_t h = p.hidden, gh = p.gates() * h;
    projections_.assign(p.seq * p.batch * gh, 0.f);
    recurrent_.assign(p.batch * gh, 0.f);
    state_h_.assign(p.batch * h, 0.f);
    state_c_.assign(p.batch * h, 0.f);
    reset_h_.assign(p.batch * h, 0.f);
    bias_.assign(gh, 0.f);
    recurrent_bias_.assign(h, 0.f);
    table_ = ContextKernelTable(context);
    packed_w_.clear();
    packed_r_.clear();
    if (table_ == nullptr) return MaceStatus();
    PersistentArena* arena = ContextArena(context);
    for (int d = 0; d < p.directions; ++d) {
      if (Input(kW)->is_weight()) {
        packed_w_.emplace_back();
        packed_w_.back().Pack(WData(d), gh, p.input_size, p.input_size, 1, table_->nr, arena);
      }
      if (Input(kR)->is_weight()) {
        // Separate packs for the blocks of rows each step multiplies by.
        for (const auto& block : RecurrentBlocks()) {
          packed_r_.emplace_back();
          packed_r_.back().Pack(RData(d) + block.first * h * h, block.second, h, h, 1, table_->nr,
                                arena);
        }
      }
    }
    int64_t floats = ScratchFloats(p.seq * p.batch, gh, p.input_size, Input(kW)->is_weight());
    for (const auto& block : RecurrentBlocks()) {
      floats = std::max(floats, ScratchFloats(p.batch, block.second, h, Input(kR)->is_weight()));
    }
    return scratch_.Reserve(context, NumThreads(ContextPool(context)) * floats * 4);
  }

  MaceStatus Run(OpContext* context) override {
    MACE_RETURN_IF_ERROR(CheckSequenceLengths());
    const RecurrentParams& p = params();
    std::fill_n(Output(0)->mutable_data<float>(), p.seq * p.directions * p.batch * p.hidden, 0.f);
    for (int d = 0; d < p.directions; ++d) RunDirection(context, d);
    return MaceStatus();
  }

 private:
  const float* WData(int d) const {
    const RecurrentParams& p = params();
    return Input(kW)->data<float>() + d * p.gates() * p.hidden * p.input_size;
  }
  const float* RData(int d) const {
    const RecurrentParams& p = params();
    return Input(kR)->data<float>() + d * p.gates() * p.hidden * p.hidden;
  }

  // (first row / hidden, rows) of R's blocks, one product each per step.
  std::vector<std::pair<int64_t, int64_t>> RecurrentBlocks() const {
    const RecurrentParams& p = params();
    const int64_t h = p.hidden;
    if (p.kind == RecurrentKind::kGru && !p.linear_before_reset) return {{0, 2 * h}, {2, h}};
    return {{0, p.gates() * h}};
  }

  Weights RBlock(int d, int block) const {
    const RecurrentParams& p = params();
    Weights weights;
    if (!packed_r_.empty()) {
      weights.packed = &packed_r_[d * RecurrentBlocks().size() + block];
    } else {
      weights.data = RData(d) + RecurrentBlocks()[block].first * p.hidden * p.hidden;
    }
    return weights;
  }

  int64_t ScratchFloats(int64_t m, int64_t n, int64_t k, bool packed) const {
    if (table_ == nullptr) return 0;
    GemmOperand a;
    a.data = nullptr;
    a.stride = k;
    a.depth_stride = 1;
    GemmOperand b = a;
    PackedPanels unused;
    if (packed) b.packed = &unused;
    return GemmScratchFloatsPerThread(*table_, m, n, k, a, b);
  }

  // c[i, j] (row stride ldc) = a[i, :] . weights[j, :] + bias[j].
  void Product(OpContext* context, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
               const Weights& weights, const float* bias, float* c, int64_t ldc) {
    if (table_ == nullptr) {
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          const float* row = weights.data + j * k;
          float sum = bias != nullptr ? bias[j] : 0.f;
          for (int64_t x = 0; x < k; ++x) sum += a[i * lda + x] * row[x];
          c[i * ldc + j] = sum;
        }
      }
      return;
    }
    GemmOperand left;
    left.data = a;
    left.stride = lda;
    left.depth_stride = 1;
    GemmOperand right;
    if (weights.packed != nullptr) {
      right.packed = weights.packed;
    } else {
      right.data = weights.data;
      right.stride = k;
      right.depth_stride = 1;
    }
    TileEpilogue epilogue;
    epilogue.col_bias = bias;
    Gemm(*table_, m, n, k, left, right, c, ldc, epilogue, ContextPool(context),
         scratch_.Get(context));
  }

  float Clip(float x) const {
    const float clip = params().clip;
    return clip > 0.f ? std::min(clip, std::max(-clip, x)) : x;
  }

  // The folded bias of direction d: W's plus R's, except R's candidate bias
  // of a GRU with linear_before_reset, which goes in recurrent_bias_.
  void FoldBias(int d) {
    const RecurrentParams& p = params();
    const int64_t gh = p.gates() * p.hidden;
    const Tensor* b = OptionalInput(kB);
    if (b == nullptr) {
      std::fill(bias_.begin(), bias_.end(), 0.f);
      std::fill(recurrent_bias_.begin(), recurrent_bias_.end(), 0.f);
      return;
    }
    const float* wb = b->data<float>() + d * 2 * gh;
    const float* rb = wb + gh;
    const bool split = p.kind == RecurrentKind::kGru && p.linear_before_reset;
    for (int64_t j = 0; j < gh; ++j) {
      bias_[j] = wb[j] + (split && j >= 2 * p.hidden ? 0.f : rb[j]);
    }
    for (int64_t j = 0; j < p.hidden; ++j) recurrent_bias_[j] = split ? rb[2 * p.hidden + j] : 0.f;
  }

  void LoadState(int index, int d, std::vector<float>* state) const {
    const RecurrentParams& p = params();
    const Tensor* initial = OptionalInput(index);
    for (int64_t b = 0; b < p.batch; ++b) {
      float* row = state->data() + b * p.hidden;
      if (initial == nullptr) {
        std::fill_n(row, p.hidden, 0.f);
      } else {
        std::memcpy(row, initial->data<float>() + p.state_offset(d, b), p.hidden * sizeof(float));
      }
    }
  }

  int64_t Length(int64_t b) const {
    const Tensor* lengths = OptionalInput(kSequenceLens);
    return lengths == nullptr ? params().seq : static_cast<int64_t>(lengths->data<float>()[b]);
  }

  void RunDirection(OpContext* context, int d) {
    const RecurrentParams& p = params();
    const int64_t h = p.hidden, gh = p.gates() * h;
    FoldBias(d);
    Weights w;
    if (!packed_w_.empty()) {
      w.packed = &packed_w_[d];
    } else {
      w.data = WData(d);
    }
    Product(context, p.seq * p.batch, gh, p.input_size, Input(kX)->data<float>(), p.input_size, w,
            bias_.data(), projections_.data(), gh);
    LoadState(kInitialH, d, &state_h_);
    if (p.kind == RecurrentKind::kLstm) LoadState(kInitialC, d, &state_c_);
    float* y = Output(0)->mutable_data<float>();
    const RecurrentFunction* f = &p.functions[d * p.gate_functions()];
    const Tensor* peepholes = OptionalInput(kPeepholes);
    const float* peep = peepholes != nullptr ? peepholes->data<float>() + d * 3 * h : nullptr;
    for (int64_t s = 0; s < p.seq; ++s) {
      Product(context, p.batch, RecurrentBlocks()[0].second, h, state_h_.data(), h, RBlock(d, 0),
              nullptr, recurrent_.data(), gh);
      if (p.kind == RecurrentKind::kGru && !p.linear_before_reset) {
        GruReset(s, d, f);
        Product(context, p.batch, h, h, reset_h_.data(), h, RBlock(d, 1), nullptr,
                recurrent_.data() + 2 * h, gh);
      }
      for (int64_t b = 0; b < p.batch; ++b) {
        const int64_t length = Length(b);
        if (s >= length) continue;
        const int64_t t = p.reversed(d) ? length - 1 - s : s;
        const float* x = projections_.data() + p.x_row(t, b) * gh;
        const float* r = recurrent_.data() + b * gh;
        float* state = state_h_.data() + b * h;
        if (p.kind == RecurrentKind::kLstm) {
          LstmStep(x, r, peep, f, state, state_c_.data() + b * h);
        } else if (p.kind == RecurrentKind::kGru) {
          GruStep(x, r, f, state);
        } else {
          for (int64_t j = 0; j < h; ++j)
            state[j] = ApplyRecurrentFunction(f[0], Clip(x[j] + r[j]));
        }
        std::memcpy(y + p.y_offset(t, d, b), state, h * sizeof(float));
      }
    }
    for (int i = 1; i < OutputSize(); ++i) {
      const std::vector<float>& state = i == 1 ? state_h_ : state_c_;
      float* out = Output(i)->mutable_data<float>();
      for (int64_t b = 0; b < p.batch; ++b) {
        std::memcpy(out + p.state_offset(d, b), state.data() + b * h, h * sizeof(float));
      }
    }
  }

  // Gates i, o, f, c (ONNX's order), peepholes i, o, f.
  void LstmStep(const float* x, const float* r, const float* peep, const RecurrentFunction* f,
                float* state_h, float* state_c) const {
    const int64_t h = params().hidden;
    for (int64_t j = 0; j < h; ++j) {
      const float c_prev = state_c[j];
      float in = x[j] + r[j], forget = x[2 * h + j] + r[2 * h + j];
      if (peep != nullptr) {
        in += peep[j] * c_prev;
        forget += peep[2 * h + j] * c_prev;
      }
      const float i_gate = ApplyRecurrentFunction(f[0], Clip(in));
      const float f_gate =
          params().input_forget ? 1.f - i_gate : ApplyRecurrentFunction(f[0], Clip(forget));
      const float candidate = ApplyRecurrentFunction(f[1], Clip(x[3 * h + j] + r[3 * h + j]));
      float c = f_gate * c_prev + i_gate * candidate;
      const float cell_clip = params().cell_clip;
      if (cell_clip > 0.f) c = std::min(cell_clip, std::max(-cell_clip, c));
      float out = x[h + j] + r[h + j];
      if (peep != nullptr) out += peep[h + j] * c;
      const float o_gate = ApplyRecurrentFunction(f[0], Clip(out));
      state_c[j] = c;
      state_h[j] = o_gate * ApplyRecurrentFunction(f[2], c);
    }
  }

  // reset_h_ = r * H for the active entries, before the candidate product.
  void GruReset(int64_t s, int d, const RecurrentFunction* f) {
    const RecurrentParams& p = params();
    const int64_t h = p.hidden, gh = p.gates() * h;
    for (int64_t b = 0; b < p.batch; ++b) {
      float* out = reset_h_.data() + b * h;
      const int64_t length = Length(b);
      if (s >= length) {
        std::fill_n(out, h, 0.f);
        continue;
      }
      const int64_t t = p.reversed(d) ? length - 1 - s : s;
      const float* x = projections_.data() + p.x_row(t, b) * gh;
      const float* r = recurrent_.data() + b * gh;
      const float* state = state_h_.data() + b * h;
      for (int64_t j = 0; j < h; ++j) {
        out[j] = ApplyRecurrentFunction(f[0], Clip(x[h + j] + r[h + j])) * state[j];
      }
    }
  }

  // Gates z, r, h (ONNX's order).
  void GruStep(const float* x, const float* r, const RecurrentFunction* f, float* state) const {
    const RecurrentParams& p = params();
    const int64_t h = p.hidden;
    for (int64_t j = 0; j < h; ++j) {
      const float z = ApplyRecurrentFunction(f[0], Clip(x[j] + r[j]));
      float candidate;
      if (p.linear_before_reset) {
        const float reset = ApplyRecurrentFunction(f[0], Clip(x[h + j] + r[h + j]));
        candidate = x[2 * h + j] + reset * (r[2 * h + j] + recurrent_bias_[j]);
      } else {
        candidate = x[2 * h + j] + r[2 * h + j];  // r already holds (r * H) x R_h^T
      }
      const float hidden = ApplyRecurrentFunction(f[1], Clip(candidate));
      state[j] = (1.f - z) * hidden + z * state[j];
    }
  }

  const KernelTable* table_ = nullptr;  // null: plain loops
  std::vector<PackedPanels> packed_w_;  // per direction, when W is constant
  std::vector<PackedPanels> packed_r_;  // per direction and block, when R is constant
  std::vector<float> projections_;      // [steps * batch, gates * H], X's row order
  std::vector<float> recurrent_;        // [batch, gates * H]
  std::vector<float> state_h_, state_c_, reset_h_;
  std::vector<float> bias_, recurrent_bias_;
  OpScratch scratch_;
};

}  // namespace

std::unique_ptr<Operation> NewLstmCpu() {
  return std::make_unique<RecurrentCpu>(RecurrentKind::kLstm);
}
std::unique_ptr<Operation> NewGruCpu() {
  return std::make_unique<RecurrentCpu>(RecurrentKind::kGru);
}
std::unique_ptr<Operation> NewRnnCpu() {
  return std::make_unique<RecurrentCpu>(RecurrentKind::kRnn);
}

}  // namespace ops
}  // namespace mace
