#include "mace/core/types.h"

namespace mace {

const char* MemoryTypeName(MemoryType type) {
  switch (type) {
    case MemoryType::CPU_BUFFER:
      return "CPU_BUFFER";
    case MemoryType::GPU_BUFFER:
      return "GPU_BUFFER";
    case MemoryType::GPU_IMAGE:
      return "GPU_IMAGE";
  }
  return "UNKNOWN";
}

int DataTypeSize(DataType type) {
  switch (type) {
    case DT_FLOAT:
      return 4;
    case DT_INT32:
      return 4;
    case DT_HALF:
      return 2;
    case DT_UINT8:
      return 1;
    case DT_INT8:
      return 1;
    default:
      return 0;
  }
}

const char* DataTypeName(DataType type) {
  switch (type) {
    case DT_FLOAT:
      return "float32";
    case DT_INT32:
      return "int32";
    case DT_HALF:
      return "float16";
    case DT_UINT8:
      return "uint8";
    case DT_INT8:
      return "int8";
    default:
      return "invalid";
  }
}

}  // namespace mace
