// Attention: fused scaled dot-product attention, per batch and head
//   out = Softmax(Q K^T * scale + mask) V   (the softmax over the keys).
// Inputs [q, k, v, optional mask]; one output.
//
// `layouts` (4 ints: q, k, v, output; default all 0) says how each tensor
// holds its heads:
//   0  [B, H, S, D]  one matrix per head
//   1  [B, S, H*D]   heads side by side, as the projections write them
//                    (`heads` gives H); an input may also be [S, H*D]
//                    (one batch)
//   2  [B, H, D, S]  K only: K already transposed
//   3  [B, S, 3*H*D] Q, K and V side by side in each row, as one
//                    projection with the three weights concatenated
//                    writes them (an input may also be [S, 3*H*D]): q
//                    reads the first third of each row, k the second and
//                    v the last (q, k, v only; usually one tensor given
//                    three times)
// Q has Sq rows and depth D, K and V Sk rows with depths D and Dv; the
// output has Q's rows and V's depth. `scale` defaults to 1 / sqrt(D).
//
// The mask (float, any rank up to 4) broadcasts against the scores
// [B, H, Sq, Sk] numpy-style. `mask` says how it applies after the scale:
// "add" (the default) adds it, "keep_nonzero" and "keep_zero" keep the
// score where the mask is nonzero (zero) and put `fill` elsewhere. A row
// whose every score is -inf after the mask gives zeros, as the PyTorch
// exporter's IsNaN guard after the Softmax makes of its NaNs.
//
// `scores_quant` and `probs_quant` (4 floats each: scale, zero point, low,
// high; optional) fake-quantize the scores after the scale and the mask,
// and the probabilities after the softmax, as a QDQ model's
// QuantizeLinear -> DequantizeLinear pairs around its Softmax do
// (ref::FakeQuantize).
//
// AttentionBase is the device-neutral part; the CPU kernel is
// mace/ops/cpu/attention_cpu.cc, the reference mace/ops/ref/attention.cc.
#ifndef MACE_OPS_ATTENTION_H_
#define MACE_OPS_ATTENTION_H_

#include <cstdint>

#include "mace/core/operation.h"
#include "mace/ops/ref/attention.h"

namespace mace {
namespace ops {

class AttentionBase : public Operation {
 public:
  MaceStatus Init() override;

 protected:
  // Checks the inputs against the layouts and fills params().
  MaceStatus InferShapes();
  const ref::AttentionParams& params() const { return params_; }
  // Input i (q, k or v) where its view starts: past the thirds before
  // it in layout 3.
  const float* input_data(int i) const { return Input(i)->data<float>() + offsets_[i]; }
  const float* mask_data() const {
    return InputSize() > 3 && Input(3) != nullptr ? Input(3)->data<float>() : nullptr;
  }

 private:
  // The fake quantization in argument `name` (scale, zero point, low,
  // high), or none when the op has no such argument.
  MaceStatus ParseFakeQuant(const char* name, ref::AttentionFakeQuant* fq);

  int64_t heads_ = 0;
  int64_t layouts_[4] = {0, 0, 0, 0};
  int64_t offsets_[3] = {0, 0, 0};
  bool has_scale_ = false;
  float scale_ = 1.f;
  ref::AttentionMask mask_kind_ = ref::AttentionMask::NONE;
  float fill_ = 0.f;
  ref::AttentionFakeQuant scores_quant_, probs_quant_;
  ref::AttentionParams params_;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_ATTENTION_H_
