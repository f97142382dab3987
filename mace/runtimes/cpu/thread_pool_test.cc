#include "mace/runtimes/cpu/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "mace/runtimes/cpu/cpu_topology.h"

namespace mace {
namespace {

TEST(ThreadPoolTest, ChunkRangeCoversEverythingOnce) {
  for (int64_t count : {0, 1, 2, 3, 7, 64, 1001}) {
    for (int chunks : {1, 2, 3, 4, 8}) {
      int64_t expected_begin = 0;
      for (int chunk = 0; chunk < chunks; ++chunk) {
        int64_t begin = 0, end = 0;
        ThreadPool::ChunkRange(count, chunks, chunk, &begin, &end);
        EXPECT_EQ(begin, expected_begin);
        EXPECT_LE(end - begin, count / chunks + 1);
        EXPECT_GE(end - begin, count / chunks);
        expected_begin = end;
      }
      EXPECT_EQ(expected_begin, count);
    }
  }
}

// ParallelFor's pieces: in order, none empty, each thread's run of them
// covering its ChunkRange share of the items (so shares differ by at most
// one item), at most kPiecesPerThread (4) per thread.
TEST(ThreadPoolTest, PiecesSplitItemsEvenlyOverThreads) {
  for (int threads : {1, 2, 3, 4, 8}) {
    for (int64_t count : {1, 2, 3, 5, 7, 8, 9, 14, 15, 22, 33, 100, 4097}) {
      const int64_t pieces = ThreadPool::PieceCount(count, threads);
      ASSERT_EQ(pieces, std::min<int64_t>(count, 4 * threads));
      std::vector<int64_t> starts(pieces + 1, -1);
      ThreadPool::PieceStarts(count, threads, starts.data());
      ASSERT_EQ(starts[0], 0);
      ASSERT_EQ(starts[pieces], count);
      for (int t = 0; t < threads; ++t) {
        int64_t first = 0, last = 0, share_begin = 0, share_end = 0;
        ThreadPool::OwnedPieces(pieces, threads, t, &first, &last);
        ThreadPool::ChunkRange(count, threads, t, &share_begin, &share_end);
        ASSERT_LE(last - first, 4);
        if (first == last) continue;  // fewer items than threads
        ASSERT_EQ(starts[first], share_begin) << threads << " threads, " << count << " items";
        ASSERT_EQ(starts[last], share_end) << threads << " threads, " << count << " items";
        for (int64_t piece = first; piece < last; ++piece) {
          ASSERT_LT(starts[piece], starts[piece + 1])
              << threads << " threads, " << count << " items, piece " << piece;
        }
      }
    }
  }
  // Cut first into eight pieces of 2 and 1 items, 14 items went 8 to the
  // first thread's four pieces and 6 to the second's.
  int64_t starts[9], first = 0, last = 0;
  ThreadPool::PieceStarts(14, 2, starts);
  ThreadPool::OwnedPieces(8, 2, 1, &first, &last);
  EXPECT_EQ(starts[first], 7);
}

TEST(ThreadPoolTest, EveryIndexRunsExactlyOnce) {
  for (int threads : {1, 2, 3, 4}) {
    ThreadPool pool(threads);
    for (int64_t count : {0, 1, 2, 3, 5, 100, 4097}) {
      std::vector<std::atomic<int>> hits(count);
      pool.ParallelFor(count, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) hits[i].fetch_add(1);
      });
      for (int64_t i = 0; i < count; ++i) ASSERT_EQ(hits[i].load(), 1) << threads << " " << i;
    }
  }
}

