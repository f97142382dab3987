#include "mace/ops/opencl/remap.h"

#include <cstring>

#include "mace/runtimes/opencl/image_layout.h"

namespace mace {
namespace opencl {

cl_int4 Int4(int64_t x, int64_t y, int64_t z, int64_t w) {
  cl_int4 v;
  v.s[0] = static_cast<cl_int>(x);
  v.s[1] = static_cast<cl_int>(y);
  v.s[2] = static_cast<cl_int>(z);
  v.s[3] = static_cast<cl_int>(w);
  return v;
}

cl_int4 Dims4(const std::vector<int64_t>& shape) {
  const std::vector<int64_t> dims = ActivationDims(shape);
  if (dims.size() != 4) return Int4(1, 1, 1, 1);
  return Int4(dims[0], dims[1], dims[2], dims[3]);
}

cl_int4 PerDimension(const std::vector<int64_t>& values, int64_t fill) {
  int64_t v[4] = {fill, fill, fill, fill};
  if (values.size() == 1) {
    v[1] = values[0];
  } else {
    for (size_t i = 0; i < values.size() && i < 4; ++i) v[i] = values[i];
  }
  return Int4(v[0], v[1], v[2], v[3]);
}

MaceStatus RemapKernel::Prepare(Runtime* runtime) {
  OpenCLRuntime* opencl = AsOpenCL(runtime);
  MACE_CHECK_ARG(opencl != nullptr, "the remap kernel runs on the OpenCL runtime only");
  if (kernel_.created()) return MaceStatus();
  return kernel_.Create(opencl, "remap");
}

MaceStatus RemapKernel::Run(const Tensor& input, const Tensor& output, const RemapArgs& args) {
  ImageShape image;
  MACE_RETURN_IF_ERROR(ImageShapeFor(ImageKind::kActivation, output.shape(), &image));
  cl_mem in = nullptr, out = nullptr;
  MACE_RETURN_IF_ERROR(DeviceMemoryOf(input, &in));
  MACE_RETURN_IF_ERROR(DeviceMemoryOf(output, &out));
  MACE_RETURN_IF_ERROR(kernel_.SetArgs(in, out, static_cast<cl_int>(args.mode),
                                       Dims4(input.shape()), Dims4(output.shape()), args.a, args.b,
                                       static_cast<cl_float>(args.constant), args.table));
  return kernel_.Run2D(image.width, image.height);
}

MaceStatus UploadWeightAs(Runtime* runtime, ImageKind kind, const std::string& name,
                          const std::vector<int64_t>& shape, const float* data,
                          std::unique_ptr<Memory>* image) {
  OpenCLRuntime* opencl = AsOpenCL(runtime);
  MACE_CHECK_ARG(opencl != nullptr, "weight '", name, "' needs the OpenCL runtime");
  Tensor view(name, DT_FLOAT);
  view.Reshape(shape);
  view.SetConstBuffer(data, view.size() * static_cast<int64_t>(sizeof(float)));
  return opencl->UploadWeight(kind, view, image);
}

MaceStatus CheckImageTensors(const Operation& op) {
  auto fits = [](const Tensor* t) {
    return t != nullptr && t->dtype() == DT_FLOAT && t->dim_size() <= 4;
  };
  MACE_CHECK_ARG(fits(op.Input(0)), op.Describe(), ": input has shape ",
                 ShapeToString(op.Input(0)->shape()),
                 " but the GPU kernel needs a float32 tensor of rank 4 or less");
  for (int i = 0; i < op.OutputSize(); ++i) {
    MACE_CHECK_ARG(fits(op.Output(i)), op.Describe(), ": output ", i, " has shape ",
                   ShapeToString(op.Output(i)->shape()),
                   " but the GPU kernel needs a float32 tensor of rank 4 or less");
  }
  return MaceStatus();
}

MaceStatus PrepareImageKernel(const Operation& op, const char* name, Kernel* kernel) {
  MACE_RETURN_IF_ERROR(CheckImageTensors(op));
  OpenCLRuntime* runtime = AsOpenCL(op.runtime());
  MACE_CHECK_ARG(runtime != nullptr, op.Describe(), " runs on the OpenCL runtime only");
  if (kernel->created()) return MaceStatus();
  return kernel->Create(runtime, name);
}

MaceStatus RunOverOutput(const Operation& op, Kernel* kernel, double work_per_item) {
  ImageShape image;
  MACE_RETURN_IF_ERROR(ImageShapeFor(ImageKind::kActivation, op.Output(0)->shape(), &image));
  return kernel->Run2D(image.width, image.height, work_per_item);
}

template <typename T>
MaceStatus UploadTable(Runtime* runtime, const std::vector<T>& values,
                       std::unique_ptr<Memory>* table) {
  const int64_t bytes = static_cast<int64_t>(std::max<size_t>(values.size(), 1) * sizeof(T));
  MACE_RETURN_IF_ERROR(
      runtime->Allocate(MemoryExtent::Buffer(MemoryType::GPU_BUFFER, bytes), table));
  unsigned char* host = nullptr;
  MACE_RETURN_IF_ERROR(runtime->Map(table->get(), &host));
  if (!values.empty()) std::memcpy(host, values.data(), values.size() * sizeof(T));
  return runtime->Unmap(table->get());
}

template MaceStatus UploadTable<cl_int>(Runtime*, const std::vector<cl_int>&,
                                        std::unique_ptr<Memory>*);
template MaceStatus UploadTable<cl_float>(Runtime*, const std::vector<cl_float>&,
                                          std::unique_ptr<Memory>*);

}  // namespace opencl
}  // namespace mace
