// LocalResponseNorm on the OpenCL runtime: across channels, any radius.
#include "mace/ops/local_response_norm.h"
#include "mace/runtimes/opencl/image_layout.h"
#include "mace/runtimes/opencl/opencl_runtime.h"
#include "mace/ops/opencl/image_kernel.h"
#include "mace/ops/opencl/kernels.h"
#include "mace/ops/opencl/remap.h"

namespace mace {
namespace opencl {
namespace {

class LocalResponseNormOpenCL : public ImageKernel<ops::LocalResponseNormBase> {
 public:
  MaceStatus PrepareKernel(OpContext* /*context*/) override {
    MACE_RETURN_IF_ERROR(InferShapes());
    return PrepareImageKernel(*this, "local_response_norm", &kernel_);
  }

  MaceStatus Run(OpContext* /*context*/) override {
    const ops::ref::LocalResponseNormParams& p = params();
    cl_mem input = nullptr, output = nullptr;
    MACE_RETURN_IF_ERROR(DeviceMemoryOf(*Input(0), &input));
    MACE_RETURN_IF_ERROR(DeviceMemoryOf(*Output(0), &output));
    // A radius past the channel count reaches every channel.
    const int64_t radius = p.depth_radius < p.channels ? p.depth_radius : p.channels;
    MACE_RETURN_IF_ERROR(kernel_.SetArgs(input, output, Dims4(Input(0)->shape()),
                                         static_cast<cl_int>(radius),
                                         static_cast<cl_float>(p.bias),
                                         static_cast<cl_float>(p.alpha),
                                         static_cast<cl_float>(p.beta)));
    return RunOverOutput(*this, &kernel_);
  }

 private:
  Kernel kernel_;
};

}  // namespace

MaceStatus RegisterLocalResponseNormOpenCL(OpRegistry* registry) {
  return RegisterOp<LocalResponseNormOpenCL>(registry, "LocalResponseNorm", DeviceType::GPU,
                                             DT_FLOAT);
}

}  // namespace opencl
}  // namespace mace
