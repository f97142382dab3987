#include "mace/runtimes/opencl/opencl_runtime.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <limits>
#include <utility>

#include "mace/core/tensor.h"
#include "mace/runtimes/opencl/image_layout.h"
#include "mace/runtimes/opencl/program_cache.h"
#include "mace/utils/debug_overrides.h"
#include "mace/utils/logging.h"
#include "mace/utils/run_control.h"
#include "mace/utils/status.h"

namespace mace {
namespace opencl {
namespace {

// Each timed candidate of a tuned launch runs this many times; the
// fastest run counts (the first may include a driver's compile).
constexpr int kTuningRepeats = 2;
std::atomic<int64_t> kernel_enqueues{0};

// Options left to the environment: the work-per-ms figure and Winograd.
OpenCLOptions WithEnvironment(OpenCLOptions options) {
  if (options.work_per_ms <= 0) {
    const char* text = DebugOverrideValue(DebugOverride::kOpenCLWorkPerMs);
    const double value = text != nullptr ? std::atof(text) : 0;
    options.work_per_ms = value > 0 ? value : kDefaultWorkPerMs;
  }
  if (options.winograd.empty()) {
    const char* text = DebugOverrideValue(DebugOverride::kOpenCLWinograd);
    options.winograd = text != nullptr ? text : "auto";
  }
  if (options.winograd != "on" && options.winograd != "off") options.winograd = "auto";
  return options;
}

// Device memory: an image or a buffer, with its host mapping while mapped.
class OpenCLMemory : public Memory {
 public:
  OpenCLMemory(const MemoryExtent& extent, const OpenCLApi* api, cl_command_queue queue,
               cl_mem mem)
      : Memory(extent), api_(api), queue_(queue), mem_(mem) {}
  ~OpenCLMemory() override {
    if (mapped_ != nullptr) api_->clEnqueueUnmapMemObject(queue_, mem_, mapped_, 0, nullptr, nullptr);
    api_->clReleaseMemObject(mem_);
  }
  void* device_handle() override { return mem_; }
  cl_mem mem() const { return mem_; }

  void* mapped_ = nullptr;
  size_t row_pitch_ = 0;
  // A tight copy of a mapped image whose rows are padded.
  std::vector<unsigned char> shadow_;

