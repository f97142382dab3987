// Inputs and outputs of the memory planners: tensor lifetimes in, shared
// objects or byte offsets out. Plain data, no behaviour.
#ifndef MACE_CORE_MEMORY_USAGE_RECORD_H_
#define MACE_CORE_MEMORY_USAGE_RECORD_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace mace {
namespace memory {

// Op index. Lifetimes are inclusive: a tensor is live from `first` through
// `last`, so two tensors that touch at an endpoint are both live there.
using TaskId = int64_t;

// Marks an object id or distance that has not been decided.
constexpr size_t kNotAssigned = std::numeric_limits<size_t>::max();

// Inputs are validated against these limits so that every sum the planners
// form (a few million records at most) stays far from overflow.
// On 32-bit targets (armeabi-v7a) a tensor is also capped at 1/16 of the
// address space, so sums over many tensors still fit in size_t.
constexpr size_t kMaxTensorSize = static_cast<size_t>(
    std::min<uint64_t>(uint64_t{1} << 40, std::numeric_limits<size_t>::max() / 16));
constexpr size_t kMaxImageExtent = size_t{1} << 20;
constexpr TaskId kMaxTask = TaskId{1} << 40;
constexpr size_t kMaxAlignment = size_t{1} << 30;

struct UsageRecord {
  size_t size = 0;  // bytes
  TaskId first = 0;
  TaskId last = 0;
};

// A 2D GPU image (e.g. an OpenCL image2d): it is only reusable by a tensor it
// covers in both dimensions, so it cannot be flattened to a byte count.
struct ImageSize {
  size_t width = 0;
  size_t height = 0;
  size_t area() const { return width * height; }
  bool operator==(const ImageSize& other) const {
    return width == other.width && height == other.height;
  }
};

struct ImageUsageRecord {
  ImageSize size;
  TaskId first = 0;
  TaskId last = 0;
};

// object_ids[i] is the shared object tensor i uses; object_sizes[k] is the
// size of object k.
struct ObjectsAssignment {
  std::vector<size_t> object_ids;
  std::vector<size_t> object_sizes;
};

struct ImageObjectsAssignment {
  std::vector<size_t> object_ids;
  std::vector<ImageSize> object_sizes;
};

// offsets[i] is tensor i's byte offset inside one arena of total_size bytes.
struct OffsetsAssignment {
  std::vector<size_t> offsets;
  size_t total_size = 0;
};

inline size_t AlignUp(size_t value, size_t alignment) {
  // Planners call this in their inner loops; skip the division when the
  // alignment is a power of two, as it nearly always is.
  if ((alignment & (alignment - 1)) == 0) return (value + alignment - 1) & ~(alignment - 1);
  return (value + alignment - 1) / alignment * alignment;
}

}  // namespace memory
}  // namespace mace

#endif  // MACE_CORE_MEMORY_USAGE_RECORD_H_
