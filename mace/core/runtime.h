// A Runtime is one compute device: the CPU, an OpenCL GPU or a Hexagon DSP.
// It owns device state (thread pool, command queue, DSP session) and tells the
// net which memory types it can back and whether it runs an op.
#ifndef MACE_CORE_RUNTIME_H_
#define MACE_CORE_RUNTIME_H_

#include <string>

#include "mace/core/types.h"
#include "mace/public/mace.h"

namespace mace {

class PersistentArena;
class ScratchBuffer;
class ThreadPool;

class Runtime {
 public:
  virtual ~Runtime() = default;
  virtual DeviceType device_type() const = 0;
  virtual std::string name() const = 0;
  virtual MaceStatus Init() { return MaceStatus(); }
  // The memory type intermediate tensors use on this runtime.
  virtual MemoryType default_memory_type() const = 0;
  // Called around each Net::Run, e.g. to flush a GPU queue.
  virtual MaceStatus BeforeRun() { return MaceStatus(); }
  virtual MaceStatus AfterRun() { return MaceStatus(); }
  // Makes device memory readable by the host and back. CPU memory is already.
  virtual void* Map(void* device_memory) { return device_memory; }
  virtual void Unmap(void* /*device_memory*/) {}
  // Host compute for CPU kernels: the worker threads and a scratch buffer
  // shared by all ops (ops run one at a time). Null where the runtime has
  // none; kernels then run single-threaded with their own scratch.
  virtual ThreadPool* thread_pool() { return nullptr; }
  virtual ScratchBuffer* scratch() { return nullptr; }
  // Engine-lifetime memory for what ops derive from weights in Prepare
  // (packed panels, transformed filters). Null where the runtime has none.
  virtual PersistentArena* persistent_arena() { return nullptr; }
  // Adds the runtime's own memory (persistent arena, scratch) to a report.
  virtual void ReportMemory(MemoryReport* /*report*/) const {}
};

}  // namespace mace

#endif  // MACE_CORE_RUNTIME_H_
