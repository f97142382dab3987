// Indexing ops, following ONNX:
//   Gather (axis, default 0): output = data[..., indices, ...] along axis;
//     shape data[:axis] + indices + data[axis+1:].
//   GatherElements (axis): output[p] = data[p with axis coordinate
//     indices[p]]; indices have data's rank.
//   GatherND (batch_dims, default 0): slices of data addressed by the
//     index tuples in the last dimension of indices.
//   ScatterElements (axis, reduction) and ScatterND (reduction): a copy of
//     data with the updates written (reduction "none", the default) or
//     combined ("add", "mul", "max", "min") at the indexed places.
//   GatherDequantize: Gather along axis 0 of an int8 table [V, D] whose
//     rows have one scale each (input 2, float32 [V]): output = scale[i] *
//     table[i] for each index i, float32 (an embedding stored as int8, as
//     dynamic_quantize writes it).
// Inputs [data, indices] (and updates for the scatters, the row scales for
// GatherDequantize). Indices are
// float32 values (how the converter carries integers) or int32; negative
// ones count from the end. An index out of range, or a float index that is
// not a whole number, fails the run with a message naming it.
//
// GatherBase is the device-neutral part of all six; the CPU kernel is
// mace/ops/cpu/gather_cpu.cc.
#ifndef MACE_OPS_GATHER_H_
#define MACE_OPS_GATHER_H_

#include <cstdint>
#include <vector>

#include "mace/core/operation.h"
#include "mace/ops/ref/gather.h"

namespace mace {
namespace ops {

enum class GatherKind {
  GATHER,
  GATHER_ELEMENTS,
  GATHER_ND,
  SCATTER_ELEMENTS,
  SCATTER_ND,
  GATHER_DEQUANTIZE,
};

class GatherBase : public Operation {
 public:
  explicit GatherBase(GatherKind kind) : kind_(kind) {}
  MaceStatus Init() override;

 protected:
  // Checks the inputs' types and shapes, fills the parameters and sets the
  // output's shape.
  MaceStatus InferShapes();
  // Input 1 as int64 values in [0, bound), or INVALID_ARGS naming the
  // first bad index.
  MaceStatus ReadIndices(std::vector<int64_t>* indices) const;

  GatherKind kind() const { return kind_; }
  const ref::GatherParams& gather_params() const { return gather_; }
  const ref::ElementsParams& elements_params() const { return elements_; }
  const ref::NdParams& nd_params() const { return nd_; }

 private:
  // The exclusive upper bound of flat index i.
  int64_t Bound(int64_t i) const;

  GatherKind kind_;
  int64_t axis_ = 0, batch_dims_ = 0;
  ref::ScatterReduction reduction_ = ref::ScatterReduction::NONE;
  ref::GatherParams gather_;
  ref::ElementsParams elements_;
  ref::NdParams nd_;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_GATHER_H_
