// HVX (128-byte vectors) helpers shared by the DSP kernels: vector types
// and the requantization of 32 int32 lanes at a time, bit-identical to the
// scalar Requantize of kernels.h (one rounding, half away from zero, on the
// exact 64-bit product).
#ifndef MACE_DSP_HVX_H_
#define MACE_DSP_HVX_H_

#include <stddef.h>
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

// Stores the first n (0..128) bytes of v at dst, which need not be aligned:
// v is rotated so that its byte 0 lands on dst's offset in its aligned
// vector, and byte-masked stores write the one or two aligned vectors the
// n bytes touch (no byte outside [dst, dst + n) is written).
inline void StoreMasked(uint8_t* block, HvxVector v, HvxVector mask) {
  asm volatile("q0 = vand(%1, %2)\n\tif (q0) vmem(%0+#0) = %3"
               :
               : "r"(block), "v"(mask), "r"(-1), "v"(v)
               : "q0", "memory");
}

inline void StoreBytes(uint8_t* dst, HvxVector v, uint32_t n) {
  if (n == 0) return;
  const uint32_t offset = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(dst)) & 127;
  uint8_t* block = dst - offset;
  if (offset == 0 && n == 128) {
    *reinterpret_cast<HvxVector*>(block) = v;
    return;
  }
  const HvxVector rotated = offset == 0 ? v : Q6_V_vror_VR(v, 128 - offset);
  const uint32_t end = offset + n;  // 1..255
  StoreMasked(block, rotated,
              Q6_Q_and_QQn(Q6_Q_vsetq2_R(end < 128 ? end : 128), Q6_Q_vsetq_R(offset)));
  if (end > 128) StoreMasked(block + 128, rotated, Q6_Q_vsetq_R(end - 128));
}

// The n (1..128) bytes at src as the first bytes of a vector (the rest
// unspecified), read with aligned loads only: never past the aligned
// vector that holds src[n - 1], so never into another page.
inline HvxVector LoadBytes(const uint8_t* src, uint32_t n) {
  const uint32_t offset = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(src)) & 127;
  const HvxVector* block = reinterpret_cast<const HvxVector*>(src - offset);
  const HvxVector first = block[0];
  if (offset == 0) return first;
  return Q6_V_valign_VVR(offset + n > 128 ? block[1] : first, first, offset);
}

// Four vectors of 32 int32 lanes in [0, 255], in order, as 128 bytes.
inline HvxVector PackWordsToBytes(HvxVector w0, HvxVector w1, HvxVector w2, HvxVector w3) {
  return Q6_Vub_vpack_VhVh_sat(Q6_Vh_vpack_VwVw_sat(w3, w2), Q6_Vh_vpack_VwVw_sat(w1, w0));
}

// Stores the outputs *ow... of a row with the given column stride whose
// stride-1 columns [128k, 128k + 128) are `columns`, and advances *ow past
// them. Strides 1, 2 and 4 pick the columns with vpacke and store them
// with one StoreBytes; others copy bytes through `spill`.
inline void StoreStridedColumns(HvxVector columns, uint32_t k, uint32_t stride, uint32_t out_w,
                                uint8_t* row, uint32_t* ow, HvxVector* spill) {
  const uint32_t first = *ow;
  if (stride == 1 || stride == 2 || stride == 4) {
    const uint32_t log = stride >> 1;  // 0, 1, 2: no division
    uint32_t end = (128 * (k + 1)) >> log;
    if (end > out_w) end = out_w;
    if (first >= end) return;
    HvxVector picked = columns;
    if (stride >= 2) picked = Q6_Vb_vpacke_VhVh(picked, picked);
    if (stride == 4) picked = Q6_Vb_vpacke_VhVh(picked, picked);
    const uint32_t index = first - ((128 * k) >> log);
    StoreBytes(row + first, index == 0 ? picked : Q6_V_vror_VR(picked, index), end - first);
    *ow = end;
  } else {
    uint32_t end = (128 * (k + 1) + stride - 1) / stride;
    if (end > out_w) end = out_w;
    *spill = columns;
    const uint8_t* bytes = reinterpret_cast<const uint8_t*>(spill);
    for (uint32_t o = first; o < end; ++o) row[o] = bytes[o * stride - 128 * k];
    if (end > first) *ow = end;
  }
}

}  // namespace dsp
}  // namespace mace

#endif  // MACE_DSP_HVX_H_
