// The interface between the device-neutral drivers (GEMM, convolutions) and
// the per-ISA micro-kernels in mace/ops/x86 and mace/ops/arm.
//
// This header is included by files built with ISA flags such as -mavx2, so
// it holds only plain structs and function pointer types: an inline function
// compiled there could be merged with baseline code at link time and run on
// a CPU without those instructions.
#ifndef MACE_OPS_CPU_MICRO_KERNELS_H_
#define MACE_OPS_CPU_MICRO_KERNELS_H_

#include <cstdint>

namespace mace {
namespace ops {

// Activations a micro-kernel applies while its results are still in
// registers. Everything else is applied by a separate pass.
enum TileActivation : int32_t {
  kTileActNone = 0,
  kTileActClamp = 1,      // min(max(x, lo), hi): RELU, RELUX, RELU6
  kTileActHardSwish = 2,  // x * clamp(x + 3, 0, 6) / 6
};

struct TileEpilogue {
  // Added once, on the last block of the reduction: one value per tile row
  // (length mr) and one per tile column (length nr); either may be null.
  const float* row_bias = nullptr;
  const float* col_bias = nullptr;
  int32_t activation = kTileActNone;
  float lo = 0.f, hi = 0.f;
  bool accumulate = false;  // add to what C already holds (later K blocks)
  bool last = true;         // this block ends the reduction: bias and activation
  // Not part of the epilogue, but per tile like it: the A micro-panel slice
  // (kc x mr floats) the caller runs next, or null. A full-tile kernel whose
  // table sets gemm_prefetches_a fetches it into L1 a line or two per
  // unrolled step, spread over its own reduction.
  const float* prefetch_a = nullptr;
};

// C[mr x nr] (row stride ldc) = (accumulate ? C : 0) + A_panel x B_panel,
// where the A panel holds kc groups of mr values (one per row) and the B panel
// kc groups of nr values (one per column).
using GemmMicroKernel = void (*)(int64_t kc, const float* a, const float* b, float* c, int64_t ldc,
                                 const TileEpilogue& epilogue);

// GemmMicroKernel's product with A read where it is rather than from a
// panel: row i of the tile's A is a + i * lda, its kc values adjacent. The
// multiply-adds are the packed kernel's, in the same order, so C gets the
// same bits.
using GemmDirectAMicroKernel = void (*)(int64_t kc, const float* a, int64_t lda, const float* b,
                                        float* c, int64_t ldc, const TileEpilogue& epilogue);

// The same product for a tile that sticks out of C: only its first `rows`
// (<= mr) rows and `cols` (<= nr) columns of C, row_bias and col_bias are
// read or written. The panels are full (zero-padded) mr and nr wide.
using GemmPartialMicroKernel = void (*)(int64_t kc, const float* a, const float* b, float* c,
                                        int64_t ldc, int rows, int cols,
                                        const TileEpilogue& epilogue);

// `tiles` full tiles (GemmMicroKernel's product) in one call: tile t reads
// the A panel at a + t * a_step and the B panel at b + t * b_step, writes C
// at c + t * c_step, and takes the epilogue's row and column bias (when set)
// row_bias_step and col_bias_step floats further on per tile. The epilogue's
// prefetch_a is ignored. It saves the call and set-up of each tile where a
// tile's own work is cheap next to them.
using GemmRunMicroKernel = void (*)(int64_t tiles, int64_t kc, const float* a, int64_t a_step,
                                    const float* b, int64_t b_step, float* c, int64_t c_step,
                                    int64_t ldc, int64_t row_bias_step, int64_t col_bias_step,
                                    const TileEpilogue& epilogue);

// 2 * mr rows by 4 columns of C (row stride ldc) = (accumulate ? C : 0) +
// two A panels (at a and a + a_stride floats) x the first 4 columns of a B
// panel (nr wide), with no bias or activation: Winograd's products on maps
// of a few tiles.
using GemmNarrowPairMicroKernel = void (*)(int64_t kc, const float* a, int64_t a_stride,
                                           const float* b, float* c, int64_t ldc,
                                           bool accumulate);

// The partial-tile product for a direct convolution: B's k-th row is the nr
// floats at base + offsets[k] (one tap's inputs for nr consecutive output
// pixels, in a padded copy of the input), read in place instead of from an
// im2col panel. Only the first `rows` rows and `cols` columns of C are
// written, but every B row is read whole: nr floats must be readable at
// each. The reduction is one block (accumulate is not read).
using ConvRowsMicroKernel = void (*)(int64_t kc, const float* a, const float* base,
                                     const int64_t* offsets, float* c, int64_t ldc, int rows,
                                     int cols, const TileEpilogue& epilogue);

// The same product with B's rows walked rather than looked up: row 0 at
// `first`, row k + 1 steps[k] bytes past row k (steps[kc - 1] is read but
// not used). A kernel moves its B pointer by the post-increment of the load
// that reads the row, with no address arithmetic per row.
using ConvRowsSteppedMicroKernel = void (*)(int64_t kc, const float* a, const float* first,
                                            const int64_t* steps, float* c, int64_t ldc,
                                            int rows, int cols, const TileEpilogue& epilogue);

// The steps of ConvRowsSteppedMicroKernel for rows at base + offsets[k]
// (floats): steps[k] = (offsets[k + 1] - offsets[k]) * sizeof(float), and
// steps[kc - 1] = 0.
inline void ConvRowSteps(const int64_t* offsets, int64_t kc, int64_t* steps) {
  for (int64_t k = 0; k + 1 < kc; ++k) {
    steps[k] = (offsets[k + 1] - offsets[k]) * static_cast<int64_t>(sizeof(float));
  }
  if (kc > 0) steps[kc - 1] = 0;
}

// A band of output rows of one 3x3 depthwise plane, read from a zero-padded
// copy of the input so that every tap is in bounds: kernels compute whole
// vectors with no border cases.
struct DepthwiseBand {
  // Output (r, j) reads in[(r * stride_h + kh) * in_pitch + j * stride_w + kw];
  // stride_w is the kernel's. Kernels compute whole vectors of up to 16
  // floats (AVX-512), so every input row must hold
  // max(out_w, 16) * stride_w + 2 readable floats.
  const float* in = nullptr;
  int64_t in_pitch = 0;
  int64_t stride_h = 1;         // 1 or 2
  const float* taps = nullptr;  // 9 weights, row-major
  float bias = 0.f;
  float* out = nullptr;  // rows x out_w, dense
  int64_t out_w = 0, rows = 0;
  TileEpilogue epilogue;  // only activation, lo and hi are read
  // Half-precision kernels only: `out` holds half values (raw 16-bit
  // patterns) instead of floats.
  int32_t out_half = 0;
};

using DepthwiseBandKernel = void (*)(const DepthwiseBand& band);

// Up to 8 channels of a 3x3 depthwise convolution on half planes, computed
// with the channels as the 8 lanes of a vector (small planes, where rows of
// a plane are too short for vectors along them). The kernel transposes the
// input pixels into `padded` (8 halves a pixel), computes every output pixel
// into `staging` and transposes it back into the output planes.
struct DepthwisePackedGroup {
  const uint16_t* in = nullptr;  // channel 0's input plane (halves)
  int64_t in_plane = 0;          // halves from one channel's planes to the next
  int64_t in_pixels = 0;         // input pixels per plane, at least 8
  // Input pixel i goes to the padded pixel in_offsets[i] bytes into
  // `padded` (a pixel outside the read region to a spare one).
  const int32_t* in_offsets = nullptr;
  // Padded pixels, padded_w a row: zero wherever in_offsets points nowhere.
  uint16_t* padded = nullptr;
  int64_t padded_w = 0;
  int32_t stride_h = 1, stride_w = 1;
  int32_t channels = 8;          // 1 to 8; the lanes past them are not stored
  const float* taps = nullptr;   // channels x 9 weights
  const float* bias = nullptr;   // channels values, or null
  uint16_t* out = nullptr;       // channel 0's output plane (halves)
  int64_t out_plane = 0;         // halves from one output plane to the next
  int64_t out_h = 0, out_w = 0;  // out_h * out_w at least 8
  uint16_t* staging = nullptr;   // out_h * out_w pixels of 8 halves
  TileEpilogue epilogue;         // only activation, lo and hi are read
};

using DepthwisePackedKernel = void (*)(const DepthwisePackedGroup& group);

// Which input rows one output row of a pooling band reduces.
struct PoolingRowWindow {
  int64_t first_row = 0;  // the window's first row that lies inside the input
  int64_t row_count = 0;  // its rows inside the input (at most 3); 0 writes zeros
  // Average: out_w factors, 1 / window size (0 for a window that counts no
  // tap). Max: null.
  const float* scale = nullptr;
};

// A band of output rows of one pooling plane with a 2- or 3-wide window at
// horizontal stride 1 or 2. For each output row the kernel reduces the
// window's input rows column by column into `line` at line + pad_left, then
// reduces kernel_w line cells per output. The line's other cells hold the
// identity (-inf for max, 0 for average) and are never written, so padded
// columns need no border code.
struct PoolingBand {
  const float* in = nullptr;  // the input plane, rows of in_w floats
  int64_t in_w = 0;
  // Kernels compute whole vectors: the line holds at least
  // max(pad_left + in_w, max(out_w, 8) * stride_w + kernel_w) floats.
  float* line = nullptr;
  int64_t pad_left = 0;
  int32_t kernel_w = 3, stride_w = 1;
  int32_t average = 0;                        // 0: max, 1: average (sum times scale)
  const PoolingRowWindow* windows = nullptr;  // one per output row
  float* out = nullptr;                       // rows x out_w, dense
  int64_t out_w = 0, rows = 0;
};

using PoolingBandKernel = void (*)(const PoolingBand& band);

// The sum or the maximum of `count` consecutive floats (one global pooling
// plane).
using PlaneReduceKernel = float (*)(const float* data, int64_t count);

// Eltwise operations a row kernel computes. The first nine match the
// Eltwise op's `type` numbering; POW stays with the reference kernel.
enum EltwiseKernelOp : int32_t {
  kEltwiseSum = 0,
  kEltwiseSub = 1,
  kEltwiseProd = 2,
  kEltwiseDiv = 3,
  kEltwiseMin = 4,  // NaN if either operand is NaN
  kEltwiseMax = 5,
  kEltwiseNeg = 6,  // unary: reads a only
  kEltwiseAbs = 7,
  kEltwiseSqrDiff = 8,
  kEltwiseWeightedSum = 9,  // coeff_a * a + coeff_b * b
};

// Which operand of an eltwise row is a single value used for every element.
enum EltwiseBroadcast : int32_t {
  kEltwiseVectors = 0,  // a[i] op b[i]
  kEltwiseScalarB = 1,  // a[i] op b[0]
  kEltwiseScalarA = 2,  // a[0] op b[i]
};

// out[i] = activation(a[i] op b[i]) for i < count. `out` may equal `a` or
// `b`: each element's operands are read before it is written, and kernels
// never store past `count`.
struct EltwiseRow {
  const float* a = nullptr;
  const float* b = nullptr;  // unused by the unary operations
  float* out = nullptr;
  int64_t count = 0;
  int32_t op = kEltwiseSum;
  int32_t broadcast = kEltwiseVectors;
  float coeff_a = 1.f, coeff_b = 1.f;  // kEltwiseWeightedSum only
  TileEpilogue epilogue;               // only activation, lo and hi are read
};

using EltwiseRowKernel = void (*)(const EltwiseRow& row);

// Winograd F(t x t, 3 x 3) transforms (t = 2, 4 or 6, alpha = t + 2) for one
// row of tiles of one channel, vectorized across the row's tiles ("lanes").
// Kernels work in chunks of kWinogradChunk lanes: rows they write or read
// hold at least the lane count rounded up to a whole chunk.
constexpr int kWinogradChunk = 16;
constexpr int kWinogradMaxLanes = 64;

// V = B^T d B for `lanes` tiles side by side: tile l reads input columns
// col0 + l * t + [0, alpha) of the alpha rows. Columns outside [0, in_w) and
// null rows (padding) read as zero.
//
// The results go straight into a GEMM's packed B panels (nr lanes wide):
// position xi (= r * alpha + c) of tile l lands at
//   out[xi * position_stride + (lane / nr) * panel_stride + lane % nr],
// lane = first_lane + l. A kernel may also write lanes past the run's end
// inside the same panel row (garbage, up to a whole chunk): callers write a
// channel's runs in increasing lane order and fill the padding lanes last.
struct WinogradInputRun {
  int32_t tile = 4;
  const float* rows[8] = {nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};
  int64_t in_w = 0;
  int64_t col0 = 0;   // may be negative (left padding)
  int64_t lanes = 0;  // 1 to kWinogradMaxLanes
  float* out = nullptr;
  int64_t position_stride = 0, panel_stride = 0;
  int64_t first_lane = 0;
  int32_t nr = 0;
};

// Y = A^T M A, plus bias and the clamp or hard-swish activation, for `lanes`
// consecutive tiles of one output channel in raster order, which may run
// over the end of a tile row into the next: position (r, c) of lane l is
// in[(r * alpha + c) * in_pitch + l]. Lane 0 is tile (row0, col0) of a
// tiles_w-wide grid; tile (row, col) writes rows row * t + [0, t) and
// columns col * t + [0, t) of `plane` (out_w floats per row), those inside
// [0, out_h) x [0, out_w). Kernels may read lanes past `lanes` up to a whole
// chunk.
struct WinogradOutputRun {
  int32_t tile = 4;
  const float* in = nullptr;
  int64_t in_pitch = 0;
  int64_t lanes = 0;  // 1 to kWinogradMaxLanes
  float bias = 0.f;
  TileEpilogue epilogue;  // only activation, lo and hi are read
  float* plane = nullptr;
  int64_t out_h = 0, out_w = 0;
  int64_t tiles_w = 0, row0 = 0, col0 = 0;
};

// out[j] = sum over d < depth of panel[d * width + j] * x[d], j < width: one
// packed panel times a vector (batch-1 FullyConnected, 1x1 conv on a 1x1
// map). Returns false, writing nothing, for a width it has no code for.
using PanelDotKernel = bool (*)(const float* panel, int64_t depth, int32_t width, const float* x,
                                float* out);

// Channel-blocked tensors ("NCHWc"): channels are grouped in blocks of
// `lanes` (the vector width: 16 floats on AVX-512, 8 on AVX2, 4 on NEON),
// and a block stores its H x W positions one after the other, each as the
// `lanes` channels of the block side by side. Channel c of position p of an
// N x C x H x W tensor sits at
//   ((n * ceil(C / lanes) + c / lanes) * H * W + p) * lanes + c % lanes.
// The lanes past C in the last block are padding: kernels may write any
// value there, and nothing reads them into a real channel.

// A run of a channel-blocked convolution: `positions` consecutive output
// positions (pixels) of `blocks` output channel blocks. Output position j
// reduces, over channels c < channels and taps t < taps,
//   weights[o * weight_block_stride + t * weight_tap_stride + c * lanes + lane]
//     * in[channel_offsets[c] + tap_offsets[t] + j * pos_step]
// (one input value broadcast across the block's lanes: the input may be
// channel-blocked or plain NCHW, the offsets say which), adds
// bias[o * lanes + lane] and the clamp or hard-swish activation, and writes
// the block's lanes at out[o * out_block_stride + j * lanes].
struct BlockedConvRun {
  const float* in = nullptr;
  int64_t pos_step = 0;
  int64_t channels = 0;
  const int64_t* channel_offsets = nullptr;
  int32_t taps = 1;
  const int64_t* tap_offsets = nullptr;
  // Floats from one tap's weights to the next (a tap's channels are
  // consecutive vectors).
  int64_t weight_tap_stride = 0;
  const float* weights = nullptr;
  int64_t weight_block_stride = 0;
  const float* bias = nullptr;
  float* out = nullptr;
  int64_t out_block_stride = 0;
  int32_t blocks = 1;  // 1 to KernelTable::blocked_conv_blocks
  int64_t positions = 0;
  // When not null, position j reads from in + pos_offsets[j] instead of in +
  // j * pos_step (positions that run across output rows); rows is then 1.
  const int64_t* pos_offsets = nullptr;
  // Rows of positions with the same taps: row r reads from in + r *
  // in_row_step and writes to out + r * out_row_step.
  int64_t rows = 1;
  int64_t in_row_step = 0, out_row_step = 0;
  // The input is channel-blocked and channels[0] starts a block: each
  // lanes-wide group of channels is contiguous at every position.
  bool blocked_input = false;
  // activation, lo and hi, and for a reduction split in parts, accumulate
  // (add to what out holds instead of bias) and last (apply the activation).
  TileEpilogue epilogue;
  // Weights the run brings toward L2 while it computes, spread over its
  // tiles (a 1x1 run's next part, whose first tile would otherwise wait on
  // memory): prefetch_floats floats at prefetch + o * weight_block_stride
  // for each of prefetch_blocks output blocks. Null for none; taps must
  // then be 1.
  const float* prefetch = nullptr;
  int64_t prefetch_floats = 0;
  int32_t prefetch_blocks = 0;
};

using BlockedConvKernel = void (*)(const BlockedConvRun& run);

// Weight packing for the blocked kernels: for j in [0, count), the vector
// dst + j * block holds src[l * stride + j] in lane l < lanes and zeros in
// lanes [lanes, block), block being the table's channel_block. That is,
// `lanes` rows of a matrix, `stride` floats apart, turned into columns.
using BlockedPackKernel = void (*)(const float* src, int64_t stride, int lanes, int64_t count,
                                   float* dst);

// The inverse for activations: for j in [0, count) and l < lanes,
// dst[l * stride + j] = src[j * block + l], block being the table's
// channel_block; the padding lanes are not read into any row.
using BlockedUnpackKernel = void (*)(const float* src, int lanes, int64_t count, float* dst,
                                     int64_t stride);

// What a BlockedWindowRun computes per position.
enum BlockedWindowMode : int32_t {
  kBlockedDepthwise = 0,  // sum of weight x input, plus bias and activation
  kBlockedMax = 1,
  kBlockedAverage = 2,  // sum of inputs times scale
};

// A run of a per-channel window op (depthwise convolution, pooling) over one
// channel block: output position j combines, for taps t < taps, the vectors
// at in + tap_offsets[t] + j * pos_step (and for depthwise the weight vector
// at weights + tap_index[t] * lanes), and writes its lanes at
// out + j * lanes. With no taps the output is bias (depthwise) or zero.
struct BlockedWindowRun {
  const float* in = nullptr;
  int64_t pos_step = 0;
  int32_t taps = 0;
  const int64_t* tap_offsets = nullptr;
  const int32_t* tap_index = nullptr;
  const float* weights = nullptr;  // depthwise only
  const float* bias = nullptr;     // depthwise only; may be null
  // 3 when the taps come in rows of three adjacent columns (tap t + 1 at
  // tap_offsets[t] + lanes, t a multiple of 3), depthwise at stride 1 or 2
  // only; else 0.
  int32_t row_taps = 0;
  // Rows of three only: the first position's first column (clip_left) or
  // the last position's last column (clip_right) lies outside the input. Its
  // tap offsets point there; the kernel takes it as zero and never loads it.
  bool clip_left = false, clip_right = false;
  int32_t mode = kBlockedDepthwise;
  float scale = 1.f;  // average only
  float* out = nullptr;
  int64_t positions = 0;
  // Output rows with the same taps: row r reads from in + r * in_row_step
  // and writes to out + r * out_row_step.
  int64_t rows = 1;
  int64_t in_row_step = 0, out_row_step = 0;
  TileEpilogue epilogue;  // depthwise only: activation, lo and hi
};

using BlockedWindowKernel = void (*)(const BlockedWindowRun& run);

// Winograd F(t x t, 3 x 3) transforms on channel-blocked tensors, one
// channel block and one tile at a time: a vector holds the block's lanes, so
// the transforms are plain vector arithmetic. Tiles go in raster order from
// tile index `first` of a tiles_w-wide grid, tile (row, col) covering output
// rows row * t + [0, t) and columns col * t + [0, t).
//
// Input: V = B^T d B for `count` tiles of one input channel block. Tile
// (row, col) reads input rows row * t - pad_top + [0, alpha) and columns
// col * t - pad_left + [0, alpha) of `in` (in_h x in_w positions of `lanes`
// floats); those outside read as zero. Position xi (= r * alpha + c) of tile
// u goes to out + xi * position_stride + u * tile_stride, `lanes` floats.
struct BlockedWinogradInputRun {
  int32_t tile = 4;
  const float* in = nullptr;
  int64_t in_h = 0, in_w = 0;
  int64_t pad_top = 0, pad_left = 0;
  int64_t tiles_w = 0, first = 0, count = 0;
  float* out = nullptr;
  int64_t position_stride = 0, tile_stride = 0;
};

// Output: Y = A^T M A, plus bias (`lanes` floats, null for none) and the
// clamp or hard-swish activation, for `count` tiles of one output channel
// block. Position xi of tile u is read from in + xi * position_stride + u *
// lanes; the tile's positions inside out_h x out_w are written to `out`
// (a blocked plane, `lanes` floats per position).
struct BlockedWinogradOutputRun {
  int32_t tile = 4;
  const float* in = nullptr;
  int64_t position_stride = 0;
  const float* bias = nullptr;
  TileEpilogue epilogue;  // only activation, lo and hi are read
  float* out = nullptr;
  int64_t out_h = 0, out_w = 0;
  int64_t tiles_w = 0, first = 0, count = 0;
};

using BlockedWinogradInputKernel = void (*)(const BlockedWinogradInputRun& run);
using BlockedWinogradOutputKernel = void (*)(const BlockedWinogradOutputRun& run);

using WinogradInputKernel = void (*)(const WinogradInputRun& run);
using WinogradOutputKernel = void (*)(const WinogradOutputRun& run);

// U = G g G^T for kWinogradChunk 3x3 filters side by side, at tile `tile`
// (2, 4 or 6, alpha = tile + 2): tap k (= row * 3 + column) of filter l is
// g[k * kWinogradChunk + l], and position xi (= r * alpha + c) of its
// transform goes to u[xi * kWinogradChunk + l]. Engine creation runs it
// over every filter of a Winograd convolution.
using WinogradFilterKernel = void (*)(const float* g, int tile, float* u);

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_MICRO_KERNELS_H_
