#include "mace/ops/ref/gather.h"

#include <algorithm>
#include <cstring>

namespace mace {
namespace ops {
namespace ref {
namespace {

float Combine(ScatterReduction reduction, float old_value, float update) {
  switch (reduction) {
    case ScatterReduction::NONE:
      return update;
    case ScatterReduction::ADD:
      return old_value + update;
    case ScatterReduction::MUL:
      return old_value * update;
    case ScatterReduction::MAX:
      return std::max(old_value, update);
    case ScatterReduction::MIN:
      return std::min(old_value, update);
  }
  return update;
}

int64_t Count(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// Calls f(p, data_offset) for every position p of the index tensor, where
// data_offset is the row-major offset in data of p with coordinate `axis`
// replaced by indices[p].
template <typename F>
void ForEachElement(const ElementsParams& p, const int64_t* indices, F f) {
  const int rank = static_cast<int>(p.index_shape.size());
  std::vector<int64_t> data_strides(rank, 1);
  for (int d = rank - 2; d >= 0; --d) data_strides[d] = data_strides[d + 1] * p.data_shape[d + 1];
  std::vector<int64_t> coords(rank, 0);
  const int64_t count = Count(p.index_shape);
  for (int64_t i = 0; i < count; ++i) {
    int64_t offset = 0;
    for (int d = 0; d < rank; ++d) {
      offset += (d == p.axis ? indices[i] : coords[d]) * data_strides[d];
    }
    f(i, offset);
    for (int d = rank - 1; d >= 0; --d) {
      if (++coords[d] < p.index_shape[d]) break;
      coords[d] = 0;
    }
  }
}

// The offset, inside its batch's data block, of the slice index tuple t
// addresses.
int64_t NdOffset(const NdParams& p, const int64_t* tuple) {
  int64_t offset = 0;
  for (int64_t k = 0; k < p.depth; ++k) offset = offset * p.dims[k] + tuple[k];
  return offset * p.slice;
}

}  // namespace

void Gather(const GatherParams& p, const float* data, const int64_t* indices, float* output) {
  for (int64_t o = 0; o < p.outer; ++o) {
    for (int64_t j = 0; j < p.count; ++j) {
      std::memcpy(output + (o * p.count + j) * p.inner,
                  data + (o * p.axis_size + indices[j]) * p.inner, sizeof(float) * p.inner);
    }
  }
}

void GatherElements(const ElementsParams& p, const float* data, const int64_t* indices,
                    float* output) {
  ForEachElement(p, indices, [&](int64_t i, int64_t offset) { output[i] = data[offset]; });
}

void ScatterElements(const ElementsParams& p, const float* data, const int64_t* indices,
                     const float* updates, float* output) {
  std::memcpy(output, data, sizeof(float) * Count(p.data_shape));
  ForEachElement(p, indices, [&](int64_t i, int64_t offset) {
    output[offset] = Combine(p.reduction, output[offset], updates[i]);
  });
}

void GatherNd(const NdParams& p, const float* data, const int64_t* indices, float* output) {
  for (int64_t b = 0; b < p.batch; ++b) {
    for (int64_t t = 0; t < p.tuples; ++t) {
      const int64_t* tuple = indices + (b * p.tuples + t) * p.depth;
      std::memcpy(output + (b * p.tuples + t) * p.slice, data + b * p.block + NdOffset(p, tuple),
                  sizeof(float) * p.slice);
    }
  }
}

void ScatterNd(const NdParams& p, const float* data, const int64_t* indices, const float* updates,
               float* output) {
  std::memcpy(output, data, sizeof(float) * p.batch * p.block);
  for (int64_t b = 0; b < p.batch; ++b) {
    for (int64_t t = 0; t < p.tuples; ++t) {
      const int64_t* tuple = indices + (b * p.tuples + t) * p.depth;
      float* dst = output + b * p.block + NdOffset(p, tuple);
      const float* src = updates + (b * p.tuples + t) * p.slice;
      for (int64_t s = 0; s < p.slice; ++s) dst[s] = Combine(p.reduction, dst[s], src[s]);
    }
  }
}

}  // namespace ref
}  // namespace ops
}  // namespace mace
