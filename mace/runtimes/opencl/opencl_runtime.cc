#include "mace/runtimes/opencl/opencl_runtime.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <limits>
#include <set>
#include <utility>

#include "mace/core/tensor.h"
#include "mace/runtimes/opencl/image_layout.h"
#include "mace/runtimes/opencl/kernel_sources.h"
#include "mace/runtimes/opencl/program_cache.h"
#include "mace/utils/debug_overrides.h"
#include "mace/utils/logging.h"
#include "mace/utils/run_control.h"
#include "mace/utils/status.h"

namespace mace {
namespace opencl {
namespace {

constexpr cl_int kPlatformNotFoundKhr = -1001;
// cl_qcom_perf_hint: a context property (Adreno's headers name these).
constexpr cl_context_properties kContextPerfHintQcom = 0x40C2;
constexpr cl_context_properties kPerfHintHighQcom = 0x40C3;
constexpr cl_context_properties kPerfHintNormalQcom = 0x40C4;
constexpr cl_context_properties kPerfHintLowQcom = 0x40C5;
// cl_khr_priority_hints: a queue property (OpenCL 2.0 property lists).
constexpr cl_bitfield kQueueProperties = 0x1093;
constexpr cl_bitfield kQueuePriorityKhr = 0x1096;
constexpr cl_bitfield kQueuePriorityHighKhr = 1 << 0;
constexpr cl_bitfield kQueuePriorityMedKhr = 1 << 1;
constexpr cl_bitfield kQueuePriorityLowKhr = 1 << 2;
// Each timed candidate of a tuned launch runs this many times; the
// fastest run counts (the first may include a driver's compile).
constexpr int kTuningRepeats = 2;
// A build log longer than this is cut in error messages.
constexpr size_t kMaxLogBytes = 4096;

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

// A hint the device lacks the extension for is logged once per process.
void LogUnsupportedHint(const char* hint, const char* extension, const std::string& device) {
  static std::mutex mutex;
  static std::set<std::string>* logged = new std::set<std::string>;
  std::lock_guard<std::mutex> lock(mutex);
  if (!logged->insert(hint).second) return;
  LOG(INFO) << "OpenCL: GPU " << hint << " hint accepted but not applied: " << device
            << " lacks " << extension;
}

}  // namespace

OpenCLRuntime* AsOpenCL(Runtime* runtime) { return dynamic_cast<OpenCLRuntime*>(runtime); }

int64_t KernelEnqueueCount() { return kernel_enqueues.load(); }

OpenCLRuntime::OpenCLRuntime(OpenCLOptions options)
    : options_(WithEnvironment(std::move(options))), half_storage_(options_.half_storage) {}

OpenCLRuntime::~OpenCLRuntime() {
  if (api_ == nullptr) return;
  if (queue_ != nullptr) api_->clFinish(queue_);
  for (cl_event event : events_) api_->clReleaseEvent(event);
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
  MACE_RETURN_IF_ERROR(CreateContextAndQueue());

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
  MACE_RETURN_IF_ERROR(CreateProgram());
  LoadTunedParameters();
  return MaceStatus();
}

MaceStatus OpenCLRuntime::CreateContextAndQueue() {
  // The perf hint is a context property of cl_qcom_perf_hint.
  std::vector<cl_context_properties> properties = {
      CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(platform_)};
  const GPUPerfHint perf = options_.perf_hint;
  if (perf != GPUPerfHint::PERF_DEFAULT) {
    if (HasExtension(info_.extensions, "cl_qcom_perf_hint")) {
      properties.push_back(kContextPerfHintQcom);
      properties.push_back(perf == GPUPerfHint::PERF_HIGH     ? kPerfHintHighQcom
                           : perf == GPUPerfHint::PERF_NORMAL ? kPerfHintNormalQcom
                                                              : kPerfHintLowQcom);
    } else {
      unsupported_hints_.push_back("perf");
      LogUnsupportedHint("perf", "cl_qcom_perf_hint", info_.device);
    }
  }
  properties.push_back(0);
  cl_int error = CL_SUCCESS;
  context_ = api_->clCreateContext(properties.data(), 1, &device_, nullptr, nullptr, &error);
  MACE_RETURN_IF_ERROR(Check(error, "creating a context on " + info_.device));

  // Profiling events time tuning candidates and give per-op device times.
  profiling_queue_ = options_.tune || options_.profiling;
  const cl_command_queue_properties queue_properties =
      profiling_queue_ ? CL_QUEUE_PROFILING_ENABLE : 0;
  // The priority hint is a queue property of cl_khr_priority_hints, which
  // needs OpenCL 2.0's clCreateCommandQueueWithProperties.
  const GPUPriorityHint priority = options_.priority_hint;
  if (priority != GPUPriorityHint::PRIORITY_DEFAULT) {
    if (HasExtension(info_.extensions, "cl_khr_priority_hints") &&
        api_->clCreateCommandQueueWithProperties != nullptr) {
      const cl_bitfield level = priority == GPUPriorityHint::PRIORITY_HIGH ? kQueuePriorityHighKhr
                                : priority == GPUPriorityHint::PRIORITY_NORMAL
                                    ? kQueuePriorityMedKhr
                                    : kQueuePriorityLowKhr;
      const cl_bitfield list[] = {kQueueProperties, queue_properties, kQueuePriorityKhr, level, 0};
      queue_ = api_->clCreateCommandQueueWithProperties(context_, device_, list, &error);
      return Check(error, "creating a command queue with a priority");
    }
    unsupported_hints_.push_back("priority");
    LogUnsupportedHint("priority", "cl_khr_priority_hints", info_.device);
  }
  queue_ = api_->clCreateCommandQueue(context_, device_, queue_properties, &error);
  return Check(error, "creating a command queue");
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
  // Precompiled binaries shipped with the app come first; they are only
  // read. A missing one is skipped quietly, an unusable one with a warning.
  for (const std::string& file : options_.binary_files) {
    std::string binary, why;
    if (ReadProgramCache(file, key, &binary, &why) && LoadBinary(binary, &why)) {
      program_origin_ = ProgramOrigin::kLoadedFromBinaryFile;
      binary_file_used_ = file;
      LOG(INFO) << "OpenCL program loaded from binary file " << file;
      return MaceStatus();
    }
    if (!why.empty()) {
      CacheWarning(StrCat("OpenCL binary file '", file, "' ignored (", why, ")"));
    }
  }
  const std::string& path = options_.cache_file;
  if (!path.empty()) {
    std::string binary, why;
    if (ReadProgramCache(path, key, &binary, &why) && LoadBinary(binary, &why)) {
      program_origin_ = ProgramOrigin::kLoadedFromCache;
      VLOG(1) << "OpenCL program loaded from " << path;
      return MaceStatus();
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

bool OpenCLRuntime::LoadBinary(const std::string& binary, std::string* why) {
  const unsigned char* bytes = reinterpret_cast<const unsigned char*>(binary.data());
  const size_t size = binary.size();
  cl_int binary_status = CL_SUCCESS, error = CL_SUCCESS;
  program_ =
      api_->clCreateProgramWithBinary(context_, 1, &device_, &size, &bytes, &binary_status, &error);
  if (error == CL_SUCCESS && binary_status == CL_SUCCESS) {
    error = api_->clBuildProgram(program_, 1, &device_, build_options_.c_str(), nullptr, nullptr);
  }
  if (error == CL_SUCCESS && binary_status == CL_SUCCESS) return true;
  if (program_ != nullptr) api_->clReleaseProgram(program_);
  program_ = nullptr;
  *why = StrCat("the driver refused the binary: ",
                OpenCLErrorName(error != CL_SUCCESS ? error : binary_status));
  return false;
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
         image.width <= info_.max_image_width && image.height <= info_.max_image_height;
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
  return SaveTunedParameters();
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
  auto found = tuned_.find(key);
  if (found != tuned_.end() &&
      static_cast<int64_t>(found->second.width) * found->second.height <= limit) {
    local = found->second;
    ++tuned_launches_;
  } else if (options_.tune) {
    MACE_RETURN_IF_ERROR(Tune(kernel, name, width, height, limit, &local));
    tuned_[key] = local;
    tuned_changed_ = true;
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

void OpenCLRuntime::LoadTunedParameters() {
  tuning_key_ = {info_.platform, info_.device, info_.driver, "", 0};
  const std::string& path = options_.parameter_file;
  if (path.empty()) return;
  std::string body, why;
  if (ReadDeviceFile(kTunedParameterFormat, path, tuning_key_, &body, &why) &&
      ParseTunedParameters(body, &tuned_, &why)) {
    VLOG(1) << "OpenCL tuned parameters: " << tuned_.size() << " launches from " << path;
    return;
  }
  if (why.empty()) {
    if (!options_.tune) LOG(WARNING) << "OpenCL tuned-parameter file '" << path << "' not found";
    return;
  }
  parameter_warning_ = StrCat("OpenCL tuned-parameter file '", path, "' ignored (", why, ")");
  LOG(WARNING) << parameter_warning_;
}

MaceStatus OpenCLRuntime::SaveTunedParameters() {
  if (!options_.tune || !tuned_changed_ || options_.parameter_file.empty() || tuned_.empty()) {
    return MaceStatus();
  }
  tuned_changed_ = false;
  const MaceStatus written = WriteFileAtomically(
      options_.parameter_file,
      EncodeDeviceFile(kTunedParameterFormat, tuning_key_, FormatTunedParameters(tuned_)));
  if (!written.ok()) {
    return MaceStatus(MaceStatus::MACE_RUNTIME_ERROR,
                      StrCat("OpenCL tuned parameters not saved: ", written.information()));
  }
  LOG(INFO) << "OpenCL tuned parameters of " << tuned_.size() << " launches written to "
            << options_.parameter_file;
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
