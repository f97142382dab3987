// The runtime on this machine's OpenCL device: library loading and device
// selection errors, image and buffer memory through Map/Unmap/Copy in both
// storages, image extents and the device's image size limit; and the image
// layouts on their own.
#include "mace/runtimes/opencl/opencl_runtime.h"

#include <cstring>
#include <vector>

#include "gtest/gtest.h"
#include "mace/core/tensor.h"
#include "mace/runtimes/opencl/image_layout.h"

namespace mace {
namespace opencl {
namespace {

std::unique_ptr<OpenCLRuntime> NewRuntime(bool half_storage) {
  OpenCLOptions options;
  options.allow_any_device = true;
  options.half_storage = half_storage;
  auto runtime = std::make_unique<OpenCLRuntime>(options);
  const MaceStatus status = runtime->Init();
  EXPECT_TRUE(status.ok()) << status.ToString();
  return status.ok() ? std::move(runtime) : nullptr;
}

TEST(OpenCLApiTest, NamesEveryLibraryItTried) {
  OpenCLApi api;
  const MaceStatus status = LoadOpenCLApi({"/nonexistent/libOpenCL.so", "libNoSuch.so"}, &api);
  EXPECT_EQ(status.code(), MaceStatus::MACE_UNSUPPORTED);
  EXPECT_NE(status.information().find("/nonexistent/libOpenCL.so"), std::string::npos);
  EXPECT_NE(status.information().find("libNoSuch.so"), std::string::npos);
}

TEST(OpenCLApiTest, AndroidVendorPathsAreSearched) {
  const std::vector<std::string> paths = DefaultOpenCLLibraryPaths();
  auto has = [&](const std::string& needle) {
    for (const std::string& path : paths) {
      if (path.find(needle) != std::string::npos) return true;
    }
    return false;
  };
  EXPECT_TRUE(has("/vendor/"));
  EXPECT_TRUE(has("libGLES_mali.so"));
  EXPECT_EQ(paths.front(), "libOpenCL.so");
}

TEST(OpenCLRuntimeTest, WithoutALibraryInitFailsClearly) {
  OpenCLOptions options;
  options.library_paths = {"/nonexistent/libOpenCL.so"};
  OpenCLRuntime runtime(options);
  const MaceStatus status = runtime.Init();
  EXPECT_EQ(status.code(), MaceStatus::MACE_UNSUPPORTED);
  EXPECT_NE(status.information().find("no OpenCL library"), std::string::npos)
      << status.ToString();
}

TEST(OpenCLRuntimeTest, ChoosesAGpuOrFallsBackOnlyWhenAllowed) {
  auto any = NewRuntime(true);
  ASSERT_NE(any, nullptr);
  EXPECT_FALSE(any->device_info().device.empty());
  EXPECT_FALSE(any->device_info().driver.empty());
  EXPECT_GT(any->device_info().max_image_width, 0);
  OpenCLRuntime strict{OpenCLOptions()};
  const MaceStatus status = strict.Init();
  if (any->device_info().is_gpu) {
    EXPECT_TRUE(status.ok()) << status.ToString();
  } else {
    EXPECT_EQ(status.code(), MaceStatus::MACE_UNSUPPORTED);
    EXPECT_NE(status.information().find("no OpenCL GPU device"), std::string::npos);
    EXPECT_NE(status.information().find(any->device_info().device), std::string::npos);
    EXPECT_NE(status.information().find("SetOpenCLDeviceFallback"), std::string::npos);
  }
}

TEST(OpenCLRuntimeTest, ImagesRoundTripThroughMapInBothStorages) {
  for (bool half : {false, true}) {
    SCOPED_TRACE(half ? "half" : "float");
    auto runtime = NewRuntime(half);
    ASSERT_NE(runtime, nullptr);
    std::unique_ptr<Memory> image;
    ASSERT_TRUE(runtime->Allocate(MemoryExtent::Image(5, 3, runtime->pixel_bytes()), &image).ok());
    EXPECT_EQ(image->host(), nullptr);
    EXPECT_NE(image->device_handle(), nullptr);
    const size_t bytes = 5 * 3 * runtime->pixel_bytes();
    std::vector<unsigned char> pattern(bytes);
    // Bit patterns that are finite in both formats (exponent bits kept low).
    for (size_t i = 0; i < bytes; ++i) pattern[i] = static_cast<unsigned char>((i * 37) & 0x3b);
    unsigned char* host = nullptr;
    ASSERT_TRUE(runtime->Map(image.get(), &host).ok());
    std::memcpy(host, pattern.data(), bytes);
    ASSERT_TRUE(runtime->Unmap(image.get()).ok());
    ASSERT_TRUE(runtime->Map(image.get(), &host).ok());
    EXPECT_EQ(std::memcmp(host, pattern.data(), bytes), 0);
    ASSERT_TRUE(runtime->Unmap(image.get()).ok());
    EXPECT_FALSE(runtime->Unmap(image.get()).ok());
  }
}

TEST(OpenCLRuntimeTest, BuffersMapAndCopy) {
  auto runtime = NewRuntime(true);
  ASSERT_NE(runtime, nullptr);
  std::unique_ptr<Memory> a, b;
  ASSERT_TRUE(runtime->Allocate(MemoryExtent::Buffer(MemoryType::GPU_BUFFER, 64), &a).ok());
  ASSERT_TRUE(runtime->Allocate(MemoryExtent::Buffer(MemoryType::GPU_BUFFER, 64), &b).ok());
  unsigned char* host = nullptr;
  ASSERT_TRUE(runtime->Map(a.get(), &host).ok());
  for (int i = 0; i < 64; ++i) host[i] = static_cast<unsigned char>(i);
  ASSERT_TRUE(runtime->Unmap(a.get()).ok());
  ASSERT_TRUE(runtime->Copy(a.get(), 8, b.get(), 16, 32).ok());
  EXPECT_FALSE(runtime->Copy(a.get(), 40, b.get(), 0, 32).ok());
  ASSERT_TRUE(runtime->Map(b.get(), &host).ok());
  for (int i = 0; i < 32; ++i) EXPECT_EQ(host[16 + i], 8 + i) << i;
  ASSERT_TRUE(runtime->Unmap(b.get()).ok());
  std::unique_ptr<Memory> cpu;
  EXPECT_EQ(runtime->Allocate(MemoryExtent::Buffer(MemoryType::CPU_BUFFER, 8), &cpu).code(),
            MaceStatus::MACE_UNSUPPORTED);
}

TEST(OpenCLRuntimeTest, ImageExtentsFollowTheLayoutsAndTheDeviceLimit) {
  auto runtime = NewRuntime(false);
  ASSERT_NE(runtime, nullptr);
  Tensor tensor("t", ImageStorage(ImageKind::kActivation));
  tensor.Reshape({2, 5, 3, 7});
  MemoryExtent extent;
  ASSERT_TRUE(runtime->ImageExtentFor(tensor, &extent).ok());
  EXPECT_EQ(extent.width, 2 * 7);
  EXPECT_EQ(extent.height, 2 * 3);
  EXPECT_EQ(extent.pixel_bytes, 16);
  const int64_t too_wide = runtime->device_info().max_image_width + 1;
  tensor.Reshape({1, 4, 1, too_wide});
  const MaceStatus status = runtime->ImageExtentFor(tensor, &extent);
  EXPECT_EQ(status.code(), MaceStatus::MACE_UNSUPPORTED);
  EXPECT_NE(status.information().find("tensor 't'"), std::string::npos) << status.ToString();
  EXPECT_NE(status.information().find("largest"), std::string::npos) << status.ToString();
  Tensor plain("p", Storage::Plain(DT_FLOAT));
  plain.Reshape({1, 1, 1, 1});
  EXPECT_FALSE(runtime->ImageExtentFor(plain, &extent).ok());
}

TEST(ImageLayoutTest, ShapesOfEveryKind) {
  ImageShape image;
  ASSERT_TRUE(ImageShapeFor(ImageKind::kActivation, {2, 5, 3, 7}, &image).ok());
  EXPECT_EQ(image.width, 14);
  EXPECT_EQ(image.height, 6);
  ASSERT_TRUE(ImageShapeFor(ImageKind::kActivation, {3, 9}, &image).ok());
  EXPECT_EQ(image.width, 3);
  EXPECT_EQ(image.height, 3);
  ASSERT_TRUE(ImageShapeFor(ImageKind::kConv2DFilter, {5, 3, 3, 2}, &image).ok());
  EXPECT_EQ(image.width, 3);
  EXPECT_EQ(image.height, 2 * 3 * 2);
  ASSERT_TRUE(ImageShapeFor(ImageKind::kDepthwiseFilter, {2, 6, 3, 3}, &image).ok());
  EXPECT_EQ(image.width, 3 * 3 * 2);
  EXPECT_EQ(image.height, 2);
  ASSERT_TRUE(ImageShapeFor(ImageKind::kArgument, {9}, &image).ok());
  EXPECT_EQ(image.width, 3);
  EXPECT_EQ(image.height, 1);
  // The seed's [W * C, N * ceil(H/4)] and [ceil(W/4) * C, N * H] for NCHW [2, 3, 5, 7].
  ASSERT_TRUE(ImageShapeFor(ImageKind::kHeightMajor, {2, 3, 5, 7}, &image).ok());
  EXPECT_EQ(image.width, 7 * 3);
  EXPECT_EQ(image.height, 2 * 2);
  ASSERT_TRUE(ImageShapeFor(ImageKind::kWidthMajor, {2, 3, 5, 7}, &image).ok());
  EXPECT_EQ(image.width, 2 * 3);
  EXPECT_EQ(image.height, 2 * 5);
  EXPECT_FALSE(ImageShapeFor(ImageKind::kHeightMajor, {3, 5, 7}, &image).ok());
  EXPECT_FALSE(ImageShapeFor(ImageKind::kArgument, {2, 3}, &image).ok());
  EXPECT_FALSE(ImageShapeFor(ImageKind::kActivation, {1, 0, 2, 2}, &image).ok());
}

TEST(ImageLayoutTest, ElementsLandWhereTheTableSays) {
  // Activation [1, 6, 2, 3]: element (c=5, h=1, w=2) is pixel (1 * 3 + 2, 1), lane 1.
  std::vector<float> data(36);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<float>(i + 1);
  std::vector<float> pixels;
  ASSERT_TRUE(ArrangePixels(ImageKind::kActivation, {1, 6, 2, 3}, data.data(), &pixels).ok());
  const int64_t width = 6;
  EXPECT_EQ(pixels[(1 * width + 5) * 4 + 1], data[(5 * 2 + 1) * 3 + 2]);
  // Padding lanes (channels 6 and 7) are 0.
  EXPECT_EQ(pixels[(0 * width + 3) * 4 + 2], 0.f);
  // Conv2D filter [5, 3, 2, 2]: (o=4, i=2, kh=1, kw=0) is pixel (2, (1 * 2 + 1) * 2 + 0), lane 0.
  std::vector<float> filter(60);
  for (size_t i = 0; i < filter.size(); ++i) filter[i] = static_cast<float>(i + 1);
  ASSERT_TRUE(ArrangePixels(ImageKind::kConv2DFilter, {5, 3, 2, 2}, filter.data(), &pixels).ok());
  EXPECT_EQ(pixels[(6 * 3 + 2) * 4 + 0], filter[((4 * 3 + 2) * 2 + 1) * 2 + 0]);
  // Height-major [2, 3, 5, 7]: (n=1, c=2, h=4, w=6) is pixel (2 * 7 + 6, 1 * 2 + 1), lane 0;
  // width-major: pixel (2 * 2 + 1, 1 * 5 + 4), lane 2.
  std::vector<float> nchw(2 * 3 * 5 * 7);
  for (size_t i = 0; i < nchw.size(); ++i) nchw[i] = static_cast<float>(i + 1);
  const float element = nchw[((1 * 3 + 2) * 5 + 4) * 7 + 6];
  ASSERT_TRUE(ArrangePixels(ImageKind::kHeightMajor, {2, 3, 5, 7}, nchw.data(), &pixels).ok());
  EXPECT_EQ(pixels[(3 * 21 + 20) * 4 + 0], element);
  EXPECT_EQ(pixels[(3 * 21 + 20) * 4 + 1], 0.f);  // h = 5 is past the tensor
  ASSERT_TRUE(ArrangePixels(ImageKind::kWidthMajor, {2, 3, 5, 7}, nchw.data(), &pixels).ok());
  EXPECT_EQ(pixels[(9 * 6 + 5) * 4 + 2], element);
  EXPECT_EQ(pixels[(9 * 6 + 5) * 4 + 3], 0.f);  // w = 7 is past the tensor
  for (ImageKind kind :
       {ImageKind::kActivation, ImageKind::kConv2DFilter, ImageKind::kDepthwiseFilter,
        ImageKind::kHeightMajor, ImageKind::kWidthMajor}) {
    std::vector<float> back;
    ASSERT_TRUE(ArrangePixels(kind, {5, 3, 2, 2}, filter.data(), &pixels).ok());
    ASSERT_TRUE(GatherPixels(kind, {5, 3, 2, 2}, pixels, &back).ok());
    EXPECT_EQ(back, filter) << ImageKindName(kind);
  }
}

TEST(ImageLayoutTest, CopyRowsBetweenPitches) {
  // A mapped image may have padded rows: 3 rows of 4 bytes at pitch 6.
  const unsigned char padded[18] = {1, 2, 3, 4, 0, 0, 5, 6, 7, 8, 0, 0, 9, 10, 11, 12, 0, 0};
  unsigned char tight[12] = {};
  CopyRows(padded, 6, tight, 4, 4, 3);
  for (int i = 0; i < 12; ++i) EXPECT_EQ(tight[i], i + 1);
  unsigned char back[18] = {};
  CopyRows(tight, 4, back, 6, 4, 3);
  EXPECT_EQ(std::memcmp(back, padded, 18), 0);
}

}  // namespace
}  // namespace opencl
}  // namespace mace
