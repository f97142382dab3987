// Reference scaled dot-product attention (mace/ops/attention.h): for each
// batch b, head h and query row i,
//   s_j = scale * sum_d q[b, h, i, d] k[b, h, j, d], then the mask,
//   p = Softmax(s), out[b, h, i, :] = sum_j p_j v[b, h, j, :],
// in double. A row whose every score is -inf after the mask gives zeros.
// With fake quantization of the scores (probabilities), each s_j (p_j) is
// rounded to float and fake-quantized (FakeQuantize) before it is used.
#ifndef MACE_OPS_REF_ATTENTION_H_
#define MACE_OPS_REF_ATTENTION_H_

#include <cstdint>

namespace mace {
namespace ops {
namespace ref {

// How the optional mask changes a score s where it holds m.
enum class AttentionMask {
  NONE,          // no mask
  ADD,           // s + m
  KEEP_NONZERO,  // s where m != 0, else the fill value
  KEEP_ZERO,     // s where m == 0, else the fill value
};

// Element strides of a 4-D view: (batch, head, row, column). For Q, K, V
// and the output a row is a sequence position and a column a depth index;
// for the mask rows are queries and columns keys. A stride of 0 broadcasts.
struct AttentionStrides {
  int64_t batch = 0, head = 0, row = 0, column = 0;
};

// A per-tensor fake quantization: x becomes (q - zero_point) * scale with
// q = clamp(round(x / scale) + zero_point, low, high), x / scale in float,
// ties to even, NaN to the zero point: QuantizeLinear with `dequantize`
// (ref/qdq_linear.h). The op checks that scale is positive and finite and
// that zero_point, low and high are integers with low <= zero_point <=
// high and |low|, |high| <= 65536.
struct AttentionFakeQuant {
  bool on = false;
  float scale = 1.f, zero_point = 0.f, low = 0.f, high = 0.f;
};

float FakeQuantize(const AttentionFakeQuant& fq, float x);

struct AttentionParams {
  int64_t batch = 0, heads = 0;
  int64_t q_len = 0, kv_len = 0;  // query rows, key (and value) rows
  int64_t depth = 0;              // of Q and K
  int64_t v_depth = 0;            // of V and the output
  AttentionStrides q, k, v, out, mask;
  float scale = 1.f;
  AttentionMask mask_kind = AttentionMask::NONE;
  float fill = 0.f;  // the score of a position a KEEP_* mask drops
  // After the scale and the mask, before the softmax; after the softmax.
  AttentionFakeQuant scores_quant, probs_quant;
};

// mask may be nullptr when mask_kind is NONE.
void Attention(const AttentionParams& params, const float* q, const float* k, const float* v,
               const float* mask, float* output);

}  // namespace ref
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_ATTENTION_H_
