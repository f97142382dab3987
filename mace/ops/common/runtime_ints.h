// Integer arguments an op reads from a tensor computed at run time (a
// Reshape's shape, a Slice's bounds), and the shape the model planned for
// such an op's output.
//
// The engine plans memory once, for the shapes the model declares, so an op
// whose output shape depends on such values takes its planned shape from the
// model (OperatorDef.output_shape) in Prepare and, on every run, checks the
// values it reads give that shape: another one is an INVALID_ARGS error, so
// the kernel never writes outside the planned buffer.
#ifndef MACE_OPS_COMMON_RUNTIME_INTS_H_
#define MACE_OPS_COMMON_RUNTIME_INTS_H_

#include <vector>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

// The most values a computed shape argument may have (its rank).
constexpr int64_t kMaxComputedRank = 32;

// Whether `tensor` is an integer argument given at run time: present and
// not a weight.
inline bool IsComputed(const Tensor* tensor) { return tensor != nullptr && !tensor->is_weight(); }

// Checks a computed integer argument `what` before it has values: 1-D, of
// type int32 or float32 (model inputs of an integer type are fed as
// float32), with at most `max_count` values.
MaceStatus CheckComputedInts(const Operation& op, const Tensor& tensor, const char* what,
                             int64_t max_count);

// The values of `tensor` (int32, or float32 holding integers) as int64.
// Floats must be finite and whole; beyond +-2^62 they are clamped there,
// which keeps ONNX's INT64_MAX-style "to the end" bounds meaningful and
// later index arithmetic far from overflow.
MaceStatus ReadComputedInts(const Operation& op, const Tensor& tensor, const char* what,
                            std::vector<int64_t>* values);

// An op's optional axes input 1 (ONNX opset 13 and later), which replaces
// its `axis` argument: checks it, sets *computed when it is computed at run
// time (the op reads it on every run then) and otherwise reads a weight's
// values into *axes. An empty input (shape [0]) gives no axes, as an absent
// one does.
MaceStatus ReadAxesInput(const Operation& op, bool* computed, std::vector<int64_t>* axes);

// The shape the model declares for output `index`, which must be known
// (no negative dimension; a 0 plans an empty tensor, no dimensions a rank-0
// scalar): the shape Prepare plans for.
MaceStatus PlannedOutputShape(const Operation& op, int index, std::vector<int64_t>* shape);

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_COMMON_RUNTIME_INTS_H_
