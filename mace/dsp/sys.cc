#include "mace/dsp/sys.h"
#include "mace/dsp/hvx.h"

namespace mace {
namespace dsp {
namespace {

// asm-generic system call numbers (qemu-hexagon follows that table).
constexpr int32_t kSysRead = 63;
constexpr int32_t kSysWrite = 64;
constexpr int32_t kSysExitGroup = 94;
constexpr int32_t kSysClockGettime = 113;
constexpr int32_t kClockMonotonic = 1;

int32_t Syscall3(int32_t number, int32_t a, int32_t b, int32_t c) {
  register int32_t r0 asm("r0") = a;
  register int32_t r1 asm("r1") = b;
  register int32_t r2 asm("r2") = c;
  register int32_t r6 asm("r6") = number;
  asm volatile("trap0(#1)" : "+r"(r0) : "r"(r1), "r"(r2), "r"(r6) : "memory");
  return r0;
}

}  // namespace

int32_t SysRead(int fd, void* buffer, uint32_t size) {
  return Syscall3(kSysRead, fd, reinterpret_cast<int32_t>(buffer), static_cast<int32_t>(size));
}

int32_t SysWrite(int fd, const void* buffer, uint32_t size) {
  return Syscall3(kSysWrite, fd, reinterpret_cast<int32_t>(buffer), static_cast<int32_t>(size));
}

void SysExit(int code) {
  for (;;) Syscall3(kSysExitGroup, code, 0, 0);
}

uint64_t NowNanos() {
  struct {
    int32_t seconds;
    int32_t nanoseconds;
  } time = {0, 0};
  Syscall3(kSysClockGettime, kClockMonotonic, reinterpret_cast<int32_t>(&time), 0);
  return static_cast<uint64_t>(time.seconds) * 1000000000u + static_cast<uint32_t>(time.nanoseconds);
}

uint64_t NowMicros() { return NowNanos() / 1000u; }

bool ReadFull(int fd, void* buffer, uint32_t size) {
  uint8_t* bytes = static_cast<uint8_t*>(buffer);
  while (size > 0) {
    const int32_t n = SysRead(fd, bytes, size);
    if (n <= 0) return false;
    bytes += n;
    size -= static_cast<uint32_t>(n);
  }
  return true;
}

bool WriteFull(int fd, const void* buffer, uint32_t size) {
  const uint8_t* bytes = static_cast<const uint8_t*>(buffer);
  while (size > 0) {
    const int32_t n = SysWrite(fd, bytes, size);
    if (n <= 0) return false;
    bytes += n;
    size -= static_cast<uint32_t>(n);
  }
  return true;
}

}  // namespace dsp
}  // namespace mace

// -fno-builtin keeps the compiler from turning these loops into calls to
// themselves.
// Whole 128-byte blocks move as HVX vectors (unaligned vmemu loads and
// stores), the rest a word or a byte at a time.
namespace {
typedef int32_t UnalignedVector __attribute__((__vector_size__(128), __aligned__(1)));
}  // namespace

extern "C" {

void* memcpy(void* dst, const void* src, size_t n) {
  uint8_t* d = static_cast<uint8_t*>(dst);
  const uint8_t* s = static_cast<const uint8_t*>(src);
  for (; n >= 128; n -= 128, d += 128, s += 128) {
    *reinterpret_cast<UnalignedVector*>(d) = *reinterpret_cast<const UnalignedVector*>(s);
  }
  // The tail: one partial load and one byte-masked store.
  if (n > 0) mace::dsp::StoreBytes(d, mace::dsp::LoadBytes(s, n), n);
  return dst;
}

void* memmove(void* dst, const void* src, size_t n) {
  uint8_t* d = static_cast<uint8_t*>(dst);
  const uint8_t* s = static_cast<const uint8_t*>(src);
  if (d <= s || d >= s + n) return memcpy(dst, src, n);
  while (n-- > 0) d[n] = s[n];
  return dst;
}

void* memset(void* dst, int value, size_t n) {
  uint8_t* d = static_cast<uint8_t*>(dst);
  const UnalignedVector fill = __builtin_HEXAGON_V6_lvsplatw_128B(
      (static_cast<uint32_t>(value) & 0xff) * 0x01010101u);
  for (; n >= 128; n -= 128, d += 128) *reinterpret_cast<UnalignedVector*>(d) = fill;
  if (n > 0) mace::dsp::StoreBytes(d, fill, n);
  return dst;
}

int memcmp(const void* a, const void* b, size_t n) {
  const uint8_t* x = static_cast<const uint8_t*>(a);
  const uint8_t* y = static_cast<const uint8_t*>(b);
  for (size_t i = 0; i < n; ++i) {
    if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
  }
  return 0;
}

}  // extern "C"
