// The DSP runtime's system layer: Linux system calls through trap0 (what
// qemu-hexagon's user-mode emulation offers), and the memory functions the
// compiler may call. A real Hexagon build gets these from QuRT instead.
#ifndef MACE_DSP_SYS_H_
#define MACE_DSP_SYS_H_

#include <stddef.h>
#include <stdint.h>

namespace mace {
namespace dsp {

int32_t SysRead(int fd, void* buffer, uint32_t size);
int32_t SysWrite(int fd, const void* buffer, uint32_t size);
[[noreturn]] void SysExit(int code);
// Microseconds from a monotonic clock.
uint64_t NowMicros();
// Nanoseconds from the same clock.
uint64_t NowNanos();

// Reads or writes exactly `size` bytes; false at end of file or on error.
bool ReadFull(int fd, void* buffer, uint32_t size);
bool WriteFull(int fd, const void* buffer, uint32_t size);

}  // namespace dsp
}  // namespace mace

extern "C" {
void* memcpy(void* dst, const void* src, size_t n);
void* memmove(void* dst, const void* src, size_t n);
void* memset(void* dst, int value, size_t n);
int memcmp(const void* a, const void* b, size_t n);
}

#endif  // MACE_DSP_SYS_H_
