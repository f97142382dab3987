#include "mace/ops/ref/channel_shuffle.h"

#include <cstring>

namespace mace {
namespace ops {
namespace ref {

namespace {

template <typename T>
void ChannelShuffleImpl(const ChannelShuffleParams& p, const T* input, T* output) {
  const int64_t per_group = p.channels / p.group;
  const int64_t plane = p.height * p.width;
  for (int64_t n = 0; n < p.batch; ++n) {
    for (int64_t g = 0; g < p.group; ++g) {
      for (int64_t i = 0; i < per_group; ++i) {
        const int64_t in_c = g * per_group + i;
        const int64_t out_c = i * p.group + g;
        std::memcpy(output + (n * p.channels + out_c) * plane,
                    input + (n * p.channels + in_c) * plane, plane * sizeof(T));
      }
    }
  }
}

}  // namespace

void ChannelShuffle(const ChannelShuffleParams& params, const float* input, float* output) {
  ChannelShuffleImpl(params, input, output);
}

void ChannelShuffleUint8(const ChannelShuffleParams& params, const uint8_t* input,
                         uint8_t* output) {
  ChannelShuffleImpl(params, input, output);
}

}  // namespace ref
}  // namespace ops
}  // namespace mace
