// Reduce on the OpenCL runtime: every reduce type (mean, min, max, prod,
// sum) over any axes of a tensor of rank 4 or less, with or without
// keepdims. Each output element combines its inputs one by one.
#include <vector>

#include "mace/ops/reduce.h"
#include "mace/runtimes/opencl/image_layout.h"
#include "mace/runtimes/opencl/opencl_runtime.h"
#include "mace/ops/opencl/image_kernel.h"
#include "mace/ops/opencl/kernels.h"
#include "mace/ops/opencl/remap.h"

namespace mace {
namespace opencl {
namespace {

// Up to four sizes or strides, right-aligned (innermost last) and padded
// in front with `fill`.
cl_int4 RightAligned(const std::vector<int64_t>& values, int64_t fill) {
  int64_t v[4] = {fill, fill, fill, fill};
  const size_t offset = 4 - values.size();
  for (size_t i = 0; i < values.size(); ++i) v[offset + i] = values[i];
  return Int4(v[0], v[1], v[2], v[3]);
}

class ReduceOpenCL : public ImageKernel<ops::ReduceBase> {
 public:
  MaceStatus PrepareKernel(OpContext* /*context*/) override {
    MACE_RETURN_IF_ERROR(InferShapes());
    return PrepareImageKernel(*this, "reduce", &kernel_);
  }

  MaceStatus Run(OpContext* /*context*/) override {
    const ops::ref::ReduceParams& p = params();
    cl_mem input = nullptr, output = nullptr;
    MACE_RETURN_IF_ERROR(DeviceMemoryOf(*Input(0), &input));
    MACE_RETURN_IF_ERROR(DeviceMemoryOf(*Output(0), &output));
    MACE_RETURN_IF_ERROR(kernel_.SetArgs(
        input, output, Dims4(Input(0)->shape()), Dims4(Output(0)->shape()),
        RightAligned(p.kept_sizes, 1), RightAligned(p.kept_strides, 0),
        RightAligned(p.reduced_sizes, 1), RightAligned(p.reduced_strides, 0),
        static_cast<cl_int>(p.type)));
    return RunOverOutput(*this, &kernel_);
  }

 private:
  Kernel kernel_;
};

}  // namespace

MaceStatus RegisterReduceOpenCL(OpRegistry* registry) {
  return RegisterOp<ReduceOpenCL>(registry, "Reduce", DeviceType::GPU, DT_FLOAT);
}

}  // namespace opencl
}  // namespace mace
