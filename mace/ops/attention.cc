#include "mace/ops/attention.h"

#include <cmath>
#include <string>
#include <vector>

#include "mace/ops/common/op_checks.h"
#include "mace/ops/cpu/attention_cpu.h"
#include "mace/ops/op_registration.h"

namespace mace {
namespace ops {

namespace {

constexpr int64_t kPerHead = 0, kMerged = 1, kTransposed = 2, kPacked = 3;
const char* const kNames[4] = {"q", "k", "v", "output"};

// The dimensions of one [B, H, S, D] view.
struct HeadView {
  int64_t batch, heads, rows, depth;
  ref::AttentionStrides strides;
};

}  // namespace

MaceStatus AttentionBase::Init() {
  OP_CHECK(InputSize() >= 3 && InputSize() <= 4 && OutputSize() == 1,
           "needs 3 or 4 inputs (q, k, v, mask) and 1 output, got ", InputSize(), " inputs and ",
           OutputSize(), " outputs");
  for (int i = 0; i < 3; ++i) OP_CHECK(Input(i) != nullptr, kNames[i], " is missing");
  heads_ = GetInt("heads", 0);
  OP_CHECK(heads_ >= 0, "heads must be >= 0, got ", heads_);
  const std::vector<int64_t> layouts = GetInts("layouts");
  OP_CHECK(layouts.empty() || layouts.size() == 4, "layouts needs 4 values (q, k, v, output), got ",
           layouts.size());
  for (size_t i = 0; i < layouts.size(); ++i) {
    const int64_t layout = layouts[i];
    OP_CHECK(layout == kPerHead || layout == kMerged || (layout == kTransposed && i == 1) ||
                 (layout == kPacked && i < 3),
             "layout ", layout, " of ", kNames[i],
             " is not one of 0 ([B, H, S, D]), 1 ([B, S, H*D])", i == 1 ? ", 2 ([B, H, D, S])" : "",
             i < 3 ? " or 3 ([B, S, 3*H*D])" : "");
    OP_CHECK((layout != kMerged && layout != kPacked) || heads_ > 0, kNames[i], " has layout ",
             layout, " but heads is ", heads_);
    layouts_[i] = layout;
  }
  has_scale_ = HasArg("scale");
  scale_ = GetFloat("scale", 1.f);
  OP_CHECK(std::isfinite(scale_), "scale must be finite, got ", scale_);
  const bool has_mask = InputSize() > 3 && Input(3) != nullptr;
  const std::string mask = GetString("mask", "add");
  if (!has_mask) {
    mask_kind_ = ref::AttentionMask::NONE;
  } else if (mask == "add") {
    mask_kind_ = ref::AttentionMask::ADD;
  } else if (mask == "keep_nonzero") {
    mask_kind_ = ref::AttentionMask::KEEP_NONZERO;
  } else if (mask == "keep_zero") {
    mask_kind_ = ref::AttentionMask::KEEP_ZERO;
  } else {
    OP_CHECK(false, "mask must be \"add\", \"keep_nonzero\" or \"keep_zero\", got \"", mask, "\"");
  }
  fill_ = GetFloat("fill", 0.f);
  OP_CHECK(!std::isnan(fill_), "fill must not be NaN");
  MACE_RETURN_IF_ERROR(ParseFakeQuant("scores_quant", &scores_quant_));
  return ParseFakeQuant("probs_quant", &probs_quant_);
}

MaceStatus AttentionBase::ParseFakeQuant(const char* name, ref::AttentionFakeQuant* fq) {
  *fq = ref::AttentionFakeQuant();
  if (!HasArg(name)) return MaceStatus();
  const std::vector<float> values = GetFloats(name);
  OP_CHECK(values.size() == 4, name, " needs 4 values (scale, zero point, low, high), got ",
           values.size());
  const float scale = values[0], zero_point = values[1], low = values[2], high = values[3];
  OP_CHECK(std::isfinite(scale) && scale > 0.f, name,
           ": the scale must be positive and finite, got ", scale);
  constexpr float kLargest = 65536.f;
  for (const float bound : {zero_point, low, high}) {
    OP_CHECK(std::fabs(bound) <= kLargest && bound == std::nearbyint(bound), name,
             ": the zero point and the bounds must be integers of magnitude 65536 or less, got ",
             bound);
  }
  OP_CHECK(low <= zero_point && zero_point <= high, name, ": needs low <= zero point <= high, got ",
           low, ", ", zero_point, ", ", high);
  fq->on = true;
  fq->scale = scale;
  fq->zero_point = zero_point;
  fq->low = low;
  fq->high = high;
  return MaceStatus();
}

MaceStatus AttentionBase::InferShapes() {
  MACE_RETURN_IF_ERROR(CheckInputsTypeAndShape(*this, kernel_dtype()));
  HeadView views[3];
  for (int i = 0; i < 3; ++i) {
    const std::vector<int64_t>& s = Input(i)->shape();
    HeadView& view = views[i];
    offsets_[i] = 0;
    if (layouts_[i] == kMerged || layouts_[i] == kPacked) {
      const bool packed = layouts_[i] == kPacked;
      OP_CHECK(s.size() == 2 || s.size() == 3, kNames[i], " has shape ", ShapeToString(s),
               packed ? " but layout 3 needs [B, S, 3*H*D] or [S, 3*H*D]"
                      : " but layout 1 needs [B, S, H*D] or [S, H*D]");
      // [S, H*D] is one batch.
      const int64_t batch = s.size() == 3 ? s[0] : 1;
      const int64_t rows = s[s.size() - 2], width = s.back();
      const int64_t parts = packed ? 3 : 1;
      // Divided in two steps, so that no product of a model's heads can
      // overflow.
      OP_CHECK(width % heads_ == 0 && (width / heads_) % parts == 0, kNames[i], " has shape ",
               ShapeToString(s), ": ", width, " is not a multiple of ", packed ? "3 x " : "",
               heads_, " heads");
      const int64_t depth = width / heads_ / parts;
      if (packed) offsets_[i] = i * heads_ * depth;
      view = {batch, heads_, rows, depth, {rows * width, depth, width, 1}};
    } else {
      OP_CHECK(s.size() == 4, kNames[i], " has shape ", ShapeToString(s), " but layout ",
               layouts_[i], " needs rank 4");
      if (layouts_[i] == kTransposed) {
        view = {s[0], s[1], s[3], s[2], {s[1] * s[2] * s[3], s[2] * s[3], 1, s[3]}};
      } else {
        view = {s[0], s[1], s[2], s[3], {s[1] * s[2] * s[3], s[2] * s[3], s[3], 1}};
      }
    }
  }
  const HeadView &q = views[0], &k = views[1], &v = views[2];
  OP_CHECK(k.batch == q.batch && v.batch == q.batch && k.heads == q.heads && v.heads == q.heads,
           "q ", ShapeToString(Input(0)->shape()), ", k ", ShapeToString(Input(1)->shape()),
           " and v ", ShapeToString(Input(2)->shape()), " disagree on batch or heads");
  OP_CHECK(k.depth == q.depth, "q has depth ", q.depth, " but k ", k.depth);
  OP_CHECK(v.rows == k.rows, "k has ", k.rows, " positions but v ", v.rows);
  ref::AttentionParams& p = params_;
  p.batch = q.batch;
  p.heads = q.heads;
  p.q_len = q.rows;
  p.kv_len = k.rows;
  p.depth = q.depth;
  p.v_depth = v.depth;
  p.q = q.strides;
  p.k = k.strides;
  p.v = v.strides;
  p.scale = has_scale_ ? scale_ : static_cast<float>(1.0 / std::sqrt(static_cast<double>(q.depth)));
  p.mask_kind = mask_kind_;
  p.fill = fill_;
  p.scores_quant = scores_quant_;
  p.probs_quant = probs_quant_;
  std::vector<int64_t> out_shape;
  if (layouts_[3] == kMerged) {
    OP_CHECK(p.heads == heads_, "the output has layout 1 with ", heads_, " heads but q has ",
             p.heads);
    out_shape = {p.batch, p.q_len, p.heads * p.v_depth};
    p.out = {p.q_len * p.heads * p.v_depth, p.v_depth, p.heads * p.v_depth, 1};
  } else {
    out_shape = {p.batch, p.heads, p.q_len, p.v_depth};
    p.out = {p.heads * p.q_len * p.v_depth, p.q_len * p.v_depth, p.v_depth, 1};
  }
  p.mask = ref::AttentionStrides();
  if (p.mask_kind != ref::AttentionMask::NONE) {
    const std::vector<int64_t>& m = Input(3)->shape();
    OP_CHECK(m.size() <= 4, "mask has shape ", ShapeToString(m), " but needs rank 4 or less");
    const int64_t scores[4] = {p.batch, p.heads, p.q_len, p.kv_len};
    int64_t strides[4] = {0, 0, 0, 0}, stride = 1;
    const int offset = 4 - static_cast<int>(m.size());
    for (int i = 3; i >= offset; --i) {
      const int64_t size = m[i - offset];
      OP_CHECK(size == 1 || size == scores[i], "mask ", ShapeToString(m),
               " does not broadcast to the scores [", p.batch, ", ", p.heads, ", ", p.q_len, ", ",
               p.kv_len, "]");
      strides[i] = size == 1 ? 0 : stride;
      stride *= size;
    }
    p.mask = {strides[0], strides[1], strides[2], strides[3]};
  }
  Output(0)->Reshape(out_shape);
  return MaceStatus();
}

MaceStatus RegisterAttention(OpRegistry* registry) {
  return registry->Register("Attention", DeviceType::CPU, DT_FLOAT, NewAttentionCpu);
}

}  // namespace ops
}  // namespace mace
