// Winograd F(2x2, 3x3) and F(4x4, 3x3) convolution on channel-blocked
// tensors (cpu/blocked_layout.h): the blocked counterpart of
// Conv2dWinograd, so that a network's Winograd layers need no conversion
// between the blocked ops around them.
//
// With one vector per channel block, the transforms vectorize across
// channels instead of tiles and need no shuffles; the alpha^2 products
// M[xi] = U[xi] x V[xi] are blocked 1x1 convolutions over tiles (the
// KernelTable::blocked_conv kernel).
//
// Work goes in tasks of consecutive tiles, each by one thread in its own
// scratch: the input transform of all the task's tiles into V ([xi][tile]
// [channel], about kBlockBytes), then, per group of output blocks whose
// transformed filter stays in L2 and per run of tiles, the alpha^2 products
// into a buffer that stays in L2 and the output transform from it, which
// adds the bias and applies the activation.
#ifndef MACE_OPS_CPU_CONV_2D_BLOCKED_WINOGRAD_H_
#define MACE_OPS_CPU_CONV_2D_BLOCKED_WINOGRAD_H_

#include <cstdint>
#include <vector>

#include "mace/ops/cpu/blocked_layout.h"
#include "mace/ops/cpu/kernel_table.h"
#include "mace/ops/ref/conv_2d.h"
#include "mace/runtimes/cpu/thread_pool.h"

namespace mace {
namespace ops {

class BlockedWinograd {
 public:
  // Ungrouped 3x3, stride 1, no dilation, on a table with blocked Winograd
  // transforms.
  static bool Supports(const KernelTable& table, const ref::Conv2DParams& params);
  // The tile (2 or 4, at most `requested`) that beats a blocked direct
  // convolution for `params` on `table`, or 0 when neither does. Blocked
  // transforms cost little, so this pays on smaller maps than
  // Conv2dWinograd::PickTile allows. `l3_bytes` is the size of the
  // last-level cache (0 when unknown): one that holds a network's
  // transformed filters makes them cheaper to read.
  static int PickTile(const KernelTable& table, const ref::Conv2DParams& params, int requested,
                      int64_t l3_bytes = kTableL3Bytes);
  // PickTile's default: the table's blocked_l3_bytes (the host's last-level
  // cache where the port reads it: x86 Linux; else 0).
  static constexpr int64_t kTableL3Bytes = -1;
  // `tile` is 2 or 4. Transforms and packs the filter (and pads the bias,
  // zeros when null), in `arena` when given, on `pool`'s threads when
  // given. The input must be blocked.
  BlockedWinograd(const KernelTable& table, const ref::Conv2DParams& params, const float* filter,
                  const float* bias, int tile, PersistentArena* arena = nullptr,
                  ThreadPool* pool = nullptr);
  int64_t ScratchBytes(int threads) const;
  // The transformed filter, [position][out block][in channel][lane] (for
  // tests).
  const float* packed_filter() const { return weights_.data(); }
  void Run(const float* input, float* output, ThreadPool* pool, float* scratch) const;

 private:
  struct Layout {
    int64_t tasks_per_image = 0;
    int64_t task_tiles = 0;  // tiles per task (the last may have fewer)
    // Tasks take all the image's tiles and an even share of the output
    // blocks instead (parts per image); see MakeLayout.
    bool split_groups = false;
    int64_t parts = 1;
    int64_t v_floats = 0, m_floats = 0, per_thread = 0;
  };
  Layout MakeLayout(int threads) const;
  // V for tiles [first_tile, first_tile + tiles): tile u at v + u *
  // channel_pitch_ of each position, whose stride is v_tiles tiles.
  void TransformInput(const float* image, int64_t first_tile, int64_t tiles, int64_t v_tiles,
                      float* v) const;
  // The products and output transform of those tiles for output blocks
  // [block_begin, block_end), in groups of up to group_blocks_, with `m`
  // (Layout::m_floats) for M.
  void Products(const float* v, int64_t v_tiles, float* out_image, int64_t first_tile,
                int64_t tiles, int64_t block_begin, int64_t block_end, float* m) const;

  const KernelTable& table_;
  ref::Conv2DParams params_;
  int tile_, alpha_, block_;
  int64_t tiles_h_, tiles_w_;
  int64_t in_blocks_, out_blocks_;
  int64_t channel_pitch_;  // floats per tile and position in V: input blocks x lanes
  int64_t group_blocks_;   // output blocks per group
  int64_t sub_tiles_;      // tiles per product run
  TileEpilogue epilogue_;
  bool separate_activation_;
  PersistentFloats weights_;  // [position][out block][channel][lane]
  PersistentFloats bias_;     // [out block][lane]
  std::vector<int64_t> channel_offsets_;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_CONV_2D_BLOCKED_WINOGRAD_H_
