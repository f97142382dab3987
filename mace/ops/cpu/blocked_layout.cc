#include "mace/ops/cpu/blocked_layout.h"

namespace mace {
namespace ops {

std::vector<float> PadToBlocks(const float* values, int64_t channels, int block) {
  std::vector<float> padded(BlockCount(channels, block) * block, 0.f);
  if (values != nullptr) std::copy(values, values + channels, padded.begin());
  return padded;
}

void PackChannelBlocks(const float* in, int64_t batch, int64_t channels, int64_t plane, int block,
                       float* out, ThreadPool* pool) {
  const int64_t blocks = BlockCount(channels, block);
  ParallelFor(pool, batch * blocks, [&](int64_t begin, int64_t end) {
    for (int64_t task = begin; task < end; ++task) {
      const int64_t n = task / blocks, b = task % blocks;
      float* dst = out + task * plane * block;
      for (int lane = 0; lane < block; ++lane) {
        const int64_t c = b * block + lane;
        if (c >= channels) {
          for (int64_t p = 0; p < plane; ++p) dst[p * block + lane] = 0.f;
          continue;
        }
        const float* src = in + (n * channels + c) * plane;
        for (int64_t p = 0; p < plane; ++p) dst[p * block + lane] = src[p];
      }
    }
  });
}

void UnpackChannelBlocks(const float* in, int64_t batch, int64_t channels, int64_t plane, int block,
                         float* out, ThreadPool* pool) {
  const int64_t blocks = BlockCount(channels, block);
  ParallelFor(pool, batch * blocks, [&](int64_t begin, int64_t end) {
    for (int64_t task = begin; task < end; ++task) {
      const int64_t n = task / blocks, b = task % blocks;
      const float* src = in + task * plane * block;
      const int lanes = static_cast<int>(std::min<int64_t>(block, channels - b * block));
      for (int lane = 0; lane < lanes; ++lane) {
        float* dst = out + (n * channels + b * block + lane) * plane;
        for (int64_t p = 0; p < plane; ++p) dst[p] = src[p * block + lane];
      }
    }
  });
}

}  // namespace ops
}  // namespace mace
