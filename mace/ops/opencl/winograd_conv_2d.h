// Winograd F(2x2, 3x3) for the GPU Conv2D (cl/winograd.cl): the filter is
// transformed on the host and uploaded once, at Prepare; each Run is three
// kernels through two scratch images of the runtime (the transformed input
// and the product).
#ifndef MACE_OPS_OPENCL_WINOGRAD_CONV_2D_H_
#define MACE_OPS_OPENCL_WINOGRAD_CONV_2D_H_

#include <memory>
#include <string>
#include <vector>

#include "mace/core/tensor.h"
#include "mace/ops/ref/conv_2d.h"
#include "mace/runtimes/opencl/opencl_runtime.h"

namespace mace {
namespace opencl {

// Whether Winograd runs a convolution, by `policy` ("on", "off" or "auto").
// It must be 3x3, stride 1, dilation 1, ungrouped, with at least 2x2
// outputs (an output one row or column high would waste half of every
// tile). "auto" also asks for at least 16 input and 16 output channels:
// the transforms move 16 values per tile and channel through memory, while
// the product saves 5 of 9 multiply-adds per output pixel and channel pair,
// so the saving grows with Cin * Cout and the cost with Cin + Cout.
bool UseWinograd(const ops::ref::Conv2DParams& params, const std::string& policy);

// The transformed filter U = G g G^T of an OIHW [O, I, 3, 3] filter, as the
// dense tensor [16, 1, O, I] (position t = 4 * row + column of the 4x4).
std::vector<float> WinogradFilter(const float* filter, int64_t out_channels, int64_t in_channels);

class WinogradConv2D {
 public:
  // Uploads the transformed filter and sizes the scratch images; fails
  // (and the caller keeps the direct kernel) when an image would not fit.
  MaceStatus Prepare(OpenCLRuntime* runtime, const ops::ref::Conv2DParams& params,
                     const Tensor& filter);
  // `bias` is read only when `has_bias`.
  MaceStatus Run(const ops::ref::Conv2DParams& params, cl_mem input, cl_mem bias, bool has_bias,
                 cl_mem output);

 private:
  struct Sizes {
    int64_t tiles_h, tiles_w, tiles, in_blocks, out_blocks;
  };
  static Sizes SizesOf(const ops::ref::Conv2DParams& params);
  MaceStatus Scratch(const Sizes& sizes, cl_mem* transformed, cl_mem* product);

  OpenCLRuntime* runtime_ = nullptr;
  std::unique_ptr<Memory> filter_;
  Kernel input_transform_, gemm_, output_transform_;
};

}  // namespace opencl
}  // namespace mace

#endif  // MACE_OPS_OPENCL_WINOGRAD_CONV_2D_H_
