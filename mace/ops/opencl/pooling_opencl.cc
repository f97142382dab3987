// Pooling on the OpenCL runtime: max and average, global or windowed, with
// stride, dilation, padding, ceil_mode and count_include_pad as the base
// resolves them.
#include "mace/ops/pooling.h"
#include "mace/runtimes/opencl/opencl_runtime.h"
#include "mace/ops/opencl/image_kernel.h"
#include "mace/ops/opencl/kernels.h"

namespace mace {
namespace opencl {
namespace {

class PoolingOpenCL : public ImageKernel<ops::PoolingBase> {
 public:
  // LP pooling runs on the CPU.
  MaceStatus Accepts() const override {
    if (params().type == ops::ref::PoolingType::LP) return Refuse("no LP pooling");
    return ImageKernel::Accepts();
  }

  MaceStatus PrepareKernel(OpContext* /*context*/) override {
    MACE_RETURN_IF_ERROR(InferShapes());
    OpenCLRuntime* runtime = AsOpenCL(this->runtime());
    OP_CHECK(runtime != nullptr, "runs on the OpenCL runtime only");
    if (!kernel_.created()) MACE_RETURN_IF_ERROR(kernel_.Create(runtime, "pooling"));
    return MaceStatus();
  }

  MaceStatus Run(OpContext* /*context*/) override {
    const ops::ref::PoolingParams& p = params();
    cl_mem input = nullptr, output = nullptr;
    MACE_RETURN_IF_ERROR(DeviceMemoryOf(*Input(0), &input));
    MACE_RETURN_IF_ERROR(DeviceMemoryOf(*Output(0), &output));
    auto i32 = [](int64_t value) { return static_cast<cl_int>(value); };
    const int64_t image_width = (p.channels + 3) / 4 * p.out_w;
    const int64_t rows = p.batch * p.out_h;
    MACE_RETURN_IF_ERROR(kernel_.SetArgs(
        input, output, i32(p.in_h), i32(p.in_w), i32(p.out_h), i32(p.out_w), i32(p.channels),
        i32(image_width), i32(rows), i32(p.kernel_h), i32(p.kernel_w), i32(p.stride_h),
        i32(p.stride_w), i32(p.dilation_h), i32(p.dilation_w), i32(p.pad_top), i32(p.pad_left),
        i32(p.pad_bottom), i32(p.pad_right), i32(p.type == ops::ref::PoolingType::MAX),
        i32(p.count_include_pad)));
    return kernel_.Run2D(image_width, rows);
  }

 private:
  Kernel kernel_;
};

}  // namespace

MaceStatus RegisterPoolingOpenCL(OpRegistry* registry) {
  return RegisterOp<PoolingOpenCL>(registry, "Pooling", DeviceType::GPU, DT_FLOAT);
}

}  // namespace opencl
}  // namespace mace
