#include "mace/ops/ref/cast.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>

namespace mace {
namespace ops {
namespace ref {

bool ParseCastType(const std::string& name, CastType* type) {
  static const std::map<std::string, CastType> kTypes = {
      {"FLOAT32", CastType::FLOAT32},
      {"DOUBLE", CastType::DOUBLE},
      {"FLOAT16", CastType::FLOAT16},
      {"BFLOAT16", CastType::BFLOAT16},
      {"FLOAT8E4M3FN", CastType::FLOAT8E4M3FN},
      {"FLOAT8E4M3FNUZ", CastType::FLOAT8E4M3FNUZ},
      {"FLOAT8E5M2", CastType::FLOAT8E5M2},
      {"FLOAT8E5M2FNUZ", CastType::FLOAT8E5M2FNUZ},
      {"INT4", CastType::INT4},
      {"UINT4", CastType::UINT4},
      {"INT8", CastType::INT8},
      {"UINT8", CastType::UINT8},
      {"INT16", CastType::INT16},
      {"UINT16", CastType::UINT16},
      {"INT32", CastType::INT32},
      {"UINT32", CastType::UINT32},
      {"INT64", CastType::INT64},
      {"UINT64", CastType::UINT64},
      {"BOOL", CastType::BOOL},
  };
  auto it = kTypes.find(name);
  if (it == kTypes.end()) return false;
  *type = it->second;
  return true;
}

namespace {

// A binary float format with `mantissa` stored fraction bits, normal
// exponents from `min_exponent` up, and `max_finite` its largest value.
struct FloatFormat {
  int mantissa;
  int min_exponent;
  double max_finite;
  bool has_infinity;
  bool has_negative_zero;
  bool saturates;  // whether Cast's saturate applies (the float8 types)
};

FloatFormat Format(CastType type) {
  switch (type) {
    case CastType::FLOAT16: return {10, -14, 65504.0, true, true, false};
    case CastType::BFLOAT16:
      return {7, -126, std::ldexp(255.0, 120), true, true, false};  // (2 - 2^-7) * 2^127
    case CastType::FLOAT8E4M3FN: return {3, -6, 448.0, false, true, true};
    case CastType::FLOAT8E4M3FNUZ: return {3, -7, 240.0, false, false, true};
    case CastType::FLOAT8E5M2: return {2, -14, 57344.0, true, true, true};
    default: return {2, -15, 57344.0, false, false, true};  // FLOAT8E5M2FNUZ
  }
}

float RoundToFormat(const FloatFormat& f, bool saturate, float value) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  if (std::isnan(value)) return nan;
  const double x = value;
  const double sign = std::signbit(value) ? -1.0 : 1.0;
  const double magnitude = std::fabs(x);
  double rounded = magnitude;
  if (std::isfinite(magnitude) && magnitude > 0) {
    // The spacing of the format's values around `magnitude`: 2^(e - mantissa)
    // with e its exponent, never below the subnormals' spacing. Dividing by
    // a power of two is exact, and nearbyint rounds half to even.
    const int exponent = std::max(std::ilogb(magnitude), f.min_exponent);
    const double spacing = std::ldexp(1.0, exponent - f.mantissa);
    rounded = std::nearbyint(magnitude / spacing) * spacing;
  }
  if (rounded > f.max_finite) {  // beyond range, or an infinity
    if (f.saturates && saturate) return static_cast<float>(sign * f.max_finite);
    if (!f.has_infinity) return nan;
    return static_cast<float>(sign * std::numeric_limits<double>::infinity());
  }
  if (rounded == 0 && !f.has_negative_zero) return 0.f;
  return static_cast<float>(sign * rounded);
}

float TruncateToBfloat16(float value) {
  if (std::isnan(value)) return value;  // a NaN whose payload is all low bits stays NaN
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  bits &= 0xFFFF0000u;
  float result;
  std::memcpy(&result, &bits, sizeof(result));
  return result;
}

float ToInteger(CastType type, float value) {
  if (!std::isfinite(value)) return 0.f;
  if (type == CastType::INT4 || type == CastType::UINT4) {
    const double low = type == CastType::INT4 ? -8.0 : 0.0;
    const double high = type == CastType::INT4 ? 7.0 : 15.0;
    return static_cast<float>(std::fmin(std::fmax(std::nearbyint(value), low), high));
  }
  const double truncated = std::trunc(static_cast<double>(value));
  int bits = 0;
  bool is_signed = true;
  switch (type) {
    case CastType::INT8: bits = 8; break;
    case CastType::UINT8: bits = 8; is_signed = false; break;
    case CastType::INT16: bits = 16; break;
    case CastType::UINT16: bits = 16; is_signed = false; break;
    case CastType::INT32: bits = 32; break;
    case CastType::UINT32: bits = 32; is_signed = false; break;
    case CastType::INT64: bits = 64; break;
    default: bits = 64; is_signed = false; break;  // UINT64
  }
  const double range = std::ldexp(1.0, bits);
  const double low = is_signed ? -range / 2 : 0.0;
  const double high = is_signed ? range / 2 - 1 : range - 1;
  if (bits > 16) {
    return static_cast<float>(std::fmin(std::fmax(truncated, low), high));
  }
  // Two's complement wrap: the value modulo 2^bits, moved into [low, high].
  double wrapped = std::fmod(truncated - low, range);
  if (wrapped < 0) wrapped += range;
  return static_cast<float>(wrapped + low);
}

}  // namespace

float CastValue(const CastParams& params, float x) {
  switch (params.to) {
    case CastType::FLOAT32:
    case CastType::DOUBLE:
      return x;
    case CastType::BFLOAT16:
      if (params.truncate) return TruncateToBfloat16(x);
      return RoundToFormat(Format(params.to), params.saturate, x);
    case CastType::FLOAT16:
    case CastType::FLOAT8E4M3FN:
    case CastType::FLOAT8E4M3FNUZ:
    case CastType::FLOAT8E5M2:
    case CastType::FLOAT8E5M2FNUZ:
      return RoundToFormat(Format(params.to), params.saturate, x);
    case CastType::BOOL:
      return x != 0.f || std::isnan(x) ? 1.f : 0.f;
    default:
      return ToInteger(params.to, x);
  }
}

void Cast(const CastParams& params, const float* input, float* output) {
  for (int64_t i = 0; i < params.count; ++i) output[i] = CastValue(params, input[i]);
}

}  // namespace ref
}  // namespace ops
}  // namespace mace
