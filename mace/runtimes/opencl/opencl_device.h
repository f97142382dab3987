// The OpenCL state an engine's runtime stands on: the library, the device,
// one context and in-order queue, the program holding every embedded
// kernel, and the tuned local sizes. An engine without a MaceContext has
// one of its own; engines of one MaceContext whose settings agree
// (DeviceSettingsKey) share one, made by the first of them to Init and
// released with the context (docs/how-to/pipelines.md).
//
// Thread safety: OpenCL calls on the handles are safe from any thread
// (OpenCL 1.2), and the in-order queue runs each engine's commands in the
// order that engine enqueued them; Init and the tuned table take a mutex.
// Everything per engine (kernels and their arguments, memory, events,
// scratch images) stays in OpenCLRuntime.
#ifndef MACE_RUNTIMES_OPENCL_OPENCL_DEVICE_H_
#define MACE_RUNTIMES_OPENCL_OPENCL_DEVICE_H_

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "mace/public/mace.h"
#include "mace/runtimes/opencl/opencl_api.h"
#include "mace/runtimes/opencl/program_cache.h"
#include "mace/runtimes/opencl/tuning.h"
#include "mace/utils/status.h"

namespace mace {
namespace opencl {

struct OpenCLOptions {
  // Take a non-GPU device (a CPU OpenCL implementation such as PoCL) when
  // the system has no GPU device.
  bool allow_any_device = false;
  // Images in CL_HALF_FLOAT (else CL_FLOAT).
  bool half_storage = true;
  // The compiled-program cache file; empty: build from source every time.
  std::string cache_file;
  // Precompiled program files shipped with the app (the cache file's
  // format), tried in order before the cache file; read, never written.
  std::vector<std::string> binary_files;
  // Tuned local work sizes, read at Init when valid for this device.
  std::string parameter_file;
  // Time candidate local sizes for each launch not in the parameter file
  // and write the file after runs that tuned something.
  bool tune = false;
  // Profiling events for every launch: per-op device times.
  bool profiling = false;
  GPUPerfHint perf_hint = GPUPerfHint::PERF_DEFAULT;
  GPUPriorityHint priority_hint = GPUPriorityHint::PRIORITY_DEFAULT;
  // Where to look for libOpenCL.so; empty: DefaultOpenCLLibraryPaths().
  std::vector<std::string> library_paths;
  // limit_opencl_kernel_time: split long kernels into pieces of about 1 ms
  // each, enqueued one after another, so that a phone's UI keeps getting
  // the GPU between them.
  bool limit_kernel_time = false;
  // Multiply-adds the device does in a millisecond, which sizes the pieces.
  // 0: MACE_OPENCL_WORK_PER_MS from the environment, else
  // kDefaultWorkPerMs (a mid-range phone GPU).
  double work_per_ms = 0;
  // Winograd for 3x3 stride-1 convolutions: "auto" (the channel rule of
  // conv_2d_opencl.cc), "on" (every eligible one) or "off"; empty:
  // MACE_OPENCL_WINOGRAD from the environment, else "auto".
  std::string winograd;
};

// About 50 GMAC/s: what a mid-range mobile GPU sustains on convolutions.
constexpr double kDefaultWorkPerMs = 5e7;

// What the runtime runs on, as the driver names it.
struct OpenCLDeviceInfo {
  std::string platform;
  std::string device;
  std::string driver;       // CL_DRIVER_VERSION
  std::string version;      // CL_DEVICE_VERSION
  std::string extensions;
  bool is_gpu = false;
  int64_t max_image_width = 0;
  int64_t max_image_height = 0;
  int64_t max_work_group_size = 0;
};

// How the program was obtained at Init.
enum class ProgramOrigin { kNone, kBuiltFromSource, kLoadedFromCache, kLoadedFromBinaryFile };

// Programs made (built from source or loaded from a binary) by every
// OpenCL device state of the process so far; tests count them.
int64_t ProgramCreateCount();

// What of `options` an OpenCLDevice is made from: the library, device
// choice, context and queue properties, storage and program and tuning
// files. Engines of one MaceContext share a device state when these keys
// are equal.
std::string DeviceSettingsKey(const OpenCLOptions& options);

class OpenCLDevice {
 public:
  // Only the settings DeviceSettingsKey covers are used.
  explicit OpenCLDevice(OpenCLOptions options);
  ~OpenCLDevice();
  OpenCLDevice(const OpenCLDevice&) = delete;
  OpenCLDevice& operator=(const OpenCLDevice&) = delete;

  // Loads the library, picks the device, creates the context, queue and
  // program and reads the tuned parameters; the first successful call
  // does it, later ones return at once. A failed call leaves nothing
  // behind, so the next one tries again.
  MaceStatus Init();

  // Valid after a successful Init, and constant from then on.
  const OpenCLApi& api() const { return *api_; }
  cl_device_id device() const { return device_; }
  cl_context context() const { return context_; }
  cl_command_queue queue() const { return queue_; }
  cl_program program() const { return program_; }
  bool profiling_queue() const { return profiling_queue_; }
  const OpenCLDeviceInfo& info() const { return info_; }
  bool half_storage() const { return half_storage_; }
  const std::string& build_options() const { return build_options_; }
  const ProgramCacheKey& program_key() const { return program_key_; }
  ProgramOrigin program_origin() const { return program_origin_; }
  const std::string& cache_warning() const { return cache_warning_; }
  const std::string& binary_file_used() const { return binary_file_used_; }
  const std::string& parameter_warning() const { return parameter_warning_; }
  const std::vector<std::string>& unsupported_hints() const { return unsupported_hints_; }

  // The tuned local size of launch `key`, if known and within `limit`
  // work-items.
  bool FindTuned(const std::string& key, int64_t limit, LocalSize* local);
  void AddTuned(const std::string& key, LocalSize local);
  TunedParameters tuned_parameters();
  // Writes the parameter file when tuning found something new.
  MaceStatus SaveTunedParameters();

  MaceStatus Check(cl_int error, const std::string& what) const;

 private:
  MaceStatus InitLocked();
  void Release();
  MaceStatus ChooseDevice();
  MaceStatus CreateContextAndQueue();
  MaceStatus ChooseStorage();
  MaceStatus CreateProgram();
  // Builds program_ from a binary; false with the driver's reason in `why`.
  bool LoadBinary(const std::string& binary, std::string* why);
  MaceStatus BuildFromSource(const std::string& source);
  void CacheWarning(const std::string& message);
  void LoadTunedParameters();

  const OpenCLOptions options_;
  std::mutex init_mutex_;
  bool ready_ = false;
  const OpenCLApi* api_ = nullptr;
  OpenCLApi own_api_;
  cl_platform_id platform_ = nullptr;
  cl_device_id device_ = nullptr;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
  cl_program program_ = nullptr;
  bool profiling_queue_ = false;
  OpenCLDeviceInfo info_;
  bool half_storage_ = true;
  std::string build_options_;
  ProgramCacheKey program_key_;
  ProgramOrigin program_origin_ = ProgramOrigin::kNone;
  std::string cache_warning_;
  std::string binary_file_used_;
  std::string parameter_warning_;
  std::vector<std::string> unsupported_hints_;

  std::mutex tuned_mutex_;
  TunedParameters tuned_;
  ProgramCacheKey tuning_key_;
  bool tuned_changed_ = false;
};

}  // namespace opencl
}  // namespace mace

#endif  // MACE_RUNTIMES_OPENCL_OPENCL_DEVICE_H_
