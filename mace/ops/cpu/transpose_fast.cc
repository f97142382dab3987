#include "mace/ops/cpu/transpose_fast.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace mace {
namespace ops {
namespace {

// One output dimension: its extent and the input elements one step along it
// moves over.
struct Axis {
  int64_t extent;
  int64_t stride;
};

// The output dimensions with extent-1 ones dropped and neighbours merged
// where the outer one steps over exactly the whole inner one in the input.
std::vector<Axis> Simplify(const ref::TransposeParams& p) {
  const int rank = static_cast<int>(p.perm.size());
  std::vector<int64_t> input_stride(rank, 1);
  for (int d = rank - 2; d >= 0; --d) input_stride[d] = input_stride[d + 1] * p.input_shape[d + 1];
  std::vector<Axis> axes;
  for (int d = 0; d < rank; ++d) {
    const int64_t axis = p.perm[d];
    const Axis next{p.input_shape[axis], input_stride[axis]};
    if (next.extent == 1) continue;
    if (!axes.empty() && axes.back().stride == next.extent * next.stride) {
      axes.back().extent *= next.extent;
      axes.back().stride = next.stride;
    } else {
      axes.push_back(next);
    }
  }
  return axes;
}

// Walks the output index over `axes` (the outer dimensions of a loop) from
// a flat position, keeping the input offset in step.
class Odometer {
 public:
  Odometer(const std::vector<Axis>& axes, int64_t flat) : axes_(axes), index_(axes.size(), 0) {
    for (int d = static_cast<int>(axes_.size()) - 1; d >= 0; --d) {
      index_[d] = flat % axes_[d].extent;
      flat /= axes_[d].extent;
      offset_ += index_[d] * axes_[d].stride;
    }
  }
  int64_t offset() const { return offset_; }
  void Next() {
    for (int d = static_cast<int>(axes_.size()) - 1; d >= 0; --d) {
      offset_ += axes_[d].stride;
      if (++index_[d] < axes_[d].extent) return;
      offset_ -= axes_[d].stride * axes_[d].extent;
      index_[d] = 0;
    }
  }

 private:
  const std::vector<Axis>& axes_;
  std::vector<int64_t> index_;
  int64_t offset_ = 0;
};

// Elements moved per piece of the pool's work.
constexpr int64_t kParallelElements = int64_t{1} << 14;
constexpr int64_t kTile = 16;

int64_t Product(const std::vector<Axis>& axes) {
  int64_t n = 1;
  for (const Axis& a : axes) n *= a.extent;
  return n;
}

// Splits `units` of `unit_elements` each over the pool when there is enough
// work.
template <typename Fn>
void Split(ThreadPool* pool, int64_t units, int64_t unit_elements, Fn&& fn) {
  const bool parallel = pool != nullptr && units > 1 && units * unit_elements >= 2 * kParallelElements;
  ParallelFor(parallel ? pool : nullptr, units, fn);
}

// out[r][c] = in[r + c * column_stride] for r < rows, c < columns (rows of
// the output are input-contiguous), in kTile blocks.
template <typename T>
void TileCopy(const T* in, T* out, int64_t rows, int64_t columns, int64_t column_stride) {
  for (int64_t r0 = 0; r0 < rows; r0 += kTile) {
    const int64_t r1 = std::min(rows, r0 + kTile);
    for (int64_t c0 = 0; c0 < columns; c0 += kTile) {
      const int64_t c1 = std::min(columns, c0 + kTile);
      for (int64_t r = r0; r < r1; ++r) {
        const T* source = in + r;
        T* target = out + r * columns;
        for (int64_t c = c0; c < c1; ++c) target[c] = source[c * column_stride];
      }
    }
  }
}

template <typename T>
void StridedCopy(const T* in, T* out, int64_t count, int64_t stride) {
  for (int64_t i = 0; i < count; ++i) out[i] = in[i * stride];
}

template <typename T>
void Move(const std::vector<Axis>& axes, const unsigned char* input, unsigned char* output,
          ThreadPool* pool) {
  const T* in = reinterpret_cast<const T*>(input);
  T* out = reinterpret_cast<T*>(output);
  const int n = static_cast<int>(axes.size());
  const Axis inner = axes[n - 1];
  if (inner.stride == 1) {
    // Rows contiguous on both sides.
    const std::vector<Axis> outer(axes.begin(), axes.end() - 1);
    const int64_t rows = Product(outer);
    Split(pool, rows, inner.extent, [&](int64_t begin, int64_t end) {
      Odometer at(outer, begin);
      for (int64_t row = begin; row < end; ++row, at.Next()) {
        std::memcpy(out + row * inner.extent, in + at.offset(), inner.extent * sizeof(T));
      }
    });
    return;
  }
  if (n >= 2 && axes[n - 2].stride == 1) {
    // The last two output dimensions are a transposed matrix.
    const Axis rows = axes[n - 2];
    const std::vector<Axis> outer(axes.begin(), axes.end() - 2);
    const int64_t matrices = Product(outer);
    const int64_t size = rows.extent * inner.extent;
    if (matrices >= 2 || pool == nullptr) {
      Split(pool, matrices, size, [&](int64_t begin, int64_t end) {
        Odometer at(outer, begin);
        for (int64_t m = begin; m < end; ++m, at.Next()) {
          TileCopy(in + at.offset(), out + m * size, rows.extent, inner.extent, inner.stride);
        }
      });
    } else {
      // One matrix: split it by bands of output rows.
      const int64_t bands = (rows.extent + kTile - 1) / kTile;
      Split(pool, bands, kTile * inner.extent, [&](int64_t begin, int64_t end) {
        const int64_t r0 = begin * kTile, r1 = std::min(rows.extent, end * kTile);
        TileCopy(in + r0, out + r0 * inner.extent, r1 - r0, inner.extent, inner.stride);
      });
    }
    return;
  }
  const std::vector<Axis> outer(axes.begin(), axes.end() - 1);
  const int64_t rows = Product(outer);
  Split(pool, rows, inner.extent, [&](int64_t begin, int64_t end) {
    Odometer at(outer, begin);
    for (int64_t row = begin; row < end; ++row, at.Next()) {
      StridedCopy(in + at.offset(), out + row * inner.extent, inner.extent, inner.stride);
    }
  });
}

}  // namespace

void TransposeFast(const ref::TransposeParams& p, const void* input, void* output,
                   ThreadPool* pool) {
  int64_t count = 1;
  for (int64_t d : p.input_shape) count *= d;
  if (count == 0) return;
  const unsigned char* in = static_cast<const unsigned char*>(input);
  unsigned char* out = static_cast<unsigned char*>(output);
  std::vector<Axis> axes = Simplify(p);
  if (axes.empty()) axes.push_back({1, 1});  // one element
  switch (p.element_size) {
    case 1: return Move<uint8_t>(axes, in, out, pool);
    case 2: return Move<uint16_t>(axes, in, out, pool);
    case 4: return Move<uint32_t>(axes, in, out, pool);
    case 8: return Move<uint64_t>(axes, in, out, pool);
    default: break;
  }
  // Other sizes: bytes, each element one more (contiguous) dimension.
  for (Axis& axis : axes) axis.stride *= p.element_size;
  axes.push_back({p.element_size, 1});
  Move<uint8_t>(axes, in, out, pool);
}

}  // namespace ops
}  // namespace mace
