// Reference MaxPoolArgmax and MaxUnpool (MediaPipe's MaxPoolingWithArgmax2D
// and MaxUnpooling2D): direct scans over NCHW planes, one thread.
#ifndef MACE_OPS_REF_MAX_POOL_ARGMAX_H_
#define MACE_OPS_REF_MAX_POOL_ARGMAX_H_

#include <cstdint>

namespace mace {
namespace ops {
namespace ref {

struct ArgmaxWindow {
  int64_t planes = 0;  // batch * channels
  int64_t in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  int64_t kernel_h = 1, kernel_w = 1;
  int64_t stride_h = 1, stride_w = 1;
  // Leading padding; the trailing padding only shapes the pooled size.
  int64_t pad_top = 0, pad_left = 0;
};

// Max pooling: output pixel (y, x) of a plane reads input pixels
// (y * stride_h - pad_top + ky, x * stride_w - pad_left + kx) inside the
// input, scanned row-major in (ky, kx); a tap replaces the maximum only when
// greater, so the first of equal maxima wins and NaN never does. A window of
// padding only gives the lowest float and window index 0.
// indices (may be null) holds ky * kernel_w + kx of each maximum, counted
// in the window including its padded part, plus 0.1 so that truncating the
// float gives the integer back.
void MaxPoolArgmax(const ArgmaxWindow& window, const float* input, float* output, float* indices);

// The inverse scatter: `window` describes the pooling (in = the pooled
// planes this op reads, out = the planes it writes). Output starts at 0;
// input pixel (y, x) with index i = trunc(indices[y, x]) goes to
// (y * stride_h - pad_top + i / kernel_w, x * stride_w - pad_left +
// i % kernel_w), both divisions truncating toward zero. A destination outside
// the output, or an index that is not a finite value in int32 range, is
// skipped; of two pixels with one destination the later in row-major order
// wins.
void MaxUnpool(const ArgmaxWindow& window, const float* input, const float* indices, float* output);

}  // namespace ref
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_MAX_POOL_ARGMAX_H_