// `chunk` names the thread running a piece: 0 is the caller, and each index
// is always the same thread, so it can index per-thread scratch.
TEST(ThreadPoolTest, ChunkIndexIsStablePerThread) {
  ThreadPool pool(3);
  std::mutex mutex;
  std::map<int, std::thread::id> owner;
  for (int round = 0; round < 50; ++round) {
    pool.ParallelFor(30, [&](int64_t, int64_t, int chunk) {
      ASSERT_GE(chunk, 0);
      ASSERT_LT(chunk, 3);
      std::lock_guard<std::mutex> lock(mutex);
      auto found = owner.emplace(chunk, std::this_thread::get_id()).first;
      EXPECT_EQ(found->second, std::this_thread::get_id()) << "chunk " << chunk;
    });
  }
  ASSERT_TRUE(owner.count(0));
  EXPECT_EQ(owner[0], std::this_thread::get_id());  // chunk 0 is the caller
  std::set<std::thread::id> distinct;
  for (const auto& entry : owner) distinct.insert(entry.second);
  EXPECT_EQ(distinct.size(), owner.size());
}

// Pieces of a thread that stalls are taken over by the others rather than
// waited for. The caller sleeps in its first piece; the worker then finishes
// its own run and steals the caller's remaining pieces.
TEST(ThreadPoolTest, IdleThreadsStealFromASlowOne) {
  ThreadPool pool(2);
  std::atomic<int64_t> by_worker{0};
  std::atomic<bool> slept{false};
  const std::thread::id caller = std::this_thread::get_id();
  pool.ParallelFor(8, [&](int64_t begin, int64_t end) {
    if (std::this_thread::get_id() == caller) {
      if (!slept.exchange(true)) std::this_thread::sleep_for(std::chrono::milliseconds(200));
    } else {
      by_worker.fetch_add(end - begin);
    }
  });
  // Without stealing the worker would do its own 4 items only.
  EXPECT_GE(by_worker.load(), 6);
}

