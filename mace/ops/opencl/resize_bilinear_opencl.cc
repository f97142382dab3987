// ResizeBilinear on the OpenCL runtime: every coordinate mode. The taps of
// each output row and column are computed on the host with the CPU
// kernel's coordinate transform and clamping, into a float table.
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "mace/ops/common/resize_geometry.h"
#include "mace/ops/resize_bilinear.h"
#include "mace/runtimes/opencl/image_layout.h"
#include "mace/runtimes/opencl/opencl_runtime.h"
#include "mace/ops/opencl/image_kernel.h"
#include "mace/ops/opencl/kernels.h"
#include "mace/ops/opencl/remap.h"

namespace mace {
namespace opencl {
namespace {

// Appends the taps of output indices 0..out_len-1: lower and upper input
// index and the weight of the upper, as the CPU kernel computes them.
void AppendTaps(ops::CoordinateMode mode, int64_t in_len, int64_t out_len, double scale,
                std::vector<cl_float>* taps) {
  for (int64_t x = 0; x < out_len; ++x) {
    const double source = ops::SourceCoordinate(mode, x, in_len, out_len, scale);
    const double clamped = std::min(std::max(source, 0.0), static_cast<double>(in_len - 1));
    const int64_t low = static_cast<int64_t>(std::floor(clamped));
    taps->push_back(static_cast<cl_float>(low));
    taps->push_back(static_cast<cl_float>(std::min(low + 1, in_len - 1)));
    taps->push_back(static_cast<cl_float>(clamped - static_cast<double>(low)));
  }
}

class ResizeBilinearOpenCL : public ImageKernel<ops::ResizeBilinearBase> {
 public:
  MaceStatus PrepareKernel(OpContext* /*context*/) override {
    MACE_RETURN_IF_ERROR(InferShapes());
    MACE_RETURN_IF_ERROR(PrepareImageKernel(*this, "resize_bilinear", &kernel_));
    const ops::ref::ResizeBilinearParams& p = params();
    std::vector<cl_float> taps;
    AppendTaps(p.mode, p.in_h, p.out_h, p.scale_h, &taps);
    AppendTaps(p.mode, p.in_w, p.out_w, p.scale_w, &taps);
    if (taps_ == nullptr || taps != host_taps_) {
      MACE_RETURN_IF_ERROR(UploadTable(runtime(), taps, &taps_));
      host_taps_ = taps;
    }
    return MaceStatus();
  }

  MaceStatus Run(OpContext* /*context*/) override {
    const ops::ref::ResizeBilinearParams& p = params();
    cl_mem input = nullptr, output = nullptr;
    MACE_RETURN_IF_ERROR(DeviceMemoryOf(*Input(0), &input));
    MACE_RETURN_IF_ERROR(DeviceMemoryOf(*Output(0), &output));
    const cl_mem taps = static_cast<cl_mem>(taps_->device_handle());
    const int64_t blocks = (p.channels + 3) / 4;
    auto i32 = [](int64_t value) { return static_cast<cl_int>(value); };
    MACE_RETURN_IF_ERROR(kernel_.SetArgs(input, output, taps, i32(p.out_h), i32(p.in_h),
                                         i32(p.in_w), i32(p.out_h), i32(p.out_w), i32(blocks),
                                         i32(p.batch * p.out_h)));
    return RunOverOutput(*this, &kernel_);
  }

 private:
  std::vector<cl_float> host_taps_;
  std::unique_ptr<Memory> taps_;
  Kernel kernel_;
};

}  // namespace

MaceStatus RegisterResizeBilinearOpenCL(OpRegistry* registry) {
  return RegisterOp<ResizeBilinearOpenCL>(registry, "ResizeBilinear", DeviceType::GPU, DT_FLOAT);
}

}  // namespace opencl
}  // namespace mace
