#include "mace/ops/ref/concat.h"

#include <cstring>

namespace mace {
namespace ops {
namespace ref {

void Concat(const ConcatParams& p, const void* const* inputs, void* output) {
  unsigned char* out = static_cast<unsigned char*>(output);
  for (int64_t o = 0; o < p.outer; ++o) {
    for (size_t i = 0; i < p.run_bytes.size(); ++i) {
      const unsigned char* run = static_cast<const unsigned char*>(inputs[i]) + o * p.run_bytes[i];
      std::memcpy(out, run, p.run_bytes[i]);
      out += p.run_bytes[i];
    }
  }
}

}  // namespace ref
}  // namespace ops
}  // namespace mace
