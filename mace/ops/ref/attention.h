// Reference scaled dot-product attention (mace/ops/attention.h): for each
// batch b, head h and query row i,
//   s_j = scale * sum_d q[b, h, i, d] k[b, h, j, d], then the mask,
//   p = Softmax(s), out[b, h, i, :] = sum_j p_j v[b, h, j, :],
// in double. A row whose every score is -inf after the mask gives zeros.
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

struct AttentionParams {
  int64_t batch = 0, heads = 0;
  int64_t q_len = 0, kv_len = 0;  // query rows, key (and value) rows
  int64_t depth = 0;              // of Q and K
  int64_t v_depth = 0;            // of V and the output
  AttentionStrides q, k, v, out, mask;
  float scale = 1.f;
  AttentionMask mask_kind = AttentionMask::NONE;
  float fill = 0.f;  // the score of a position a KEEP_* mask drops
};

// mask may be nullptr when mask_kind is NONE.
void Attention(const AttentionParams& params, const float* q, const float* k, const float* v,
               const float* mask, float* output);

}  // namespace ref
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_ATTENTION_H_
