// Reference Cast: converts every element of a float tensor to the value the
// target element type holds for it, and keeps that value in float32. Every
// value of the narrow float types (float16, bfloat16, the four float8
// variants) and of the integer types up to 16 bits is exactly a float32, so
// a tensor of them is carried exactly; 32- and 64-bit integers are exact up
// to 2^24.
//
//   float16, bfloat16     round to nearest, ties to even; beyond the largest
//                         finite value: infinity. With `truncate`, bfloat16
//                         keeps the high 16 bits of the float32 instead
//                         (toward zero), as ONNX's reference Cast does
//   float8 (E4M3FN, E4M3FNUZ, E5M2, E5M2FNUZ)
//                         round to nearest, ties to even; beyond the largest
//                         finite value (infinities included): that value when
//                         `saturate`, else NaN (E5M2: infinity); the *FNUZ
//                         types have no negative zero
//   int4, uint4           round to nearest, ties to even, then clamp
//   8- and 16-bit ints    truncate toward zero, then wrap modulo 2^bits
//   32- and 64-bit ints   truncate toward zero, then clamp to the range
//   bool                  1 for any non-zero value (NaN included), else 0
//   float32, double       unchanged
// NaN stays NaN for the float types; NaN and the infinities become 0 for the
// integers.
#ifndef MACE_OPS_REF_CAST_H_
#define MACE_OPS_REF_CAST_H_

#include <cstdint>
#include <string>

namespace mace {
namespace ops {
namespace ref {

enum class CastType {
  FLOAT32, DOUBLE, FLOAT16, BFLOAT16,
  FLOAT8E4M3FN, FLOAT8E4M3FNUZ, FLOAT8E5M2, FLOAT8E5M2FNUZ,
  INT4, UINT4, INT8, UINT8, INT16, UINT16, INT32, UINT32, INT64, UINT64, BOOL,
};

struct CastParams {
  CastType to = CastType::FLOAT32;
  // Float8 targets only: out-of-range values clamp to the largest finite one.
  bool saturate = true;
  // BFLOAT16 only: drop the low 16 bits instead of rounding.
  bool truncate = false;
  int64_t count = 0;
};

// The type named `name` ("FLOAT16", "FLOAT8E4M3FN", "INT8", ...); false for
// an unknown name.
bool ParseCastType(const std::string& name, CastType* type);

float CastValue(const CastParams& params, float x);

// input, output: params.count values; output may be input.
void Cast(const CastParams& params, const float* input, float* output);

}  // namespace ref
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_CAST_H_
