// What a MaceContext holds, for the runtime providers that use it.
#ifndef MACE_LIBMACE_CONTEXT_IMPL_H_
#define MACE_LIBMACE_CONTEXT_IMPL_H_

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "mace/core/shared_arena.h"
#include "mace/public/mace.h"
#include "mace/runtimes/cpu/thread_pool.h"

namespace mace {
namespace opencl {
class OpenCLDevice;
}  // namespace opencl
namespace hexagon {
class DspSession;
}  // namespace hexagon

class MaceContext::Impl {
 public:
  std::shared_ptr<ThreadPool> thread_pool;
  std::shared_ptr<SharedArena> arena = std::make_shared<SharedArena>();
  CPUAffinityPolicy policy = CPUAffinityPolicy::AFFINITY_NONE;
  // The OpenCL device states of the context's GPU engines, one per
  // opencl::DeviceSettingsKey, made when the first engine of those
  // settings is created and released with the context.
  std::mutex gpu_mutex;
  std::map<std::string, std::shared_ptr<opencl::OpenCLDevice>> gpu_devices;
  // The DSP sessions of the context's Hexagon engines, one per emulator and
  // image (hexagon::DspSession::Key), started by the first engine that
  // needs one and ended with the context; a session that failed is
  // replaced for the engines created after.
  std::mutex dsp_mutex;
  std::map<std::string, std::shared_ptr<hexagon::DspSession>> dsp_sessions;
};

}  // namespace mace

#endif  // MACE_LIBMACE_CONTEXT_IMPL_H_
