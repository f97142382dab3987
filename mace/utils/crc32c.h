// CRC-32C (Castagnoli), the checksum a model keeps of its weights blob
// (NetDef.weights_crc32c). Reflected polynomial 0x82F63B78, initial value and
// final XOR 0xFFFFFFFF: Crc32c("123456789") is 0xE3069283.
//
// A table-driven version (slicing by 8) runs everywhere. The CRC32C
// instructions take over when the CPU has them, decided once at run time:
// SSE4.2 on x86-64 and the CRC32 extension on arm64. armv7 builds keep the
// table version.
#ifndef MACE_UTILS_CRC32C_H_
#define MACE_UTILS_CRC32C_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mace {

// The CRC-32C of `size` bytes at `data`, by the fastest implementation this
// CPU runs.
uint32_t Crc32c(const void* data, size_t size);

// One implementation. `extend` continues a checksum: extend(Crc32c(a), b) is
// the checksum of a followed by b, and extend(0, a) is Crc32c(a).
struct Crc32cImplementation {
  const char* name;
  uint32_t (*extend)(uint32_t crc, const unsigned char* data, size_t size);
};

// Every implementation this build and CPU can run: the portable one first,
// the one Crc32c uses last.
std::vector<Crc32cImplementation> AvailableCrc32cImplementations();

}  // namespace mace

#endif  // MACE_UTILS_CRC32C_H_
