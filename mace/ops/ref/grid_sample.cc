#include "mace/ops/ref/grid_sample.h"

#include <cmath>

namespace mace {
namespace ops {
namespace ref {
namespace {

// One axis of the image: its length and the interval a coordinate is
// reflected into (pixel edges, or centers with align_corners).
struct Axis {
  int64_t length;
  float low, high;
};

Axis MakeAxis(int64_t length, bool align_corners) {
  const float size = static_cast<float>(length);
  return align_corners ? Axis{length, 0.0f, size - 1.0f} : Axis{length, -0.5f, size - 0.5f};
}

float Unnormalize(float n, const Axis& axis, bool align_corners) {
  const float size = static_cast<float>(axis.length);
  return align_corners ? (n + 1.0f) / 2.0f * (size - 1.0f) : ((n + 1.0f) * size - 1.0f) / 2.0f;
}

// Reflects x at the interval's ends until it lies inside.
float Reflect(float x, const Axis& axis) {
  const float range = axis.high - axis.low;
  if (range <= 0.0f) return axis.low;
  if (x >= axis.low && x <= axis.high) return x;
  const bool below = x < axis.low;
  const float dx = below ? axis.low - x : x - axis.high;
  const float rest = std::fmod(dx, range);
  const bool odd = std::fmod(std::floor(dx / range), 2.0f) != 0.0f;
  if (below) return odd ? axis.high - rest : axis.low + rest;
  return odd ? axis.low + rest : axis.high - rest;
}

float Clamp(float x, float low, float high) { return x < low ? low : (x > high ? high : x); }

// The sampling coordinate: outside the interval, clamped to the pixel
// centers (BORDER) or reflected (REFLECTION); ZEROS leaves it.
float Place(float x, const Axis& axis, GridSamplePadding padding) {
  if (x >= axis.low && x <= axis.high) return x;
  if (padding == GridSamplePadding::BORDER) {
    return Clamp(x, 0.0f, static_cast<float>(axis.length - 1));
  }
  if (padding == GridSamplePadding::REFLECTION) return Reflect(x, axis);
  return x;
}

// The index a neighbour at integer position i reads, or -1 for a zero.
int64_t Tap(int64_t i, const Axis& axis, GridSamplePadding padding) {
  if (i >= 0 && i < axis.length) return i;
  switch (padding) {
    case GridSamplePadding::ZEROS:
      return -1;
    case GridSamplePadding::BORDER:
      return i < 0 ? 0 : axis.length - 1;
    case GridSamplePadding::REFLECTION: {
      const int64_t r = static_cast<int64_t>(Reflect(static_cast<float>(i), axis));
      return r < 0 ? 0 : (r >= axis.length ? axis.length - 1 : r);
    }
  }
  return -1;
}

void CubicWeights(float t, float weights[4]) {
  constexpr float a = -0.75f;
  const float x0 = t + 1.0f, x1 = t, x2 = 1.0f - t, x3 = 2.0f - t;
  weights[0] = ((a * x0 - 5.0f * a) * x0 + 8.0f * a) * x0 - 4.0f * a;
  weights[1] = ((a + 2.0f) * x1 - (a + 3.0f)) * x1 * x1 + 1.0f;
  weights[2] = ((a + 2.0f) * x2 - (a + 3.0f)) * x2 * x2 + 1.0f;
  weights[3] = ((a * x3 - 5.0f * a) * x3 + 8.0f * a) * x3 - 4.0f * a;
}

// Sum over a taps x taps neighbourhood starting at (y0, x0).
float Interpolate(const float* plane, const Axis& ay, const Axis& ax, GridSamplePadding padding,
                  int64_t y0, int64_t x0, int taps, const float* wy, const float* wx) {
  float sum = 0.0f;
  for (int i = 0; i < taps; ++i) {
    const int64_t row = Tap(y0 + i, ay, padding);
    float line = 0.0f;
    for (int j = 0; j < taps; ++j) {
      const int64_t column = Tap(x0 + j, ax, padding);
      const float value = row < 0 || column < 0 ? 0.0f : plane[row * ax.length + column];
      line += wx[j] * value;
    }
    sum += wy[i] * line;
  }
  return sum;
}

// Past kFar every neighbour of a ZEROS sample is outside the image
// (lengths are below 2^24), and the integer conversions stay defined.
constexpr float kFar = 16777216.0f;

void GridSampleVolume(const GridSampleParams& p, const float* input, const float* grid,
                      float* output) {
  const Axis axes[3] = {MakeAxis(p.in_w, p.align_corners), MakeAxis(p.in_h, p.align_corners),
                        MakeAxis(p.in_d, p.align_corners)};
  const int64_t volume = p.in_d * p.in_h * p.in_w, out_volume = p.out_d * p.out_h * p.out_w;
  const bool nearest = p.mode == GridSampleMode::NEAREST;
  const int taps = nearest ? 1 : 2;
  for (int64_t n = 0; n < p.batch; ++n) {
    const float* g = grid + n * out_volume * 3;
    for (int64_t point = 0; point < out_volume; ++point) {
      // Axis 0 is x (width), 1 is y (height), 2 is z (depth).
      int64_t first[3];
      float weights[3][2];
      bool finite = true;
      for (int a = 0; a < 3; ++a) {
        float v = Unnormalize(g[point * 3 + a], axes[a], p.align_corners);
        finite = finite && std::isfinite(v);
        if (!finite) break;
        if (nearest) v = std::nearbyint(v);
        v = Clamp(Place(v, axes[a], p.padding), -kFar, kFar);
        const float f = nearest ? v : std::floor(v);
        first[a] = static_cast<int64_t>(f);
        weights[a][0] = nearest ? 1.0f : 1.0f - (v - f);
        weights[a][1] = v - f;
      }
      for (int64_t c = 0; c < p.channels; ++c) {
        const float* source = input + (n * p.channels + c) * volume;
        float sum = 0.0f;
        for (int k = 0; finite && k < taps; ++k) {
          const int64_t z = Tap(first[2] + k, axes[2], p.padding);
          for (int i = 0; i < taps; ++i) {
            const int64_t y = Tap(first[1] + i, axes[1], p.padding);
            for (int j = 0; j < taps; ++j) {
              const int64_t x = Tap(first[0] + j, axes[0], p.padding);
              if (z < 0 || y < 0 || x < 0) continue;
              sum += weights[2][k] * weights[1][i] * weights[0][j] *
                     source[(z * p.in_h + y) * p.in_w + x];
            }
          }
        }
        output[(n * p.channels + c) * out_volume + point] = sum;
      }
    }
  }
}

}  // namespace

void GridSample(const GridSampleParams& p, const float* input, const float* grid,
                float* output) {
  if (p.volumetric) {
    GridSampleVolume(p, input, grid, output);
    return;
  }
  const Axis ay = MakeAxis(p.in_h, p.align_corners), ax = MakeAxis(p.in_w, p.align_corners);
  const int64_t plane = p.in_h * p.in_w, out_plane = p.out_h * p.out_w;
  for (int64_t n = 0; n < p.batch; ++n) {
    const float* g = grid + n * out_plane * 2;
    for (int64_t pixel = 0; pixel < out_plane; ++pixel) {
      float x = Unnormalize(g[pixel * 2], ax, p.align_corners);
      float y = Unnormalize(g[pixel * 2 + 1], ay, p.align_corners);
      if (!std::isfinite(x) || !std::isfinite(y)) {  // no place to read: 0
        for (int64_t c = 0; c < p.channels; ++c) {
          output[(n * p.channels + c) * out_plane + pixel] = 0.0f;
        }
        continue;
      }
      if (p.mode == GridSampleMode::NEAREST) {
        x = std::nearbyint(x);  // half to even in the default rounding mode
        y = std::nearbyint(y);
      }
      // Bicubic places only its taps (as onnxruntime and PyTorch do).
      if (p.mode != GridSampleMode::CUBIC) {
        x = Place(x, ax, p.padding);
        y = Place(y, ay, p.padding);
      }
      x = Clamp(x, -kFar, kFar);
      y = Clamp(y, -kFar, kFar);
      int64_t x0, y0;
      int taps;
      float wx[4], wy[4];
      if (p.mode == GridSampleMode::NEAREST) {
        x0 = static_cast<int64_t>(x);
        y0 = static_cast<int64_t>(y);
        taps = 1;
        wx[0] = wy[0] = 1.0f;
      } else {
        const float fx = std::floor(x), fy = std::floor(y);
        const float tx = x - fx, ty = y - fy;
        if (p.mode == GridSampleMode::LINEAR) {
          x0 = static_cast<int64_t>(fx);
          y0 = static_cast<int64_t>(fy);
          taps = 2;
          wx[0] = 1.0f - tx;
          wx[1] = tx;
          wy[0] = 1.0f - ty;
          wy[1] = ty;
        } else {
          x0 = static_cast<int64_t>(fx) - 1;
          y0 = static_cast<int64_t>(fy) - 1;
          taps = 4;
          CubicWeights(tx, wx);
          CubicWeights(ty, wy);
        }
      }
      for (int64_t c = 0; c < p.channels; ++c) {
        const float* source = input + (n * p.channels + c) * plane;
        output[(n * p.channels + c) * out_plane + pixel] =
            Interpolate(source, ay, ax, p.padding, y0, x0, taps, wy, wx);
      }
    }
  }
}

}  // namespace ref
}  // namespace ops
}  // namespace mace
