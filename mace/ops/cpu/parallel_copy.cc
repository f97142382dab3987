#include "mace/ops/cpu/parallel_copy.h"

namespace mace {
namespace ops {

void CopyBytes(void* dst, const void* src, int64_t bytes) {
  if (bytes > 0) std::memcpy(dst, src, static_cast<size_t>(bytes));
}

}  // namespace ops
}  // namespace mace
