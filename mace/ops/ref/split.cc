#include "mace/ops/ref/split.h"

#include <cstring>

namespace mace {
namespace ops {
namespace ref {

void Split(const SplitParams& p, const void* input, void* const* outputs) {
  const unsigned char* in = static_cast<const unsigned char*>(input);
  for (int64_t o = 0; o < p.outer; ++o) {
    for (size_t i = 0; i < p.run_bytes.size(); ++i) {
      if (p.run_bytes[i] == 0) continue;  // an empty piece may have no memory
      unsigned char* run = static_cast<unsigned char*>(outputs[i]) + o * p.run_bytes[i];
      std::memcpy(run, in, p.run_bytes[i]);
      in += p.run_bytes[i];
    }
  }
}

}  // namespace ref
}  // namespace ops
}  // namespace mace
