#include "mace/runtimes/opencl/image_layout.h"

#include <algorithm>
#include <cstring>
#include <functional>

#include "mace/utils/checked_math.h"
#include "mace/utils/status.h"

namespace mace {
namespace opencl {
namespace {

int64_t Blocks(int64_t channels) { return (channels + 3) / 4; }

// a * b, or -1 on overflow (dimensions are positive).
int64_t Mul(int64_t a, int64_t b) {
  int64_t product = 0;
  return a < 0 || b < 0 || !CheckedMul(a, b, &product) ? -1 : product;
}

// Calls visit(element index, pixel index * 4 + lane) for every element of a
// dense tensor of `shape` stored as `kind` in an image `width` pixels wide.
void ForEachElement(ImageKind kind, const std::vector<int64_t>& shape, int64_t width,
                    const std::function<void(int64_t, int64_t)>& visit) {
  auto at = [width](int64_t x, int64_t y, int64_t lane) { return (y * width + x) * 4 + lane; };
  if (kind == ImageKind::kArgument) {
    for (int64_t i = 0; i < shape[0]; ++i) visit(i, at(i / 4, 0, i % 4));
    return;
  }
  const std::vector<int64_t> dims =
      kind == ImageKind::kActivation ? ActivationDims(shape) : shape;
  const int64_t d0 = dims[0], d1 = dims[1], d2 = dims[2], d3 = dims[3];
  int64_t index = 0;
  for (int64_t a = 0; a < d0; ++a) {
    for (int64_t b = 0; b < d1; ++b) {
      for (int64_t c = 0; c < d2; ++c) {
        for (int64_t d = 0; d < d3; ++d, ++index) {
          switch (kind) {
            case ImageKind::kActivation:  // n, c, h, w
              visit(index, at(b / 4 * d3 + d, a * d2 + c, b % 4));
              break;
            case ImageKind::kConv2DFilter:  // o, i, kh, kw
              visit(index, at(b, (a / 4 * d2 + c) * d3 + d, a % 4));
              break;
            case ImageKind::kDepthwiseFilter:  // m, i, kh, kw
              visit(index, at((a * d2 + c) * d3 + d, b / 4, b % 4));
              break;
            case ImageKind::kHeightMajor:  // n, c, h, w
              visit(index, at(b * d3 + d, a * Blocks(d2) + c / 4, c % 4));
              break;
            case ImageKind::kWidthMajor:  // n, c, h, w
              visit(index, at(b * Blocks(d3) + d / 4, a * d2 + c, d % 4));
              break;
            case ImageKind::kArgument:
              break;
          }
        }
      }
    }
  }
}

}  // namespace

const char* ImageKindName(ImageKind kind) {
  switch (kind) {
    case ImageKind::kActivation:
      return "activation";
    case ImageKind::kConv2DFilter:
      return "Conv2D filter";
    case ImageKind::kDepthwiseFilter:
      return "depthwise filter";
    case ImageKind::kArgument:
      return "1-D argument";
    case ImageKind::kHeightMajor:
      return "height-major";
    case ImageKind::kWidthMajor:
      return "width-major";
  }
  return "unknown image kind";
}

Storage ImageStorage(ImageKind kind) {
  Storage storage = Storage::Plain(DT_FLOAT);
  storage.memory_type = MemoryType::GPU_IMAGE;
  storage.layout = Layout::kImage;
  storage.image = static_cast<int>(kind);
  return storage;
}

std::vector<int64_t> ActivationDims(const std::vector<int64_t>& shape) {
  switch (shape.size()) {
    case 0:
      return {1, 1, 1, 1};
    case 1:
      return {1, shape[0], 1, 1};
    case 2:
      return {shape[0], shape[1], 1, 1};
    case 3:
      return {shape[0], shape[1], shape[2], 1};
    case 4:
      return shape;
    default:
      return {};
  }
}

MaceStatus ImageShapeFor(ImageKind kind, const std::vector<int64_t>& shape, ImageShape* image) {
  const size_t rank = kind == ImageKind::kArgument ? 1 : 4;
  const bool rank_ok = kind == ImageKind::kActivation ? shape.size() <= 4 : shape.size() == rank;
  MACE_CHECK_ARG(rank_ok, "a ", ImageKindName(kind), " image cannot hold a tensor of shape ",
                 ShapeToString(shape));
  for (int64_t d : shape) {
    MACE_CHECK_ARG(d > 0 && d < (int64_t{1} << 31), "a ", ImageKindName(kind),
                   " image cannot hold a tensor of shape ", ShapeToString(shape));
  }
  switch (kind) {
    case ImageKind::kActivation: {
      const std::vector<int64_t> d = ActivationDims(shape);
      image->width = Mul(Blocks(d[1]), d[3]);
      image->height = Mul(d[0], d[2]);
      break;
    }
    case ImageKind::kConv2DFilter:
      image->width = shape[1];
      image->height = Mul(Blocks(shape[0]), Mul(shape[2], shape[3]));
      break;
    case ImageKind::kDepthwiseFilter:
      image->width = Mul(shape[0], Mul(shape[2], shape[3]));
      image->height = Blocks(shape[1]);
      break;
    case ImageKind::kArgument:
      image->width = Blocks(shape[0]);
      image->height = 1;
      break;
    case ImageKind::kHeightMajor:
      image->width = Mul(shape[1], shape[3]);
      image->height = Mul(shape[0], Blocks(shape[2]));
      break;
    case ImageKind::kWidthMajor:
      image->width = Mul(shape[1], Blocks(shape[3]));
      image->height = Mul(shape[0], shape[2]);
      break;
  }
  MACE_CHECK_ARG(image->width > 0 && image->height > 0, "a ", ImageKindName(kind),
                 " image for shape ", ShapeToString(shape), " is too large");
  return MaceStatus();
}

MaceStatus ArrangePixels(ImageKind kind, const std::vector<int64_t>& shape, const float* data,
                         std::vector<float>* pixels) {
  ImageShape image;
  MACE_RETURN_IF_ERROR(ImageShapeFor(kind, shape, &image));
  pixels->assign(static_cast<size_t>(image.width * image.height * 4), 0.f);
  float* out = pixels->data();
  ForEachElement(kind, shape, image.width,
                 [&](int64_t element, int64_t lane) { out[lane] = data[element]; });
  return MaceStatus();
}

MaceStatus GatherPixels(ImageKind kind, const std::vector<int64_t>& shape,
                        const std::vector<float>& pixels, std::vector<float>* data) {
  ImageShape image;
  MACE_RETURN_IF_ERROR(ImageShapeFor(kind, shape, &image));
  MACE_CHECK_ARG(static_cast<int64_t>(pixels.size()) == image.width * image.height * 4,
                 "pixel data does not match the image");
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  data->assign(static_cast<size_t>(count), 0.f);
  float* out = data->data();
  ForEachElement(kind, shape, image.width,
                 [&](int64_t element, int64_t lane) { out[element] = pixels[lane]; });
  return MaceStatus();
}

void CopyRows(const unsigned char* source, size_t source_pitch, unsigned char* target,
              size_t target_pitch, size_t row_bytes, size_t rows) {
  for (size_t row = 0; row < rows; ++row) {
    std::memcpy(target + row * target_pitch, source + row * source_pitch, row_bytes);
  }
}

}  // namespace opencl
}  // namespace mace
