#include "mace/utils/crc32c.h"

#include <cstring>

#if defined(__x86_64__)
#include <cpuid.h>
#include <nmmintrin.h>
#elif defined(__aarch64__)
#include <arm_acle.h>
#include <sys/auxv.h>
#endif

namespace mace {
namespace {

constexpr uint32_t kPolynomial = 0x82F63B78;  // 0x1EDC6F41, bit-reversed

// table[k][b]: the CRC register after byte b and then k zero bytes, starting
// from zero. Slicing by 8 folds eight bytes per step with one lookup each.
struct SlicingTables {
  uint32_t table[8][256];
};

// Filled on first use rather than stored: the 8 KiB stay out of the
// library file (zero-filled memory until then), and only hosts without CRC
// instructions fill them.
void FillSlicingTables(SlicingTables* tables) {
  for (uint32_t byte = 0; byte < 256; ++byte) {
    uint32_t crc = byte;
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ (kPolynomial & (0u - (crc & 1u)));
    tables->table[0][byte] = crc;
  }
  for (int k = 1; k < 8; ++k) {
    for (uint32_t byte = 0; byte < 256; ++byte) {
      const uint32_t previous = tables->table[k - 1][byte];
      tables->table[k][byte] = (previous >> 8) ^ tables->table[0][previous & 0xff];
    }
  }
}

const SlicingTables& Slicing() {
  static SlicingTables tables;
  static const bool filled = (FillSlicingTables(&tables), true);
  (void)filled;
  return tables;
}

// Byte by byte, so the result does not depend on the host's byte order; the
// compiler turns it into one load on little-endian CPUs.
inline uint32_t LoadLittleEndian32(const unsigned char* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

uint32_t ExtendPortable(uint32_t crc, const unsigned char* data, size_t size) {
  const auto& t = Slicing().table;
  uint32_t state = ~crc;
  for (; size >= 8; data += 8, size -= 8) {
    const uint32_t low = state ^ LoadLittleEndian32(data);
    const uint32_t high = LoadLittleEndian32(data + 4);
    state = t[7][low & 0xff] ^ t[6][(low >> 8) & 0xff] ^ t[5][(low >> 16) & 0xff] ^
            t[4][low >> 24] ^ t[3][high & 0xff] ^ t[2][(high >> 8) & 0xff] ^
            t[1][(high >> 16) & 0xff] ^ t[0][high >> 24];
  }
  for (; size > 0; ++data, --size) state = t[0][(state ^ *data) & 0xff] ^ (state >> 8);
  return ~state;
}

#if defined(__x86_64__)

bool HasSse42() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return __get_cpuid(1, &eax, &ebx, &ecx, &edx) && ((ecx >> 20) & 1);
}

__attribute__((target("sse4.2"))) uint32_t ExtendSse42(uint32_t crc, const unsigned char* data,
                                                       size_t size) {
  uint32_t state = ~crc;
  // Aligned 8-byte reads never straddle a cache line.
  for (; size > 0 && reinterpret_cast<uintptr_t>(data) % 8 != 0; ++data, --size) {
    state = _mm_crc32_u8(state, *data);
  }
  for (; size >= 8; data += 8, size -= 8) {
    uint64_t word;
    std::memcpy(&word, data, 8);
    state = static_cast<uint32_t>(_mm_crc32_u64(state, word));
  }
  for (; size > 0; ++data, --size) state = _mm_crc32_u8(state, *data);
  return ~state;
}

// Three streams at once: the CRC32 instruction takes three cycles but
// starts one per cycle, so one dependent chain runs at a third of the rate
// (about 6 ms of ResNet-18's 47 MB blob at engine creation). Each round
// checksums three stretches of kStretch bytes separately, the second and
// third from zero, and joins them: the register update is linear, so the
// register after stretches a, b is Shift(R(a)) ^ R0(b), Shift being the
// update by kStretch zero bytes, a linear map applied as four byte tables.
constexpr size_t kStretch = 8192;

struct ShiftTables {
  uint32_t table[4][256];
};

__attribute__((target("sse4.2"))) ShiftTables MakeShiftTables() {
  uint32_t basis[32];  // the shift of each single bit of the register
  for (int bit = 0; bit < 32; ++bit) {
    uint64_t state = uint32_t{1} << bit;
    for (size_t i = 0; i < kStretch / 8; ++i) state = _mm_crc32_u64(state, 0);
    basis[bit] = static_cast<uint32_t>(state);
  }
  ShiftTables tables{};
  for (int k = 0; k < 4; ++k) {
    for (uint32_t byte = 0; byte < 256; ++byte) {
      uint32_t shifted = 0;
      for (int bit = 0; bit < 8; ++bit) {
        if ((byte >> bit) & 1u) shifted ^= basis[8 * k + bit];
      }
      tables.table[k][byte] = shifted;
    }
  }
  return tables;
}

inline uint32_t Shift(const ShiftTables& tables, uint32_t state) {
  const auto& t = tables.table;
  return t[0][state & 0xff] ^ t[1][(state >> 8) & 0xff] ^ t[2][(state >> 16) & 0xff] ^
         t[3][state >> 24];
}

__attribute__((target("sse4.2"))) uint32_t ExtendSse42ThreeWay(uint32_t crc,
                                                               const unsigned char* data,
                                                               size_t size) {
  static const ShiftTables tables = MakeShiftTables();
  uint32_t state = ~crc;
  for (; size > 0 && reinterpret_cast<uintptr_t>(data) % 8 != 0; ++data, --size) {
    state = _mm_crc32_u8(state, *data);
  }
  for (; size >= 3 * kStretch; data += 3 * kStretch, size -= 3 * kStretch) {
    uint64_t a = state, b = 0, c = 0;
    for (size_t i = 0; i < kStretch; i += 8) {
      uint64_t wa, wb, wc;
      std::memcpy(&wa, data + i, 8);
      std::memcpy(&wb, data + kStretch + i, 8);
      std::memcpy(&wc, data + 2 * kStretch + i, 8);
      a = _mm_crc32_u64(a, wa);
      b = _mm_crc32_u64(b, wb);
      c = _mm_crc32_u64(c, wc);
    }
    state = Shift(tables, Shift(tables, static_cast<uint32_t>(a)) ^ static_cast<uint32_t>(b)) ^
            static_cast<uint32_t>(c);
  }
  return ExtendSse42(~state, data, size);
}

#elif defined(__aarch64__)

bool HasArmCrc32() {
  constexpr unsigned long kHwcapCrc32 = 1ul << 7;  // arch/arm64/include/uapi/asm/hwcap.h
  return (getauxval(AT_HWCAP) & kHwcapCrc32) != 0;
}

// clang 14's arm_acle.h declares the CRC32 intrinsics only for a file built
// with +crc, and it spells the target attribute without the plus; its
// builtins follow the function's target.
#if defined(__clang__)
#define MACE_CRC32_TARGET __attribute__((target("crc")))
#define MACE_CRC32CB __builtin_arm_crc32cb
#define MACE_CRC32CD __builtin_arm_crc32cd
#else
#define MACE_CRC32_TARGET __attribute__((target("+crc")))
#define MACE_CRC32CB __crc32cb
#define MACE_CRC32CD __crc32cd
#endif

MACE_CRC32_TARGET uint32_t ExtendArmCrc32(uint32_t crc, const unsigned char* data, size_t size) {
  uint32_t state = ~crc;
  for (; size > 0 && reinterpret_cast<uintptr_t>(data) % 8 != 0; ++data, --size) {
    state = MACE_CRC32CB(state, *data);
  }
  for (; size >= 8; data += 8, size -= 8) {
    uint64_t word;
    std::memcpy(&word, data, 8);
    state = MACE_CRC32CD(state, word);
  }
  for (; size > 0; ++data, --size) state = MACE_CRC32CB(state, *data);
  return ~state;
}

#endif

}  // namespace

std::vector<Crc32cImplementation> AvailableCrc32cImplementations() {
  std::vector<Crc32cImplementation> implementations = {{"portable", &ExtendPortable}};
#if defined(__x86_64__)
  if (HasSse42()) {
    implementations.push_back({"sse4.2", &ExtendSse42});
    implementations.push_back({"sse4.2_3way", &ExtendSse42ThreeWay});
  }
#elif defined(__aarch64__)
  if (HasArmCrc32()) implementations.push_back({"armv8_crc32", &ExtendArmCrc32});
#endif
  return implementations;
}

uint32_t Crc32c(const void* data, size_t size) {
  static const auto extend = AvailableCrc32cImplementations().back().extend;
  return extend(0, static_cast<const unsigned char*>(data), size);
}

}  // namespace mace
