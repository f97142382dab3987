// DepthwiseConv3x3's arm64 port: band rows copied by ld1/st1 pieces, bands
// of whole quads of rows, planes the NEON kernel reads in place, and
// RunWholePlanes.
#include <algorithm>
#include <cstring>

#include "mace/ops/arm/neon_kernels.h"
#include "mace/ops/cpu/depthwise_conv_2d_3x3.h"
#include "mace/ops/cpu/depthwise_conv_2d_3x3_planes.h"
#include "mace/ops/cpu/parallel_copy.h"

namespace mace {
namespace ops {
namespace {

constexpr int64_t kFloatBytes = sizeof(float);

// dst[i] = src[i] for the `count` floats of one band row: rows of 16 or
// more in 64-byte steps (CopyBytes), shorter ones by 32 and 16 bytes
// the same way, and then 8 and 4.
void CopyFloatRow(const float* src, int64_t count, float* dst) {
  if (count >= 16) {
    CopyBytes(dst, src, count * kFloatBytes);
    return;
  }
  if (count >= 8) {
    std::memcpy(dst, src, 32);
    std::memcpy(dst + count - 8, src + count - 8, 32);
  } else if (count >= 4) {
    std::memcpy(dst, src, 16);
    std::memcpy(dst + count - 4, src + count - 4, 16);
  } else {
    if (count & 2) std::memcpy(dst, src, 8);
    if (count & 1) dst[count - 1] = src[count - 1];
  }
}

// `rows` band rows of `count` floats, from rows in_w floats apart to rows
// pitch floats apart. Rows of 4 to 32 floats (maps 7 to 28 wide) are two
// pieces of 4, 8 or 16 floats, the second ending at the row's end and
// overlapping the first: two loads and two stores that each move their
// pointer on by a row, 6 instructions a row with the loop's, where a
// CopyFloatRow call a row took some 16 with the band's loop. Nothing
// outside either row is read or written.
void CopyFloatRows(const float* src, int64_t in_w, int64_t count, float* dst, int64_t pitch,
                   int64_t rows) {
  if (rows <= 0) return;
  if (count < 4 || count > 32) {
    for (int64_t i = 0; i < rows; ++i, src += in_w, dst += pitch) CopyFloatRow(src, count, dst);
    return;
  }
  const int64_t piece = count <= 8 ? 4 : count <= 16 ? 8 : 16;
  const float* head = src;
  const float* tail = src + count - piece;
  float* head_out = dst;
  float* tail_out = dst + count - piece;
  const int64_t in_bytes = in_w * kFloatBytes, out_bytes = pitch * kFloatBytes;
  int64_t n = rows;
#define MACE_COPY_PIECES(first, second)                                                    \
  __asm__ volatile("1:\n"                                                                   \
                   "ld1 {" first "}, [%[head]], %[in]\n"                                    \
                   "ld1 {" second "}, [%[tail]], %[in]\n"                                   \
                   "subs %[n], %[n], #1\n"                                                  \
                   "st1 {" first "}, [%[head_out]], %[out]\n"                               \
                   "st1 {" second "}, [%[tail_out]], %[out]\n"                              \
                   "b.ne 1b\n"                                                              \
                   : [head] "+r"(head), [tail] "+r"(tail), [head_out] "+r"(head_out),      \
                     [tail_out] "+r"(tail_out), [n] "+r"(n)                                \
                   : [in] "r"(in_bytes), [out] "r"(out_bytes)                              \
                   : "cc", "memory", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7")
  if (piece == 4) {
    MACE_COPY_PIECES("v0.4s", "v1.4s");
  } else if (piece == 8) {
    MACE_COPY_PIECES("v0.4s, v1.4s", "v2.4s, v3.4s");
  } else {
    MACE_COPY_PIECES("v0.4s, v1.4s, v2.4s, v3.4s", "v4.4s, v5.4s, v6.4s, v7.4s");
  }
#undef MACE_COPY_PIECES
}

// A layer's planes for the NEON kernel that reads them in place: the shape,
// stride and activation, no pointers yet.
arm::DepthwiseInPlace InPlaceShape(const ref::DepthwiseConv2dParams& p,
                                   const TileEpilogue& epilogue) {
  arm::DepthwiseInPlace run;
  run.in_h = p.in_h;
  run.in_w = p.in_w;
  run.out_h = p.out_h;
  run.out_w = p.out_w;
  run.stride = p.stride_h;
  run.epilogue = epilogue;
  return run;
}

// RunWholePlanes's hooks: the copy above, no plane walk.
struct Aarch64Planes {
  static void CopyRows(const float* src, int64_t in_w, int64_t count, float* dst, int64_t pitch,
                       int64_t rows) {
    CopyFloatRows(src, in_w, count, dst, pitch, rows);
  }
  static bool WalksPlanes(DepthwiseBandKernel) { return false; }
  static bool WalkPlanes(DepthwiseBand*, int, int64_t, depthwise_3x3::WholePlanesCursor*) {
    return false;
  }
};

}  // namespace

bool DepthwiseConv3x3::TakesPlanesInPlace() const {
  const ref::DepthwiseConv2dParams& params = params_;
  const int64_t sh = params.stride_h, sw = params.stride_w;
  // One row and column of padding before the input (after it too at
  // stride 1); the kernel says which shapes it reads in place.
  return (band_kernel_ == arm::NeonDepthwise3x3S1 || band_kernel_ == arm::NeonDepthwise3x3S2) &&
         params.multiplier == 1 && fused_activation_ && sh == sw && params.pad_top == 1 &&
         params.pad_left == 1 && arm::NeonDepthwise3x3TakesInPlace(InPlaceShape(params, epilogue_));
}

// The kernel computes output rows in fours.
int64_t DepthwiseConv3x3::PortBandRows(int64_t rows) const {
  if (rows < params_.out_h && rows >= 8) rows -= rows % 4;
  return rows;
}

void DepthwiseConv3x3::CopyBandRows(const float* src, float* dst, int64_t rows) const {
  CopyFloatRows(src, params_.in_w, copy_columns_, dst, pitch_, rows);
}

void DepthwiseConv3x3::CopyHalfBandRows(const uint16_t* src, uint16_t* dst, int64_t rows) const {
  // Locals: the stores may alias the members as far as the compiler knows.
  const int64_t columns = copy_columns_, in_w = params_.in_w, pitch = pitch_;
  for (int64_t i = 0; i < rows; ++i, src += in_w, dst += pitch) {
    // Rows of 32 halves or more (the 112- and 56-wide planes) in 64-byte
    // steps (CopyBytes): 4 instructions per 64 bytes where the 32-byte
    // pieces took 10.
    if (columns >= 32) {
      CopyBytes(dst, src, columns * static_cast<int64_t>(sizeof(uint16_t)));
    } else {
      depthwise_3x3::CopyHalfRow(src, columns, dst);
    }
  }
}

void DepthwiseConv3x3::RunWholePlanes(const float* input, const float* filter,
                                      const float* bias, float* output, ThreadPool* pool,
                                      float* scratch) const {
  RunWholePlanesWith<Aarch64Planes>(input, filter, bias, output, pool, scratch);
}

void DepthwiseConv3x3::RunInPlace(const float* input, const float* filter, const float* bias,
                                  float* output, ThreadPool* pool) const {
  const ref::DepthwiseConv2dParams& p = params_;
  const int64_t in_plane = p.in_h * p.in_w, out_plane = p.out_h * p.out_w;
  const int64_t channels = p.channels;
  ParallelFor(pool, p.batch * channels, [&](int64_t begin, int64_t end, int) {
    arm::DepthwiseInPlace run = InPlaceShape(p, epilogue_);
    // One call per run of channels: the taps and biases of consecutive
    // planes are consecutive until the channels wrap to the next image.
    for (int64_t item = begin; item < end; item += run.planes) {
      const int64_t c = item % channels;
      run.planes = std::min(end - item, channels - c);
      run.in = input + item * in_plane;
      run.taps = filter + c * 9;
      run.bias = bias != nullptr ? bias + c : nullptr;
      run.out = output + item * out_plane;
      arm::NeonDepthwise3x3InPlace(run);
    }
  });
}

}  // namespace ops
}  // namespace mace