 private:
  const OpenCLApi* api_;
  cl_command_queue queue_;
  cl_mem mem_;
};

}  // namespace

OpenCLRuntime* AsOpenCL(Runtime* runtime) { return dynamic_cast<OpenCLRuntime*>(runtime); }

int64_t KernelEnqueueCount() { return kernel_enqueues.load(); }

OpenCLRuntime::OpenCLRuntime(OpenCLOptions options, std::shared_ptr<OpenCLDevice> shared)
    : options_(WithEnvironment(std::move(options))),
      shared_(shared != nullptr ? std::move(shared) : std::make_shared<OpenCLDevice>(options_)) {}

OpenCLRuntime::~OpenCLRuntime() {
  if (api_ == nullptr) return;
  // The queue may be shared: this waits for other engines' work too.
  api_->clFinish(queue_);
  for (cl_event event : events_) api_->clReleaseEvent(event);
  if (staging_ != nullptr) api_->clReleaseMemObject(staging_);
}

MaceStatus OpenCLRuntime::Check(cl_int error, const std::string& what) const {
  return shared_->Check(error, what);
}

MaceStatus OpenCLRuntime::Init() {
  MACE_RETURN_IF_ERROR(shared_->Init());
  api_ = &shared_->api();
  device_ = shared_->device();
  context_ = shared_->context();
  queue_ = shared_->queue();
  program_ = shared_->program();
  profiling_queue_ = shared_->profiling_queue();
  half_storage_ = shared_->half_storage();
  return MaceStatus();
}

MaceStatus OpenCLRuntime::CheckImageSize(int64_t width, int64_t height,
                                         const std::string& what) const {
  MACE_UNSUPPORTED_IF(width > shared_->info().max_image_width || height > shared_->info().max_image_height, what,
                      " needs a ", width, " x ", height, " image, but the largest ", shared_->info().device,
                      " has is ", shared_->info().max_image_width, " x ", shared_->info().max_image_height);
  return MaceStatus();
}

MaceStatus OpenCLRuntime::Allocate(const MemoryExtent& extent, std::unique_ptr<Memory>* memory) {
  cl_int error = CL_SUCCESS;
  cl_mem mem = nullptr;
  if (extent.type == MemoryType::GPU_IMAGE) {
    MACE_CHECK_ARG(extent.pixel_bytes == pixel_bytes(), "an image of ", extent.pixel_bytes,
                   "-byte pixels was asked of a runtime storing ", pixel_bytes(), "-byte pixels");
    MACE_CHECK_ARG(extent.width > 0 && extent.height > 0, "an empty image was asked for");
    MACE_RETURN_IF_ERROR(CheckImageSize(extent.width, extent.height, "an allocation"));
    const cl_image_format format = {CL_RGBA,
                                    static_cast<cl_channel_type>(half_storage_ ? CL_HALF_FLOAT
                                                                               : CL_FLOAT)};
    cl_image_desc desc = {};
    desc.image_type = CL_MEM_OBJECT_IMAGE2D;
    desc.image_width = static_cast<size_t>(extent.width);
    desc.image_height = static_cast<size_t>(extent.height);
    mem = api_->clCreateImage(context_, CL_MEM_READ_WRITE, &format, &desc, nullptr, &error);
    MACE_RETURN_IF_ERROR(
        Check(error, StrCat("allocating a ", extent.width, " x ", extent.height, " image")));
  } else if (extent.type == MemoryType::GPU_BUFFER) {
    MACE_CHECK_ARG(extent.bytes >= 0, "a buffer of ", extent.bytes, " bytes was asked for");
    mem = api_->clCreateBuffer(context_, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
                               static_cast<size_t>(std::max<int64_t>(extent.bytes, 1)), nullptr,
                               &error);
    MACE_RETURN_IF_ERROR(Check(error, StrCat("allocating a ", extent.bytes, "-byte buffer")));
  } else {
    return MaceStatus(MaceStatus::MACE_UNSUPPORTED,
                      StrCat(name(), " has no ", MemoryTypeName(extent.type), " memory"));
  }
  *memory = std::make_unique<OpenCLMemory>(extent, api_, queue_, mem);
  return MaceStatus();
}

MaceStatus OpenCLRuntime::Map(Memory* memory, unsigned char** host) {
  MACE_CHECK_ARG(memory != nullptr && host != nullptr, "Map needs memory and a pointer");
  if (memory->host() != nullptr) {
    *host = memory->host();
    return MaceStatus();
  }
  auto* device = dynamic_cast<OpenCLMemory*>(memory);
  MACE_UNSUPPORTED_IF(device == nullptr, name(), " cannot map memory of another runtime");
  MACE_CHECK_ARG(device->mapped_ == nullptr, "memory is mapped twice");
  cl_int error = CL_SUCCESS;
  const MemoryExtent& extent = memory->extent();
  if (extent.type == MemoryType::GPU_BUFFER) {
    device->mapped_ = api_->clEnqueueMapBuffer(
        queue_, device->mem(), CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
        static_cast<size_t>(std::max<int64_t>(extent.bytes, 1)), 0, nullptr, nullptr, &error);
    MACE_RETURN_IF_ERROR(Check(error, "mapping a buffer"));
    *host = static_cast<unsigned char*>(device->mapped_);
    return MaceStatus();
  }
  const size_t origin[3] = {0, 0, 0};
  const size_t region[3] = {static_cast<size_t>(extent.width), static_cast<size_t>(extent.height),
                            1};
  device->mapped_ =
      api_->clEnqueueMapImage(queue_, device->mem(), CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, origin,
                              region, &device->row_pitch_, nullptr, 0, nullptr, nullptr, &error);
  MACE_RETURN_IF_ERROR(Check(error, "mapping an image"));
  const size_t row_bytes = static_cast<size_t>(extent.width * extent.pixel_bytes);
  if (device->row_pitch_ == row_bytes) {
    *host = static_cast<unsigned char*>(device->mapped_);
    return MaceStatus();
  }
  // Padded rows: the host sees a tight copy, written back at Unmap.
  device->shadow_.resize(row_bytes * static_cast<size_t>(extent.height));
  CopyRows(static_cast<const unsigned char*>(device->mapped_), device->row_pitch_,
           device->shadow_.data(), row_bytes, row_bytes, static_cast<size_t>(extent.height));
  *host = device->shadow_.data();
  return MaceStatus();
}

MaceStatus OpenCLRuntime::Unmap(Memory* memory) {
  MACE_CHECK_ARG(memory != nullptr, "Unmap needs memory");
  if (memory->host() != nullptr) return MaceStatus();
  auto* device = dynamic_cast<OpenCLMemory*>(memory);
  MACE_CHECK_ARG(device != nullptr && device->mapped_ != nullptr, "memory is not mapped");
  if (!device->shadow_.empty()) {
    const size_t row_bytes = static_cast<size_t>(memory->extent().width * memory->extent().pixel_bytes);
    CopyRows(device->shadow_.data(), row_bytes, static_cast<unsigned char*>(device->mapped_),
             device->row_pitch_, row_bytes, static_cast<size_t>(memory->extent().height));
    device->shadow_.clear();
  }
  const cl_int error =
      api_->clEnqueueUnmapMemObject(queue_, device->mem(), device->mapped_, 0, nullptr, nullptr);
  device->mapped_ = nullptr;
  return Check(error, "unmapping memory");
}

MaceStatus OpenCLRuntime::Copy(Memory* source, int64_t source_offset, Memory* target,
                               int64_t target_offset, int64_t bytes) {
  auto* from = dynamic_cast<OpenCLMemory*>(source);
  auto* to = dynamic_cast<OpenCLMemory*>(target);
  if (from == nullptr || to == nullptr || source->type() != MemoryType::GPU_BUFFER ||
      target->type() != MemoryType::GPU_BUFFER) {
    return Runtime::Copy(source, source_offset, target, target_offset, bytes);
  }
  MACE_CHECK_ARG(source_offset >= 0 && target_offset >= 0 && bytes >= 0 &&
                     source_offset + bytes <= source->bytes() &&
                     target_offset + bytes <= target->bytes(),
                 "buffer copy of ", bytes, " bytes is out of range");
  if (bytes == 0) return MaceStatus();
  return Check(api_->clEnqueueCopyBuffer(queue_, from->mem(), to->mem(), source_offset,
                                         target_offset, bytes, 0, nullptr, nullptr),
               "copying a buffer");
}

MaceStatus OpenCLRuntime::ImageExtentFor(const Tensor& tensor, MemoryExtent* extent) const {
  const Storage& storage = tensor.storage();
  MACE_CHECK_ARG(storage.memory_type == MemoryType::GPU_IMAGE && storage.layout == Layout::kImage &&
                     storage.image >= static_cast<int>(ImageKind::kActivation) &&
                     storage.image <= static_cast<int>(ImageKind::kWidthMajor),
                 "tensor '", tensor.name(), "' is stored as ", storage.ToString(),
                 ", not in an OpenCL image");
  const ImageKind kind = static_cast<ImageKind>(storage.image);
  ImageShape image;
  MACE_RETURN_IF_ERROR(ImageShapeFor(kind, tensor.shape(), &image));
  MACE_RETURN_IF_ERROR(CheckImageSize(
      image.width, image.height,
      StrCat("tensor '", tensor.name(), "' of shape ", ShapeToString(tensor.shape()))));
  *extent = MemoryExtent::Image(image.width, image.height, pixel_bytes());
  return MaceStatus();
}

bool OpenCLRuntime::FitsActivationImage(const std::vector<int64_t>& shape) const {
  ImageShape image;
  return shape.size() <= 4 && ImageShapeFor(ImageKind::kActivation, shape, &image).ok() &&
         image.width <= shared_->info().max_image_width && image.height <= shared_->info().max_image_height;
}

MaceStatus OpenCLRuntime::BeforeRun() {
  // Events of launches before the run (weight uploads at Init) belong to
  // no op.
  for (cl_event event : events_) api_->clReleaseEvent(event);
  events_.clear();
  return MaceStatus();
}

MaceStatus OpenCLRuntime::AfterRun() {
  MACE_RETURN_IF_ERROR(Check(api_->clFinish(queue_), "finishing the run"));
  // Events of launches no profiled op collected.
  for (cl_event event : events_) api_->clReleaseEvent(event);
  events_.clear();
  return shared_->SaveTunedParameters();
}

void OpenCLRuntime::ReportMemory(MemoryReport* report) const {
  report->persistent_bytes += weight_bytes_;
  report->scratch_bytes += staging_bytes_;
  for (const auto& image : scratch_) {
    if (image != nullptr) report->scratch_bytes += image->bytes();
  }
}

MaceStatus OpenCLRuntime::ScratchImage(int slot, int64_t width, int64_t height, cl_mem* image) {
  MACE_CHECK_ARG(slot >= 0 && slot < 2, "no scratch image ", slot);
  std::unique_ptr<Memory>& held = scratch_[slot];
  if (held == nullptr || held->extent().width < width || held->extent().height < height) {
    const int64_t w = held == nullptr ? width : std::max(width, held->extent().width);
    const int64_t h = held == nullptr ? height : std::max(height, held->extent().height);
    std::unique_ptr<Memory> grown;
    MACE_RETURN_IF_ERROR(Allocate(MemoryExtent::Image(w, h, pixel_bytes()), &grown));
    held = std::move(grown);
  }
  *image = static_cast<cl_mem>(held->device_handle());
  return MaceStatus();
}

MaceStatus OpenCLRuntime::CreateKernel(const char* name, cl_kernel* kernel) const {
  cl_int error = CL_SUCCESS;
  *kernel = api_->clCreateKernel(program_, name, &error);
  return Check(error, StrCat("creating kernel ", name));
}

MaceStatus OpenCLRuntime::Enqueue2D(cl_kernel kernel, const std::string& name, int64_t width,
                                    int64_t height, double work_per_item) {
  MACE_CHECK_ARG(width > 0 && height > 0 && width < (int64_t{1} << 31) &&
                     height < (int64_t{1} << 31),
                 "a kernel over ", width, " x ", height, " items");
  size_t kernel_limit = 0;
  MACE_RETURN_IF_ERROR(Check(api_->clGetKernelWorkGroupInfo(kernel, device_,
                                                            CL_KERNEL_WORK_GROUP_SIZE,
                                                            sizeof(kernel_limit), &kernel_limit,
                                                            nullptr),
                             "querying a kernel's work-group size"));
  const int64_t limit = std::max<int64_t>(static_cast<int64_t>(kernel_limit), 1);
  LocalSize local = DefaultLocalSize(limit);
  const std::string key = LaunchKey(name, width, height);
  if (shared_->FindTuned(key, limit, &local)) {
    ++tuned_launches_;
  } else if (options_.tune) {
    MACE_RETURN_IF_ERROR(Tune(kernel, name, width, height, limit, &local));
    shared_->AddTuned(key, local);
    ++tuned_launches_;
  }
  const size_t local_size[2] = {local.width, local.height};
  const size_t global[2] = {
      (static_cast<size_t>(width) + local.width - 1) / local.width * local.width,
      (static_cast<size_t>(height) + local.height - 1) / local.height * local.height};
  // With the kernel time limit, a long kernel runs as pieces of whole
  // work-groups along one axis (PoCL takes no partial groups); the kernels
  // see global ids as if the range were run at once.
  const int axis = global[1] > local_size[1] ? 1 : 0;
  size_t piece = global[axis];
  const double work = work_per_item * static_cast<double>(width) * static_cast<double>(height);
  if (options_.limit_kernel_time && work_per_item > 0 && work > options_.work_per_ms) {
    const double line_work = work_per_item * static_cast<double>(axis == 1 ? width : height);
    const double lines = std::max(1.0, options_.work_per_ms / line_work);
    const size_t groups = std::max<size_t>(1, static_cast<size_t>(lines) / local_size[axis]);
    piece = std::min(global[axis], groups * local_size[axis]);
  }
  if (piece < global[axis]) {
    VLOG(2) << "OpenCL: " << name << " (about " << work << " multiply-adds) runs as "
            << (global[axis] + piece - 1) / piece << " pieces";
  }
  size_t offset[2] = {0, 0};
  size_t size[2] = {global[0], global[1]};
  const RunControl* control = piece < global[axis] ? CurrentRunControl() : nullptr;
  for (size_t start = 0; start < global[axis]; start += piece) {
    // A stopped Run enqueues no more pieces; the net then ends it.
    if (control != nullptr && control->ShouldStop()) break;
    offset[axis] = start;
    size[axis] = std::min(piece, global[axis] - start);
    cl_event event = nullptr;
    const cl_int error = api_->clEnqueueNDRangeKernel(queue_, kernel, 2, offset, size, local_size,
                                                      0, nullptr,
                                                      profiling_queue_ ? &event : nullptr);
    if (event != nullptr) events_.push_back(event);
    MACE_RETURN_IF_ERROR(Check(error, StrCat("running kernel ", name)));
    ++kernel_enqueues;
  }
  return MaceStatus();
}

cl_int OpenCLRuntime::Launch(cl_kernel kernel, int64_t width, int64_t height, LocalSize local,
                             cl_event* event) {
  const size_t local_size[2] = {local.width, local.height};
  const size_t global[2] = {
      (static_cast<size_t>(width) + local.width - 1) / local.width * local.width,
      (static_cast<size_t>(height) + local.height - 1) / local.height * local.height};
  return api_->clEnqueueNDRangeKernel(queue_, kernel, 2, nullptr, global, local_size, 0, nullptr,
                                      event);
}

MaceStatus OpenCLRuntime::EventNanos(cl_event event, cl_ulong* nanos) const {
  cl_ulong start = 0, end = 0;
  MACE_RETURN_IF_ERROR(Check(api_->clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START,
                                                           sizeof(start), &start, nullptr),
                             "reading a profiling event"));
  MACE_RETURN_IF_ERROR(Check(api_->clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END,
                                                           sizeof(end), &end, nullptr),
                             "reading a profiling event"));
  *nanos = end > start ? end - start : 0;
  return MaceStatus();
}

