#include "mace/runtimes/opencl/opencl_runtime.h"

#include <algorithm>
#include <utility>

#include "mace/core/tensor.h"
#include "mace/runtimes/opencl/image_layout.h"
#include "mace/runtimes/opencl/kernel_sources.h"
#include "mace/runtimes/opencl/kernel_support.h"
#include "mace/runtimes/opencl/program_cache.h"
#include "mace/utils/logging.h"
#include "mace/utils/status.h"

namespace mace {
namespace opencl {
namespace {

constexpr cl_int kPlatformNotFoundKhr = -1001;
// A build log longer than this is cut in error messages.
constexpr size_t kMaxLogBytes = 4096;

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

std::string PlatformString(const OpenCLApi& api, cl_platform_id platform, cl_platform_info what) {
  size_t size = 0;
  if (api.clGetPlatformInfo(platform, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) {
    return "";
  }
  std::string text(size, '\0');
  api.clGetPlatformInfo(platform, what, size, &text[0], nullptr);
  return std::string(text.c_str());
}

std::string DeviceString(const OpenCLApi& api, cl_device_id device, cl_device_info what) {
  size_t size = 0;
  if (api.clGetDeviceInfo(device, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) return "";
  std::string text(size, '\0');
  api.clGetDeviceInfo(device, what, size, &text[0], nullptr);
  return std::string(text.c_str());
}

template <typename T>
T DeviceValue(const OpenCLApi& api, cl_device_id device, cl_device_info what) {
  T value{};
  api.clGetDeviceInfo(device, what, sizeof(value), &value, nullptr);
  return value;
}

std::string DeviceTypeName(cl_device_type type) {
  if (type & CL_DEVICE_TYPE_GPU) return "GPU";
  if (type & CL_DEVICE_TYPE_CPU) return "CPU";
  if (type & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
  return "other";
}

bool HasExtension(const std::string& extensions, const std::string& name) {
  return (" " + extensions + " ").find(" " + name + " ") != std::string::npos;
}

}  // namespace

OpenCLRuntime* AsOpenCL(Runtime* runtime) { return dynamic_cast<OpenCLRuntime*>(runtime); }

OpenCLRuntime::OpenCLRuntime(OpenCLOptions options)
    : options_(std::move(options)), half_storage_(options_.half_storage) {}

OpenCLRuntime::~OpenCLRuntime() {
  if (api_ == nullptr) return;
  if (queue_ != nullptr) api_->clFinish(queue_);
  if (staging_ != nullptr) api_->clReleaseMemObject(staging_);
  if (program_ != nullptr) api_->clReleaseProgram(program_);
  if (queue_ != nullptr) api_->clReleaseCommandQueue(queue_);
  if (context_ != nullptr) api_->clReleaseContext(context_);
}

MaceStatus OpenCLRuntime::Check(cl_int error, const std::string& what) const {
  if (error == CL_SUCCESS) return MaceStatus();
  const MaceStatus::Code code =
      error == CL_OUT_OF_RESOURCES || error == CL_OUT_OF_HOST_MEMORY ||
              error == CL_MEM_OBJECT_ALLOCATION_FAILURE
          ? MaceStatus::MACE_OUT_OF_RESOURCES
          : MaceStatus::MACE_RUNTIME_ERROR;
  return MaceStatus(code, StrCat("OpenCL: ", what, " failed: ", OpenCLErrorName(error)));
}

MaceStatus OpenCLRuntime::Init() {
  if (options_.library_paths.empty()) {
    MACE_RETURN_IF_ERROR(SharedOpenCLApi(&api_));
  } else {
    MACE_RETURN_IF_ERROR(LoadOpenCLApi(options_.library_paths, &own_api_));
    api_ = &own_api_;
  }
  MACE_RETURN_IF_ERROR(ChooseDevice());
  cl_int error = CL_SUCCESS;
  const cl_context_properties properties[] = {
      CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(platform_), 0};
  context_ = api_->clCreateContext(properties, 1, &device_, nullptr, nullptr, &error);
  MACE_RETURN_IF_ERROR(Check(error, "creating a context on " + info_.device));
  queue_ = api_->clCreateCommandQueue(context_, device_, 0, &error);
  MACE_RETURN_IF_ERROR(Check(error, "creating a command queue"));

  // The storage the config asks for, if the device has that image format.
  cl_uint count = 0;
  MACE_RETURN_IF_ERROR(Check(api_->clGetSupportedImageFormats(context_, CL_MEM_READ_WRITE,
                                                              CL_MEM_OBJECT_IMAGE2D, 0, nullptr,
                                                              &count),
                             "listing image formats"));
  std::vector<cl_image_format> formats(count);
  if (count > 0) {
    api_->clGetSupportedImageFormats(context_, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, count,
                                     formats.data(), nullptr);
  }
  auto has_format = [&](cl_channel_type type) {
    return std::any_of(formats.begin(), formats.end(), [type](const cl_image_format& format) {
      return format.image_channel_order == CL_RGBA && format.image_channel_data_type == type;
    });
  };
  if (half_storage_ && !has_format(CL_HALF_FLOAT)) {
    LOG(WARNING) << "OpenCL device " << info_.device
                 << " has no CL_RGBA CL_HALF_FLOAT images; storing float images instead";
    half_storage_ = false;
  }
  MACE_UNSUPPORTED_IF(!half_storage_ && !has_format(CL_FLOAT), "OpenCL device ", info_.device,
                      " has no CL_RGBA CL_FLOAT images");
  // Perf and priority hints need vendor extensions (cl_qcom_perf_hint,
  // cl_khr_priority_hints) that this runtime does not drive yet.
  if (options_.perf_hint != GPUPerfHint::PERF_DEFAULT ||
      options_.priority_hint != GPUPriorityHint::PRIORITY_DEFAULT) {
    VLOG(1) << "OpenCL: GPU perf and priority hints are accepted but not applied";
  }
  return CreateProgram();
}

MaceStatus OpenCLRuntime::ChooseDevice() {
  cl_uint count = 0;
  cl_int error = api_->clGetPlatformIDs(0, nullptr, &count);
  MACE_UNSUPPORTED_IF(error == kPlatformNotFoundKhr || (error == CL_SUCCESS && count == 0),
                      "no OpenCL platform is installed (", api_->library_path,
                      " loaded, but it found no platform); use DeviceType::CPU");
  MACE_RETURN_IF_ERROR(Check(error, "listing platforms"));
  std::vector<cl_platform_id> platforms(count);
  MACE_RETURN_IF_ERROR(
      Check(api_->clGetPlatformIDs(count, platforms.data(), nullptr), "listing platforms"));
  struct Candidate {
    cl_platform_id platform;
    cl_device_id device;
    cl_device_type type;
  };
  std::vector<Candidate> candidates;
  std::string found;
  for (cl_platform_id platform : platforms) {
    cl_uint devices = 0;
    if (api_->clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &devices) != CL_SUCCESS) {
      continue;
    }
    std::vector<cl_device_id> ids(devices);
    api_->clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, devices, ids.data(), nullptr);
    for (cl_device_id id : ids) {
      const cl_device_type type = DeviceValue<cl_device_type>(*api_, id, CL_DEVICE_TYPE);
      candidates.push_back({platform, id, type});
      found += StrCat(found.empty() ? "" : ", ", DeviceString(*api_, id, CL_DEVICE_NAME), " (",
                      DeviceTypeName(type), ")");
    }
  }
  MACE_UNSUPPORTED_IF(candidates.empty(), "the OpenCL platforms have no devices; use "
                                          "DeviceType::CPU");
  auto gpu = std::find_if(candidates.begin(), candidates.end(),
                          [](const Candidate& c) { return (c.type & CL_DEVICE_TYPE_GPU) != 0; });
  MACE_UNSUPPORTED_IF(gpu == candidates.end() && !options_.allow_any_device,
                      "no OpenCL GPU device (found: ", found,
                      "); MaceEngineConfig::SetOpenCLDeviceFallback(true) allows other devices");
  const Candidate& chosen = gpu != candidates.end() ? *gpu : candidates.front();
  platform_ = chosen.platform;
  device_ = chosen.device;
  info_.platform = PlatformString(*api_, platform_, CL_PLATFORM_NAME);
  info_.device = DeviceString(*api_, device_, CL_DEVICE_NAME);
  info_.driver = DeviceString(*api_, device_, CL_DRIVER_VERSION);
  info_.version = DeviceString(*api_, device_, CL_DEVICE_VERSION);
  info_.extensions = DeviceString(*api_, device_, CL_DEVICE_EXTENSIONS);
  info_.is_gpu = (chosen.type & CL_DEVICE_TYPE_GPU) != 0;
  info_.max_image_width =
      static_cast<int64_t>(DeviceValue<size_t>(*api_, device_, CL_DEVICE_IMAGE2D_MAX_WIDTH));
  info_.max_image_height =
      static_cast<int64_t>(DeviceValue<size_t>(*api_, device_, CL_DEVICE_IMAGE2D_MAX_HEIGHT));
  info_.max_work_group_size =
      static_cast<int64_t>(DeviceValue<size_t>(*api_, device_, CL_DEVICE_MAX_WORK_GROUP_SIZE));
  LOG(INFO) << "OpenCL device: " << info_.device << " (" << DeviceTypeName(chosen.type)
            << ") on platform " << info_.platform << ", driver " << info_.driver << ", "
            << info_.version << "; largest image " << info_.max_image_width << " x "
            << info_.max_image_height;
  MACE_UNSUPPORTED_IF(DeviceValue<cl_bool>(*api_, device_, CL_DEVICE_IMAGE_SUPPORT) != CL_TRUE,
                      "OpenCL device ", info_.device, " has no image support");
  return MaceStatus();
}

void OpenCLRuntime::CacheWarning(const std::string& message) {
  cache_warning_ = message;
  LOG(WARNING) << message;
}

MaceStatus OpenCLRuntime::CreateProgram() {
  std::string source;
  for (const KernelSource& kernel : EmbeddedKernelSources()) {
    source += StrCat("// ", kernel.file, "\n", kernel.text, "\n");
  }
  build_options_ = "-cl-std=CL1.2";
  if (half_storage_ && HasExtension(info_.extensions, "cl_khr_fp16")) {
    build_options_ += " -DMACE_HALF_COMPUTE";
  }
  program_key_ = {info_.platform, info_.device, info_.driver, build_options_, Fnv1a64(source)};
  const ProgramCacheKey& key = program_key_;
  const std::string& path = options_.cache_file;
  if (!path.empty()) {
    std::string binary, why;
    if (ReadProgramCache(path, key, &binary, &why)) {
      const unsigned char* bytes = reinterpret_cast<const unsigned char*>(binary.data());
      const size_t size = binary.size();
      cl_int binary_status = CL_SUCCESS, error = CL_SUCCESS;
      program_ = api_->clCreateProgramWithBinary(context_, 1, &device_, &size, &bytes,
                                                 &binary_status, &error);
      if (error == CL_SUCCESS && binary_status == CL_SUCCESS) {
        error = api_->clBuildProgram(program_, 1, &device_, build_options_.c_str(), nullptr,
                                     nullptr);
      }
      if (error == CL_SUCCESS && binary_status == CL_SUCCESS) {
        program_origin_ = ProgramOrigin::kLoadedFromCache;
        VLOG(1) << "OpenCL program loaded from " << path;
        return MaceStatus();
      }
      if (program_ != nullptr) api_->clReleaseProgram(program_);
      program_ = nullptr;
      why = StrCat("the driver refused the binary: ",
                   OpenCLErrorName(error != CL_SUCCESS ? error : binary_status));
    }
    if (!why.empty()) {
      CacheWarning(StrCat("OpenCL program cache '", path, "' ignored (", why, "); rebuilding it"));
    }
  }
  MACE_RETURN_IF_ERROR(BuildFromSource(source));
  program_origin_ = ProgramOrigin::kBuiltFromSource;
  if (path.empty()) return MaceStatus();
  size_t size = 0;
  MACE_RETURN_IF_ERROR(Check(api_->clGetProgramInfo(program_, CL_PROGRAM_BINARY_SIZES,
                                                    sizeof(size), &size, nullptr),
                             "reading the program binary size"));
  if (size == 0) {
    CacheWarning(StrCat("OpenCL program cache '", path, "' not written: the driver gives no binary"));
    return MaceStatus();
  }
  std::string binary(size, '\0');
  unsigned char* target = reinterpret_cast<unsigned char*>(&binary[0]);
  MACE_RETURN_IF_ERROR(Check(
      api_->clGetProgramInfo(program_, CL_PROGRAM_BINARIES, sizeof(target), &target, nullptr),
      "reading the program binary"));
  const MaceStatus written = WriteProgramCache(path, key, binary);
  if (!written.ok()) {
    CacheWarning(StrCat("OpenCL program cache not saved: ", written.information()));
  }
  return MaceStatus();
}

MaceStatus OpenCLRuntime::BuildFromSource(const std::string& source) {
  cl_int error = CL_SUCCESS;
  const char* text = source.c_str();
  const size_t length = source.size();
  program_ = api_->clCreateProgramWithSource(context_, 1, &text, &length, &error);
  MACE_RETURN_IF_ERROR(Check(error, "creating the program"));
  error = api_->clBuildProgram(program_, 1, &device_, build_options_.c_str(), nullptr, nullptr);
  if (error == CL_SUCCESS) return MaceStatus();
  size_t size = 0;
  api_->clGetProgramBuildInfo(program_, device_, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
  std::string log(size, '\0');
  if (size > 0) {
    api_->clGetProgramBuildInfo(program_, device_, CL_PROGRAM_BUILD_LOG, size, &log[0], nullptr);
  }
  if (log.size() > kMaxLogBytes) log = log.substr(0, kMaxLogBytes) + "...";
  return MaceStatus(MaceStatus::MACE_RUNTIME_ERROR,
                    StrCat("OpenCL: building the kernels for ", info_.device, " failed (",
                           OpenCLErrorName(error), "):\n", log.c_str()));
}

MaceStatus OpenCLRuntime::CheckImageSize(int64_t width, int64_t height,
                                         const std::string& what) const {
  MACE_UNSUPPORTED_IF(width > info_.max_image_width || height > info_.max_image_height, what,
                      " needs a ", width, " x ", height, " image, but the largest ", info_.device,
                      " has is ", info_.max_image_width, " x ", info_.max_image_height);
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
                     storage.image <= static_cast<int>(ImageKind::kArgument),
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

bool OpenCLRuntime::Supports(const OperatorDef& def, DataType dtype) const {
  if (dtype != DT_FLOAT) return false;
  if (!KernelSupportsDef(def)) return false;
  if (def.type() == "Conv2D") {
    // Grouped convolutions run on the CPU.
    for (const Argument& arg : def.arg()) {
      if (arg.name() == "group") return arg.has_i() && arg.i() == 1;
    }
  }
  return true;
}

bool OpenCLRuntime::SupportsInputs(const OperatorDef& def, DataType /*dtype*/,
                                   const std::vector<const Tensor*>& inputs) const {
  auto fits = [this](const std::vector<int64_t>& shape) {
    ImageShape image;
    return shape.size() <= 4 && ImageShapeFor(ImageKind::kActivation, shape, &image).ok() &&
           image.width <= info_.max_image_width && image.height <= info_.max_image_height;
  };
  for (const Tensor* input : inputs) {
    if (input != nullptr && !input->is_weight() && !fits(input->shape())) {
      VLOG(1) << def.type() << " '" << def.name() << "': input '" << input->name()
              << "' of shape " << ShapeToString(input->shape())
              << " does not fit an image of " << info_.device;
      return false;
    }
  }
  for (const OutputShape& output : def.output_shape()) {
    if (!fits({output.dims().begin(), output.dims().end()})) return false;
  }
  return true;
}

MaceStatus OpenCLRuntime::BeforeRun() { return MaceStatus(); }

MaceStatus OpenCLRuntime::AfterRun() { return Check(api_->clFinish(queue_), "finishing the run"); }

void OpenCLRuntime::ReportMemory(MemoryReport* report) const {
  report->persistent_bytes += weight_bytes_;
  report->scratch_bytes += staging_bytes_;
}

MaceStatus OpenCLRuntime::CreateKernel(const char* name, cl_kernel* kernel) const {
  cl_int error = CL_SUCCESS;
  *kernel = api_->clCreateKernel(program_, name, &error);
  return Check(error, StrCat("creating kernel ", name));
}

MaceStatus OpenCLRuntime::Enqueue2D(cl_kernel kernel, int64_t width, int64_t height) {
  MACE_CHECK_ARG(width > 0 && height > 0 && width < (int64_t{1} << 31) &&
                     height < (int64_t{1} << 31),
                 "a kernel over ", width, " x ", height, " items");
  size_t kernel_limit = 0;
  MACE_RETURN_IF_ERROR(Check(api_->clGetKernelWorkGroupInfo(kernel, device_,
                                                            CL_KERNEL_WORK_GROUP_SIZE,
                                                            sizeof(kernel_limit), &kernel_limit,
                                                            nullptr),
                             "querying a kernel's work-group size"));
  // One work-group shape for every kernel: some drivers (PoCL) compile a
  // kernel again for each new shape.
  size_t local[2] = {16, 4};
  while (local[0] * local[1] > std::max<size_t>(kernel_limit, 1)) {
    if (local[1] > 1) {
      local[1] /= 2;
    } else {
      local[0] /= 2;
    }
  }
  const size_t global[2] = {
      (static_cast<size_t>(width) + local[0] - 1) / local[0] * local[0],
      (static_cast<size_t>(height) + local[1] - 1) / local[1] * local[1]};
  return Check(
      api_->clEnqueueNDRangeKernel(queue_, kernel, 2, nullptr, global, local, 0, nullptr, nullptr),
      "running a kernel");
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
  ImageShape extent;
  MACE_RETURN_IF_ERROR(ImageShapeFor(kind, shape, &extent));
  MACE_RETURN_IF_ERROR(
      CheckImageSize(extent.width, extent.height, StrCat("weight '", weight.name(), "'")));
  std::vector<float> pixels;
  MACE_RETURN_IF_ERROR(ArrangePixels(kind, shape, weight.data<float>(), &pixels));
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
