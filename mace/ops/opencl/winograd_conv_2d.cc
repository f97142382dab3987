#include "mace/ops/opencl/winograd_conv_2d.h"

#include <algorithm>

#include "mace/runtimes/opencl/image_layout.h"

namespace mace {
namespace opencl {
namespace {

constexpr int64_t kMinWinogradChannels = 16;

// G x for one column x of three taps: the four rows of G = [1 0 0;
// 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1].
void TransformTaps(const float* x, int stride, float* out, int out_stride) {
  out[0] = x[0];
  out[out_stride] = 0.5f * (x[0] + x[stride] + x[2 * stride]);
  out[2 * out_stride] = 0.5f * (x[0] - x[stride] + x[2 * stride]);
  out[3 * out_stride] = x[2 * stride];
}

cl_int I32(int64_t value) { return static_cast<cl_int>(value); }

}  // namespace

bool UseWinograd(const ops::ref::Conv2DParams& p, const std::string& policy) {
  const bool eligible = p.kernel_h == 3 && p.kernel_w == 3 && p.stride_h == 1 && p.stride_w == 1 &&
                        p.dilation_h == 1 && p.dilation_w == 1 && p.group == 1 && p.out_h >= 2 &&
                        p.out_w >= 2;
  if (!eligible || policy == "off") return false;
  return policy == "on" ||
         (p.in_channels >= kMinWinogradChannels && p.out_channels >= kMinWinogradChannels);
}

std::vector<float> WinogradFilter(const float* filter, int64_t out_channels, int64_t in_channels) {
  std::vector<float> u(static_cast<size_t>(16 * out_channels * in_channels));
  for (int64_t o = 0; o < out_channels; ++o) {
    for (int64_t i = 0; i < in_channels; ++i) {
      const float* g = filter + (o * in_channels + i) * 9;
      float gg[4][3];    // G g
      float full[4][4];  // (G g) G^T
      for (int c = 0; c < 3; ++c) TransformTaps(g + c, 3, &gg[0][c], 3);
      for (int r = 0; r < 4; ++r) TransformTaps(gg[r], 1, full[r], 1);
      for (int t = 0; t < 16; ++t) {
        u[static_cast<size_t>((t * out_channels + o) * in_channels + i)] = full[t / 4][t % 4];
      }
    }
  }
  return u;
}

WinogradConv2D::Sizes WinogradConv2D::SizesOf(const ops::ref::Conv2DParams& p) {
  Sizes s;
  s.tiles_h = (p.out_h + 1) / 2;
  s.tiles_w = (p.out_w + 1) / 2;
  s.tiles = p.batch * s.tiles_h * s.tiles_w;
  s.in_blocks = (p.in_channels + 3) / 4;
  s.out_blocks = (p.out_channels + 3) / 4;
  return s;
}

MaceStatus WinogradConv2D::Scratch(const Sizes& s, cl_mem* transformed, cl_mem* product) {
  MACE_RETURN_IF_ERROR(runtime_->ScratchImage(0, s.tiles, 16 * s.in_blocks, transformed));
  return runtime_->ScratchImage(1, s.tiles, 16 * s.out_blocks, product);
}

MaceStatus WinogradConv2D::Prepare(OpenCLRuntime* runtime, const ops::ref::Conv2DParams& p,
                                   const Tensor& filter) {
  runtime_ = runtime;
  const Sizes s = SizesOf(p);
  MACE_RETURN_IF_ERROR(runtime->CheckImageSize(s.tiles, 16 * std::max(s.in_blocks, s.out_blocks),
                                               "a Winograd tile image"));
  MACE_RETURN_IF_ERROR(
      runtime->CheckImageSize(p.in_channels, 16 * s.out_blocks, "a Winograd filter image"));
  if (filter_ == nullptr) {
    const std::vector<float> u =
        WinogradFilter(filter.data<float>(), p.out_channels, p.in_channels);
    MACE_RETURN_IF_ERROR(runtime->UploadValues(ImageKind::kHeightMajor,
                                               {16, 1, p.out_channels, p.in_channels}, u.data(),
                                               filter.name() + " (Winograd)", &filter_));
  }
  if (!gemm_.created()) {
    MACE_RETURN_IF_ERROR(input_transform_.Create(runtime, "winograd_input_transform"));
    MACE_RETURN_IF_ERROR(gemm_.Create(runtime, "winograd_gemm"));
    MACE_RETURN_IF_ERROR(output_transform_.Create(runtime, "winograd_output_transform"));
  }
  cl_mem transformed = nullptr, product = nullptr;
  return Scratch(s, &transformed, &product);
}

MaceStatus WinogradConv2D::Run(const ops::ref::Conv2DParams& p, cl_mem input, cl_mem bias,
                               bool has_bias, cl_mem output) {
  const Sizes s = SizesOf(p);
  cl_mem transformed = nullptr, product = nullptr;
  MACE_RETURN_IF_ERROR(Scratch(s, &transformed, &product));
  MACE_RETURN_IF_ERROR(input_transform_.SetArgs(input, transformed, I32(p.in_h), I32(p.in_w),
                                                I32(s.in_blocks), I32(s.tiles_h), I32(s.tiles_w),
                                                I32(s.tiles), I32(p.pad_top), I32(p.pad_left)));
  MACE_RETURN_IF_ERROR(input_transform_.Run2D(s.tiles, s.in_blocks));
  const cl_mem filter = static_cast<cl_mem>(filter_->device_handle());
  MACE_RETURN_IF_ERROR(gemm_.SetArgs(transformed, filter, product, I32(s.in_blocks),
                                     I32(p.in_channels), I32(s.out_blocks), I32(s.tiles)));
  // Four tiles by four output channels over every input channel block.
  MACE_RETURN_IF_ERROR(gemm_.Run2D((s.tiles + 3) / 4, 16 * s.out_blocks, 16.0 * 4 * s.in_blocks));
  MACE_RETURN_IF_ERROR(output_transform_.SetArgs(
      product, has_bias ? bias : filter, static_cast<cl_int>(has_bias), output, I32(p.out_h),
      I32(p.out_w), I32(p.out_channels), I32(s.out_blocks), I32(s.tiles_h), I32(s.tiles_w),
      I32(s.tiles), static_cast<cl_int>(p.activation.type),
      static_cast<cl_float>(p.activation.max_limit), static_cast<cl_float>(p.activation.alpha),
      static_cast<cl_float>(p.activation.beta)));
  return output_transform_.Run2D(s.tiles, s.out_blocks);
}

}  // namespace opencl
}  // namespace mace
