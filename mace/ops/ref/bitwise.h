// Reference kernel of the Bitwise op (mace/ops/bitwise.cc): and, or, xor of
// two int32 operands with numpy-style broadcasting, or not of one, on the
// two's complement bits.
#ifndef MACE_OPS_REF_BITWISE_H_
#define MACE_OPS_REF_BITWISE_H_

#include <cstdint>
#include <string>

#include "mace/ops/ref/logic.h"

namespace mace {
namespace ops {
namespace ref {

enum class BitwiseType { AND, OR, XOR, NOT };

// Parses the `type` argument ("and", "or", "xor", "not"); false if unknown.
bool ParseBitwiseType(const std::string& name, BitwiseType* type);

// out = a <type> b element by element over params.shape. NOT reads only a
// (b may be nullptr).
void Bitwise(BitwiseType type, const BroadcastParams& params, const int32_t* a, const int32_t* b,
             int32_t* output);

}  // namespace ref
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_BITWISE_H_
