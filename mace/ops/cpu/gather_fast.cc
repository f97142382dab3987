#include "mace/ops/cpu/gather_fast.h"

#include <cstring>

namespace mace {
namespace ops {
namespace {

// Below this many floats the copy is not worth waking the pool.
constexpr int64_t kParallelFloats = int64_t{1} << 14;

// Rows of one value (a gather along the last axis) are plain loads and
// stores, about 3x faster than a memcpy call each; longer rows are one
// memcpy each, which beat a plain loop already at 8 values.
template <bool kScalar>
void CopyRows(const ref::GatherParams& p, const float* data, const int64_t* indices,
              float* output, int64_t begin, int64_t end) {
  // Locals, not p's fields: the stores through dst could alias them.
  const int64_t inner = p.inner, count = p.count;
  const int64_t o_begin = begin / count;
  int64_t j = begin - o_begin * count;
  const float* block = data + o_begin * p.axis_size * inner;
  const int64_t block_step = p.axis_size * inner;
  float* dst = output + begin * inner;
  for (int64_t r = begin; r < end; ++r) {
    const float* src = block + indices[j] * inner;
    if (kScalar) {
      *dst = *src;
    } else {
      std::memcpy(dst, src, sizeof(float) * inner);
    }
    dst += inner;
    if (++j == count) {
      j = 0;
      block += block_step;
    }
  }
}

}  // namespace

void GatherFast(const ref::GatherParams& p, const float* data, const int64_t* indices,
                float* output, ThreadPool* pool) {
  const int64_t rows = p.outer * p.count;
  if (rows <= 0 || p.inner <= 0) return;
  ThreadPool* use = rows * p.inner >= kParallelFloats ? pool : nullptr;
  if (p.inner > 1 && NumThreads(use) == 1) {
    // On one thread the reference's nested loops copy rows of 2-16 values
    // about 1.2x faster than the chunked walk below.
    ref::Gather(p, data, indices, output);
    return;
  }
  ParallelFor(use, rows, [&](int64_t begin, int64_t end) {
    if (p.inner == 1) {
      CopyRows<true>(p, data, indices, output, begin, end);
    } else {
      CopyRows<false>(p, data, indices, output, begin, end);
    }
  });
}

}  // namespace ops
}  // namespace mace
