// Byte moves of the data-movement ops (Split, ChannelShuffle) spread over
// the CPU runtime's threads. ShuffleNet runs one ChannelShuffle and one Split
// per unit; copied on the calling thread alone they left the second thread
// idle for 4-10 us per op at two threads.
#ifndef MACE_OPS_CPU_PARALLEL_COPY_H_
#define MACE_OPS_CPU_PARALLEL_COPY_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "mace/runtimes/cpu/thread_pool.h"

namespace mace {
namespace ops {

// A thread copies at least this much: handing a worker a few cached KiB
// costs more than copying them.
constexpr int64_t kMinParallelCopyBytes = 16 * 1024;

// Calls copy(begin, end) for ranges that together cover [0, units) once,
// each (but the last) at least kMinParallelCopyBytes when a unit holds
// `unit_bytes`, spread over `pool` (null: one call on the caller).
template <typename Fn>
void ParallelCopyUnits(ThreadPool* pool, int64_t units, int64_t unit_bytes, Fn&& copy) {
  if (units <= 0) return;
  const int64_t per =
      std::max<int64_t>(1, kMinParallelCopyBytes / std::max<int64_t>(unit_bytes, 1));
  ParallelFor(pool, (units + per - 1) / per, [&](int64_t begin, int64_t end) {
    copy(begin * per, std::min(units, end * per));
  });
}

// One run of a contiguous byte stream: `bytes` bytes from stream offset
// `offset`, which belong at byte `place_offset` of buffer `place`.
struct StreamSegment {
  int64_t offset = 0;
  int64_t bytes = 0;
  int place = 0;
  int64_t place_offset = 0;
};

// The segments of a stream cut, for each of `outer` rows, into runs of
// run_bytes[i] bytes that go to buffer i (its row o at o * run_bytes[i]):
// Split's input and Concat's output. Empty runs make no segment.
inline std::vector<StreamSegment> RowRunSegments(int64_t outer,
                                                 const std::vector<int64_t>& run_bytes) {
  std::vector<StreamSegment> segments;
  int64_t offset = 0;
  for (int64_t o = 0; o < outer; ++o) {
    for (size_t i = 0; i < run_bytes.size(); ++i) {
      if (run_bytes[i] == 0) continue;
      segments.push_back({offset, run_bytes[i], static_cast<int>(i), o * run_bytes[i]});
      offset += run_bytes[i];
    }
  }
  return segments;
}

// Copies the stream `stream` (the segments back to back, ordered by offset)
// to the buffers `places`, in cache-line-aligned parts of the stream spread
// over `pool`.
inline void ScatterStream(ThreadPool* pool, const unsigned char* stream,
                          const std::vector<StreamSegment>& segments,
                          unsigned char* const* places) {
  if (segments.empty()) return;
  const int64_t total = segments.back().offset + segments.back().bytes;
  constexpr int64_t kLine = 64;
  ParallelCopyUnits(pool, (total + kLine - 1) / kLine, kLine, [&](int64_t begin, int64_t end) {
    const int64_t first = begin * kLine, last = std::min(total, end * kLine);
    // The segment holding `first`: the last one starting at or before it.
    auto it = std::upper_bound(
        segments.begin(), segments.end(), first,
        [](int64_t value, const StreamSegment& s) { return value < s.offset; });
    for (--it; it != segments.end() && it->offset < last; ++it) {
      const int64_t from = std::max(first, it->offset);
      const int64_t to = std::min(last, it->offset + it->bytes);
      if (from >= to) continue;
      std::memcpy(places[it->place] + it->place_offset + (from - it->offset), stream + from,
                  to - from);
    }
  });
}

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_PARALLEL_COPY_H_
