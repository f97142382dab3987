// Splitting a row into its even and odd columns, for convolutions at
// horizontal stride 2: a tap's inputs for consecutive outputs are then
// consecutive, so they are read as whole vectors instead of gathered.
#ifndef MACE_OPS_CPU_CONV_2D_SPLIT_COLUMNS_H_
#define MACE_OPS_CPU_CONV_2D_SPLIT_COLUMNS_H_

#include <cstdint>
#include <cstring>

namespace mace {
namespace ops {

// even[i] = src[2 i] for i < even_count and odd[i] = src[2 i + 1] for
// i < odd_count; the counts must not reach past the row.
inline void SplitRowColumns(const float* src, float* even, int64_t even_count, float* odd,
                            int64_t odd_count) {
  typedef float Float4 __attribute__((vector_size(4 * sizeof(float))));
  const int64_t both = even_count < odd_count ? even_count : odd_count;
  int64_t x = 0;
  // Four pairs at a time with the compiler's generic vectors: SSE shuffles
  // on x86, NEON unzips on ARM, in baseline-compiled code.
  for (; x + 4 <= both; x += 4) {
    Float4 lo, hi;
    std::memcpy(&lo, src + 2 * x, sizeof(lo));
    std::memcpy(&hi, src + 2 * x + 4, sizeof(hi));
    const Float4 evens = __builtin_shufflevector(lo, hi, 0, 2, 4, 6);
    const Float4 odds = __builtin_shufflevector(lo, hi, 1, 3, 5, 7);
    std::memcpy(even + x, &evens, sizeof(evens));
    std::memcpy(odd + x, &odds, sizeof(odds));
  }
  for (int64_t i = x; i < even_count; ++i) even[i] = src[2 * i];
  for (int64_t i = x; i < odd_count; ++i) odd[i] = src[2 * i + 1];
}

// The same for halves (16-bit patterns, copied as they are).
inline void SplitRowColumns(const uint16_t* src, uint16_t* even, int64_t even_count,
                            uint16_t* odd, int64_t odd_count) {
  for (int64_t i = 0; i < even_count; ++i) even[i] = src[2 * i];
  for (int64_t i = 0; i < odd_count; ++i) odd[i] = src[2 * i + 1];
}

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_CONV_2D_SPLIT_COLUMNS_H_
