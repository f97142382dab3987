// uint8 Pooling, Eltwise, Concat, Softmax, ResizeBilinear, Quantize and
// Dequantize, each against a computation written apart from the kernel:
// brute force over padded planes, real-number formulas in double with the
// documented rounding, or exhaustive search.
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "mace/ops/ref/quantized/concat.h"
#include "mace/ops/ref/quantized/eltwise.h"
#include "mace/ops/ref/quantized/pooling.h"
#include "mace/ops/ref/quantized/quantize.h"
#include "mace/ops/ref/quantized/resize_bilinear.h"
#include "mace/ops/ref/quantized/softmax.h"
#include "mace/ops/ref/quantized/test_util.h"

namespace mace {
namespace ops {
namespace {

using quantized_testing::Multiplier;
using quantized_testing::OracleOutput;
using quantized_testing::OracleRequantize;
using quantized_testing::RandomInts;

// The plane padded by `pad` on every side with -1 marking "outside".
std::vector<int> Padded(const uint8_t* plane, int64_t h, int64_t w, int64_t pad) {
  std::vector<int> padded((h + 2 * pad) * (w + 2 * pad), -1);
  for (int64_t y = 0; y < h; ++y)
    for (int64_t x = 0; x < w; ++x) padded[(y + pad) * (w + 2 * pad) + x + pad] = plane[y * w + x];
  return padded;
}

void RunPooling(ref::PoolingType type, int64_t channels, int64_t size, int64_t k, int64_t stride,
                int64_t pad, bool include_pad, int32_t zp, std::mt19937* rng) {
  const int64_t out = (size + 2 * pad - k) / stride + 1;
  const std::vector<uint8_t> input = RandomInts<uint8_t>(rng, channels * size * size, 0, 255);
  ref::PoolingParams p;
  p.type = type;
  p.batch = 1;
  p.channels = channels;
  p.in_h = p.in_w = size;
  p.out_h = p.out_w = out;
  p.kernel_h = p.kernel_w = k;
  p.stride_h = p.stride_w = stride;
  p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = pad;
  p.count_include_pad = include_pad;
  std::vector<uint8_t> output(channels * out * out);
  ref::quantized::Pooling(p, zp, input.data(), output.data());
  const int64_t pw = size + 2 * pad;
  for (int64_t c = 0; c < channels; ++c) {
    const std::vector<int> padded = Padded(input.data() + c * size * size, size, size, pad);
    for (int64_t oy = 0; oy < out; ++oy) {
      for (int64_t ox = 0; ox < out; ++ox) {
        std::vector<int> window;
        int64_t taps = 0;
        for (int64_t ky = 0; ky < k; ++ky) {
          for (int64_t kx = 0; kx < k; ++kx) {
            const int v = padded[(oy * stride + ky) * pw + ox * stride + kx];
            ++taps;
            if (v >= 0) window.push_back(v);
          }
        }
        int expected = zp;
        if (!window.empty() && type == ref::PoolingType::MAX) {
          expected = *std::max_element(window.begin(), window.end());
        } else if (!window.empty()) {
          double sum = 0;
          for (int v : window) sum += v;
          const int64_t divisor = include_pad ? taps : static_cast<int64_t>(window.size());
          sum += static_cast<double>(divisor - static_cast<int64_t>(window.size())) * zp;
          expected = static_cast<int>(std::floor(sum / divisor + 0.5));
        }
        ASSERT_EQ(output[(c * out + oy) * out + ox], expected) << c << " " << oy << " " << ox;
      }
    }
  }
}

TEST(QuantizedPooling, MatchesBruteForce) {
  std::mt19937 rng(7767517);
  for (bool include_pad : {false, true}) {
    for (int32_t zp : {0, 128, 255}) {
      RunPooling(ref::PoolingType::MAX, 3, 7, 3, 2, 1, include_pad, zp, &rng);
      RunPooling(ref::PoolingType::AVG, 3, 7, 3, 2, 1, include_pad, zp, &rng);
      RunPooling(ref::PoolingType::AVG, 5, 8, 2, 2, 0, include_pad, zp, &rng);
      RunPooling(ref::PoolingType::AVG, 2, 5, 5, 1, 2, include_pad, zp, &rng);
      RunPooling(ref::PoolingType::AVG, 1, 9, 9, 1, 0, include_pad, zp, &rng);
    }
  }
}

// Real-valued add/sub/mul of two uint8 tensors through the documented
// integer steps, with the multipliers built here from the scales.
void RunEltwise(ref::quantized::EltwiseKind kind, float s0, int32_t z0, float s1, int32_t z1,
                float so, int32_t zo, int64_t count, bool scalar, std::mt19937* rng) {
  const std::vector<uint8_t> a = RandomInts<uint8_t>(rng, count, 0, 255);
  const std::vector<uint8_t> b = RandomInts<uint8_t>(rng, scalar ? 1 : count, 0, 255);
  QuantParams q0, q1, qo;
  q0.scale = s0, q0.zero_point = z0;
  q1.scale = s1, q1.zero_point = z1;
  qo.scale = so, qo.zero_point = zo;
  ref::quantized::EltwiseQuantization quant;
  ASSERT_TRUE(ref::quantized::MakeEltwiseQuantization(kind, q0, q1, qo, "t", &quant).ok());
  std::vector<uint8_t> output(count);
  ref::quantized::Eltwise(quant, a.data(), b.data(), count, scalar ? 1 : count, output.data());
  const OutputClamp clamp{zo, 0, 255};
  const double twice_max = 2.0 * std::max(s0, s1);
  for (int64_t i = 0; i < count; ++i) {
    const int64_t x = a[i] - z0, y = b[scalar ? 0 : i] - z1;
    int64_t combined = x * y;
    if (kind != ref::quantized::EltwiseKind::kMul) {
      // Times 2^20 (a left shift of a negative value is undefined).
      const int64_t sx = OracleRequantize(x * (int64_t{1} << 20), Multiplier(s0 / twice_max));
      const int64_t sy = OracleRequantize(y * (int64_t{1} << 20), Multiplier(s1 / twice_max));
      combined = kind == ref::quantized::EltwiseKind::kAdd ? sx + sy : sx - sy;
    }
    const QuantizedMultiplier m =
        kind == ref::quantized::EltwiseKind::kMul
            ? Multiplier(static_cast<double>(s0) * s1 / so)
            : Multiplier(twice_max / (1048576.0 * so));
    const uint8_t expected = OracleOutput(combined, m, clamp);
    ASSERT_EQ(output[i], expected) << i;
    // And within one quantum of the real result.
    const double real = kind == ref::quantized::EltwiseKind::kMul
                            ? s0 * x * s1 * y
                            : s0 * x + (kind == ref::quantized::EltwiseKind::kAdd ? 1 : -1) * s1 * y;
    const double ideal = std::min(255.0, std::max(0.0, zo + real / so));
    EXPECT_LE(std::fabs(output[i] - ideal), 1.0) << i;
  }
}

TEST(QuantizedEltwise, MatchesIntegerSteps) {
  std::mt19937 rng(7767517);
  using ref::quantized::EltwiseKind;
  for (EltwiseKind kind : {EltwiseKind::kAdd, EltwiseKind::kSub, EltwiseKind::kMul}) {
    RunEltwise(kind, 0.02f, 128, 0.05f, 0, 0.06f, 100, 333, false, &rng);
    RunEltwise(kind, 0.1f, 255, 0.003f, 17, 0.04f, 0, 65, false, &rng);
    RunEltwise(kind, 0.01f, 0, 0.01f, 255, 0.5f, 255, 31, true, &rng);
  }
}

TEST(QuantizedConcat, CopiesOrRescales) {
  std::mt19937 rng(7767517);
  const int64_t outer = 3;
  const float out_scale = 0.05f;
  const int32_t out_zp = 90;
  const struct {
    int64_t run;
    float scale;
    int32_t zp;
  } specs[] = {{5, 0.05f, 90}, {7, 0.1f, 0}, {1, 0.013f, 255}, {4, 0.05f, 91}};
  std::vector<std::vector<uint8_t>> data;
  std::vector<ref::quantized::ConcatInput> inputs;
  for (const auto& spec : specs) {
    data.push_back(RandomInts<uint8_t>(&rng, outer * spec.run, 0, 255));
    ref::quantized::ConcatInput input;
    input.data = data.back().data();
    input.run = spec.run;
    input.rescale = spec.scale != out_scale || spec.zp != out_zp;
    input.zero_point = spec.zp;
    input.multiplier = Multiplier(static_cast<double>(spec.scale) / out_scale);
    inputs.push_back(input);
  }
  std::vector<uint8_t> output(outer * 17);
  ref::quantized::Concat(outer, inputs, out_zp, output.data());
  int64_t index = 0;
  for (int64_t o = 0; o < outer; ++o) {
    for (size_t i = 0; i < inputs.size(); ++i) {
      for (int64_t e = 0; e < specs[i].run; ++e, ++index) {
        const int64_t q = data[i][o * specs[i].run + e];
        uint8_t expected = static_cast<uint8_t>(q);
        if (inputs[i].rescale) {
          expected = OracleOutput(q - specs[i].zp, inputs[i].multiplier, OutputClamp{out_zp, 0, 255});
        }
        ASSERT_EQ(output[index], expected) << i << " " << e;
      }
    }
  }
}

TEST(QuantizedSoftmax, MatchesTableFormula) {
  std::mt19937 rng(7767517);
  for (float scale : {0.01f, 0.1f, 0.5f}) {
    for (int64_t axis : {1, 10, 1001}) {
      const int64_t outer = 2, inner = 3;
      const std::vector<uint8_t> input = RandomInts<uint8_t>(&rng, outer * axis * inner, 0, 255);
      ref::SoftmaxParams p;
      p.outer = outer;
      p.axis_size = axis;
      p.inner = inner;
      std::vector<uint8_t> output(input.size());
      ref::quantized::Softmax(p, ref::quantized::MakeSoftmaxTable(scale), input.data(),
                              output.data());
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
          std::vector<int64_t> q(axis), t(axis);
          for (int64_t a = 0; a < axis; ++a) q[a] = input[(o * axis + a) * inner + i];
          const int64_t max = *std::max_element(q.begin(), q.end());
          int64_t sum = 0;
          double real_sum = 0;
          for (int64_t a = 0; a < axis; ++a) {
            t[a] = std::llround(std::ldexp(std::exp(-double{scale} * (max - q[a])), 24));
            sum += t[a];
            real_sum += std::exp(double{scale} * (q[a] - max));
          }
          for (int64_t a = 0; a < axis; ++a) {
            // Round half up by quotient and remainder.
            int64_t expected = t[a] * 256 / sum;
            if (2 * (t[a] * 256 % sum) >= sum) ++expected;
            expected = std::min<int64_t>(expected, 255);
            const uint8_t got = output[(o * axis + a) * inner + i];
            ASSERT_EQ(got, expected) << scale << " " << axis << " " << a;
            const double ideal = std::min(255.0, 256.0 * std::exp(double{scale} * (q[a] - max)) / real_sum);
            EXPECT_LE(std::fabs(got - ideal), 1.0);
          }
        }
      }
    }
  }
}

void RunResize(CoordinateMode mode, int64_t in_h, int64_t in_w, int64_t out_h, int64_t out_w,
               bool exact, std::mt19937* rng) {
  ref::ResizeBilinearParams p;
  p.batch = 1;
  p.channels = 3;
  p.in_h = in_h;
  p.in_w = in_w;
  p.out_h = out_h;
  p.out_w = out_w;
  p.mode = mode;
  const std::vector<uint8_t> input = RandomInts<uint8_t>(rng, 3 * in_h * in_w, 0, 255);
  std::vector<uint8_t> output(3 * out_h * out_w);
  ref::quantized::ResizeBilinear(p, input.data(), output.data());
  const std::vector<float> real_input(input.begin(), input.end());
  std::vector<float> real_output(output.size());
  ref::ResizeBilinear(p, real_input.data(), real_output.data());
  for (size_t i = 0; i < output.size(); ++i) {
    const double rounded = std::floor(double{real_output[i]} + 0.5);
    if (exact) {
      ASSERT_EQ(output[i], rounded) << i << " " << real_output[i];
    } else {
      ASSERT_LE(std::fabs(output[i] - double{real_output[i]}), 0.75) << i;
    }
  }
}

TEST(QuantizedResizeBilinear, MatchesFloatReference) {
  std::mt19937 rng(7767517);
  // Fractions that are multiples of 1/2048 blend exactly: the float result
  // rounded half up is the answer (float holds these sums exactly).
  RunResize(CoordinateMode::ASYMMETRIC, 4, 5, 8, 10, true, &rng);
  RunResize(CoordinateMode::HALF_PIXEL, 4, 5, 8, 20, true, &rng);
  RunResize(CoordinateMode::ALIGN_CORNERS, 3, 5, 5, 9, true, &rng);
  // Other ratios: within the fraction's rounding of the float blend.
  RunResize(CoordinateMode::HALF_PIXEL, 5, 7, 3, 11, false, &rng);
  RunResize(CoordinateMode::ALIGN_CORNERS, 7, 4, 10, 9, false, &rng);
  RunResize(CoordinateMode::PYTORCH_HALF_PIXEL, 6, 6, 1, 13, false, &rng);
}

// The nearest q to x / scale + zero point by search, ties away from the
// zero point.
uint8_t SearchQuantize(float x, float scale, int32_t zp) {
  const double target = static_cast<double>(x) / scale;
  int best = 0;
  for (int q = 1; q < 256; ++q) {
    const double d = std::fabs(target - (q - zp)), best_d = std::fabs(target - (best - zp));
    if (d < best_d || (d == best_d && std::abs(q - zp) > std::abs(best - zp))) best = q;
  }
  return static_cast<uint8_t>(best);
}

TEST(QuantizedQuantize, MatchesSearchAndRoundTrips) {
  std::mt19937 rng(7767517);
  std::uniform_real_distribution<float> real(-8.f, 8.f);
  for (float scale : {0.03125f, 0.0471f, 0.1f}) {
    for (int32_t zp : {0, 37, 128, 255}) {
      std::vector<float> input(500);
      for (float& x : input) x = real(rng);
      // Exact ties.
      input[0] = 0.5f * scale;
      input[1] = -0.5f * scale;
      input[2] = 2.5f * scale;
      input[3] = -3.5f * scale;
      std::vector<uint8_t> q(input.size());
      ref::quantized::Quantize(input.data(), input.size(), scale, zp, q.data());
      for (size_t i = 0; i < input.size(); ++i) {
        ASSERT_EQ(q[i], SearchQuantize(input[i], scale, zp)) << input[i] << " " << scale << " " << zp;
      }
      std::vector<uint8_t> all(256);
      for (int v = 0; v < 256; ++v) all[v] = static_cast<uint8_t>(v);
      std::vector<float> values(256);
      ref::quantized::Dequantize(all.data(), 256, scale, zp, values.data());
      std::vector<uint8_t> back(256);
      ref::quantized::Quantize(values.data(), 256, scale, zp, back.data());
      for (int v = 0; v < 256; ++v) {
        ASSERT_EQ(back[v], v);
        ASSERT_EQ(values[v], scale * static_cast<float>(v - zp));
      }
    }
  }
}

}  // namespace
}  // namespace ops
}  // namespace mace
