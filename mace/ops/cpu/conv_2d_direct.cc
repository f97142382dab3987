#include "mace/ops/cpu/conv_2d_direct.h"

#include <algorithm>

#include "mace/ops/cpu/conv_2d_direct_runs.h"
#include "mace/ops/cpu/conv_2d_gemm.h"
#include "mace/ops/cpu/fused_activation.h"

namespace mace {
namespace ops {
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
  // The NEON runs (conv_2d_direct_runs.h) with the NEON table.
  const bool neon_runs = table_.isa == KernelIsa::kNeon;
  DirectRunsPlan plan;
  if (neon_runs) {
    PlanDirectRuns(k_, static_cast<int>(p.kernel_w), padded_.offsets(),
                   stepped ? steps_.data() : nullptr, &plan);
  }
  // One output row on in the padded image.
  const int64_t row_b = padded_.Origin(1, 0) - padded_.Origin(0, 0);
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
          const DirectRunsTask run = {&plan,
                                      k_,
                                      static_cast<int>(p.kernel_w),
                                      nr,
                                      rows,
                                      cols,
                                      filter_.Panel(mt),
                                      base,
                                      padded_.offsets(),
                                      base + first,
                                      steps_.data(),
                                      c,
                                      out_plane,
                                      p.out_w,
                                      segments,
                                      row_b,
                                      begin,
                                      end,
                                      &tile};
          if (stepped) {
            const int64_t done = neon_runs ? DirectSteppedRuns(run, task, ow) : 0;
            if (done > 0) {
              task += done - 1;
              ow += (done - 1) * nr;
            } else {
              table_.conv_rows_stepped(k_, filter_.Panel(mt), base + first, steps_.data(), c,
                                       out_plane, rows, cols, tile);
            }
          } else if (!(neon_runs && DirectOffsetRuns(run, &task, &oh, &ow))) {
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
