// The OpenCL runtime (DeviceType::GPU): one device, context and in-order
// queue per engine; tensors in CL_RGBA 2D images (GPU_IMAGE, the layouts of
// image_layout.h) or buffers (GPU_BUFFER); one program holding every
// embedded kernel, built at Init or loaded from the program cache file.
//
// Image storage is half (CL_HALF_FLOAT, "fp16_fp32") or float (CL_FLOAT,
// "fp32_fp32"). Kernels compute in float, or in half where the storage is
// half and the device has cl_khr_fp16.
#ifndef MACE_RUNTIMES_OPENCL_OPENCL_RUNTIME_H_
#define MACE_RUNTIMES_OPENCL_OPENCL_RUNTIME_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "mace/core/runtime.h"
#include "mace/runtimes/opencl/image_layout.h"
#include "mace/runtimes/opencl/opencl_api.h"
#include "mace/runtimes/opencl/program_cache.h"

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
  GPUPerfHint perf_hint = GPUPerfHint::PERF_DEFAULT;
  GPUPriorityHint priority_hint = GPUPriorityHint::PRIORITY_DEFAULT;
  // Where to look for libOpenCL.so; empty: DefaultOpenCLLibraryPaths().
  std::vector<std::string> library_paths;
};

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
enum class ProgramOrigin { kNone, kBuiltFromSource, kLoadedFromCache };

class OpenCLRuntime : public Runtime {
 public:
  explicit OpenCLRuntime(OpenCLOptions options);
  ~OpenCLRuntime() override;

  DeviceType device_type() const override { return DeviceType::GPU; }
  std::string name() const override { return "GPU"; }
  // Loads the library, picks the device, creates the queue and the program.
  MaceStatus Init() override;
  MemoryType default_memory_type() const override { return MemoryType::GPU_IMAGE; }
  MaceStatus Allocate(const MemoryExtent& extent, std::unique_ptr<Memory>* memory) override;
  MaceStatus Map(Memory* memory, unsigned char** host) override;
  MaceStatus Unmap(Memory* memory) override;
  MaceStatus Copy(Memory* source, int64_t source_offset, Memory* target, int64_t target_offset,
                  int64_t bytes) override;
  // The image of the tensor's kind (Storage::image, an ImageKind); the
  // error names the tensor when it exceeds the device's largest image.
  MaceStatus ImageExtentFor(const Tensor& tensor, MemoryExtent* extent) const override;
  bool Supports(const OperatorDef& def, DataType dtype) const override;
  // Every activation input, and every output shape the model records, must
  // fit an activation image of this device (rank 4 or less, within
  // CL_DEVICE_IMAGE2D_MAX_WIDTH and _HEIGHT); else the op runs on the CPU.
  bool SupportsInputs(const OperatorDef& def, DataType dtype,
                      const std::vector<const Tensor*>& inputs) const override;
  MaceStatus BeforeRun() override;
  // Waits for the queue, so outputs and errors belong to this run.
  MaceStatus AfterRun() override;
  // Weight images as persistent bytes, the staging buffer as scratch.
  void ReportMemory(MemoryReport* report) const override;

  // For kernels.
  const OpenCLApi& api() const { return *api_; }
  cl_context context() const { return context_; }
  cl_command_queue queue() const { return queue_; }
  const OpenCLDeviceInfo& device_info() const { return info_; }
  bool half_storage() const { return half_storage_; }
  int pixel_bytes() const { return half_storage_ ? 8 : 16; }
  // Checks that a width x height image fits the device; `what` names it.
  MaceStatus CheckImageSize(int64_t width, int64_t height, const std::string& what) const;
  // A kernel of the program; the caller releases it (Kernel does).
  MaceStatus CreateKernel(const char* name, cl_kernel* kernel) const;
  // Runs a 2D kernel over at least width x height items: the global size
  // is rounded up to the work-group size (kernels bounds-check).
  MaceStatus Enqueue2D(cl_kernel kernel, int64_t width, int64_t height);
  // A device buffer of at least `bytes` for host transfers, shared by the
  // engine's converters (the queue is in order).
  MaceStatus StagingBuffer(int64_t bytes, cl_mem* buffer);
  // Uploads a weight tensor (host memory) into a new image of `kind`,
  // counted as the engine's persistent memory.
  MaceStatus UploadWeight(ImageKind kind, const Tensor& weight, std::unique_ptr<Memory>* image);
  // The same, with the weight's elements taken as a tensor of `shape` (the
  // same element count: a reshape).
  MaceStatus UploadWeightAs(ImageKind kind, const Tensor& weight,
                            const std::vector<int64_t>& shape, std::unique_ptr<Memory>* image);

  // The build options the program was built with.
  const std::string& build_options() const { return build_options_; }
  // What a program cache file must match on this device.
  const ProgramCacheKey& program_key() const { return program_key_; }
  ProgramOrigin program_origin() const { return program_origin_; }
  // The warning the cache file gave at Init (empty when none).
  const std::string& cache_warning() const { return cache_warning_; }

 private:
  MaceStatus ChooseDevice();
  MaceStatus CreateProgram();
  MaceStatus BuildFromSource(const std::string& source);
  void CacheWarning(const std::string& message);
  MaceStatus Check(cl_int error, const std::string& what) const;
  // Uploads `pixels` (RGBA floats, width * height of them) into `image`.
  MaceStatus UploadPixels(const std::vector<float>& pixels, int64_t width, int64_t height,
                          Memory* image);

  OpenCLOptions options_;
  const OpenCLApi* api_ = nullptr;
  OpenCLApi own_api_;
  cl_platform_id platform_ = nullptr;
  cl_device_id device_ = nullptr;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
  cl_program program_ = nullptr;
  OpenCLDeviceInfo info_;
  bool half_storage_ = true;
  std::string build_options_;
  ProgramCacheKey program_key_;
  ProgramOrigin program_origin_ = ProgramOrigin::kNone;
  std::string cache_warning_;
  cl_mem staging_ = nullptr;
  int64_t staging_bytes_ = 0;
  int64_t weight_bytes_ = 0;
};

// The OpenCL runtime of a Runtime pointer, or null for any other runtime.
OpenCLRuntime* AsOpenCL(Runtime* runtime);

// Holds a kernel of the runtime's program and sets its arguments.
class Kernel {
 public:
  Kernel() = default;
  ~Kernel();
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;

  MaceStatus Create(OpenCLRuntime* runtime, const char* name);
  bool created() const { return kernel_ != nullptr; }
  // Arguments in order: cl_int, cl_float and cl_mem values.
  template <typename... Args>
  MaceStatus SetArgs(const Args&... args) {
    cl_uint index = 0;
    cl_int error = CL_SUCCESS;
    ((error = error != CL_SUCCESS ? error : SetArg(index++, sizeof(args), &args)), ...);
    return ArgStatus(error);
  }
  MaceStatus Run2D(int64_t width, int64_t height) {
    return runtime_->Enqueue2D(kernel_, width, height);
  }

 private:
  cl_int SetArg(cl_uint index, size_t size, const void* value);
  MaceStatus ArgStatus(cl_int error) const;

  OpenCLRuntime* runtime_ = nullptr;
  cl_kernel kernel_ = nullptr;
  std::string name_;
};

// The cl_mem of a tensor's device memory; INVALID_ARGS naming the tensor
// when it has none.
MaceStatus DeviceMemoryOf(const Tensor& tensor, cl_mem* mem);

}  // namespace opencl
}  // namespace mace

#endif  // MACE_RUNTIMES_OPENCL_OPENCL_RUNTIME_H_