MaceStatus OpenCLRuntime::Tune(cl_kernel kernel, const std::string& name, int64_t width,
                               int64_t height, int64_t limit, LocalSize* best) {
  // Every candidate computes the same output (kernels write each output
  // item once, from inputs they do not write), so the timed runs are
  // harmless repeats of the launch.
  cl_ulong best_nanos = std::numeric_limits<cl_ulong>::max();
  for (const LocalSize& candidate : CandidateLocalSizes(width, height, limit)) {
    for (int repeat = 0; repeat < kTuningRepeats; ++repeat) {
      cl_event event = nullptr;
      cl_int error = Launch(kernel, width, height, candidate, &event);
      if (error == CL_SUCCESS) error = api_->clWaitForEvents(1, &event);
      cl_ulong nanos = 0;
      MaceStatus status = Check(error, "timing a work-group size");
      if (status.ok()) status = EventNanos(event, &nanos);
      if (event != nullptr) api_->clReleaseEvent(event);
      // A shape the driver refuses is skipped, not fatal.
      if (!status.ok()) {
        VLOG(2) << "OpenCL tuning " << name << ": " << candidate.width << " x "
                << candidate.height << " skipped: " << status.information();
        break;
      }
      if (nanos < best_nanos) {
        best_nanos = nanos;
        *best = candidate;
      }
    }
  }
  VLOG(1) << "OpenCL tuned " << LaunchKey(name, width, height) << ": " << best->width << " x "
          << best->height << ", " << best_nanos << " ns";
  return MaceStatus();
}

