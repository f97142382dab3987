#include "mace/runtimes/cpu/thread_pool.h"

#include <sched.h>

#include <chrono>

#include "mace/runtimes/cpu/cpu_topology.h"
#include "mace/utils/logging.h"

namespace mace {
namespace {

// Set while a thread executes a chunk, so a nested ParallelFor runs inline.
thread_local bool tls_in_job = false;

// How long a worker polls for the next job before sleeping. Ops follow each
// other within microseconds during a run, so this hides the wake-up latency;
// between runs the workers sleep.
constexpr auto kSpinTime = std::chrono::microseconds(200);

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
  __asm__ __volatile__("yield");
#endif
}

// Polls `ready` for up to kSpinTime; true when it became true.
template <typename Ready>
bool SpinUntil(Ready ready) {
  const auto start = std::chrono::steady_clock::now();
  for (int i = 1;; ++i) {
    if (ready()) return true;
    CpuRelax();
    if ((i & 63) == 0 && std::chrono::steady_clock::now() - start > kSpinTime) return false;
  }
}

void BindCurrentThread(const std::vector<int>& cores) {
  if (cores.empty()) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int core : cores) CPU_SET(core, &set);
  // 0 names the calling thread (sched_setaffinity takes a thread id on Linux).
  if (sched_setaffinity(0, sizeof(set), &set) != 0) {
    LOG(WARNING) << "could not bind a CPU worker thread to the chosen cores; running unbound";
  }
}

}  // namespace

ThreadPool::ThreadPool(int num_threads, std::vector<int> cores)
    : num_threads_(num_threads < 1 ? 1 : num_threads), cores_(std::move(cores)) {
  workers_.reserve(num_threads_ - 1);
  for (int i = 1; i < num_threads_; ++i) {
    workers_.emplace_back([this, i] { WorkerLoop(i); });
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_.store(true, std::memory_order_release);
    generation_.fetch_add(1, std::memory_order_acq_rel);
  }
  wake_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

std::unique_ptr<ThreadPool> ThreadPool::Create(int num_threads, CPUAffinityPolicy policy) {
  const std::vector<CoreInfo> cores = ReadCoreInfo();
  const std::vector<int> chosen = SelectCores(cores, policy);
  int threads = static_cast<int>(chosen.size());
  if (num_threads > 0 && num_threads < threads) threads = num_threads;
  if (threads < 1) threads = 1;
  // Policy NONE leaves placement to the OS scheduler.
  std::vector<int> bind = policy == CPUAffinityPolicy::AFFINITY_NONE ? std::vector<int>() : chosen;
  VLOG(1) << "CPU thread pool: " << threads << " thread(s), " << chosen.size()
          << " candidate core(s), " << (bind.empty() ? "unbound" : "bound");
  return std::make_unique<ThreadPool>(threads, std::move(bind));
}

void ThreadPool::ChunkRange(int64_t count, int chunks, int chunk, int64_t* begin, int64_t* end) {
  const int64_t base = count / chunks;
  const int64_t extra = count % chunks;
  // The first `extra` chunks get one more item.
  *begin = chunk * base + (chunk < extra ? chunk : extra);
  *end = *begin + base + (chunk < extra ? 1 : 0);
}

void ThreadPool::RunChunk(const Job& job, int chunk, int chunks) {
  int64_t begin = 0, end = 0;
  ChunkRange(job.count, chunks, chunk, &begin, &end);
  if (begin < end) job.invoke(job.callable, begin, end, chunk);
}

void ThreadPool::Dispatch(const Job& job) {
  if (job.count <= 0) return;
  std::unique_lock<std::mutex> dispatch(dispatch_mutex_, std::try_to_lock);
  if (num_threads_ == 1 || job.count == 1 || tls_in_job || !dispatch.owns_lock()) {
    job.invoke(job.callable, 0, job.count, 0);
    return;
  }
  job_ = job;
  pending_.store(num_threads_ - 1, std::memory_order_relaxed);
  {
    // Publishing under the mutex pairs with the workers' check before they
    // sleep, so no wake-up is lost.
    std::lock_guard<std::mutex> lock(mutex_);
    generation_.fetch_add(1, std::memory_order_acq_rel);
  }
  wake_.notify_all();
  tls_in_job = true;
  RunChunk(job_, 0, num_threads_);
  tls_in_job = false;
  auto finished = [this] { return pending_.load(std::memory_order_acquire) == 0; };
  if (!SpinUntil(finished)) {
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, finished);
  }
}

void ThreadPool::WorkerLoop(int index) {
  BindCurrentThread(cores_);
  tls_in_job = true;  // a worker never dispatches to its own pool
  uint64_t seen = 0;
  for (;;) {
    auto has_job = [&] { return generation_.load(std::memory_order_acquire) != seen; };
    if (!SpinUntil(has_job)) {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, has_job);
    }
    seen = generation_.load(std::memory_order_acquire);
    if (stop_.load(std::memory_order_acquire)) return;
    RunChunk(job_, index, num_threads_);
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      std::lock_guard<std::mutex> lock(mutex_);
      done_.notify_one();
    }
  }
}

}  // namespace mace
