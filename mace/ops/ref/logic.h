// Reference kernels of the comparison, logic, modulo and selection ops
// (mace/ops/logic.h), with numpy-style broadcasting expressed as
// per-dimension strides. Booleans are float 0 and 1; any nonzero input
// counts as true.
#ifndef MACE_OPS_REF_LOGIC_H_
#define MACE_OPS_REF_LOGIC_H_

#include <cstdint>
#include <string>
#include <vector>

namespace mace {
namespace ops {
namespace ref {

enum class CompareType {
  EQUAL,
  LESS,
  GREATER,
  LESS_EQUAL,
  GREATER_EQUAL,
  AND,
  OR,
  XOR,
  NOT,
};

// Parses the `type` argument ("equal", "less", ..., "not"); false if unknown.
bool ParseCompareType(const std::string& name, CompareType* type);

// The output shape of broadcasting several operands, and for each operand
// how far one step along each output dimension moves in its data (0 where
// that operand broadcasts).
struct BroadcastParams {
  std::vector<int64_t> shape;
  std::vector<std::vector<int64_t>> strides;
};

// Fills `params` for `shapes`, aligned at their last dimension. Returns
// false if two dimensions differ and neither is 1.
bool MakeBroadcast(const std::vector<std::vector<int64_t>>& shapes, BroadcastParams* params);

// out = a <type> b (1 or 0). NOT reads only a (b may be nullptr; its
// strides are ignored). Comparisons with NaN are false, except that NaN is
// not equal to anything.
void Compare(CompareType type, const BroadcastParams& params, const float* a, const float* b,
             float* output);

// out = a mod b. With fmod the result has the sign of a (C's fmod);
// without, the sign of b (Python's %, ONNX's integer Mod). b = 0 gives NaN.
void Mod(bool fmod, const BroadcastParams& params, const float* a, const float* b, float* output);

// out = condition != 0 ? x : y.
void Where(const BroadcastParams& params, const float* condition, const float* x, const float* y,
           float* output);

}  // namespace ref
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_LOGIC_H_
