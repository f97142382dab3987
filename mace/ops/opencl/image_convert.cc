// Converters between the CPU's plain float tensors (NCHW, or lower ranks) and
// activation images, in both directions. Each goes through the runtime's
// staging buffer: the host writes or reads the NCHW bytes, and a kernel
// moves them to or from the image (converting to the image's pixel type).
#include "mace/ops/opencl/kernels.h"

#include "mace/core/converter_registry.h"
#include "mace/runtimes/opencl/image_layout.h"
#include "mace/runtimes/opencl/opencl_runtime.h"

namespace mace {
namespace opencl {
namespace {

class ImageConvert : public Operation {
 public:
  explicit ImageConvert(bool to_image) : to_image_(to_image) {}

  MaceStatus Prepare(OpContext* /*context*/) override {
    OP_CHECK(Input(0)->dtype() == DT_FLOAT, "converts float32 tensors only");
    OP_CHECK(Input(0)->dim_size() <= 4, "activation images hold tensors of rank 4 or less, not ",
             ShapeToString(Input(0)->shape()));
    Output(0)->Reshape(Input(0)->shape());
    OpenCLRuntime* runtime = AsOpenCL(this->runtime());
    OP_CHECK(runtime != nullptr, "runs on the OpenCL runtime only");
    if (!kernel_.created()) {
      MACE_RETURN_IF_ERROR(kernel_.Create(runtime, to_image_ ? "nchw_to_image" : "image_to_nchw"));
    }
    // The staging buffer grows to the largest converted tensor here, at
    // Init, so that the memory report counts it and Run never allocates.
    cl_mem staging = nullptr;
    return runtime->StagingBuffer(Input(0)->size() * static_cast<int64_t>(sizeof(float)), &staging);
  }

  MaceStatus Run(OpContext* /*context*/) override {
    OpenCLRuntime* runtime = AsOpenCL(this->runtime());
    const OpenCLApi& api = runtime->api();
    const Tensor* image_tensor = to_image_ ? Output(0) : Input(0);
    const std::vector<int64_t> dims = ActivationDims(image_tensor->shape());
    ImageShape image;
    MACE_RETURN_IF_ERROR(ImageShapeFor(ImageKind::kActivation, image_tensor->shape(), &image));
    cl_mem image_mem = nullptr, staging = nullptr;
    MACE_RETURN_IF_ERROR(DeviceMemoryOf(*image_tensor, &image_mem));
    const int64_t bytes = Input(0)->size() * static_cast<int64_t>(sizeof(float));
    MACE_RETURN_IF_ERROR(runtime->StagingBuffer(bytes, &staging));
    const cl_int channels = static_cast<cl_int>(dims[1]), height = static_cast<cl_int>(dims[2]),
                 width = static_cast<cl_int>(dims[3]);
    const cl_int image_width = static_cast<cl_int>(image.width),
                 image_height = static_cast<cl_int>(image.height);
    if (to_image_) {
      const float* host = Input(0)->data<float>();
      OP_CHECK(host != nullptr, "input '", Input(0)->name(), "' is not in host memory");
      cl_int error = api.clEnqueueWriteBuffer(runtime->queue(), staging, CL_TRUE, 0, bytes, host,
                                              0, nullptr, nullptr);
      OP_CHECK(error == CL_SUCCESS, "uploading failed: ", OpenCLErrorName(error));
      MACE_RETURN_IF_ERROR(
          kernel_.SetArgs(staging, channels, height, width, image_width, image_height, image_mem));
      return kernel_.Run2D(image.width, image.height);
    }
    float* host = Output(0)->mutable_data<float>();
    OP_CHECK(host != nullptr, "output '", Output(0)->name(), "' is not in host memory");
    MACE_RETURN_IF_ERROR(
        kernel_.SetArgs(image_mem, channels, height, width, image_width, image_height, staging));
    MACE_RETURN_IF_ERROR(kernel_.Run2D(image.width, image.height));
    const cl_int error = api.clEnqueueReadBuffer(runtime->queue(), staging, CL_TRUE, 0, bytes,
                                                 host, 0, nullptr, nullptr);
    OP_CHECK(error == CL_SUCCESS, "downloading failed: ", OpenCLErrorName(error));
    return MaceStatus();
  }

 private:
  bool to_image_;
  Kernel kernel_;
};

}  // namespace

MaceStatus RegisterImageConverters(ConverterRegistry* converters) {
  for (bool to_image : {true, false}) {
    Converter converter;
    const Storage image = ImageStorage(ImageKind::kActivation);
    converter.from = to_image ? Storage::Plain(DT_FLOAT) : image;
    converter.to = to_image ? image : Storage::Plain(DT_FLOAT);
    converter.device = DeviceType::GPU;
    converter.op_type = to_image ? "BufferToImage" : "ImageToBuffer";
    converter.factory = [to_image] {
      return std::unique_ptr<Operation>(new ImageConvert(to_image));
    };
    MACE_RETURN_IF_ERROR(converters->Register(converter));
  }
  return MaceStatus();
}

}  // namespace opencl
}  // namespace mace
