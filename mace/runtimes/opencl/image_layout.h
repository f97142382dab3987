// How the OpenCL runtime stores tensors in CL_RGBA 2D images: which element
// goes to which pixel and lane, for each kind of tensor. Every pixel holds
// four consecutive channels; lanes past the last channel hold 0.
//
//   kind            tensor shape          image [width, height]      pixel (x, y), lane
//   kActivation     NCHW [N, C, H, W]     [ceil(C/4) * W, N * H]     (c/4 * W + w, n * H + h), c%4
//                   lower ranks as [1, C, 1, 1], [N, C, 1, 1], [N, C, H, 1]
//   kConv2DFilter   OIHW [O, I, KH, KW]   [I, ceil(O/4) * KH * KW]   (i, (o/4 * KH + kh) * KW + kw), o%4
//   kDepthwiseFilter [M, I, KH, KW]       [KH * KW * M, ceil(I/4)]   ((m * KH + kh) * KW + kw, i/4), i%4
//   kArgument       [W]                   [ceil(W/4), 1]             (w/4, 0), w%4
//   kHeightMajor    NCHW [N, C, H, W]     [C * W, N * ceil(H/4)]     (c * W + w, n * ceil(H/4) + h/4), h%4
//   kWidthMajor     NCHW [N, C, H, W]     [C * ceil(W/4), N * H]     (c * ceil(W/4) + w/4, n * H + h), w%4
//
// Activations are "channel-major": the image is ceil(C/4) bands of W
// pixels side by side, so a slice of whole channel blocks is a band of
// columns. The height-major and width-major kinds pack four rows or four
// columns instead; Winograd convolution keeps its transformed filter,
// input and product as height-major [16, 1, rows, columns] tensors (see
// cl/winograd.cl).
#ifndef MACE_RUNTIMES_OPENCL_IMAGE_LAYOUT_H_
#define MACE_RUNTIMES_OPENCL_IMAGE_LAYOUT_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "mace/core/tensor.h"
#include "mace/public/mace.h"

namespace mace {
namespace opencl {

// Values of Storage::image for the runtime's image storages.
enum class ImageKind : int {
  kActivation = 1,
  kConv2DFilter = 2,
  kDepthwiseFilter = 3,
  kArgument = 4,
  kHeightMajor = 5,
  kWidthMajor = 6,
};

const char* ImageKindName(ImageKind kind);

// A float tensor of `kind` in GPU_IMAGE memory.
Storage ImageStorage(ImageKind kind);

struct ImageShape {
  int64_t width = 0;
  int64_t height = 0;
};

// The image a tensor of `shape` needs; INVALID_ARGS when the rank does not
// fit the kind or a dimension is not positive.
MaceStatus ImageShapeFor(ImageKind kind, const std::vector<int64_t>& shape, ImageShape* image);

// Activation shapes as [N, C, H, W]: [C] as [1, C, 1, 1], [N, C] as
// [N, C, 1, 1], [N, C, H] as [N, C, H, 1]; empty above rank 4.
std::vector<int64_t> ActivationDims(const std::vector<int64_t>& shape);

// Arranges `data` (a dense tensor of `shape`) into `pixels`: width * height
// RGBA float pixels of the image ImageShapeFor gives, padding lanes 0.
MaceStatus ArrangePixels(ImageKind kind, const std::vector<int64_t>& shape, const float* data,
                         std::vector<float>* pixels);

// The inverse for tests: reads the elements of `shape` back from `pixels`.
MaceStatus GatherPixels(ImageKind kind, const std::vector<int64_t>& shape,
                        const std::vector<float>& pixels, std::vector<float>* data);

// Copies `rows` rows of `row_bytes` between two pitches (a mapped image's
// row pitch may exceed its width).
void CopyRows(const unsigned char* source, size_t source_pitch, unsigned char* target,
              size_t target_pitch, size_t row_bytes, size_t rows);

}  // namespace opencl
}  // namespace mace

#endif  // MACE_RUNTIMES_OPENCL_IMAGE_LAYOUT_H_
