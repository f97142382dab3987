// Overflow-checked arithmetic for every size and offset that comes from a
// model, a weights file or an app. A hostile model chooses these numbers, so
// a sum or product that wraps must become an error before it sizes memory.
#ifndef MACE_UTILS_CHECKED_MATH_H_
#define MACE_UTILS_CHECKED_MATH_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace mace {

// The largest byte count the engine will size an arena, image or copy for:
// 2^40 bytes is beyond any device, yet sums of thousands of such values still
// fit in int64. On 32-bit targets it is 1/16 of the address space, as the
// planner's own cap (mace/core/memory/usage_record.h), so it fits in size_t.
constexpr int64_t kMaxByteCount = static_cast<int64_t>(
    std::min<uint64_t>(uint64_t{1} << 40, std::numeric_limits<size_t>::max() / 16));

// a + b into *sum; false (and *sum untouched) when it overflows int64.
inline bool CheckedAdd(int64_t a, int64_t b, int64_t* sum) {
  int64_t result;
  if (__builtin_add_overflow(a, b, &result)) return false;
  *sum = result;
  return true;
}

// a * b into *product; false (and *product untouched) when it overflows.
inline bool CheckedMul(int64_t a, int64_t b, int64_t* product) {
  int64_t result;
  if (__builtin_mul_overflow(a, b, &result)) return false;
  *product = result;
  return true;
}

// The product of `dims` if every dimension is >= 0 and the product is at most
// `limit`, else -1. An empty shape (a scalar) holds one element.
inline int64_t CheckedElementCount(const std::vector<int64_t>& dims, int64_t limit) {
  int64_t count = 1;
  for (int64_t d : dims) {
    if (d < 0 || !CheckedMul(count, d, &count) || count > limit) return -1;
  }
  return count;
}

// True when [offset, offset + size) lies inside [0, capacity), with every
// value non-negative and the end computed without overflow.
inline bool RangeFits(int64_t offset, int64_t size, int64_t capacity) {
  int64_t end;
  return offset >= 0 && size >= 0 && CheckedAdd(offset, size, &end) && end <= capacity;
}

}  // namespace mace

#endif  // MACE_UTILS_CHECKED_MATH_H_