MaceStatus OpenCLRuntime::OpDeviceMicros(int64_t* micros) {
  *micros = -1;
  MACE_RETURN_IF_ERROR(Check(api_->clFinish(queue_), "finishing an op"));
  if (!profiling_queue_) return MaceStatus();
  cl_ulong total = 0;
  MaceStatus status;
  for (cl_event event : events_) {
    cl_ulong nanos = 0;
    if (status.ok()) status = EventNanos(event, &nanos);
    total += nanos;
    api_->clReleaseEvent(event);
  }
  events_.clear();
  MACE_RETURN_IF_ERROR(status);
  *micros = static_cast<int64_t>((total + 500) / 1000);
  return MaceStatus();
}

MaceStatus OpenCLRuntime::StagingBuffer(int64_t bytes, cl_mem* buffer) {
  if (staging_ == nullptr || staging_bytes_ < bytes) {
    if (staging_ != nullptr) api_->clReleaseMemObject(staging_);
    staging_ = nullptr;
    staging_bytes_ = 0;
    cl_int error = CL_SUCCESS;
    staging_ = api_->clCreateBuffer(context_, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
                                    static_cast<size_t>(std::max<int64_t>(bytes, 16)), nullptr,
                                    &error);
    MACE_RETURN_IF_ERROR(Check(error, StrCat("allocating a ", bytes, "-byte staging buffer")));
    staging_bytes_ = std::max<int64_t>(bytes, 16);
  }
  *buffer = staging_;
  return MaceStatus();
}

