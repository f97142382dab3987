// A fixed pool of worker threads for the CPU kernels.
//
// Workers are created once and live as long as the pool. ParallelFor gives
// each thread a near-equal contiguous share of [0, count) (thread 0, the
// caller, the first), cut into up to kPiecesPerThread near-equal pieces.
// Each thread takes its own pieces from the front; a thread that runs out
// steals from the back of another's run. Without interference every thread
// works through its own contiguous share, as a static split would, so
// consecutive ops touch the data the same thread touched before; when a
// core is slow (another process, a little core, an interrupt) the others
// take over its remaining pieces instead of waiting. A call allocates
// nothing: the callable is passed by reference and the workers are woken
// through a generation counter.
//
// Workers spin briefly after each job, because inference runs ops back to
// back and a futex wake costs tens of microseconds (yielding the core
// between polls after the first few, for when cores are shared), then sleep
// on a condition variable so an idle engine uses no CPU. While both sides spin,
// a job takes no lock: the mutex is only for waking a sleeper.
//
// A Run's stop conditions (RunControl) installed on the thread that calls
// ParallelFor go with the job: every thread checks them before each piece
// and skips the piece once the Run must stop, and a loop run on the caller
// alone (one thread, or the pool busy with another caller's job) is cut
// into kSerialPieces pieces so that it is checked too. A stopped op leaves
// its outputs partly written; the Run then returns its stop status.
//
// A job ends when its last piece is done, not when every worker has
// checked in, so a worker the OS has not scheduled yet (other apps on a
// phone, an oversubscribed host) does not stall the op: the others take
// its pieces and move on, and it joins a later job when it runs.
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
#include "mace/runtimes/cpu/scratch_buffer.h"
#include "mace/utils/run_control.h"

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

  // Calls fn(begin, end) or fn(begin, end, chunk) for pieces that together
  // cover [0, count) exactly once; a thread may get several pieces. `chunk`
  // is the index of the thread running the piece (0 is the caller, each
  // index always the same thread, below num_threads()), so it can index
  // per-thread scratch. Calls from inside a running job, or from a second
  // thread while the pool is busy, run serially on the caller (one piece,
  // chunk 0) instead of deadlocking.
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

  // Tests only: each worker calls `gate(index)` after it wakes for a job and
  // before it looks for pieces, so a test can hold a worker back as the OS
  // might. Set it before any job runs.
  void SetWorkerGateForTest(void (*gate)(int)) { gate_for_test_ = gate; }

  // The range of chunk `chunk` when [0, count) is split `chunks` ways.
  static void ChunkRange(int64_t count, int chunks, int chunk, int64_t* begin, int64_t* end);

  // How ParallelFor splits a job of `count` items over `threads` threads:
  // the number of pieces, the pieces thread `thread` owns ([*first,
  // *last)), and where each piece starts: piece p is items [starts[p],
  // starts[p + 1]), starts[pieces] being count (`starts` holds pieces + 1
  // values). A thread's pieces cover its ChunkRange share of the items, so
  // shares differ by at most one item whatever the piece sizes (cut first
  // into pieces, 14 items over two threads went 8 and 6).
  static int64_t PieceCount(int64_t count, int threads);
  // The most pieces one thread's share is cut into.
  static constexpr int kPiecesPerThread = 4;
  static void OwnedPieces(int64_t pieces, int threads, int thread, int64_t* first, int64_t* last);
  static void PieceStarts(int64_t count, int threads, int64_t* starts);

 private:
  struct Job {
    void* callable = nullptr;
    void (*invoke)(void*, int64_t, int64_t, int) = nullptr;
    int64_t count = 0;
    const RunControl* control = nullptr;  // the calling thread's, if any
  };

  static constexpr int kSerialPieces = 8;

  // Runs the whole job on the calling thread, in pieces checked against
  // its control when it has one.
  static void RunSerially(const Job& job);

  void Dispatch(const Job& job);
  // Runs pieces on thread `index`: its own from the front, then others'
  // from the back, until none is left.
  void RunPieces(int index);
  // Takes the front (own run) or back (stealing) piece of thread `owner`'s
  // run; false when it is empty.
  bool ClaimFront(int owner, int64_t* piece);
  bool ClaimBack(int owner, int64_t* piece);
  void WorkerLoop(int index);

  const int num_threads_;
  const std::vector<int> cores_;
  std::vector<std::thread> workers_;

  std::mutex dispatch_mutex_;  // one job at a time
  std::mutex mutex_;           // guards the sleeping waits below
  std::condition_variable wake_;
  std::condition_variable done_;
  Job job_;
  int64_t pieces_ = 0;  // of the current job
  // The current job's PieceStarts, computed once rather than by each piece.
  std::unique_ptr<int64_t[]> piece_starts_;
  // Per thread, the unclaimed pieces of its run: front << 32 | back. Each
  // on cache lines of its own (a 128-byte pair, see kThreadRegionBytes):
  // threads claim their own pieces with compare-and-swap, which would
  // otherwise pull one shared line back and forth at every piece.
  struct alignas(kThreadRegionBytes) Run {
    std::atomic<uint64_t> pieces{0};
  };
  std::unique_ptr<Run[]> runs_;
  std::atomic<uint64_t> generation_{0};
  std::atomic<int64_t> pending_{0};  // pieces of the current job not yet done
  std::atomic<int> sleepers_{0};            // workers waiting on wake_
  std::atomic<bool> caller_sleeps_{false};  // the dispatcher waits on done_
  std::atomic<bool> stop_{false};
  void (*gate_for_test_)(int) = nullptr;
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
