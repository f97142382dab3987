// Reference ChannelShuffle (ShuffleNet): channels viewed as [group, C / group]
// are transposed to [C / group, group] and flattened back.
#ifndef MACE_OPS_REF_CHANNEL_SHUFFLE_H_
#define MACE_OPS_REF_CHANNEL_SHUFFLE_H_

#include <cstdint>

namespace mace {
namespace ops {
namespace ref {

struct ChannelShuffleParams {
  int64_t batch = 0, channels = 0, height = 0, width = 0;
  // Divides channels.
  int64_t group = 1;
};

// input and output [batch, channels, height, width]. Output channel
// i * group + g is input channel g * (channels / group) + i.
void ChannelShuffle(const ChannelShuffleParams& params, const float* input, float* output);
// The same on uint8 data (the uint8 kernel).
void ChannelShuffleUint8(const ChannelShuffleParams& params, const uint8_t* input, uint8_t* output);

}  // namespace ref
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_CHANNEL_SHUFFLE_H_
