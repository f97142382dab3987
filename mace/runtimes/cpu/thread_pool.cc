#include "mace/runtimes/cpu/thread_pool.h"

#include <sched.h>

#include <algorithm>
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

// After this long a poll also offers the core to other runnable threads.
// When cores are shared (more runnable threads than cores: other apps, a
// busy host), a thread that only pauses holds its core for its whole time
// slice, while the pool's other thread, whose piece it waits for, or the
// thread with the next op, may sit in the run queue behind it. Ops follow
// each other within microseconds during a run, so the first polls only
// pause; with nothing else to run, a yield returns at once.
constexpr auto kPauseOnlyTime = std::chrono::microseconds(20);

// Polls `ready` for up to kSpinTime; true when it became true.
template <typename Ready>
bool SpinUntil(Ready ready) {
  const auto start = std::chrono::steady_clock::now();
  for (int i = 1;; ++i) {
    if (ready()) return true;
    CpuRelax();
    if ((i & 63) == 0) {
      const auto waited = std::chrono::steady_clock::now() - start;
      if (waited > kSpinTime) return false;
      if (waited > kPauseOnlyTime) sched_yield();
    }
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
    : num_threads_(num_threads < 1 ? 1 : num_threads),
      cores_(std::move(cores)),
      piece_starts_(new int64_t[int64_t{num_threads_} * kPiecesPerThread + 1]),
      runs_(new Run[num_threads_]) {
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

int64_t ThreadPool::PieceCount(int64_t count, int threads) {
  return std::min<int64_t>(count, int64_t{threads} * kPiecesPerThread);
}

void ThreadPool::OwnedPieces(int64_t pieces, int threads, int thread, int64_t* first,
                             int64_t* last) {
  ChunkRange(pieces, threads, thread, first, last);
}

void ThreadPool::PieceStarts(int64_t count, int threads, int64_t* starts) {
  // ChunkRange's shares and pieces per thread, with one division per
  // thread: the caller computes this before it wakes the workers.
  const int64_t pieces = PieceCount(count, threads);
  const int64_t share_base = count / threads, share_extra = count % threads;
  const int64_t owned_base = pieces / threads, owned_extra = pieces % threads;
  int64_t at = 0, piece = 0;
  for (int t = 0; t < threads; ++t) {
    const int64_t owned = owned_base + (t < owned_extra ? 1 : 0);
    if (owned == 0) break;  // fewer items than threads: the rest own none
    const int64_t share = share_base + (t < share_extra ? 1 : 0);
    const int64_t size = share / owned, larger = share % owned;
    for (int64_t i = 0; i < owned; ++i) {
      starts[piece++] = at;
      at += size + (i < larger ? 1 : 0);
    }
  }
  starts[pieces] = count;
}

void ThreadPool::RunSerially(const Job& job) {
  if (job.control == nullptr || job.count == 1) {
    job.invoke(job.callable, 0, job.count, 0);
    return;
  }
  const int pieces = static_cast<int>(std::min<int64_t>(job.count, kSerialPieces));
  for (int piece = 0; piece < pieces; ++piece) {
    if (job.control->ShouldStop()) return;
    int64_t begin = 0, end = 0;
    ChunkRange(job.count, pieces, piece, &begin, &end);
    job.invoke(job.callable, begin, end, 0);
  }
}

void ThreadPool::Dispatch(const Job& given) {
  if (given.count <= 0) return;
  Job job = given;
  // Nested loops (tls_in_job) are checked by the piece that runs them.
  if (!tls_in_job) job.control = CurrentRunControl();
  std::unique_lock<std::mutex> dispatch(dispatch_mutex_, std::try_to_lock);
  if (num_threads_ == 1 || job.count == 1 || tls_in_job || !dispatch.owns_lock()) {
    RunSerially(job);
    return;
  }
  job_ = job;
  pieces_ = PieceCount(job.count, num_threads_);
  // The job is done when all its pieces are, not when every worker has
  // looked: a worker the OS has descheduled (a busy phone, an
  // oversubscribed host) must not hold up the op when the others have
  // taken its pieces. So pending_ counts pieces, and it is set before any
  // piece can be claimed: the release stores of the runs publish it, job_,
  // pieces_ and every piece's start (a piece ends where the next starts,
  // which may be another thread's) to a late worker of an earlier job that
  // claims a piece of this one through them.
  pending_.store(pieces_, std::memory_order_relaxed);
  PieceStarts(job.count, num_threads_, piece_starts_.get());
  for (int t = 0; t < num_threads_; ++t) {
    int64_t first = 0, last = 0;
    OwnedPieces(pieces_, num_threads_, t, &first, &last);
    runs_[t].pieces.store(static_cast<uint64_t>(first) << 32 | static_cast<uint64_t>(last),
                          std::memory_order_release);
  }
  // The generation wakes the workers. Spinning ones see it by themselves;
  // the mutex and the notification are only for sleeping ones, so
  // back-to-back ops take no lock. A worker counts itself in sleepers_
  // before its last look at the generation, and both sides use
  // sequentially consistent operations: either it sees the new generation
  // or this sees it counted, and then waking it under the mutex cannot fall
  // between its look and its sleep.
  generation_.fetch_add(1, std::memory_order_seq_cst);
  if (sleepers_.load(std::memory_order_seq_cst) > 0) {
    { std::lock_guard<std::mutex> lock(mutex_); }
    wake_.notify_all();
  }
  tls_in_job = true;
  RunPieces(0);
  tls_in_job = false;
  auto finished = [this] { return pending_.load(std::memory_order_seq_cst) == 0; };
  if (!SpinUntil(finished)) {
    // The same handshake the other way: the thread that finishes the last
    // piece notifies only when the caller has said it sleeps.
    std::unique_lock<std::mutex> lock(mutex_);
    caller_sleeps_.store(true, std::memory_order_seq_cst);
    done_.wait(lock, finished);
    caller_sleeps_.store(false, std::memory_order_relaxed);
  }
}

bool ThreadPool::ClaimFront(int owner, int64_t* piece) {
  uint64_t run = runs_[owner].pieces.load(std::memory_order_acquire);
  for (;;) {
    const uint64_t front = run >> 32, back = run & 0xffffffffu;
    if (front >= back) return false;
    if (runs_[owner].pieces.compare_exchange_weak(run, (front + 1) << 32 | back,
                                                  std::memory_order_acq_rel)) {
      *piece = static_cast<int64_t>(front);
      return true;
    }
  }
}

bool ThreadPool::ClaimBack(int owner, int64_t* piece) {
  uint64_t run = runs_[owner].pieces.load(std::memory_order_acquire);
  for (;;) {
    const uint64_t front = run >> 32, back = run & 0xffffffffu;
    if (front >= back) return false;
    if (runs_[owner].pieces.compare_exchange_weak(run, front << 32 | (back - 1),
                                                  std::memory_order_acq_rel)) {
      *piece = static_cast<int64_t>(back - 1);
      return true;
    }
  }
}

void ThreadPool::RunPieces(int index) {
  // job_ and pieces_ are read only after a piece is claimed: a late worker
  // may find the runs of a newer job than the generation it woke for.
  int64_t done = 0;
  auto run_piece = [&](int64_t piece) {
    const Job& job = job_;
    const int64_t begin = piece_starts_[piece], end = piece_starts_[piece + 1];
    const bool stopped = job.control != nullptr && job.control->ShouldStop();
    if (begin < end && !stopped) job.invoke(job.callable, begin, end, index);
    ++done;
  };
  int64_t piece = 0;
  while (ClaimFront(index, &piece)) run_piece(piece);
  // Then help the others, nearest first.
  for (int step = 1; step < num_threads_; ++step) {
    const int victim = (index + step) % num_threads_;
    while (ClaimBack(victim, &piece)) run_piece(piece);
  }
  // The pieces this thread ran are counted off at once: pending_ sits on a
  // line every thread writes, and a decrement per piece passed it between
  // the cores eight times a job at two threads. Counting late delays no
  // job: while a piece of it is uncounted it cannot end, so every piece
  // claimed here belongs to the same job, and this thread claims nothing
  // after its last piece.
  if (done > 0 && pending_.fetch_sub(done, std::memory_order_seq_cst) == done &&
      caller_sleeps_.load(std::memory_order_seq_cst)) {
    { std::lock_guard<std::mutex> lock(mutex_); }
    done_.notify_one();
  }
}

void ThreadPool::WorkerLoop(int index) {
  BindCurrentThread(cores_);
  tls_in_job = true;  // a worker never dispatches to its own pool
  uint64_t seen = 0;
  for (;;) {
    auto has_job = [&] { return generation_.load(std::memory_order_seq_cst) != seen; };
    if (!SpinUntil(has_job)) {
      std::unique_lock<std::mutex> lock(mutex_);
      sleepers_.fetch_add(1, std::memory_order_seq_cst);
      wake_.wait(lock, has_job);
      sleepers_.fetch_sub(1, std::memory_order_relaxed);
    }
    seen = generation_.load(std::memory_order_acquire);
    if (stop_.load(std::memory_order_acquire)) return;
    if (gate_for_test_ != nullptr) gate_for_test_(index);
    RunPieces(index);
  }
}

}  // namespace mace
