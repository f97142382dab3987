#include "mace/ops/ref/channel_shuffle.h"

#include <cstring>

namespace mace {
namespace ops {
namespace ref {

void ChannelShuffle(const ChannelShuffleParams& p, const float* input, float* output) {
  const int64_t per_group = p.channels / p.group;
  const int64_t plane = p.height * p.width;
  for (int64_t n = 0; n < p.batch; ++n) {
    for (int64_t g = 0; g < p.group; ++g) {
      for (int64_t i = 0; i < per_group; ++i) {
        const int64_t in_c = g * per_group + i;
        const int64_t out_c = i * p.group + g;
        std::memcpy(output + (n * p.channels + out_c) * plane,
                    input + (n * p.channels + in_c) * plane, plane * sizeof(float));
      }
    }
  }
}

}  // namespace ref
}  // namespace ops
}  // namespace mace
