#ifndef MACE_CORE_TYPES_H_
#define MACE_CORE_TYPES_H_

#include <cstdint>
#include <string>

#include "mace/proto/mace.pb.h"

namespace mace {

// Where a tensor's bytes live. Each memory type gets its own planned arena.
enum class MemoryType { CPU_BUFFER = 0, GPU_BUFFER = 1, GPU_IMAGE = 2 };

const char* MemoryTypeName(MemoryType type);

// Bytes per element; 0 for DT_INVALID or unknown values.
int DataTypeSize(DataType type);
const char* DataTypeName(DataType type);

// Rounds `value` up to a multiple of `alignment` (a power of two or any
// positive number).
inline int64_t AlignUp(int64_t value, int64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

}  // namespace mace

#endif  // MACE_CORE_TYPES_H_
