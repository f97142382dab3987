// A Runtime is one compute device: the CPU, an OpenCL GPU or a Hexagon DSP.
// The core talks to every device through this interface alone: it allocates
// and frees memory of the device's memory types, copies between storages,
// maps device memory for the host, asks whether the device runs an op, and
// brackets each run with hooks. Device state (thread pool, command queue, DSP
// session) lives in the subclasses; kernels that need it reach it through
// their own runtime's class (mace/runtimes/<device>/).
#ifndef MACE_CORE_RUNTIME_H_
#define MACE_CORE_RUNTIME_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mace/core/types.h"
#include "mace/proto/mace.pb.h"
#include "mace/public/mace.h"

namespace mace {

class Tensor;

// What to allocate: bytes for a buffer, or width x height pixels of
// `pixel_bytes` each for a 2D image (four channels of the pixel type).
struct MemoryExtent {
  MemoryType type = MemoryType::CPU_BUFFER;
  int64_t bytes = 0;
  int64_t width = 0;
  int64_t height = 0;
  int pixel_bytes = 0;

  static MemoryExtent Buffer(MemoryType type, int64_t bytes) {
    MemoryExtent extent;
    extent.type = type;
    extent.bytes = bytes;
    return extent;
  }
  static MemoryExtent Image(int64_t width, int64_t height, int pixel_bytes) {
    MemoryExtent extent;
    extent.type = MemoryType::GPU_IMAGE;
    extent.width = width;
    extent.height = height;
    extent.pixel_bytes = pixel_bytes;
    extent.bytes = width * height * pixel_bytes;
    return extent;
  }
};

// One block of device memory, released when destroyed. Host-addressable
// memory (CPU buffers, and any device memory the host can read in place)
// has a host pointer; the rest is reached through Runtime::Map.
class Memory {
 public:
  explicit Memory(const MemoryExtent& extent) : extent_(extent) {}
  virtual ~Memory() = default;
  Memory(const Memory&) = delete;
  Memory& operator=(const Memory&) = delete;

  const MemoryExtent& extent() const { return extent_; }
  MemoryType type() const { return extent_.type; }
  int64_t bytes() const { return extent_.bytes; }
  // Null when the host cannot address the memory directly.
  virtual unsigned char* host() { return nullptr; }
  // The device's own handle (a cl_mem, a DSP buffer id); null for the CPU.
  virtual void* device_handle() { return nullptr; }

 private:
  MemoryExtent extent_;
};

class Runtime {
 public:
  virtual ~Runtime() = default;
  virtual DeviceType device_type() const = 0;
  virtual std::string name() const = 0;
  virtual MaceStatus Init() { return MaceStatus(); }

  // The memory type this runtime's kernels read and write by default.
  virtual MemoryType default_memory_type() const = 0;
  // Allocates one block; OUT_OF_RESOURCES or UNSUPPORTED (a memory type
  // this runtime does not back) otherwise.
  virtual MaceStatus Allocate(const MemoryExtent& extent, std::unique_ptr<Memory>* memory) = 0;
  // Host access to `memory`, valid until Unmap. Host memory maps to itself.
  virtual MaceStatus Map(Memory* memory, unsigned char** host);
  virtual MaceStatus Unmap(Memory* memory);
  // Copies `bytes` between two blocks this runtime can reach (either may be
  // host memory), at byte offsets. The default maps both and copies.
  virtual MaceStatus Copy(Memory* source, int64_t source_offset, Memory* target,
                          int64_t target_offset, int64_t bytes);

  // The 2D image that holds `tensor` in this runtime's image storage
  // (tensor.storage().image names the mapping): width, height and pixel
  // bytes. UNSUPPORTED for runtimes without images.
  virtual MaceStatus ImageExtentFor(const Tensor& tensor, MemoryExtent* extent) const;

  // Called around each run, e.g. to bind threads or flush a queue.
  virtual MaceStatus BeforeRun() { return MaceStatus(); }
  virtual MaceStatus AfterRun() { return MaceStatus(); }
  // After each op of a profiled run: waits for the op's work and gives its
  // time on the device in microseconds, or -1 when the runtime does not
  // measure one (the CPU: host time is device time).
  virtual MaceStatus OpDeviceMicros(int64_t* micros) {
    *micros = -1;
    return MaceStatus();
  }
  // Adds the runtime's own memory (persistent arena, scratch) to a report.
  virtual void ReportMemory(MemoryReport* /*report*/) const {}
};

// Host memory from the heap, 64-byte aligned and zeroed: what the CPU
// runtime allocates, and what tests use without a runtime.
std::unique_ptr<Memory> NewHostMemory(MemoryType type, int64_t bytes);

}  // namespace mace

#endif  // MACE_CORE_RUNTIME_H_
