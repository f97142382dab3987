#include "mace/ops/cpu/conv_2d_direct.h"

#include <algorithm>

#include "mace/ops/cpu/conv_2d_gemm.h"
#include "mace/ops/cpu/fused_activation.h"

#if defined(__ARM_NEON) && !defined(__aarch64__)
#include "mace/ops/arm/sgemm_neon_armv7.h"
#endif

namespace mace {
namespace ops {
#if defined(__ARM_NEON) && !defined(__aarch64__)
namespace arm {
// sgemm_neon.cc: NeonConvRows for offsets that come kernel_w taps of a
// kernel row at a time, as PaddedImage lays them out (0: any offsets).
void Armv7ConvRows(int kernel_w, int64_t kc, const float* a, const float* base,
                   const int64_t* offsets, float* c, int64_t ldc, int rows, int cols,
                   const TileEpilogue& epilogue);
// `tiles` whole tiles (rows x 8) along an output row in one call, each 8
// floats on from the one before it in the padded image and in C; false,
// with nothing written, for what Armv7ConvRows would stage (rows other than
// 2, 4 and 6) or run another way (other kernel widths, other epilogues).
// chain: the tap steps Armv7ConvKernelRowsChain gave for these offsets, or
// null. With a chain, out_rows such rows, row_b floats apart in the padded
// image and row_c in C, each ended by a tile tail_back (0 to 7) columns
// before the next whole one (arm::Armv7ConvKernelRowsRows).
bool Armv7ConvRowsRun(int kernel_w, int64_t kc, const float* a, const float* base,
                      const int64_t* offsets, float* c, int64_t ldc, int rows, int tiles,
                      const TileEpilogue& epilogue, const int32_t* chain, int out_rows = 1,
                      int64_t row_b = 0, int64_t row_c = 0, int tail_back = 0);
}  // namespace arm
#endif
#if defined(__aarch64__)
namespace arm {
// sgemm_neon.cc: `tiles` whole 8 x 12 tiles along an output row in one
// call, each 12 floats on from the one before it in B's rows and in C;
// false, with nothing written, for what NeonConvRowsStepped would stage
// (fewer than 8 rows, a column bias, hard-swish). steps_repeat9: steps[k] ==
// steps[k + 9] for every k + 9 < kc - 1 (a 3x3 kernel's taps, the
// channels' planes equally far apart), which a 27-deep stem then holds in
// registers.
// tail: in, the columns (1 to 4, or 0 for none) of a last tile (in this
// task range) that follows the run to end the row; out, those columns if
// it was run with it (the 27-deep stems), else 0.
bool NeonConvRowsRun(int64_t kc, const float* a, const float* first, const int64_t* steps,
                     bool steps_repeat9, float* c, int64_t ldc, int rows, int64_t tiles,
                     int* tail, const TileEpilogue& epilogue);
}  // namespace arm
#endif
namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t RoundUp(int64_t a, int64_t b) { return CeilDiv(a, b) * b; }

}  // namespace

bool Conv2dDirect::Supports(const KernelTable& table, const ref::Conv2DParams& p) {
  const int64_t k = p.in_channels * p.kernel_h * p.kernel_w;
  const bool plain_1x1 = p.kernel_h == 1 && p.kernel_w == 1 && p.stride_h == 1 && p.stride_w == 1 &&
                         p.pad_top == 0 && p.pad_left == 0;
  return table.conv_rows != nullptr && p.group == 1 && p.dilation_h == 1 && p.dilation_w == 1 &&
         (p.stride_w == 1 || p.stride_w == 2) && p.stride_h >= 1 && k <= table.kc && !plain_1x1 &&
         !Conv2dGemm::IsStridedPointwise(p);
}

Conv2dDirect::Conv2dDirect(const KernelTable& table, const ref::Conv2DParams& params,
                           const float* filter, PersistentArena* arena)
    : table_(table),
      params_(params),
      // Tiles read whole B rows of nr floats from their first output column,
      // so the last tile of a row reads up to column RoundUp(out_w, nr) - 1.
      padded_(params, params.in_channels, RoundUp(params.out_w, table.nr)) {
  const ref::Conv2DParams& p = params_;
  k_ = p.in_channels * p.kernel_h * p.kernel_w;
  fused_activation_ = FuseActivation(p.activation, &epilogue_);
  // OIHW is [out channel][(ic, kh, kw)]: A rows with unit depth stride.
  filter_.Pack(filter, p.out_channels, k_, k_, 1, table.mr, arena);
  if (table.conv_rows_stepped != nullptr) {
    steps_.resize(k_);
    ConvRowSteps(padded_.offsets(), k_, steps_.data());
  }
}

int64_t Conv2dDirect::ScratchBytes(int threads) const {
  (void)threads;  // one copy of the image, shared by the threads
  return padded_.floats() * static_cast<int64_t>(sizeof(float));
}

void Conv2dDirect::Run(const float* input, const float* bias, float* output, ThreadPool* pool,
                       float* scratch) const {
  const ref::Conv2DParams& p = params_;
  const int nr = table_.nr, mr = table_.mr;
  const int64_t in_image = p.in_channels * p.in_h * p.in_w;
  const int64_t out_plane = p.out_h * p.out_w;
  const int64_t segments = CeilDiv(p.out_w, nr);
  const int64_t m_tiles = CeilDiv(p.out_channels, mr);
  const bool stepped = !steps_.empty();
  const int64_t first = stepped ? padded_.offsets()[0] : 0;
#if defined(__aarch64__)
  bool steps_repeat9 = stepped;
  for (int64_t k = 0; steps_repeat9 && k + 9 < k_ - 1; ++k) {
    steps_repeat9 = steps_[k] == steps_[k + 9];
  }
#endif
#if defined(__ARM_NEON) && !defined(__aarch64__)
  // armv7 NEON: runs of 6-row tiles walk a 3x3 or 7x7 kernel's taps as one chain
  // where the offsets allow, checked once here rather than per run.
  int32_t chain_steps[4];
  const int32_t* chain =
      table_.isa == KernelIsa::kNeon && arm::Armv7ConvKernelRowsChain(
                                            static_cast<int>(k_), static_cast<int>(p.kernel_w),
                                            padded_.offsets(), chain_steps)
          ? chain_steps
          : nullptr;
#endif
  for (int64_t n = 0; n < p.batch; ++n) {
    ParallelFor(pool, p.in_channels, [&](int64_t begin, int64_t end) {
      padded_.Fill(input + n * in_image, begin, end, scratch);
    });
    float* image_out = output + n * p.out_channels * out_plane;
    // A thread's tiles run output channel tile by tile over its (row,
    // segment) tasks, so it writes mr output planes at a time rather than
    // all of them: a stem's output (3 MB at 112x112x64) overflows L2, and
    // the hardware prefetcher follows 8 store streams but not 64. Each
    // channel tile rereads the padded input, which stays in L2. At 2
    // threads SqueezeNet 1.1's stem went from 0.50 to 0.40 ms, ResNet-18's
    // from 1.5 to 1.4 ms; one thread is unchanged.
    ParallelFor(pool, p.out_h * segments, [&](int64_t begin, int64_t end) {
      for (int64_t mt = 0; mt < m_tiles; ++mt) {
        const int rows = static_cast<int>(std::min<int64_t>(mr, p.out_channels - mt * mr));
        TileEpilogue tile = epilogue_;
        tile.row_bias = bias != nullptr ? bias + mt * mr : nullptr;
        // Task (oh, segment) counted without a division per tile: a 64-bit
        // division is a library call on armv7.
        int64_t oh = begin / segments, ow = begin % segments * nr;
        for (int64_t task = begin; task < end; ++task) {
          const int cols = static_cast<int>(std::min<int64_t>(nr, p.out_w - ow));
          const float* base = scratch + padded_.Origin(oh, ow);
          float* c = image_out + mt * mr * out_plane + oh * p.out_w + ow;
          if (stepped) {
#if defined(__aarch64__)
            // arm64 NEON: this task's and the next ones' whole tiles in
            // this output row go as one run (a padded row's column ow + nr
            // is nr floats after ow's), sparing each tile the call's
            // set-up.
            constexpr int kRunNr = 12;
            const int64_t whole =
                table_.isa == KernelIsa::kNeon && nr == kRunNr
                    ? std::min<int64_t>((p.out_w - ow) / kRunNr, end - task)
                    : 0;
            const int64_t rest = p.out_w - ow - whole * kRunNr;
            int tail = whole > 0 && rest <= 4 && task + whole < end ? static_cast<int>(rest) : 0;
            if (whole > 0 && arm::NeonConvRowsRun(k_, filter_.Panel(mt), base + first,
                                                  steps_.data(), steps_repeat9, c, out_plane,
                                                  rows, whole, &tail, tile)) {
              const int64_t done = whole + (tail > 0 ? 1 : 0);
              task += done - 1;
              ow += (done - 1) * nr;
            } else {
              table_.conv_rows_stepped(k_, filter_.Panel(mt), base + first, steps_.data(), c,
                                       out_plane, rows, cols, tile);
            }
#else
            table_.conv_rows_stepped(k_, filter_.Panel(mt), base + first, steps_.data(), c,
                                     out_plane, rows, cols, tile);
#endif
#if defined(__ARM_NEON) && !defined(__aarch64__)
          } else if (table_.isa == KernelIsa::kNeon) {
            // armv7 NEON: each kernel row's taps walked by two fixed steps,
            // 2 instructions a tap fewer than the offsets form. This task's
            // and the next ones' whole tiles in this output row go as one
            // run (a padded row's column ow + nr is nr floats after ow's):
            // a call per tile cost about 100 instructions of set-up. A run's
            // tiles are 8 columns; dividing by 8, not by nr, is a shift
            // where a 64-bit division would be a library call per task.
            constexpr int64_t kRunNr = 8;
            // Whole output rows from here on that this thread runs: one
            // call for all of them, each row's ragged end a tile ending at
            // its last column (a call per row and ragged end cost about 300
            // instructions of set-up).
            if (chain != nullptr && ow == 0 && nr == kRunNr && p.out_w >= kRunNr) {
              int64_t out_rows = 0;
              for (int64_t t = task + segments; t <= end; t += segments) ++out_rows;
              const int64_t tail = p.out_w % kRunNr;
              if (out_rows > 0 && out_rows < (int64_t{1} << 30) &&
                  arm::Armv7ConvRowsRun(static_cast<int>(p.kernel_w), k_, filter_.Panel(mt), base,
                                        padded_.offsets(), c, out_plane, rows,
                                        static_cast<int>(p.out_w / kRunNr), tile, chain,
                                        static_cast<int>(out_rows),
                                        padded_.Origin(oh + 1, 0) - padded_.Origin(oh, 0),
                                        p.out_w, tail != 0 ? static_cast<int>(kRunNr - tail) : 0)) {
                task += out_rows * segments - 1;
                oh += out_rows;  // ow stays 0
                continue;
              }
            }
            const int64_t whole =
                nr == kRunNr ? std::min<int64_t>((p.out_w - ow) / kRunNr, end - task) : 0;
            // A row's ragged last segment whose row this thread ran the
            // segment before: one whole tile ending at the row's last
            // column, which rewrites the columns before it with the values
            // they hold, where staging its part of a tile cost about 200
            // instructions more (SqueezeNet 1.1's 111 columns: 1,221 such
            // tiles). Another thread's columns are not rewritten.
            const bool ragged_end = nr == kRunNr && whole == 0 && task > begin && ow > 0;
            const int64_t back = ragged_end ? kRunNr - cols : 0;
            const auto run = [&](int64_t tiles, int64_t shift) {
              return arm::Armv7ConvRowsRun(static_cast<int>(p.kernel_w), k_, filter_.Panel(mt),
                                           base - shift, padded_.offsets(), c - shift, out_plane,
                                           rows, static_cast<int>(tiles), tile, chain);
            };
            if (whole >= 1 && run(whole, 0)) {
              task += whole - 1;
              ow += (whole - 1) * nr;
            } else if (!(ragged_end && run(1, back))) {
              arm::Armv7ConvRows(static_cast<int>(p.kernel_w), k_, filter_.Panel(mt), base,
                                 padded_.offsets(), c, out_plane, rows, cols, tile);
            }
#endif
          } else {
            table_.conv_rows(k_, filter_.Panel(mt), base, padded_.offsets(), c, out_plane, rows,
                             cols, tile);
          }
          ow += nr;
          if (ow >= p.out_w) {
            ow = 0;
            ++oh;
          }
        }
      }
    });
  }
  if (!fused_activation_) {
    ApplyActivation(p.activation, output, p.batch * p.out_channels * out_plane, pool);
  }
}

}  // namespace ops
}  // namespace mace
