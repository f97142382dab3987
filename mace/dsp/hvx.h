// HVX (128-byte vectors) helpers shared by the DSP kernels: vector types
// and the requantization of 32 int32 lanes at a time, bit-identical to the
// scalar Requantize of kernels.h (one rounding, half away from zero, on the
// exact 64-bit product).
#ifndef MACE_DSP_HVX_H_
#define MACE_DSP_HVX_H_

#include <stdint.h>

#include <hvx_hexagon_protos.h>

namespace mace {
namespace dsp {

typedef int32_t HvxVector __attribute__((__vector_size__(128), __aligned__(128)));
typedef int32_t HvxPair __attribute__((__vector_size__(256), __aligned__(256)));
// For data only known to be byte aligned (vmemu loads and stores).
typedef int32_t UnalignedHvxVector __attribute__((__vector_size__(128), __aligned__(1)));
constexpr uint32_t kHvxLanes = 32;  // 32-bit lanes per vector

inline HvxVector Splat(int32_t value) { return Q6_V_vsplat_R(value); }

// One (multiplier, right shift) pair with the output zero point and range,
// as vector constants. The rounding term of x * M >> shift is 2^(shift-1)
// for x >= 0 and 2^(shift-1) - 1 for x < 0: an arithmetic shift of the sum
// rounds down, which is half away from zero for both signs.
struct VectorRequantizer {
  HvxVector multiplier, round_hi, round_lo, zero_point, low, high;
  int32_t shift;  // 1..62

  VectorRequantizer(int32_t m, int32_t right_shift, int32_t output_zero_point, int32_t min,
                    int32_t max) {
    const uint64_t round = uint64_t{1} << (right_shift - 1);
    multiplier = Splat(m);
    round_hi = Splat(static_cast<int32_t>(round >> 32));
    round_lo = Splat(static_cast<int32_t>(static_cast<uint32_t>(round)));
    zero_point = Splat(output_zero_point);
    low = Splat(min);
    high = Splat(max);
    shift = right_shift;
  }
};

// (hi, lo) += (b_hi, b_lo) as 64-bit lanes.
inline void Add64(HvxVector* hi, HvxVector* lo, HvxVector b_hi, HvxVector b_lo) {
  const HvxVector sum = Q6_Vw_vadd_VwVw(*lo, b_lo);
  // The low words carried out iff the sum is below an addend (unsigned).
  *hi = Q6_Vw_vadd_VwVw(*hi, b_hi);
  *hi = Q6_Vw_condacc_QVwVw(Q6_Q_vcmp_gt_VuwVuw(b_lo, sum), *hi, Splat(1));
  *lo = sum;
}

// Requantize(x, m, shift) for 32 lanes, saturated to int32.
inline HvxVector RequantizeVectorToInt32(HvxVector x, const VectorRequantizer& q) {
  // x * m exactly: the even (unsigned) half of m, then the odd (signed) half.
  const HvxPair product =
      Q6_W_vmpyoacc_WVwVh(Q6_W_vmpye_VwVuh(x, q.multiplier), x, q.multiplier);
  HvxVector hi = Q6_V_hi_W(product), lo = Q6_V_lo_W(product);
  Add64(&hi, &lo, q.round_hi, q.round_lo);
  const HvxVector negative = Q6_Vw_vasr_VwR(x, 31);  // 0 or -1 per lane
  Add64(&hi, &lo, negative, negative);
  HvxVector value;
  if (q.shift >= 32) {
    // hi >> (shift - 32) always fits in 32 bits.
    value = Q6_Vw_vasr_VwR(hi, q.shift - 32);
  } else {
    value = Q6_V_vor_VV(Q6_Vuw_vlsr_VuwR(lo, q.shift), Q6_Vw_vasl_VwR(hi, 32 - q.shift));
    // Saturate to int32 where the shifted 64-bit value does not fit.
    const HvxVector top = Q6_Vw_vasr_VwR(hi, q.shift);
    const HvxVector saturated = Q6_V_vxor_VV(Q6_Vw_vasr_VwR(top, 31), Splat(0x7fffffff));
    value = Q6_V_vmux_QVV(Q6_Q_vcmp_eq_VwVw(top, Q6_Vw_vasr_VwR(value, 31)), value, saturated);
  }
  return value;
}

// clamp(zero_point + Requantize(x, m, shift), min, max) for 32 lanes: the
// same as the 64-bit sum's clamp, since min and max lie in [0, 255].
inline HvxVector RequantizeVector(HvxVector x, const VectorRequantizer& q) {
  const HvxVector value = Q6_Vw_vadd_VwVw_sat(RequantizeVectorToInt32(x, q), q.zero_point);
  return Q6_Vw_vmin_VwVw(Q6_Vw_vmax_VwVw(value, q.low), q.high);
}

}  // namespace dsp
}  // namespace mace

#endif  // MACE_DSP_HVX_H_