MaceStatus OpenCLRuntime::UploadPixels(const std::vector<float>& pixels, int64_t width,
                                       int64_t height, Memory* image) {
  MACE_CHECK_ARG(static_cast<int64_t>(pixels.size()) == width * height * 4,
                 "pixel data does not fill a ", width, " x ", height, " image");
  // A buffer over the pixels themselves, released once the image is
  // written: the engine's staging buffer serves the converters, sized for
  // activations, and must not stay as large as the largest weight; and a
  // copy per upload (CL_MEM_COPY_HOST_PTR) raised the peak at Init.
  const size_t bytes = pixels.size() * sizeof(float);
  cl_int error = CL_SUCCESS;
  cl_mem upload = api_->clCreateBuffer(context_, CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR, bytes,
                                       const_cast<float*>(pixels.data()), &error);
  MACE_RETURN_IF_ERROR(Check(error, StrCat("allocating a ", bytes, "-byte upload buffer")));
  MaceStatus status = [&] {
    Kernel kernel;
    MACE_RETURN_IF_ERROR(kernel.Create(this, "pixels_to_image"));
    const cl_int w = static_cast<cl_int>(width), h = static_cast<cl_int>(height);
    cl_mem target = static_cast<cl_mem>(image->device_handle());
    MACE_RETURN_IF_ERROR(kernel.SetArgs(upload, w, h, target));
    MACE_RETURN_IF_ERROR(kernel.Run2D(width, height));
    return Check(api_->clFinish(queue_), "uploading weights");
  }();
  api_->clReleaseMemObject(upload);
  return status;
}

