// The OpenCL runtime (DeviceType::GPU) of one engine, on an OpenCLDevice
// (the device, context, in-order queue, program and tuned sizes) of its
// own or shared with the other engines of a MaceContext (opencl_device.h); tensors in CL_RGBA 2D images (GPU_IMAGE, the layouts of
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
#include "mace/runtimes/opencl/opencl_device.h"
#include "mace/runtimes/opencl/opencl_api.h"
#include "mace/runtimes/opencl/program_cache.h"
#include "mace/runtimes/opencl/tuning.h"

namespace mace {
namespace opencl {

// Kernel launches by every runtime of the process so far (one per piece of
// a split kernel); tests compare it before and after a run.
int64_t KernelEnqueueCount();

class OpenCLRuntime : public Runtime {
 public:
  // `shared`: the device state of the engine's MaceContext (made for
  // DeviceSettingsKey(options)); null: one of its own.
  explicit OpenCLRuntime(OpenCLOptions options, std::shared_ptr<OpenCLDevice> shared = nullptr);
  ~OpenCLRuntime() override;

  DeviceType device_type() const override { return DeviceType::GPU; }
  std::string name() const override { return "GPU"; }
  // Initializes the device state (once for all engines sharing it).
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
  // Whether a tensor of `shape` fits an activation image of this device:
  // rank 4 or less, within CL_DEVICE_IMAGE2D_MAX_WIDTH and _HEIGHT.
  bool FitsActivationImage(const std::vector<int64_t>& shape) const;
  MaceStatus BeforeRun() override;
  // Waits for the queue, so outputs and errors belong to this run.
  MaceStatus AfterRun() override;
  // Waits for the op's kernels; with profiling, their summed device time.
  MaceStatus OpDeviceMicros(int64_t* micros) override;
  // Weight images as persistent bytes, the staging buffer as scratch.
  void ReportMemory(MemoryReport* report) const override;

  // For kernels.
  const OpenCLApi& api() const { return *api_; }
  cl_context context() const { return context_; }
  cl_command_queue queue() const { return queue_; }
  const OpenCLDeviceInfo& device_info() const { return shared_->info(); }
  bool half_storage() const { return half_storage_; }
  int pixel_bytes() const { return half_storage_ ? 8 : 16; }
  // Checks that a width x height image fits the device; `what` names it.
  MaceStatus CheckImageSize(int64_t width, int64_t height, const std::string& what) const;
  // A kernel of the program; the caller releases it (Kernel does).
  MaceStatus CreateKernel(const char* name, cl_kernel* kernel) const;
  // Runs kernel `name` over at least width x height items: the global
  // size is rounded up to the work-group size (kernels bounds-check). The
  // work-group is the tuned one of this launch when known, else tuned now
  // (OpenCLOptions::tune), else DefaultLocalSize. With the kernel time
  // limit on and `work_per_item` (multiply-adds, or a like measure) given,
  // a kernel over more than a millisecond of work runs as pieces along its
  // rows (or columns, when it has one row of work-groups), each a global
  // offset into the same range.
  MaceStatus Enqueue2D(cl_kernel kernel, const std::string& name, int64_t width, int64_t height,
                       double work_per_item = 0);
  bool limit_kernel_time() const { return options_.limit_kernel_time; }
  double work_per_ms() const { return options_.work_per_ms; }
  const std::string& winograd() const { return options_.winograd; }
  // A device buffer of at least `bytes` for host transfers, shared by the
  // engine's converters (the queue is in order).
  MaceStatus StagingBuffer(int64_t bytes, cl_mem* buffer);
  // Scratch image `slot` (0 or 1) of at least width x height pixels, shared
  // by every op of the engine (the queue is in order, and an image released
  // while queued kernels use it lives until they finish). Ops ask at
  // Prepare, so that Run finds it large enough, and again at Run.
  MaceStatus ScratchImage(int slot, int64_t width, int64_t height, cl_mem* image);
  // Uploads a weight tensor (host memory) into a new image of `kind`,
  // counted as the engine's persistent memory.
  MaceStatus UploadWeight(ImageKind kind, const Tensor& weight, std::unique_ptr<Memory>* image);
  // The same, with the weight's elements taken as a tensor of `shape` (the
  // same element count: a reshape).
  MaceStatus UploadWeightAs(ImageKind kind, const Tensor& weight,
                            const std::vector<int64_t>& shape, std::unique_ptr<Memory>* image);
  // The same for values made at init from a weight (a transformed filter):
  // `data` is a dense tensor of `shape`; `name` names it in errors.
  MaceStatus UploadValues(ImageKind kind, const std::vector<int64_t>& shape, const float* data,
                          const std::string& name, std::unique_ptr<Memory>* image);

  // The build options the program was built with.
  const std::string& build_options() const { return shared_->build_options(); }
  // What a program cache file must match on this device.
  const ProgramCacheKey& program_key() const { return shared_->program_key(); }
  ProgramOrigin program_origin() const { return shared_->program_origin(); }
  // The warning the cache file gave at Init (empty when none).
  const std::string& cache_warning() const { return shared_->cache_warning(); }
  // The binary file the program came from (kLoadedFromBinaryFile).
  const std::string& binary_file_used() const { return shared_->binary_file_used(); }
  // Local sizes known for launches (loaded or tuned, by every engine of
  // the device state), and the warning the parameter file gave.
  TunedParameters tuned_parameters() const { return shared_->tuned_parameters(); }
  const std::string& parameter_warning() const { return shared_->parameter_warning(); }
  // Launches of this engine that ran with a loaded or tuned local size.
  int64_t tuned_launches() const { return tuned_launches_; }
  // The hints the device could not take ("perf", "priority").
  const std::vector<std::string>& unsupported_hints() const {
    return shared_->unsupported_hints();
  }
  // The device state this runtime stands on.
  const OpenCLDevice& shared_device() const { return *shared_; }

 private:
  MaceStatus Tune(cl_kernel kernel, const std::string& name, int64_t width, int64_t height,
                  int64_t limit, LocalSize* best);
  // One launch; its event when `event` is set (profiling queue only).
  cl_int Launch(cl_kernel kernel, int64_t width, int64_t height, LocalSize local,
                cl_event* event);
  // START to END of a finished event, in nanoseconds.
  MaceStatus EventNanos(cl_event event, cl_ulong* nanos) const;
  MaceStatus Check(cl_int error, const std::string& what) const;
  // Uploads `pixels` (RGBA floats, width * height of them) into `image`.
  MaceStatus UploadPixels(const std::vector<float>& pixels, int64_t width, int64_t height,
                          Memory* image);

  OpenCLOptions options_;
  std::shared_ptr<OpenCLDevice> shared_;
  // The shared state's handles, copied at Init.
  const OpenCLApi* api_ = nullptr;
  cl_device_id device_ = nullptr;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
  cl_program program_ = nullptr;
  bool profiling_queue_ = false;
  bool half_storage_ = true;
  int64_t tuned_launches_ = 0;
  std::vector<cl_event> events_;  // launches of the current op (profiling)
  cl_mem staging_ = nullptr;
  int64_t staging_bytes_ = 0;
  int64_t weight_bytes_ = 0;
  std::unique_ptr<Memory> scratch_[2];
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
  MaceStatus Run2D(int64_t width, int64_t height, double work_per_item = 0) {
    return runtime_->Enqueue2D(kernel_, name_, width, height, work_per_item);
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
