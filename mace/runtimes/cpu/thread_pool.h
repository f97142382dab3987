// A fixed pool of worker threads for the CPU kernels.
//
// Workers are created once and live as long as the pool. ParallelFor splits
// [0, count) into one contiguous chunk per thread (a static split: each op
// chooses what to split so that chunks cost about the same), runs chunk 0 on
// the calling thread and the rest on the workers, and returns when all are
// done. A call allocates nothing: the callable is passed by reference and the
// workers are woken through a generation counter.
//
// Workers spin briefly after each job, because inference runs ops back to
// back and a futex wake costs tens of microseconds, then sleep on a
// condition variable so an idle engine uses no CPU.
#ifndef MACE_RUNTIMES_CPU_THREAD_POOL_H_
#define MACE_RUNTIMES_CPU_THREAD_POOL_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

#include "mace/public/mace.h"

namespace mace {

class ThreadPool {
 public:
  // `num_threads` counts the calling thread, so 1 creates no workers.
  // `cores` lists the CPU ids the workers bind to; empty means no binding.
  explicit ThreadPool(int num_threads, std::vector<int> cores = {});
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // A pool for the engine's thread hint and affinity policy: num_threads <= 0
  // means one thread per core the policy allows, and larger hints are clamped
  // to that many cores because oversubscribed compute threads only add
  // context switches.
  static std::unique_ptr<ThreadPool> Create(int num_threads, CPUAffinityPolicy policy);

  int num_threads() const { return num_threads_; }
  const std::vector<int>& cores() const { return cores_; }

  // Calls fn(begin, end) or fn(begin, end, chunk) once per non-empty chunk of
  // [0, count). Chunk t is the t-th of num_threads() near-equal ranges and
  // always runs on the same thread, so `chunk` can index per-thread scratch.
  // Calls from inside a running job, or from a second thread while the pool
  // is busy, run serially on the caller instead of deadlocking.
  template <typename Fn>
  void ParallelFor(int64_t count, Fn&& fn) {
    using Decayed = std::remove_reference_t<Fn>;
    Job job;
    job.callable = const_cast<void*>(static_cast<const void*>(&fn));
    job.invoke = [](void* callable, int64_t begin, int64_t end, int chunk) {
      Decayed& f = *static_cast<Decayed*>(callable);
      if constexpr (std::is_invocable_v<Decayed&, int64_t, int64_t, int>) {
        f(begin, end, chunk);
      } else {
        f(begin, end);
      }
    };
    job.count = count;
    Dispatch(job);
  }

  // The range of chunk `chunk` when [0, count) is split `chunks` ways.
  static void ChunkRange(int64_t count, int chunks, int chunk, int64_t* begin, int64_t* end);

 private:
  struct Job {
    void* callable = nullptr;
    void (*invoke)(void*, int64_t, int64_t, int) = nullptr;
    int64_t count = 0;
  };

  void Dispatch(const Job& job);
  void RunChunk(const Job& job, int chunk, int chunks);
  void WorkerLoop(int index);

  const int num_threads_;
  const std::vector<int> cores_;
  std::vector<std::thread> workers_;

  std::mutex dispatch_mutex_;  // one job at a time
  std::mutex mutex_;           // guards the sleeping waits below
  std::condition_variable wake_;
  std::condition_variable done_;
  Job job_;
  std::atomic<uint64_t> generation_{0};
  std::atomic<int> pending_{0};
  std::atomic<bool> stop_{false};
};

// Runs fn over [0, count) on `pool`, or serially (one chunk, index 0) when
// there is no pool.
template <typename Fn>
void ParallelFor(ThreadPool* pool, int64_t count, Fn&& fn) {
  if (pool != nullptr) {
    pool->ParallelFor(count, fn);
    return;
  }
  if (count <= 0) return;
  if constexpr (std::is_invocable_v<Fn&, int64_t, int64_t, int>) {
    fn(int64_t{0}, count, 0);
  } else {
    fn(int64_t{0}, count);
  }
}

inline int NumThreads(const ThreadPool* pool) { return pool == nullptr ? 1 : pool->num_threads(); }

}  // namespace mace

#endif  // MACE_RUNTIMES_CPU_THREAD_POOL_H_