MaceStatus OpenCLRuntime::UploadWeight(ImageKind kind, const Tensor& weight,
                                       std::unique_ptr<Memory>* image) {
  return UploadWeightAs(kind, weight, weight.shape(), image);
}

MaceStatus OpenCLRuntime::UploadWeightAs(ImageKind kind, const Tensor& weight,
                                         const std::vector<int64_t>& shape,
                                         std::unique_ptr<Memory>* image) {
  MACE_CHECK_ARG(weight.data<float>() != nullptr && weight.dtype() == DT_FLOAT, "weight '",
                 weight.name(), "' is not float32 host memory");
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  MACE_CHECK_ARG(count == weight.size(), "weight '", weight.name(), "' cannot be viewed as ",
                 ShapeToString(shape));
  return UploadValues(kind, shape, weight.data<float>(), weight.name(), image);
}

MaceStatus OpenCLRuntime::UploadValues(ImageKind kind, const std::vector<int64_t>& shape,
                                       const float* data, const std::string& name,
                                       std::unique_ptr<Memory>* image) {
  ImageShape extent;
  MACE_RETURN_IF_ERROR(ImageShapeFor(kind, shape, &extent));
  MACE_RETURN_IF_ERROR(CheckImageSize(extent.width, extent.height, StrCat("weight '", name, "'")));
  std::vector<float> pixels;
  MACE_RETURN_IF_ERROR(ArrangePixels(kind, shape, data, &pixels));
  MACE_RETURN_IF_ERROR(
      Allocate(MemoryExtent::Image(extent.width, extent.height, pixel_bytes()), image));
  MACE_RETURN_IF_ERROR(UploadPixels(pixels, extent.width, extent.height, image->get()));
  weight_bytes_ += (*image)->bytes();
  return MaceStatus();
}

Kernel::~Kernel() {
  if (kernel_ != nullptr) runtime_->api().clReleaseKernel(kernel_);
}

MaceStatus Kernel::Create(OpenCLRuntime* runtime, const char* name) {
  MACE_CHECK_ARG(runtime != nullptr, "kernel ", name, " needs the OpenCL runtime");
  runtime_ = runtime;
  name_ = name;
  return runtime->CreateKernel(name, &kernel_);
}

cl_int Kernel::SetArg(cl_uint index, size_t size, const void* value) {
  return runtime_->api().clSetKernelArg(kernel_, index, size, value);
}

MaceStatus Kernel::ArgStatus(cl_int error) const {
  if (error == CL_SUCCESS) return MaceStatus();
  return MaceStatus(MaceStatus::MACE_RUNTIME_ERROR,
                    StrCat("OpenCL: setting the arguments of kernel ", name_, " failed: ",
                           OpenCLErrorName(error)));
}

MaceStatus DeviceMemoryOf(const Tensor& tensor, cl_mem* mem) {
  Memory* memory = tensor.memory();
  MACE_CHECK_ARG(memory != nullptr && memory->device_handle() != nullptr, "tensor '",
                 tensor.name(), "' has no OpenCL memory");
  *mem = static_cast<cl_mem>(memory->device_handle());
  return MaceStatus();
}

}  // namespace opencl
}  // namespace mace
