// Reference Split, the inverse of Concat. Row-major data seen as
// [outer, axis * inner]: for every outer index, each output takes the next
// contiguous run, in output order. It moves bytes, so one kernel serves every
// element type.
#ifndef MACE_OPS_REF_SPLIT_H_
#define MACE_OPS_REF_SPLIT_H_

#include <cstdint>
#include <vector>

namespace mace {
namespace ops {
namespace ref {

struct SplitParams {
  // Product of the dimensions before the axis.
  int64_t outer = 0;
  // Per output: its axis dimension times the dimensions after the axis, in
  // bytes. Output i holds outer * run_bytes[i] bytes.
  std::vector<int64_t> run_bytes;
};

// input holds outer * sum(run_bytes) bytes; outputs[i] points at output i.
void Split(const SplitParams& params, const void* input, void* const* outputs);

}  // namespace ref
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_SPLIT_H_
