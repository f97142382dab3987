#include "mace/runtimes/opencl/opencl_device.h"

#include <algorithm>
#include <atomic>
#include <set>
#include <utility>

#include "mace/runtimes/opencl/kernel_sources.h"
#include "mace/utils/logging.h"

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
// A build log longer than this is cut in error messages.
constexpr size_t kMaxLogBytes = 4096;

std::atomic<int64_t> programs_created{0};

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

int64_t ProgramCreateCount() { return programs_created.load(); }

std::string DeviceSettingsKey(const OpenCLOptions& options) {
  // Fields joined with a separator no path or name holds.
  std::string key;
  auto add = [&key](const std::string& field) {
    key += field;
    key += '\n';
  };
  add(options.allow_any_device ? "any" : "gpu");
  add(options.half_storage ? "half" : "float");
  add(options.cache_file);
  add(std::to_string(options.binary_files.size()));
  for (const std::string& file : options.binary_files) add(file);
  add(options.parameter_file);
  add(options.tune ? "tune" : "");
  add(options.profiling ? "profile" : "");
  add(std::to_string(static_cast<int>(options.perf_hint)));
  add(std::to_string(static_cast<int>(options.priority_hint)));
  add(std::to_string(options.library_paths.size()));
  for (const std::string& path : options.library_paths) add(path);
  return key;
}

OpenCLDevice::OpenCLDevice(OpenCLOptions options)
    : options_(std::move(options)), half_storage_(options_.half_storage) {}

OpenCLDevice::~OpenCLDevice() { Release(); }

void OpenCLDevice::Release() {
  if (api_ == nullptr) return;
  if (queue_ != nullptr) api_->clFinish(queue_);
  if (program_ != nullptr) api_->clReleaseProgram(program_);
  if (queue_ != nullptr) api_->clReleaseCommandQueue(queue_);
  if (context_ != nullptr) api_->clReleaseContext(context_);
  program_ = nullptr;
  queue_ = nullptr;
  context_ = nullptr;
  half_storage_ = options_.half_storage;
  unsupported_hints_.clear();
}

MaceStatus OpenCLDevice::Check(cl_int error, const std::string& what) const {
  if (error == CL_SUCCESS) return MaceStatus();
  const MaceStatus::Code code =
      error == CL_OUT_OF_RESOURCES || error == CL_OUT_OF_HOST_MEMORY ||
              error == CL_MEM_OBJECT_ALLOCATION_FAILURE
          ? MaceStatus::MACE_OUT_OF_RESOURCES
          : MaceStatus::MACE_RUNTIME_ERROR;
  return MaceStatus(code, StrCat("OpenCL: ", what, " failed: ", OpenCLErrorName(error)));
}

MaceStatus OpenCLDevice::Init() {
  std::lock_guard<std::mutex> lock(init_mutex_);
  if (ready_) return MaceStatus();
  const MaceStatus status = InitLocked();
  if (!status.ok()) {
    Release();
    return status;
  }
  ready_ = true;
  return status;
}

MaceStatus OpenCLDevice::InitLocked() {
  if (options_.library_paths.empty()) {
    MACE_RETURN_IF_ERROR(SharedOpenCLApi(&api_));
  } else {
    MACE_RETURN_IF_ERROR(LoadOpenCLApi(options_.library_paths, &own_api_));
    api_ = &own_api_;
  }
  MACE_RETURN_IF_ERROR(ChooseDevice());
  MACE_RETURN_IF_ERROR(CreateContextAndQueue());
  MACE_RETURN_IF_ERROR(ChooseStorage());
  MACE_RETURN_IF_ERROR(CreateProgram());
  LoadTunedParameters();
  return MaceStatus();
}

MaceStatus OpenCLDevice::ChooseStorage() {
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
  return MaceStatus();
}

MaceStatus OpenCLDevice::CreateContextAndQueue() {
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

MaceStatus OpenCLDevice::ChooseDevice() {
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

void OpenCLDevice::CacheWarning(const std::string& message) {
  cache_warning_ = message;
  LOG(WARNING) << message;
}

MaceStatus OpenCLDevice::CreateProgram() {
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

bool OpenCLDevice::LoadBinary(const std::string& binary, std::string* why) {
  const unsigned char* bytes = reinterpret_cast<const unsigned char*>(binary.data());
  const size_t size = binary.size();
  cl_int binary_status = CL_SUCCESS, error = CL_SUCCESS;
  program_ =
      api_->clCreateProgramWithBinary(context_, 1, &device_, &size, &bytes, &binary_status, &error);
  if (error == CL_SUCCESS && binary_status == CL_SUCCESS) {
    error = api_->clBuildProgram(program_, 1, &device_, build_options_.c_str(), nullptr, nullptr);
  }
  if (error == CL_SUCCESS && binary_status == CL_SUCCESS) {
    ++programs_created;
    return true;
  }
  if (program_ != nullptr) api_->clReleaseProgram(program_);
  program_ = nullptr;
  *why = StrCat("the driver refused the binary: ",
                OpenCLErrorName(error != CL_SUCCESS ? error : binary_status));
  return false;
}

MaceStatus OpenCLDevice::BuildFromSource(const std::string& source) {
  cl_int error = CL_SUCCESS;
  const char* text = source.c_str();
  const size_t length = source.size();
  program_ = api_->clCreateProgramWithSource(context_, 1, &text, &length, &error);
  MACE_RETURN_IF_ERROR(Check(error, "creating the program"));
  error = api_->clBuildProgram(program_, 1, &device_, build_options_.c_str(), nullptr, nullptr);
  if (error == CL_SUCCESS) {
    ++programs_created;
    return MaceStatus();
  }
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

void OpenCLDevice::LoadTunedParameters() {
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

bool OpenCLDevice::FindTuned(const std::string& key, int64_t limit, LocalSize* local) {
  std::lock_guard<std::mutex> lock(tuned_mutex_);
  auto found = tuned_.find(key);
  if (found == tuned_.end() ||
      static_cast<int64_t>(found->second.width) * found->second.height > limit) {
    return false;
  }
  *local = found->second;
  return true;
}

void OpenCLDevice::AddTuned(const std::string& key, LocalSize local) {
  std::lock_guard<std::mutex> lock(tuned_mutex_);
  tuned_[key] = local;
  tuned_changed_ = true;
}

TunedParameters OpenCLDevice::tuned_parameters() {
  std::lock_guard<std::mutex> lock(tuned_mutex_);
  return tuned_;
}

MaceStatus OpenCLDevice::SaveTunedParameters() {
  std::lock_guard<std::mutex> lock(tuned_mutex_);
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

}  // namespace opencl
}  // namespace mace
