#include "mace/runtimes/opencl/ops/channel_affine.h"

#include "mace/runtimes/opencl/image_layout.h"
#include "mace/runtimes/opencl/ops/remap.h"

namespace mace {
namespace opencl {

MaceStatus ChannelAffine::Prepare(Runtime* runtime, const std::string& name,
                                  const std::vector<float>& scale,
                                  const std::vector<float>& offset) {
  OpenCLRuntime* opencl = AsOpenCL(runtime);
  MACE_CHECK_ARG(opencl != nullptr, name, " runs on the OpenCL runtime only");
  if (offset_ == nullptr) {
    const int64_t channels = static_cast<int64_t>(offset.size());
    if (!scale.empty()) {
      MACE_RETURN_IF_ERROR(UploadWeightAs(runtime, ImageKind::kArgument, name + "#scale",
                                          {channels}, scale.data(), &scale_));
    }
    MACE_RETURN_IF_ERROR(UploadWeightAs(runtime, ImageKind::kArgument, name + "#offset",
                                        {channels}, offset.data(), &offset_));
  }
  if (!kernel_.created()) MACE_RETURN_IF_ERROR(kernel_.Create(opencl, "channel_affine"));
  return MaceStatus();
}

MaceStatus ChannelAffine::Run(const Tensor& input, const Tensor& output,
                              const ops::Activation& activation) {
  const std::vector<int64_t> dims = ActivationDims(input.shape());
  MACE_CHECK_ARG(dims.size() == 4, "input has shape ", ShapeToString(input.shape()),
                 ", more than 4 dimensions");
  ImageShape image;
  MACE_RETURN_IF_ERROR(ImageShapeFor(ImageKind::kActivation, input.shape(), &image));
  cl_mem in = nullptr, out = nullptr;
  MACE_RETURN_IF_ERROR(DeviceMemoryOf(input, &in));
  MACE_RETURN_IF_ERROR(DeviceMemoryOf(output, &out));
  const cl_mem offset = static_cast<cl_mem>(offset_->device_handle());
  // Without a scale the kernel never reads its scale argument.
  const cl_mem scale = scale_ != nullptr ? static_cast<cl_mem>(scale_->device_handle()) : offset;
  MACE_RETURN_IF_ERROR(kernel_.SetArgs(
      in, scale, offset, static_cast<cl_int>(scale_ != nullptr), out,
      static_cast<cl_int>(image.width), static_cast<cl_int>(image.height),
      static_cast<cl_int>(dims[3]), static_cast<cl_int>(dims[1]),
      static_cast<cl_int>(activation.type), static_cast<cl_float>(activation.max_limit),
      static_cast<cl_float>(activation.alpha), static_cast<cl_float>(activation.beta)));
  return kernel_.Run2D(image.width, image.height);
}

}  // namespace opencl
}  // namespace mace
