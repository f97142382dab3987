// The arithmetic helpers LLVM's Hexagon back end calls for operations the
// ISA lacks (integer division and remainder, float division). compiler-rt
// provides them on a full toolchain; here they are our own. They are
// written with shifts and subtractions only, so that compiling them cannot
// produce a call to themselves. The self test (kSelfTestArithmetic) checks
// them bit for bit against the host.
#include <stdint.h>

namespace {

// Restoring long division; divisor != 0.
uint64_t UnsignedDivide(uint64_t n, uint64_t d, uint64_t* remainder) {
  if (d > n) {
    *remainder = n;
    return 0;
  }
  int shift = __builtin_clzll(d) - __builtin_clzll(n);
  d <<= shift;
  uint64_t q = 0;
  for (; shift >= 0; --shift) {
    q <<= 1;
    if (n >= d) {
      n -= d;
      q |= 1;
    }
    d >>= 1;
  }
  *remainder = n;
  return q;
}

uint64_t Magnitude(int64_t v) { return v < 0 ? 0 - static_cast<uint64_t>(v) : v; }

}  // namespace

extern "C" {

uint32_t __hexagon_udivsi3(uint32_t n, uint32_t d) {
  uint64_t r;
  return static_cast<uint32_t>(UnsignedDivide(n, d, &r));
}

uint32_t __hexagon_umodsi3(uint32_t n, uint32_t d) {
  uint64_t r;
  UnsignedDivide(n, d, &r);
  return static_cast<uint32_t>(r);
}

// Signed: the quotient truncates toward zero, the remainder has the
// dividend's sign (C's rules).
int32_t __hexagon_divsi3(int32_t n, int32_t d) {
  uint64_t r;
  const uint64_t q = UnsignedDivide(Magnitude(n), Magnitude(d), &r);
  return static_cast<int32_t>((n < 0) != (d < 0) ? 0 - q : q);
}

int32_t __hexagon_modsi3(int32_t n, int32_t d) {
  uint64_t r;
  UnsignedDivide(Magnitude(n), Magnitude(d), &r);
  return static_cast<int32_t>(n < 0 ? 0 - r : r);
}

uint64_t __hexagon_udivdi3(uint64_t n, uint64_t d) {
  uint64_t r;
  return UnsignedDivide(n, d, &r);
}

uint64_t __hexagon_umoddi3(uint64_t n, uint64_t d) {
  uint64_t r;
  UnsignedDivide(n, d, &r);
  return r;
}

int64_t __hexagon_divdi3(int64_t n, int64_t d) {
  uint64_t r;
  const uint64_t q = UnsignedDivide(Magnitude(n), Magnitude(d), &r);
  return static_cast<int64_t>((n < 0) != (d < 0) ? 0 - q : q);
}

int64_t __hexagon_moddi3(int64_t n, int64_t d) {
  uint64_t r;
  UnsignedDivide(Magnitude(n), Magnitude(d), &r);
  return static_cast<int64_t>(n < 0 ? 0 - r : r);
}

}  // extern "C"

namespace {

// IEEE single division, round to nearest even, subnormals kept.
uint32_t DivideFloatBits(uint32_t a, uint32_t b) {
  const uint32_t sign = (a ^ b) & 0x80000000u;
  int32_t ea = (a >> 23) & 0xff, eb = (b >> 23) & 0xff;
  uint32_t ma = a & 0x7fffff, mb = b & 0x7fffff;
  constexpr uint32_t kQuietNaN = 0x7fc00000u, kInf = 0x7f800000u;
  if (ea == 0xff && ma != 0) return a | 0x400000u;
  if (eb == 0xff && mb != 0) return b | 0x400000u;
  if (ea == 0xff) return eb == 0xff ? kQuietNaN : sign | kInf;
  if (eb == 0xff) return sign;
  const bool a_zero = ea == 0 && ma == 0, b_zero = eb == 0 && mb == 0;
  if (a_zero) return b_zero ? kQuietNaN : sign;
  if (b_zero) return sign | kInf;
  // Normalize both to [2^23, 2^24).
  if (ea == 0) {
    ea = 1;
    while (ma < 0x800000u) ma <<= 1, --ea;
  } else {
    ma |= 0x800000u;
  }
  if (eb == 0) {
    eb = 1;
    while (mb < 0x800000u) mb <<= 1, --eb;
  } else {
    mb |= 0x800000u;
  }
  int32_t e = ea - eb + 127;
  uint64_t wide = ma;
  if (ma < mb) wide <<= 1, --e;
  // 27 quotient bits: 24 of mantissa, then guard bits; the rest is sticky.
  uint64_t rem;
  uint64_t q = UnsignedDivide(wide << 26, mb, &rem);
  uint32_t sticky = rem != 0;
  if (e >= 0xff) return sign | kInf;
  if (e <= 0) {
    const int32_t shift = 1 - e;
    if (shift >= 32) {
      sticky |= q != 0;
      q = 0;
    } else {
      sticky |= (q & ((uint64_t{1} << shift) - 1)) != 0;
      q >>= shift;
    }
    e = 0;
  }
  const uint32_t low = static_cast<uint32_t>(q & 7);
  uint32_t m = static_cast<uint32_t>(q >> 3);
  if ((low & 4) && ((low & 3) || sticky || (m & 1))) ++m;
  if (e == 0) return sign | m;  // a carry into bit 23 is the smallest normal
  if (m == 0x1000000u) {
    m >>= 1;
    if (++e >= 0xff) return sign | kInf;
  }
  return sign | (static_cast<uint32_t>(e) << 23) | (m & 0x7fffff);
}

}  // namespace

extern "C" {

float __hexagon_divsf3(float a, float b) {
  const uint32_t bits = DivideFloatBits(__builtin_bit_cast(uint32_t, a), __builtin_bit_cast(uint32_t, b));
  return __builtin_bit_cast(float, bits);
}

}  // extern "C"
