#include "mace/ops/ref/resize_nd.h"

#include <algorithm>
#include <cmath>

namespace mace {
namespace ops {
namespace ref {
namespace {

// The source coordinate of output index x, before any clamping; sets
// *outside when tf_crop_and_resize maps it outside the input.
double SourceCoordinate(const ResizeOptions& o, const ResizeAxisSpec& s, int64_t x,
                        bool* outside) {
  const double xd = static_cast<double>(x);
  const double in = static_cast<double>(s.in_len);
  // ONNX measures the output in the scale's terms: in * scale, not rounded.
  const double out = s.scale * in;
  *outside = false;
  switch (o.coordinates) {
    case ResizeCoordinates::ALIGN_CORNERS:
      return out == 1.0 ? 0.0 : xd * (in - 1.0) / (out - 1.0);
    case ResizeCoordinates::ASYMMETRIC:
      return xd / s.scale;
    case ResizeCoordinates::TF_CROP_AND_RESIZE: {
      const double span = s.roi_end - s.roi_start;
      double source = out == 1.0 ? span * (in - 1.0) / 2.0 : xd * span * (in - 1.0) / (out - 1.0);
      source += s.roi_start * (in - 1.0);
      *outside = source < 0.0 || source > in - 1.0;
      return source;
    }
    case ResizeCoordinates::PYTORCH_HALF_PIXEL:
      return out == 1.0 ? -0.5 : (xd + 0.5) / s.scale - 0.5;
    case ResizeCoordinates::HALF_PIXEL:
      return (xd + 0.5) / s.scale - 0.5;
    case ResizeCoordinates::HALF_PIXEL_SYMMETRIC: {
      // Centres the rounded output on the input when out_len != in * scale.
      const double adjustment = static_cast<double>(s.out_len) / out;
      const double offset = in / 2.0 * (1.0 - adjustment);
      return offset + (xd + 0.5) / s.scale - 0.5;
    }
  }
  return 0.0;
}

double CubicKernel(double x, double a) {
  x = std::fabs(x);
  if (x <= 1.0) return ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0;
  if (x < 2.0) return ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a;
  return 0.0;
}

// The coefficients of the taps base + 1 - n/2 .. base + n/2 for the fraction
// `ratio` in (0, 1] of the source coordinate above input index `base`.
std::vector<double> Coefficients(const ResizeOptions& o, double ratio, double scale) {
  switch (o.mode) {
    case ResizeMode::NEAREST: {
      bool high = true;  // a whole coordinate (ratio 1) takes the tap above base
      if (ratio < 1.0) {
        switch (o.nearest) {
          case ResizeNearest::ROUND_PREFER_FLOOR: high = ratio > 0.5; break;
          case ResizeNearest::ROUND_PREFER_CEIL: high = ratio >= 0.5; break;
          case ResizeNearest::FLOOR: high = false; break;
          case ResizeNearest::CEIL: high = true; break;
        }
      }
      return {high ? 0.0 : 1.0, high ? 1.0 : 0.0};
    }
    case ResizeMode::LINEAR:
    case ResizeMode::CUBIC: {
      const bool cubic = o.mode == ResizeMode::CUBIC;
      // Downsampling with antialias widens the kernel by 1 / scale.
      const double s = o.antialias ? std::min(scale, 1.0) : 1.0;
      const int64_t reach = cubic ? 2 : 1;
      const int64_t start =
          o.antialias ? static_cast<int64_t>(std::floor(-static_cast<double>(reach) / s)) + 1
                      : 1 - reach;
      const int64_t n = 2 - 2 * start;
      std::vector<double> c(n);
      double sum = 0.0;
      for (int64_t i = 0; i < n; ++i) {
        const double arg = (static_cast<double>(start + i) - ratio) * s;
        c[i] = cubic ? CubicKernel(arg, o.cubic_coeff_a)
                     : std::min(std::max(1.0 - std::fabs(arg), 0.0), 1.0);
        sum += c[i];
      }
      if (o.antialias) {
        for (double& v : c) v /= sum;
      }
      return c;
    }
  }
  return {};
}

}  // namespace

ResizeAxisTaps MakeResizeTaps(const ResizeOptions& o, const ResizeAxisSpec& s) {
  ResizeAxisTaps t;
  t.in_len = s.in_len;
  t.out_len = s.out_len;
  t.outside.assign(s.out_len, 0);
  for (int64_t x = 0; x < s.out_len; ++x) {
    bool outside = false;
    const double source = SourceCoordinate(o, s, x, &outside);
    double base = std::floor(source);
    double ratio = source - base;
    if (ratio == 0.0) {  // a whole coordinate: the tap above base - 1
      base -= 1.0;
      ratio = 1.0;
    }
    const std::vector<double> c = Coefficients(o, ratio, s.scale);
    const int64_t n = static_cast<int64_t>(c.size());
    if (t.taps == 0) {
      t.taps = n;
      t.index.resize(s.out_len * n);
      t.weight.resize(s.out_len * n);
    }
    // The n neighbours nearest the coordinate among the input padded by n/2
    // on each side: centred on it, shifted inside the padded range.
    const int64_t pad = n / 2;
    const double lowest = static_cast<double>(-pad);
    const double highest = static_cast<double>(s.in_len + pad - n);
    const int64_t first = static_cast<int64_t>(
        std::min(std::max(base + 1.0 - static_cast<double>(pad), lowest), highest));
    double kept = 0.0;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t at = first + i;
      double w = c[i];
      if (o.exclude_outside && (at < 0 || at >= s.in_len)) w = 0.0;
      t.index[x * n + i] = std::min(std::max<int64_t>(at, 0), s.in_len - 1);
      t.weight[x * n + i] = w;
      kept += w;
    }
    if (o.exclude_outside && kept != 0.0) {
      for (int64_t i = 0; i < n; ++i) t.weight[x * n + i] /= kept;
    }
    t.outside[x] = outside ? 1 : 0;
  }
  t.identity = s.in_len == s.out_len;
  for (int64_t x = 0; x < s.out_len && t.identity; ++x) {
    double own = 0.0, other = 0.0;
    for (int64_t i = 0; i < t.taps; ++i) {
      (t.index[x * t.taps + i] == x ? own : other) += std::fabs(t.weight[x * t.taps + i]);
    }
    t.identity = !t.outside[x] && own == 1.0 && other == 0.0;
  }
  return t;
}

void Resize(const ResizeParams& p, const float* input, float* output) {
  std::vector<int64_t> shape = p.in_shape;
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  std::vector<double> current(input, input + count), next;
  // Last axis first, as ONNX's definition nests them.
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    const ResizeAxisTaps& t = p.axes[d];
    if (t.identity) continue;
    int64_t outer = 1, inner = 1;
    for (int64_t i = 0; i < d; ++i) outer *= shape[i];
    for (size_t i = d + 1; i < shape.size(); ++i) inner *= shape[i];
    next.assign(outer * t.out_len * inner, 0.0);
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t x = 0; x < t.out_len; ++x) {
        double* dst = next.data() + (o * t.out_len + x) * inner;
        if (t.outside[x]) {
          std::fill(dst, dst + inner, static_cast<double>(p.extrapolation_value));
          continue;
        }
        for (int64_t k = 0; k < t.taps; ++k) {
          const double w = t.weight[x * t.taps + k];
          const double* src = current.data() + (o * t.in_len + t.index[x * t.taps + k]) * inner;
          for (int64_t i = 0; i < inner; ++i) dst[i] += w * src[i];
        }
      }
    }
    current.swap(next);
    shape[d] = t.out_len;
  }
  for (size_t i = 0; i < current.size(); ++i) output[i] = static_cast<float>(current[i]);
}

}  // namespace ref
}  // namespace ops
}  // namespace mace
