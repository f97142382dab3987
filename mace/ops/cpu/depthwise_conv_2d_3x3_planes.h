// What the ports' files for DepthwiseConv3x3 share
// (cpu/depthwise_conv_2d_3x3_port.cc, arm/depthwise_conv_2d_3x3_aarch64.cc,
// arm/depthwise_conv_2d_3x3_armv7.cc; BUILD.bazel picks the file): the
// plain row copy of halves and, for the ARM ports, RunWholePlanes over the
// port's row copy and plane walk.
#ifndef MACE_OPS_CPU_DEPTHWISE_CONV_2D_3X3_PLANES_H_
#define MACE_OPS_CPU_DEPTHWISE_CONV_2D_3X3_PLANES_H_

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "mace/ops/cpu/depthwise_conv_2d_3x3.h"
#include "mace/runtimes/cpu/thread_pool.h"

namespace mace {
namespace ops {
namespace depthwise_3x3 {

// dst[i] = src[i] for the `count` halves of one row (raw 16-bit values):
// pieces of 32 and then 16 bytes whose size is fixed, so each is one load
// and one store (of a register pair for 32), the last one overlapping the
// piece before it; shorter rows by 8, 4 and 2 bytes. Nothing outside either
// row is read or written. Band rows are 7 to 112 halves, too short for a
// library copy's setup to pay off.
inline void CopyHalfRow(const uint16_t* src, int64_t count, uint16_t* dst) {
  constexpr int64_t kPiece = 16 / sizeof(uint16_t);
  if (count >= kPiece) {
    int64_t i = 0;
    for (; i + 2 * kPiece <= count; i += 2 * kPiece) std::memcpy(dst + i, src + i, 32);
    if (i + kPiece <= count) {
      std::memcpy(dst + i, src + i, 16);
      i += kPiece;
    }
    if (i < count) std::memcpy(dst + count - kPiece, src + count - kPiece, 16);
    return;
  }
  int64_t i = 0;
  if (count & 4) {
    std::memcpy(dst, src, 8);
    i = 4;
  }
  if (count & 2) {
    std::memcpy(dst + i, src + i, 4);
    i += 2;
  }
  if (count & 1) dst[i] = src[i];
}

// A chunk's planes for a port's plane walk (WalksPlanes): the next plane's
// input, output and channel, and how its rows go into the band.
struct WholePlanesCursor {
  const float* src;
  float* out;
  int c;
  const float* filter;
  const float* bias;
  float* dst;
  int in_w, columns, pitch, copy_rows, channels;
  int64_t in_plane, out_plane;
};

}  // namespace depthwise_3x3

// A Port has CopyRows(src, in_w, count, dst, pitch, rows), the band's row
// copy, and WalksPlanes(kernel) and WalkPlanes(band, stride_w, planes,
// cursor), a walk over a chunk's planes that copies each in and runs it
// (false: the planes go one by one).
template <class Port>
void DepthwiseConv3x3::RunWholePlanesWith(const float* input, const float* filter,
                                          const float* bias, float* output, ThreadPool* pool,
                                          float* scratch) const {
  const ref::DepthwiseConv2dParams& p = params_;
  // Padded rows [top, bottom) of the plane's one band hold input rows
  // [0, bottom - top); the rest stay zero from the fill below.
  const int64_t padded_rows = (p.out_h - 1) * p.stride_h + 3;
  const int64_t top = std::min(p.pad_top, padded_rows);
  const int64_t bottom = std::clamp<int64_t>(p.pad_top + p.in_h, top, padded_rows);
  const int copy_rows = copy_columns_ > 0 ? static_cast<int>(bottom - top) : 0;
  const int in_w = static_cast<int>(p.in_w), columns = static_cast<int>(copy_columns_);
  const int pitch = static_cast<int>(pitch_);
  const int64_t in_plane = p.in_h * p.in_w, out_plane = p.out_h * p.out_w;
  const int channels = static_cast<int>(p.channels);
  ParallelFor(pool, p.batch * p.channels, [&](int64_t begin, int64_t end, int chunk) {
    float* padded = scratch + chunk * band_floats_;
    std::fill(padded, padded + band_floats_, 0.f);
    float* dst = padded + top * pitch + p.pad_left;
    DepthwiseBand band;
    band.in = padded;
    band.in_pitch = pitch_;
    band.stride_h = p.stride_h;
    band.out_w = p.out_w;
    band.rows = p.out_h;
    band.epilogue = epilogue_;
    const float* src = input + begin * in_plane;
    float* out = output + begin * out_plane;
    int c = static_cast<int>(begin % p.channels);
    if (Port::WalksPlanes(band_kernel_)) {
      depthwise_3x3::WholePlanesCursor cursor = {src,      out,      c,        filter, bias,
                                                 dst,      in_w,     columns,  pitch,  copy_rows,
                                                 channels, in_plane, out_plane};
      if (Port::WalkPlanes(&band, static_cast<int>(p.stride_w), end - begin, &cursor)) return;
    }
    for (int64_t plane = begin; plane < end; ++plane) {
      Port::CopyRows(src, in_w, columns, dst, pitch, copy_rows);
      band.taps = filter + c * 9;
      band.bias = bias != nullptr ? bias[c] : 0.f;
      band.out = out;
      band_kernel_(band);
      src += in_plane;
      out += out_plane;
      if (++c == channels) c = 0;
    }
  });
}

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_DEPTHWISE_CONV_2D_3X3_PLANES_H_
