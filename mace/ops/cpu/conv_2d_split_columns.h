// Splitting a row into its even and odd columns, for convolutions at
// horizontal stride 2: a tap's inputs for consecutive outputs are then
// consecutive, so they are read as whole vectors instead of gathered.
#ifndef MACE_OPS_CPU_CONV_2D_SPLIT_COLUMNS_H_
#define MACE_OPS_CPU_CONV_2D_SPLIT_COLUMNS_H_

#include <cstdint>
#include <cstring>
#include <utility>

namespace mace {
namespace ops {

// Pairs [x, both) of src as whole vectors of kLanes, with the compiler's
// generic vectors (SSE shuffles on x86, NEON unzips on ARM, in
// baseline-compiled code): even[i] = src[2 i], odd[i] = src[2 i + 1].
// Returns the first pair not split.
template <typename T, int kLanes, size_t... kI>
inline int64_t SplitPairs(const T* src, T* even, T* odd, int64_t x, int64_t both,
                          std::index_sequence<kI...>) {
  typedef T Vector __attribute__((vector_size(kLanes * sizeof(T))));
  for (; x + kLanes <= both; x += kLanes) {
    Vector lo, hi;
    std::memcpy(&lo, src + 2 * x, sizeof(lo));
    std::memcpy(&hi, src + 2 * x + kLanes, sizeof(hi));
    const Vector evens = __builtin_shufflevector(lo, hi, (2 * kI)...);
    const Vector odds = __builtin_shufflevector(lo, hi, (2 * kI + 1)...);
    std::memcpy(even + x, &evens, sizeof(evens));
    std::memcpy(odd + x, &odds, sizeof(odds));
  }
  return x;
}
template <typename T, int kLanes>
inline int64_t SplitPairs(const T* src, T* even, T* odd, int64_t x, int64_t both) {
  return SplitPairs<T, kLanes>(src, even, odd, x, both, std::make_index_sequence<kLanes>());
}

// The columns from x on, value by value.
template <typename T>
inline void SplitTail(const T* src, T* even, int64_t even_count, T* odd, int64_t odd_count,
                      int64_t x) {
  for (int64_t i = x; i < even_count; ++i) even[i] = src[2 * i];
  for (int64_t i = x; i < odd_count; ++i) odd[i] = src[2 * i + 1];
}

// even[i] = src[2 i] for i < even_count and odd[i] = src[2 i + 1] for
// i < odd_count; the counts must not reach past the row. Whole vectors of
// four pairs, then the tail (conv_2d_split_columns.cc); arm64 has its own
// (arm/conv_2d_split_columns_aarch64.cc).
void SplitRowColumns(const float* src, float* even, int64_t even_count, float* odd,
                     int64_t odd_count);

// The same for halves (16-bit patterns, copied as they are): eight pairs
// at a time, then four. Value by value, the fp16 im2col's fill of its
// padded image took 9 instructions a half on arm64 (2.4 % of ResNet-18's
// fp16 count).
inline void SplitRowColumns(const uint16_t* src, uint16_t* even, int64_t even_count, uint16_t* odd,
                            int64_t odd_count) {
  const int64_t both = even_count < odd_count ? even_count : odd_count;
  int64_t x = SplitPairs<uint16_t, 8>(src, even, odd, 0, both);
  x = SplitPairs<uint16_t, 4>(src, even, odd, x, both);
  SplitTail(src, even, even_count, odd, odd_count, x);
}

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_CONV_2D_SPLIT_COLUMNS_H_
