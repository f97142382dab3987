// A runtime for tests only: it stands in for a GPU (DeviceType::GPU) with
// memory types of its own, from its own counting allocator, and layouts of
// its own: Eltwise SUM of two equal shapes on NHWC buffers (GPU_BUFFER), and
// Activation RELU on 2D images (GPU_IMAGE; pixel (w * ceil(C/4) + c/4,
// n * H + h) holds four channels, as the OpenCL runtime's activations do).
// Everything else falls back to the CPU, so a model run on it is split
// between two runtimes, with converters where storages meet. Its memory is
// host-addressable so that the tests can check it directly.
#ifndef TEST_NHWC_TEST_RUNTIME_H_
#define TEST_NHWC_TEST_RUNTIME_H_

#include <atomic>
#include <memory>
#include <string>

#include "mace/core/runtime.h"
#include "mace/libmace/runtime_providers.h"

namespace mace {
namespace testing {

// What the runtimes made by the provider below have done, process-wide.
struct NhwcRuntimeCounters {
  std::atomic<int> allocations{0};
  std::atomic<int> images{0};
  std::atomic<int64_t> allocated_bytes{0};
  std::atomic<int> runs{0};
};
NhwcRuntimeCounters& NhwcCounters();

// The storages its kernels read and write.
Storage NhwcStorage();
Storage ImageStorage();

class NhwcTestRuntime : public Runtime {
 public:
  DeviceType device_type() const override { return DeviceType::GPU; }
  std::string name() const override { return "NHWC test runtime"; }
  MemoryType default_memory_type() const override { return MemoryType::GPU_BUFFER; }
  MaceStatus Allocate(const MemoryExtent& extent, std::unique_ptr<Memory>* memory) override;
  MaceStatus ImageExtentFor(const Tensor& tensor, MemoryExtent* extent) const override;
  MaceStatus BeforeRun() override;
};

// Installs the runtime as this process's GPU runtime, with its kernels and
// the converters between CPU NCHW and its NHWC buffers.
void InstallNhwcTestRuntime();

}  // namespace testing
}  // namespace mace

#endif  // TEST_NHWC_TEST_RUNTIME_H_
