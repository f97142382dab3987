// Reference kernels of the indexing ops (mace/ops/gather.h). Indices arrive
// already checked and made non-negative.
#ifndef MACE_OPS_REF_GATHER_H_
#define MACE_OPS_REF_GATHER_H_

#include <cstdint>
#include <vector>

namespace mace {
namespace ops {
namespace ref {

enum class ScatterReduction { NONE, ADD, MUL, MAX, MIN };

// Gather along one axis: data viewed as [outer, axis_size, inner], output as
// [outer, count, inner] with output[o, j, i] = data[o, indices[j], i].
struct GatherParams {
  int64_t outer = 0, axis_size = 0, inner = 0, count = 0;
};
void Gather(const GatherParams& params, const float* data, const int64_t* indices, float* output);

// GatherElements: output has the indices' shape (same rank as data), and
// output[p] = data[p with coordinate `axis` replaced by indices[p]].
// ScatterElements is the converse: output starts as a copy of data, then
// output[p with coordinate `axis` replaced by indices[p]] is combined with
// updates[p] (replaced, or reduced), in row-major order of p.
struct ElementsParams {
  std::vector<int64_t> data_shape, index_shape;
  int axis = 0;
  ScatterReduction reduction = ScatterReduction::NONE;
};
void GatherElements(const ElementsParams& params, const float* data, const int64_t* indices,
                    float* output);
void ScatterElements(const ElementsParams& params, const float* data, const int64_t* indices,
                     const float* updates, float* output);

// GatherND and ScatterND with `batch` leading batch dimensions: per batch,
// `tuples` index tuples of `depth` coordinates each address a slice of
// `slice` elements in a data block of `block` elements, whose first `depth`
// dimensions are `dims`. GatherND copies the slices into the output in
// order; ScatterND writes (or reduces) the updates' slices into a copy of
// data.
struct NdParams {
  int64_t batch = 1, tuples = 0, depth = 0, slice = 1, block = 1;
  std::vector<int64_t> dims;
  ScatterReduction reduction = ScatterReduction::NONE;
};
void GatherNd(const NdParams& params, const float* data, const int64_t* indices, float* output);
void ScatterNd(const NdParams& params, const float* data, const int64_t* indices,
               const float* updates, float* output);

}  // namespace ref
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_GATHER_H_
