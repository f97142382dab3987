// Byte moves of the data-movement ops (Split, ChannelShuffle) spread over
// the CPU runtime's threads. ShuffleNet runs one ChannelShuffle and one Split
// per unit; copied on the calling thread alone they left the second thread
// idle for 4-10 us per op at two threads.
#ifndef MACE_OPS_CPU_PARALLEL_COPY_H_
#define MACE_OPS_CPU_PARALLEL_COPY_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "mace/runtimes/cpu/thread_pool.h"

namespace mace {
namespace ops {

// dst[0, bytes) = src[0, bytes), ranges that do not overlap; nothing
// outside either range is read or written. parallel_copy.cc calls memcpy;
// the ARM builds have their own loops (arm/parallel_copy_aarch64.cc,
// arm/parallel_copy_armv7.cc), fewer instructions than glibc's memcpy.
void CopyBytes(void* dst, const void* src, int64_t bytes);

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
  ParallelFor(pool, (units + per - 1) / per,
              [&](int64_t begin, int64_t end) { copy(begin * per, std::min(units, end * per)); });
}

// ChannelShuffle's moves: output plane n * channels + i * group + g (each of
// plane_bytes) is input plane n * channels + g * (channels / group) + i,
// copied in ranges spread over `pool`. The output channels are cut into
// `parts` equal pieces, piece j in outs[j] ([batch, channels / parts]
// planes): a shuffle followed by a Split on channels writes the Split's
// outputs at once instead of copying every plane twice. A range finds its
// first source and destination by division and then steps counters: one
// 64-bit division per plane is a libgcc call on armv7, and on one thread
// those calls cost as much as the copies of ShuffleNet's 7x7 planes.
inline void ShufflePlanes(ThreadPool* pool, int64_t batch, int64_t channels, int64_t group,
                          int64_t plane_bytes, const unsigned char* in, unsigned char* const* outs,
                          int64_t parts) {
  if (channels <= 0 || group <= 0 || parts <= 0 || plane_bytes <= 0) return;
  const int64_t per_group = channels / group, per_part = channels / parts;
  const int64_t group_step = per_group * plane_bytes, image_bytes = channels * plane_bytes;
  const int64_t part_image_bytes = per_part * plane_bytes;
  ParallelCopyUnits(pool, batch * channels, plane_bytes, [&](int64_t begin, int64_t end) {
    int64_t n = begin / channels;
    const int64_t c = begin - n * channels;
    int64_t i = c / group, g = c - i * group;
    int64_t j = c / per_part, k = c - j * per_part;
    const unsigned char* image = in + n * image_bytes;  // input image n
    const unsigned char* from = image + g * group_step + i * plane_bytes;
    unsigned char* to = outs[j] + (n * per_part + k) * plane_bytes;
    for (int64_t u = begin; u < end; ++u) {
      CopyBytes(to, from, plane_bytes);
      to += plane_bytes;
      if (++k == per_part) {
        k = 0;
        if (++j == parts) {
          j = 0;
          ++n;
        }
        to = outs[j] + n * part_image_bytes;
      }
      from += group_step;
      if (++g == group) {
        g = 0;
        if (++i == per_group) {
          i = 0;
          image += image_bytes;
        }
        from = image + i * plane_bytes;
      }
    }
  });
}

// The same into one output of [batch, channels] planes.
inline void ShufflePlanes(ThreadPool* pool, int64_t batch, int64_t channels, int64_t group,
                          int64_t plane_bytes, const unsigned char* in, unsigned char* out) {
  ShufflePlanes(pool, batch, channels, group, plane_bytes, in, &out, 1);
}

// A stream of `outer` rows, each cut into runs of run_bytes[i] bytes that
// belong to buffer i (its row o at o * run_bytes[i]): Split's input.
class RowRuns {
 public:
  RowRuns() = default;
  RowRuns(int64_t outer, std::vector<int64_t> run_bytes)
      : outer_(outer), run_bytes_(std::move(run_bytes)) {
    for (int64_t bytes : run_bytes_) {
      starts_.push_back(row_bytes_);
      row_bytes_ += bytes;
    }
  }

  // Copies the stream to the buffers `places`, in cache-line-aligned parts
  // spread over `pool`. An empty run's buffer is not touched.
  void Scatter(ThreadPool* pool, const unsigned char* stream, unsigned char* const* places) const {
    const int64_t total = outer_ * row_bytes_;
    constexpr int64_t kLine = 64;
    ParallelCopyUnits(pool, (total + kLine - 1) / kLine, kLine, [&](int64_t begin, int64_t end) {
      const int64_t last = std::min(total, end * kLine);
      for (int64_t at = begin * kLine; at < last;) {
        const int64_t o = at / row_bytes_, in_row = at - o * row_bytes_;
        // The run holding in_row: the last one starting at or before it
        // (an empty run starts where the next one does, so it is never it).
        const size_t i =
            std::upper_bound(starts_.begin(), starts_.end(), in_row) - starts_.begin() - 1;
        const int64_t skip = in_row - starts_[i];
        const int64_t n = std::min(last - at, run_bytes_[i] - skip);
        CopyBytes(places[i] + o * run_bytes_[i] + skip, stream + at, n);
        at += n;
      }
    });
  }

 private:
  int64_t outer_ = 0;
  std::vector<int64_t> run_bytes_;
  std::vector<int64_t> starts_;  // of each run in a row
  int64_t row_bytes_ = 0;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_PARALLEL_COPY_H_
