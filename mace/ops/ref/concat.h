// Reference Concat. Row-major data seen as [outer, axis * inner]: for every
// outer index, each input contributes one contiguous run, in input order. It
// moves bytes, so one kernel serves every element type.
#ifndef MACE_OPS_REF_CONCAT_H_
#define MACE_OPS_REF_CONCAT_H_

#include <cstdint>
#include <vector>

namespace mace {
namespace ops {
namespace ref {

struct ConcatParams {
  // Product of the dimensions before the axis.
  int64_t outer = 0;
  // Per input: its axis dimension times the dimensions after the axis, in
  // bytes. Input i holds outer * run_bytes[i] bytes.
  std::vector<int64_t> run_bytes;
};

// inputs[i] points at input i; output holds outer * sum(run_bytes) bytes.
void Concat(const ConcatParams& params, const void* const* inputs, void* output);

}  // namespace ref
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_CONCAT_H_
