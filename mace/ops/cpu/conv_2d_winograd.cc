#include "mace/ops/cpu/conv_2d_winograd.h"

#include <algorithm>

#include "mace/ops/cpu/fused_activation.h"

namespace mace {
namespace ops {
namespace {

constexpr int kMaxAlpha = 6;
// Scratch budget per thread for one block of transformed tiles (V and M).
constexpr int64_t kBlockBytes = int64_t{1} << 21;

// The 1-D transforms, written out so the zeros of B^T and A^T cost nothing.
// `s` and `d` are the strides of the source and destination vectors.
void InputTransform1D(int tile, const float* x, int s, float* y, int d) {
  if (tile == 2) {
    y[0] = x[0] - x[2 * s];
    y[d] = x[s] + x[2 * s];
    y[2 * d] = x[2 * s] - x[s];
    y[3 * d] = x[s] - x[3 * s];
    return;
  }
  const float x0 = x[0], x1 = x[s], x2 = x[2 * s], x3 = x[3 * s], x4 = x[4 * s], x5 = x[5 * s];
  y[0] = 4.f * x0 - 5.f * x2 + x4;
  y[d] = -4.f * (x1 + x2) + x3 + x4;
  y[2 * d] = 4.f * (x1 - x2) - x3 + x4;
  y[3 * d] = 2.f * (x3 - x1) - x2 + x4;
  y[4 * d] = 2.f * (x1 - x3) - x2 + x4;
  y[5 * d] = 4.f * x1 - 5.f * x3 + x5;
}

void OutputTransform1D(int tile, const float* x, int s, float* y, int d) {
  if (tile == 2) {
    y[0] = x[0] + x[s] + x[2 * s];
    y[d] = x[s] - x[2 * s] - x[3 * s];
    return;
  }
  const float x0 = x[0], x1 = x[s], x2 = x[2 * s], x3 = x[3 * s], x4 = x[4 * s], x5 = x[5 * s];
  const float sum12 = x1 + x2, diff12 = x1 - x2, sum34 = x3 + x4, diff34 = x3 - x4;
  y[0] = x0 + sum12 + sum34;
  y[d] = diff12 + 2.f * diff34;
  y[2 * d] = sum12 + 4.f * sum34;
  y[3 * d] = diff12 + 8.f * diff34 + x5;
}

// G for the filter transform U = G g G^T.
const float kG2[4][3] = {{1.f, 0.f, 0.f}, {.5f, .5f, .5f}, {.5f, -.5f, .5f}, {0.f, 0.f, 1.f}};
const float kG4[6][3] = {
    {1.f / 4, 0.f, 0.f},           {-1.f / 6, -1.f / 6, -1.f / 6}, {-1.f / 6, 1.f / 6, -1.f / 6},
    {1.f / 24, 1.f / 12, 1.f / 6}, {1.f / 24, -1.f / 12, 1.f / 6}, {0.f, 0.f, 1.f}};

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace

bool Conv2dWinograd::Supports(const ref::Conv2DParams& p) {
  return p.group == 1 && p.kernel_h == 3 && p.kernel_w == 3 && p.stride_h == 1 && p.stride_w == 1 &&
         p.dilation_h == 1 && p.dilation_w == 1;
}

Conv2dWinograd::Conv2dWinograd(const KernelTable& table, const ref::Conv2DParams& params,
                               const float* filter, int tile, PersistentArena* arena)
    : table_(table), params_(params), tile_(tile), alpha_(tile + 2) {
  tiles_h_ = CeilDiv(params.out_h, tile);
  tiles_w_ = CeilDiv(params.out_w, tile);
  const int positions = alpha_ * alpha_;
  const int64_t oc_count = params.out_channels, ic_count = params.in_channels;
  std::vector<float> u(positions * oc_count * ic_count);
  for (int64_t oc = 0; oc < oc_count; ++oc) {
    for (int64_t ic = 0; ic < ic_count; ++ic) {
      const float* g = filter + (oc * ic_count + ic) * 9;
      float gg[kMaxAlpha][3];  // G g
      for (int i = 0; i < alpha_; ++i) {
        for (int j = 0; j < 3; ++j) {
          const float* row = tile == 2 ? kG2[i] : kG4[i];
          gg[i][j] = row[0] * g[j] + row[1] * g[3 + j] + row[2] * g[6 + j];
        }
      }
      for (int i = 0; i < alpha_; ++i) {
        for (int j = 0; j < alpha_; ++j) {
          const float* row = tile == 2 ? kG2[j] : kG4[j];
          const float value = gg[i][0] * row[0] + gg[i][1] * row[1] + gg[i][2] * row[2];
          u[((i * alpha_ + j) * oc_count + oc) * ic_count + ic] = value;
        }
      }
    }
  }
  transformed_filter_.resize(positions);
  for (int xi = 0; xi < positions; ++xi) {
    transformed_filter_[xi].Pack(u.data() + xi * oc_count * ic_count, oc_count, ic_count, ic_count,
                                 1, table.mr, arena);
  }
}

Conv2dWinograd::Layout Conv2dWinograd::MakeLayout(int threads) const {
  Layout layout;
  const int64_t positions = alpha_ * alpha_;
  const int64_t channels = params_.in_channels + params_.out_channels;
  const int64_t tiles = tiles_h_ * tiles_w_;
  // Enough blocks to keep every thread busy, as long as a block still fills
  // a few GEMM micro-panels, and no block larger than the budget.
  int64_t block = std::max<int64_t>(kBlockBytes / (positions * channels * 4), table_.nr);
  block = std::min(block, std::max<int64_t>(CeilDiv(tiles * params_.batch, threads), table_.nr));
  layout.block_tiles = std::min(block, tiles);
  layout.v_floats = positions * params_.in_channels * layout.block_tiles;
  layout.m_floats = positions * params_.out_channels * layout.block_tiles;
  GemmOperand lhs, rhs;
  lhs.packed = &transformed_filter_[0];
  layout.gemm_floats = GemmScratchFloatsPerThread(table_, params_.out_channels, layout.block_tiles,
                                                  params_.in_channels, lhs, rhs);
  layout.per_thread = layout.v_floats + layout.m_floats + layout.gemm_floats;
  return layout;
}

int64_t Conv2dWinograd::ScratchBytes(int threads) const {
  return threads * MakeLayout(threads).per_thread * static_cast<int64_t>(sizeof(float));
}

void Conv2dWinograd::TransformInput(const float* image, int64_t first_tile, int64_t tiles,
                                    int64_t block, float* v) const {
  const ref::Conv2DParams& p = params_;
  const int a = alpha_;
  float d[kMaxAlpha * kMaxAlpha], tmp[kMaxAlpha * kMaxAlpha], out[kMaxAlpha * kMaxAlpha];
  for (int64_t ic = 0; ic < p.in_channels; ++ic) {
    const float* plane = image + ic * p.in_h * p.in_w;
    for (int64_t t = 0; t < tiles; ++t) {
      const int64_t tile = first_tile + t;
      const int64_t ih0 = (tile / tiles_w_) * tile_ - p.pad_top;
      const int64_t iw0 = (tile % tiles_w_) * tile_ - p.pad_left;
      for (int i = 0; i < a; ++i) {
        const int64_t ih = ih0 + i;
        for (int j = 0; j < a; ++j) {
          const int64_t iw = iw0 + j;
          d[i * a + j] =
              ih >= 0 && ih < p.in_h && iw >= 0 && iw < p.in_w ? plane[ih * p.in_w + iw] : 0.f;
        }
      }
      for (int j = 0; j < a; ++j) InputTransform1D(tile_, d + j, a, tmp + j, a);
      for (int i = 0; i < a; ++i) InputTransform1D(tile_, tmp + i * a, 1, out + i * a, 1);
      // V[xi][ic][t]: each position's matrix is the GEMM's B, in x tiles.
      for (int xi = 0; xi < a * a; ++xi) v[(xi * p.in_channels + ic) * block + t] = out[xi];
    }
  }
}

void Conv2dWinograd::TransformOutput(const float* m, const float* bias, int64_t first_tile,
                                     int64_t tiles, int64_t block, float* out_image) const {
  const ref::Conv2DParams& p = params_;
  const int a = alpha_;
  float x[kMaxAlpha * kMaxAlpha], tmp[kMaxAlpha * kMaxAlpha], y[kMaxAlpha * kMaxAlpha];
  for (int64_t oc = 0; oc < p.out_channels; ++oc) {
    float* plane = out_image + oc * p.out_h * p.out_w;
    const float b = bias != nullptr ? bias[oc] : 0.f;
    for (int64_t t = 0; t < tiles; ++t) {
      for (int xi = 0; xi < a * a; ++xi) x[xi] = m[(xi * p.out_channels + oc) * block + t];
      for (int j = 0; j < a; ++j) OutputTransform1D(tile_, x + j, a, tmp + j, a);
      for (int i = 0; i < tile_; ++i) OutputTransform1D(tile_, tmp + i * a, 1, y + i * tile_, 1);
      const int64_t tile = first_tile + t;
      const int64_t oh0 = (tile / tiles_w_) * tile_, ow0 = (tile % tiles_w_) * tile_;
      const int rows = static_cast<int>(std::min<int64_t>(tile_, p.out_h - oh0));
      const int cols = static_cast<int>(std::min<int64_t>(tile_, p.out_w - ow0));
      for (int i = 0; i < rows; ++i) {
        float* row = plane + (oh0 + i) * p.out_w + ow0;
        for (int j = 0; j < cols; ++j) row[j] = p.activation.Apply(y[i * tile_ + j] + b);
      }
    }
  }
}

void Conv2dWinograd::RunBlock(const float* image, const float* bias, float* out_image,
                              int64_t first_tile, int64_t tiles, const Layout& layout,
                              float* scratch) const {
  const int64_t block = layout.block_tiles;
  float* v = scratch;
  float* m = v + layout.v_floats;
  float* gemm_scratch = m + layout.m_floats;
  TransformInput(image, first_tile, tiles, block, v);
  const TileEpilogue plain;
  for (int xi = 0; xi < alpha_ * alpha_; ++xi) {
    GemmOperand lhs, rhs;
    lhs.packed = &transformed_filter_[xi];
    rhs.data = v + xi * params_.in_channels * block;
    rhs.stride = 1;
    rhs.depth_stride = block;
    Gemm(table_, params_.out_channels, tiles, params_.in_channels, lhs, rhs,
         m + xi * params_.out_channels * block, block, plain, nullptr, gemm_scratch);
  }
  TransformOutput(m, bias, first_tile, tiles, block, out_image);
}

void Conv2dWinograd::Run(const float* input, const float* bias, float* output, ThreadPool* pool,
                         float* scratch) const {
  const Layout layout = MakeLayout(NumThreads(pool));
  const int64_t tiles = tiles_h_ * tiles_w_;
  const int64_t blocks_per_image = CeilDiv(tiles, layout.block_tiles);
  const int64_t in_image = params_.in_channels * params_.in_h * params_.in_w;
  const int64_t out_image = params_.out_channels * params_.out_h * params_.out_w;
  ParallelFor(pool, params_.batch * blocks_per_image, [&](int64_t begin, int64_t end, int chunk) {
    float* own = scratch + chunk * layout.per_thread;
    for (int64_t item = begin; item < end; ++item) {
      const int64_t n = item / blocks_per_image;
      const int64_t first = (item % blocks_per_image) * layout.block_tiles;
      const int64_t count = std::min(layout.block_tiles, tiles - first);
      RunBlock(input + n * in_image, bias, output + n * out_image, first, count, layout, own);
    }
  });
}

}  // namespace ops
}  // namespace mace