// A worker the OS does not schedule (held at the gate here) must not hold
// up jobs whose pieces the caller has all done: the caller steals them and
// returns. Before the pool counted pieces, the first job waited for the
// held worker forever.
std::atomic<bool> g_release_worker{false};
std::atomic<int> g_held{0};
void HoldWorker(int) {
  if (g_release_worker.load()) return;
  g_held.fetch_add(1);
  while (!g_release_worker.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

TEST(ThreadPoolTest, JobsFinishWhileAWorkerIsDescheduled) {
  ThreadPool pool(3);
  pool.SetWorkerGateForTest(HoldWorker);
  std::vector<std::atomic<int>> hits(97);
  auto job = [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) hits[i].fetch_add(1);
  };
  // The first job wakes both workers, which stop at the gate.
  pool.ParallelFor(97, job);
  for (int wait = 0; wait < 10000 && g_held.load() < 2; ++wait) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_EQ(g_held.load(), 2);
  // Every later job runs while both workers are held.
  for (int round = 1; round < 50; ++round) pool.ParallelFor(97, job);
  for (const auto& h : hits) EXPECT_EQ(h.load(), 50);
  g_release_worker.store(true);
  // The released workers find the runs of later jobs and take part again.
  std::atomic<int64_t> total{0};
  for (int round = 0; round < 500; ++round) {
    pool.ParallelFor(16, [&](int64_t begin, int64_t end) { total.fetch_add(end - begin); });
  }
  EXPECT_EQ(total.load(), 500 * 16);
}

TEST(ThreadPoolTest, ManyShortJobsAndSleepingWorkers) {
  ThreadPool pool(2);
  std::atomic<int64_t> total{0};
  for (int round = 0; round < 2000; ++round) {
    pool.ParallelFor(8, [&](int64_t begin, int64_t end) { total.fetch_add(end - begin); });
    // Now and then let the workers fall asleep so the wake-up path runs too.
    if (round % 500 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(total.load(), 2000 * 8);
}

TEST(ThreadPoolTest, NestedCallsRunInline) {
  ThreadPool pool(2);
  std::atomic<int> inner{0};
  pool.ParallelFor(2, [&](int64_t, int64_t) {
    pool.ParallelFor(10, [&](int64_t begin, int64_t end) { inner.fetch_add(end - begin); });
  });
  EXPECT_EQ(inner.load(), 20);
}

TEST(ThreadPoolTest, ConcurrentCallersDoNotDeadlock) {
  ThreadPool pool(2);
  std::atomic<int64_t> total{0};
  auto work = [&] {
    for (int i = 0; i < 300; ++i) {
      pool.ParallelFor(16, [&](int64_t begin, int64_t end) { total.fetch_add(end - begin); });
    }
  };
  std::thread other(work);
  work();
  other.join();
  EXPECT_EQ(total.load(), 2 * 300 * 16);
}

TEST(ThreadPoolTest, NullPoolRunsSerially) {
  int calls = 0;
  ParallelFor(nullptr, 10, [&](int64_t begin, int64_t end, int chunk) {
    EXPECT_EQ(begin, 0);
    EXPECT_EQ(end, 10);
    EXPECT_EQ(chunk, 0);
    ++calls;
  });
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(NumThreads(nullptr), 1);
}

TEST(CpuTopologyTest, BigAndLittleFromFrequencies) {
  const std::vector<CoreInfo> phone = {{0, 1800000}, {1, 1800000}, {2, 1800000}, {3, 1800000},
                                       {4, 2400000}, {5, 2400000}, {6, 2400000}, {7, 3000000}};
  EXPECT_EQ(SelectCores(phone, CPUAffinityPolicy::AFFINITY_NONE),
            (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(SelectCores(phone, CPUAffinityPolicy::AFFINITY_BIG_ONLY),
            (std::vector<int>{4, 5, 6, 7}));
  EXPECT_EQ(SelectCores(phone, CPUAffinityPolicy::AFFINITY_LITTLE_ONLY),
            (std::vector<int>{0, 1, 2, 3}));
}

TEST(CpuTopologyTest, UnknownOrEqualFrequenciesMeanOneKind) {
  const std::vector<CoreInfo> unknown = {{0, 0}, {1, 2000000}};
  const std::vector<CoreInfo> equal = {{2, 2000000}, {3, 2000000}};
  for (auto policy :
       {CPUAffinityPolicy::AFFINITY_BIG_ONLY, CPUAffinityPolicy::AFFINITY_LITTLE_ONLY}) {
    EXPECT_EQ(SelectCores(unknown, policy), (std::vector<int>{0, 1}));
    EXPECT_EQ(SelectCores(equal, policy), (std::vector<int>{2, 3}));
  }
}

TEST(CpuTopologyTest, CreateHonoursHintAndPolicy) {
  const int cores = static_cast<int>(ReadCoreInfo().size());
  ASSERT_GE(cores, 1);
  EXPECT_EQ(ThreadPool::Create(-1, CPUAffinityPolicy::AFFINITY_NONE)->num_threads(), cores);
  EXPECT_EQ(ThreadPool::Create(0, CPUAffinityPolicy::AFFINITY_NONE)->num_threads(), cores);
  EXPECT_EQ(ThreadPool::Create(1, CPUAffinityPolicy::AFFINITY_NONE)->num_threads(), 1);
  EXPECT_EQ(ThreadPool::Create(1000, CPUAffinityPolicy::AFFINITY_NONE)->num_threads(), cores);
  EXPECT_TRUE(ThreadPool::Create(-1, CPUAffinityPolicy::AFFINITY_NONE)->cores().empty());
  for (auto policy :
       {CPUAffinityPolicy::AFFINITY_BIG_ONLY, CPUAffinityPolicy::AFFINITY_LITTLE_ONLY}) {
    auto pool = ThreadPool::Create(-1, policy);
    EXPECT_GE(pool->num_threads(), 1);
    EXPECT_EQ(static_cast<int>(pool->cores().size()) >= pool->num_threads(), true);
    std::atomic<int> ran{0};
    pool->ParallelFor(4, [&](int64_t begin, int64_t end) { ran.fetch_add(end - begin); });
    EXPECT_EQ(ran.load(), 4);
  }
}

}  // namespace
}  // namespace mace
