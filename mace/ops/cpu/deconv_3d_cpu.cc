#include "mace/ops/cpu/deconv_3d_cpu.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "mace/ops/cpu/op_compute.h"
#include "mace/ops/deconv_3d.h"

namespace mace {
namespace ops {
namespace {

// The input positions [begin, end) of one axis whose tap k lands inside the
// cropped output: 0 <= i * stride - crop + k * dilation < out.
struct Span {
  int64_t begin = 0, end = 0;
};

Span Reaching(const ref::Deconv3DParams& p, int axis, int64_t k) {
  const int64_t shift = k * p.dilation[axis] - p.crop[axis];
  const int64_t stride = p.stride[axis];
  // The smallest i >= 0 with i * stride + shift >= bound.
  const auto first_at = [stride, shift](int64_t bound) {
    const int64_t need = bound - shift;
    return need <= 0 ? int64_t{0} : (need + stride - 1) / stride;
  };
  Span span;
  span.begin = std::min(first_at(0), p.in[axis]);
  span.end = std::max(std::min(first_at(p.out[axis]), p.in[axis]), span.begin);
  return span;
}

class Deconv3DCpu final : public Deconv3DBase {
 public:
  MaceStatus Prepare(OpContext* /*context*/) override { return InferShapes(); }

  MaceStatus Run(OpContext* context) override {
    const Tensor* bias = Bias();
    Deconv3DScatter(params(), Input(0)->data<float>(), Input(1)->data<float>(),
                    bias != nullptr ? bias->data<float>() : nullptr,
                    Output(0)->mutable_data<float>(), ContextPool(context));
    return MaceStatus();
  }
};

}  // namespace

void Deconv3DScatter(const ref::Deconv3DParams& p, const float* input, const float* filter,
                     const float* bias, float* output, ThreadPool* pool) {
  const int64_t in_per_group = p.in_channels / p.group;
  const int64_t out_per_group = p.out_channels / p.group;
  const int64_t in_volume = p.in[0] * p.in[1] * p.in[2];
  const int64_t out_plane = p.out[1] * p.out[2];
  const int64_t out_volume = p.out[0] * out_plane;
  const int64_t taps = p.kernel[0] * p.kernel[1] * p.kernel[2];
  // Per-axis spans of every tap, shared by all planes.
  std::vector<Span> spans[3];
  for (int axis = 0; axis < 3; ++axis) {
    for (int64_t k = 0; k < p.kernel[axis]; ++k) spans[axis].push_back(Reaching(p, axis, k));
  }
  ParallelFor(pool, p.batch * p.out_channels, [&](int64_t begin, int64_t end) {
    for (int64_t item = begin; item < end; ++item) {
      const int64_t n = item / p.out_channels, oc = item % p.out_channels;
      const int64_t g = oc / out_per_group;
      float* out = output + item * out_volume;
      std::fill(out, out + out_volume, bias != nullptr ? bias[oc] : 0.f);
      for (int64_t i = 0; i < in_per_group; ++i) {
        const int64_t ic = g * in_per_group + i;
        const float* x = input + (n * p.in_channels + ic) * in_volume;
        const float* w = filter + (ic * out_per_group + oc % out_per_group) * taps;
        for (int64_t kd = 0; kd < p.kernel[0]; ++kd) {
          const Span sd = spans[0][kd];
          for (int64_t kh = 0; kh < p.kernel[1]; ++kh) {
            const Span sh = spans[1][kh];
            for (int64_t kw = 0; kw < p.kernel[2]; ++kw) {
              const Span sw = spans[2][kw];
              const float weight = w[(kd * p.kernel[1] + kh) * p.kernel[2] + kw];
              for (int64_t id = sd.begin; id < sd.end; ++id) {
                const int64_t od = id * p.stride[0] - p.crop[0] + kd * p.dilation[0];
                for (int64_t ih = sh.begin; ih < sh.end; ++ih) {
                  const int64_t oh = ih * p.stride[1] - p.crop[1] + kh * p.dilation[1];
                  const float* x_row = x + (id * p.in[1] + ih) * p.in[2];
                  // Output index of iw = 0, which may lie before the row.
                  const int64_t row =
                      od * out_plane + oh * p.out[2] - p.crop[2] + kw * p.dilation[2];
                  for (int64_t iw = sw.begin; iw < sw.end; ++iw) {
                    out[row + iw * p.stride[2]] += x_row[iw] * weight;
                  }
                }
              }
            }
          }
        }
      }
    }
  });
}

std::unique_ptr<Operation> NewDeconv3DCpu() { return std::make_unique<Deconv3DCpu>(); }

}  // namespace ops
}  // namespace mace
