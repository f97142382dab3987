#include "mace/ops/cpu/conv_2d_blocked_winograd.h"

#include <algorithm>

#include "mace/ops/cpu/conv_2d_winograd.h"
#include "mace/ops/cpu/fused_activation.h"
#include "mace/runtimes/cpu/scratch_buffer.h"

namespace mace {
namespace ops {
namespace {

// A task's transformed input (V): about half of a 2 MiB L2.
constexpr int64_t kBlockBytes = int64_t{1} << 20;
// A group's transformed filter, read once per product run: it stays in L2
// beside V.
constexpr int64_t kGroupBytes = int64_t{1} << 20;
// One product run's alpha^2 outputs (M), which the output transform reads
// right after: in L2 beside V and the group's filter. Each run reads the
// group's filter again, and a part of it (kReductionPart channels at one
// position) stays in L1 only over that run's kernel tiles: in runs of 8 to
// 16 tiles (an L1 of M) every weight came from L2 for a tile or two.
constexpr int64_t kProductBytes = int64_t{448} << 10;
// Tiles per product run are a multiple of this (every kernel's position tile
// divides it or is close: 8, 6 and 4 positions).
constexpr int64_t kTileQuantum = 8;
// Input channels per part of a product's reduction, as for blocked 1x1.
constexpr int64_t kReductionPart = 128;

// With several threads and one image, a layer whose transformed filter
// outweighs its V by more than this many times splits its output blocks
// over the threads (each transforming the whole input into its own V),
// others their tiles (each reading the whole filter). Threads that split
// the tiles read the same filter at about the same time, so the second
// finds it in the shared cache, while each thread that splits the blocks
// computes and writes all of V again. At two threads on a Cascade Lake
// class host (the busiest thread's CPU time, layers in the networks),
// tiles took 15-20 % less on ResNet-18's 128 channels at 28x28 with F(4x4)
// (filter 2.6 times V), 2-7 % less on SqueezeNet 1.1's 32 -> 128 channels
// at 27x27 (2.6 times), and 5-9 % more on its F(2x2) layers at 13x13 (3.9
// and 5.2 times).
constexpr int64_t kSplitGroupsRatio = 3;

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t RoundUp(int64_t a, int64_t b) { return CeilDiv(a, b) * b; }

}  // namespace

bool BlockedWinograd::Supports(const KernelTable& table, const ref::Conv2DParams& params) {
  return Conv2dWinograd::Supports(params) && table.channel_block > 0 &&
         table.channel_block <= kWinogradFilterLanes && table.blocked_conv != nullptr &&
         table.blocked_winograd_input != nullptr && table.blocked_winograd_output != nullptr;
}

int BlockedWinograd::PickTile(const KernelTable& table, const ref::Conv2DParams& p, int requested,
                              int64_t l3_bytes) {
  if (!Supports(table, p) || p.in_channels < 8 || p.out_channels < 8) return 0;
  if (l3_bytes == kTableL3Bytes) l3_bytes = table.blocked_l3_bytes;
  // A cost model in multiply-adds. The direct convolution does all 9 taps
  // per output; Winograd's products do alpha^2 per tile, a run of fewer
  // than kMinTiles tiles costing a whole kernel tile, and its transforms
  // about kTransformCost per channel, position and tile. Every filter float
  // (Winograd's is alpha^2 / 9 times larger) costs filter_cost on top: in a
  // network it is read from beyond L2 at each inference, which a deep layer
  // on a small map feels most. Fitted on the SqueezeNet 1.1 and ResNet-18
  // layers inside the networks (mace_run --benchmark, AVX-512, 1 and 2
  // threads): F(4x4) from 55x55 down to 28x28, F(2x2) for 256 channels at
  // 14x14 (F(4x4) took 1.4 ms there, F(2x2) 0.95), either at 13x13, where
  // the two ran alike, and direct for 512 channels at 7x7. That last one is
  // the close call: F(2x2)'s 16.8 MB filter per layer against direct's 9.4.
  // On a Zen 5 core (258 GFLOP/s, 1 MiB L2, 32 MiB L3 shared) direct took
  // 1.37-1.44 ms against 1.77-1.84 at one thread and 0.68-0.76 against
  // 0.96-1.07 at two; on a Sapphire Rapids class host, whose cores compute
  // at two thirds of that, the two had run alike at one thread and F(2x2)
  // 30 % faster at two. The break-even filter cost there is 18.
  //
  // A filter float costs the time of a fixed number of bytes from memory,
  // so its cost in multiply-adds grows with the core's multiply-add rate:
  // 0.75 per lane the table issues per cycle. A Zen 4 core's
  // AVX-512 issues half of Zen 5's (16 lanes, 117 GFLOP/s): cost 12, and
  // there F(2x2) ran 512 channels at 7x7 in 1.75 ms against direct's 2.43,
  // while at 14x14 F(2x2) stays ahead of F(4x4) (1.12 ms against 1.27),
  // which a cost of 10 would have picked. Full-rate AVX-512 tables get 24,
  // which picks the same tiles as the fitted 20 on every zoo layer. Tables
  // of fewer lanes (NEON) count as 16: the rule has not been timed on phone
  // cores, whose memory is slower too.
  //
  // A last-level cache of kLargeL3Bytes or more holds a network's
  // transformed filters whole (ResNet-18's, F(2x2) at 7x7, are about 70 MB),
  // so a filter float comes from L3, not memory: 0.5 per lane, but not
  // under kMinFilterCost, below which 256 channels at 14x14 would go to
  // F(4x4). On an Emerald Rapids class host (260 MiB L3, 32 lanes) F(2x2)
  // ran ResNet-18's 512-channel 7x7 layers in 1.76-1.85 ms against direct's
  // 1.96-1.99 at one thread, where the 16 of that cost picks it; F(4x4) at
  // 14x14 took 1.37-1.55 ms against F(2x2)'s 0.94-1.04.
  constexpr double kTransformCost = 1.0;
  constexpr int64_t kLargeL3Bytes = int64_t{96} << 20;
  constexpr double kMinFilterCost = 12.0;
  const double per_lane = l3_bytes >= kLargeL3Bytes ? 0.5 : 0.75;
  const double filter_cost = std::max(per_lane * std::max(table.mac_lanes, 16), kMinFilterCost);
  constexpr double kMargin = 0.9;  // Winograd must win clearly: it is less exact
  constexpr int64_t kMinTiles = 8;
  const double filter = static_cast<double>(p.out_channels) * p.in_channels;
  const double direct = 9.0 * filter * (static_cast<double>(p.out_h) * p.out_w + filter_cost);
  double best = kMargin * direct;
  int pick = 0;
  for (int tile = 2; tile <= requested; tile += 2) {
    const int64_t alpha2 = (tile + 2) * (tile + 2);
    const int64_t tiles = CeilDiv(p.out_h, tile) * CeilDiv(p.out_w, tile);
    const double products =
        filter * alpha2 * (static_cast<double>(std::max(tiles, kMinTiles)) + filter_cost);
    const double transforms =
        kTransformCost * static_cast<double>(p.in_channels + p.out_channels) * alpha2 * tiles;
    if (products + transforms < best) {
      best = products + transforms;
      pick = tile;
    }
  }
  return pick;
}

BlockedWinograd::BlockedWinograd(const KernelTable& table, const ref::Conv2DParams& params,
                                 const float* filter, const float* bias, int tile,
                                 PersistentArena* arena, ThreadPool* pool)
    : table_(table),
      params_(params),
      tile_(tile),
      alpha_(tile + 2),
      block_(table.channel_block),
      tiles_h_(CeilDiv(params.out_h, tile)),
      tiles_w_(CeilDiv(params.out_w, tile)),
      in_blocks_(BlockCount(params.in_channels, table.channel_block)),
      out_blocks_(BlockCount(params.out_channels, table.channel_block)) {
  separate_activation_ = !FuseActivation(params.activation, &epilogue_);
  const int64_t L = block_, positions = alpha_ * alpha_;
  const int64_t in_c = params.in_channels, out_c = params.out_channels;
  channel_pitch_ = in_blocks_ * L;
  // A run is no longer than a task's V (kBlockBytes) holds, so that a task
  // never grows past that for its runs.
  const int64_t v_tile_bytes = positions * channel_pitch_ * int64_t{sizeof(float)};
  const int64_t max_tiles = std::max(kTileQuantum, kBlockBytes / v_tile_bytes);
  auto run_tiles = [&](int64_t blocks) {
    const int64_t m_tile_bytes = positions * blocks * L * int64_t{sizeof(float)};
    return std::clamp(kProductBytes / m_tile_bytes / kTileQuantum * kTileQuantum, kTileQuantum,
                      max_tiles);
  };
  // A group's filter stays in L2 for its runs after the first. When one
  // run takes every tile, nothing reads it twice: the group takes the
  // kernel's most blocks (512 channels at 7x7: 3 instead of 2, three weight
  // vectors per 8 broadcasts instead of two).
  const int64_t group_bytes = positions * L * in_c * int64_t{sizeof(float)};
  group_blocks_ = std::clamp<int64_t>(kGroupBytes / group_bytes, 1, table.blocked_conv_blocks);
  if (tiles_h_ * tiles_w_ <= run_tiles(table.blocked_conv_blocks)) {
    group_blocks_ = table.blocked_conv_blocks;
  }
  sub_tiles_ = run_tiles(group_blocks_);

  // The filters of a chunk of output lanes (whole blocks) are transformed
  // together, one input channel at a time, by the table's vectorized kernel,
  // straight into place: every position's block vector is one aligned store.
  // Going through a transposed copy read it one float per cache line, and
  // filter by filter in scalar code the transform itself took longer than
  // the layer. Padding lanes are zero filters; every float is written, so
  // the arena need not zero the buffer first. Chunks of output blocks go to
  // the pool's threads.
  //
  // The taps of kGatherChannels input channels are gathered at once: where
  // a block is the whole chunk, by the table's blocked pack kernel (a
  // vector gather per tap and channel instead of 16 scalar loads), else
  // lane by lane. Blocks are copied with a size known at compile time: a
  // call to memmove per 64 bytes took a tenth of ResNet-18's creation.
  weights_.AllocateUnfilled(positions * out_blocks_ * in_c * L, arena);
  constexpr int64_t kLanes = kWinogradFilterLanes;
  constexpr int64_t kGatherChannels = 8;
  const int64_t chunk_blocks = kLanes / L;
  const int64_t chunks = CeilDiv(out_blocks_, chunk_blocks);
  const int64_t row_floats = in_c * 9;
  const BlockedPackKernel pack =
      L == kLanes && row_floats * (L - 1) < (int64_t{1} << 31) ? table.blocked_pack : nullptr;
  float* weights = weights_.data();
  ParallelFor(pool, chunks, [&](int64_t begin, int64_t end) {
    alignas(64) float g[kGatherChannels * 9 * kLanes];
    alignas(64) float u[6 * 6 * kLanes];  // alpha^2 of F(4x4), the largest tile
    for (int64_t chunk = begin; chunk < end; ++chunk) {
      const int64_t ob0 = chunk * chunk_blocks;
      const int64_t blocks = std::min(chunk_blocks, out_blocks_ - ob0);
      const int64_t lanes = std::min(kLanes, out_c - ob0 * L);
      const float* rows = filter + ob0 * L * row_floats;
      for (int64_t c0 = 0; c0 < in_c; c0 += kGatherChannels) {
        const int64_t count = std::min(kGatherChannels, in_c - c0);
        if (pack != nullptr) {
          pack(rows + c0 * 9, row_floats, static_cast<int>(lanes), count * 9, g);
        } else {
          for (int64_t lane = 0; lane < kLanes; ++lane) {
            const float* taps = lane < lanes ? rows + lane * row_floats + c0 * 9 : nullptr;
            for (int64_t k = 0; k < count * 9; ++k) {
              g[k * kLanes + lane] = taps != nullptr ? taps[k] : 0.f;
            }
          }
        }
        for (int64_t i = 0; i < count; ++i) {
          WinogradTransformChunk(table, g + i * 9 * kLanes, tile, u);
          const int64_t c = c0 + i;
          for (int64_t xi = 0; xi < positions; ++xi) {
            for (int64_t b = 0; b < blocks; ++b) {
              CopyBlockVector(u + xi * kLanes + b * L, L,
                              weights + ((xi * out_blocks_ + ob0 + b) * in_c + c) * L);
            }
          }
        }
      }
    }
  });
  PadToBlocks(bias, out_c, block_, arena, &bias_);
  // V holds a tile's channels side by side, so channel c is at offset c.
  channel_offsets_.resize(in_c);
  for (int64_t c = 0; c < in_c; ++c) channel_offsets_[c] = c;
}

BlockedWinograd::Layout BlockedWinograd::MakeLayout(int threads) const {
  Layout layout;
  const int64_t positions = alpha_ * alpha_;
  const int64_t tiles = tiles_h_ * tiles_w_;
  const int64_t per_tile = positions * channel_pitch_ * int64_t{sizeof(float)};
  const int64_t filter_bytes =
      positions * out_blocks_ * block_ * params_.in_channels * int64_t{sizeof(float)};
  if (threads > 1 && params_.batch < threads && out_blocks_ >= threads &&
      tiles * per_tile <= kBlockBytes && filter_bytes > kSplitGroupsRatio * tiles * per_tile) {
    // Few tiles and a large transformed filter (deep layers on small maps):
    // split by tiles, every thread would stream the whole filter. Split by
    // output blocks instead.
    layout.split_groups = true;
    layout.parts = threads;
    layout.task_tiles = tiles;
    layout.tasks_per_image = 1;
  } else {
    const int64_t budget = std::max(sub_tiles_, kBlockBytes / per_tile);
    int64_t tasks = CeilDiv(tiles, budget);
    // With a single image, as many tasks as threads (or a multiple).
    if (params_.batch < threads) tasks = std::min(RoundUp(tasks, threads), tiles);
    layout.task_tiles = CeilDiv(tiles, tasks);
    layout.tasks_per_image = CeilDiv(tiles, layout.task_tiles);
  }
  layout.v_floats = positions * layout.task_tiles * channel_pitch_;
  layout.m_floats = positions * group_blocks_ * sub_tiles_ * block_;
  layout.per_thread = ThreadRegionFloats(layout.v_floats + layout.m_floats);
  return layout;
}

int64_t BlockedWinograd::ScratchBytes(int threads) const {
  return threads * MakeLayout(threads).per_thread * static_cast<int64_t>(sizeof(float));
}

void BlockedWinograd::TransformInput(const float* image, int64_t first_tile, int64_t tiles,
                                     int64_t v_tiles, float* v) const {
  const ref::Conv2DParams& p = params_;
  const int64_t L = block_;
  // V[xi][tile][channel] = B^T d B, block by block.
  for (int64_t cb = 0; cb < in_blocks_; ++cb) {
    BlockedWinogradInputRun run;
    run.tile = tile_;
    run.in = image + cb * p.in_h * p.in_w * L;
    run.in_h = p.in_h;
    run.in_w = p.in_w;
    run.pad_top = p.pad_top;
    run.pad_left = p.pad_left;
    run.tiles_w = tiles_w_;
    run.first = first_tile;
    run.count = tiles;
    run.out = v + cb * L;
    run.position_stride = v_tiles * channel_pitch_;
    run.tile_stride = channel_pitch_;
    table_.blocked_winograd_input(run);
  }
}

void BlockedWinograd::Products(const float* v, int64_t v_tiles, float* out_image,
                               int64_t first_tile, int64_t tiles, int64_t block_begin,
                               int64_t block_end, float* m) const {
  const ref::Conv2DParams& p = params_;
  const int64_t L = block_, positions = alpha_ * alpha_;
  const int64_t v_position = v_tiles * channel_pitch_;
  // Per group of output blocks and run of tiles: M[xi][block][tile] =
  // U[xi] x V[xi] for every position, then Y = A^T M A into the output.
  const int64_t m_block = sub_tiles_ * L;
  const int64_t m_position = group_blocks_ * m_block;
  const int64_t out_plane = p.out_h * p.out_w * L;
  const int64_t zero_offset = 0;
  // As few groups as group_blocks_ allows, of sizes that differ by one at
  // most: four blocks go 2 + 2, not 3 + 1 (a one-block tile does less than
  // half the multiply-adds per load of a three-block one).
  //
  // A group's transformed filter comes from beyond L2 on its first run of
  // tiles (a network's filters do not stay in cache, and one layer's may
  // not fit L2 either: 16.8 MB for 512 channels at F(2x2)); later runs find
  // it in L2. So the first run brings each next part of the reduction
  // toward L2 while it computes one (the next position's first part after
  // a position's last), and the last run the next group's first part, as
  // blocked 1x1 convolutions do, or each part's first tile waits on misses.
  const int64_t range = block_end - block_begin;
  const int64_t groups = CeilDiv(range, group_blocks_);
  const int64_t in_c = p.in_channels;
  const int64_t position_floats = out_blocks_ * in_c * L;
  for (int64_t g = 0; g < groups; ++g) {
    int64_t first = 0, last = 0;
    ThreadPool::ChunkRange(range, static_cast<int>(groups), static_cast<int>(g), &first, &last);
    const int64_t g0 = block_begin + first, blocks = last - first;
    int64_t next_first = 0, next_last = 0;
    if (g + 1 < groups) {
      ThreadPool::ChunkRange(range, static_cast<int>(groups), static_cast<int>(g + 1), &next_first,
                             &next_last);
    }
    for (int64_t s0 = 0; s0 < tiles; s0 += sub_tiles_) {
      const int64_t count = std::min(sub_tiles_, tiles - s0);
      const bool first_run = s0 == 0, last_run = s0 + count == tiles;
      BlockedConvRun run;
      run.pos_step = channel_pitch_;
      run.taps = 1;
      run.tap_offsets = &zero_offset;
      run.weight_block_stride = p.in_channels * L;
      run.out_block_stride = m_block;
      run.blocks = static_cast<int32_t>(blocks);
      run.positions = count;
      run.blocked_input = true;
      for (int64_t xi = 0; xi < positions; ++xi) {
        run.out = m + xi * m_position;
        const float* weights = weights_.data() + ((xi * out_blocks_ + g0) * in_c) * L;
        for (int64_t c0 = 0; c0 < in_c; c0 += kReductionPart) {
          run.in = v + xi * v_position + s0 * channel_pitch_;
          run.channels = std::min(kReductionPart, in_c - c0);
          run.channel_offsets = channel_offsets_.data() + c0;
          run.weights = weights + c0 * L;
          run.epilogue.accumulate = c0 > 0;
          run.epilogue.last = c0 + run.channels == in_c;
          run.prefetch = nullptr;
          const int64_t next_c0 = c0 + run.channels;
          if (first_run && next_c0 < in_c) {
            run.prefetch = weights + next_c0 * L;
            run.prefetch_floats = std::min(kReductionPart, in_c - next_c0) * L;
            run.prefetch_blocks = static_cast<int32_t>(blocks);
          } else if (first_run && xi + 1 < positions) {
            run.prefetch = weights + position_floats;
            run.prefetch_floats = std::min(kReductionPart, in_c) * L;
            run.prefetch_blocks = static_cast<int32_t>(blocks);
          } else if (last_run && xi + 1 == positions && next_c0 == in_c && g + 1 < groups) {
            run.prefetch = weights_.data() + (block_begin + next_first) * in_c * L;
            run.prefetch_floats = std::min(kReductionPart, in_c) * L;
            run.prefetch_blocks = static_cast<int32_t>(next_last - next_first);
          }
          table_.blocked_conv(run);
        }
      }
      BlockedWinogradOutputRun out;
      out.tile = tile_;
      out.position_stride = m_position;
      out.epilogue = epilogue_;
      out.out_h = p.out_h;
      out.out_w = p.out_w;
      out.tiles_w = tiles_w_;
      out.first = first_tile + s0;
      out.count = count;
      for (int64_t b = 0; b < blocks; ++b) {
        out.in = m + b * m_block;
        out.bias = bias_.data() + (g0 + b) * L;
        out.out = out_image + (g0 + b) * out_plane;
        table_.blocked_winograd_output(out);
      }
    }
  }
}

void BlockedWinograd::Run(const float* input, float* output, ThreadPool* pool,
                          float* scratch) const {
  const ref::Conv2DParams& p = params_;
  const Layout layout = MakeLayout(NumThreads(pool));
  const int64_t tiles = tiles_h_ * tiles_w_;
  const int64_t in_image = in_blocks_ * p.in_h * p.in_w * block_;
  const int64_t out_image = out_blocks_ * p.out_h * p.out_w * block_;
  // Each thread runs whole tasks in its own scratch: no waiting on other
  // threads between the phases. Split by output blocks, every thread
  // transforms the (small) input itself: a second pass over the threads
  // cost more than that on SqueezeNet 1.1's 27x27 and 13x13 layers.
  ParallelFor(pool, p.batch * layout.tasks_per_image * layout.parts,
              [&](int64_t begin, int64_t end, int chunk) {
                float* v = scratch + chunk * layout.per_thread;
                for (int64_t item = begin; item < end; ++item) {
                  const int64_t n = item / (layout.tasks_per_image * layout.parts);
                  const float* image = input + n * in_image;
                  float* out = output + n * out_image;
                  int64_t first = 0, count = tiles, b_begin = 0, b_end = out_blocks_;
                  if (layout.split_groups) {
                    ThreadPool::ChunkRange(out_blocks_, static_cast<int>(layout.parts),
                                           static_cast<int>(item % layout.parts), &b_begin, &b_end);
                  } else {
                    first = (item % layout.tasks_per_image) * layout.task_tiles;
                    count = std::min(layout.task_tiles, tiles - first);
                  }
                  TransformInput(image, first, count, layout.task_tiles, v);
                  Products(v, layout.task_tiles, out, first, count, b_begin, b_end,
                           v + layout.v_floats);
                }
              });
  if (separate_activation_) {
    ApplyActivation(p.activation, output, p.batch * out_image, pool);
  }
}

}  // namespace ops
}  // namespace mace
