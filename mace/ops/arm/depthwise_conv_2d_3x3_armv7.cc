// DepthwiseConv3x3's armv7 port: band rows copied by vld1/vst1 pieces and
// vldm/vstm steps, planes read in place through the NEON kernel's column
// walks, and RunWholePlanes through its plane walk.
#include <algorithm>
#include <cstring>

#include "mace/ops/arm/neon_kernels.h"
#include "mace/ops/cpu/depthwise_conv_2d_3x3.h"
#include "mace/ops/cpu/depthwise_conv_2d_3x3_planes.h"
#include "mace/ops/cpu/parallel_copy.h"

namespace mace {
namespace ops {
namespace {

using depthwise_3x3::WholePlanesCursor;

// armv7: `rows` band rows of `count` floats, from rows in_w floats apart to
// rows pitch floats apart, one loop over the rows (the library's memcpy
// is a call through the PLT into libc, and MobileNet v2 copies 112
// thousand band rows; a call a row of a copy by pieces took about 20
// instructions with the band's loop on rows of 7 to 28 floats, 39 and 48
// on 56 and 112). Rows of 4 to 32 floats are two pieces of 4, 8 or 16
// floats, the second ending at the row's end and overlapping the first,
// moved by loads and stores that each step their pointer on to the next
// row (a 16-float piece as two of 8, the first stepping 32 bytes): 6
// instructions a row, 10 with 16-float pieces. Longer rows take 128-byte
// steps, one vldm and one vstm of d16-d31 (4-byte alignment is all they
// need), and one more step ending at the row's end: 9 instructions a row
// besides 4 a step (a 112-float row 21 where 64-byte steps took 37).
// Nothing outside either row is read or written.
void CopyFloatRows(const float* src, int in_w, int count, float* dst, int pitch, int rows) {
  if (rows <= 0) return;
  if (count < 4) {
    for (int i = 0; i < rows; ++i, src += in_w, dst += pitch) {
      if (count & 2) std::memcpy(dst, src, 8);
      if (count & 1) dst[count - 1] = src[count - 1];
    }
    return;
  }
  if (count > 32) {
    const float* from = src;
    float* to = dst;
    const int steps = count / 32;
    // From the end of the steps back to the last step (a whole step when
    // the row has no ragged end), and from the end of that on to the next
    // row.
    const int back = (count % 32 - 32) * static_cast<int>(sizeof(float));
    const int in_skip = (in_w - count) * static_cast<int>(sizeof(float));
    const int out_skip = (pitch - count) * static_cast<int>(sizeof(float));
    // Rows of up to 3 steps (the MobileNets' 56 and 112) take them
    // unrolled, without the step loop's count and branch: 8 instructions a
    // row besides 2 a step, where the loop took 9 besides 4.
#define MACE_COPY_STEP "vldm %[from]!, {d16-d31}\n" "vstm %[to]!, {d16-d31}\n"
#define MACE_COPY_STEPS(body)                                                                 \
  __asm__ volatile(                                                                           \
      "1:\n"                                                                                  \
      body                                                                                    \
      "add %[from], %[from], %[back]\n"                                                       \
      "add %[to], %[to], %[back]\n"                                                           \
      MACE_COPY_STEP                                                                          \
      "add %[from], %[from], %[in_skip]\n"                                                    \
      "add %[to], %[to], %[out_skip]\n"                                                       \
      "subs %[rows], %[rows], #1\n"                                                           \
      "bne 1b\n"                                                                              \
      : [from] "+r"(from), [to] "+r"(to), [n] "+r"(n), [rows] "+r"(rows)                      \
      : [steps] "r"(steps), [back] "r"(back), [in_skip] "r"(in_skip),                    \
        [out_skip] "r"(out_skip)                                                              \
      : "cc", "memory", "d16", "d17", "d18", "d19", "d20", "d21", "d22", "d23", "d24", "d25", \
        "d26", "d27", "d28", "d29", "d30", "d31")
    int n = 0;
    if (steps == 1) {
      MACE_COPY_STEPS(MACE_COPY_STEP);
    } else if (steps == 2) {
      MACE_COPY_STEPS(MACE_COPY_STEP MACE_COPY_STEP);
    } else if (steps == 3) {
      MACE_COPY_STEPS(MACE_COPY_STEP MACE_COPY_STEP MACE_COPY_STEP);
    } else {
      MACE_COPY_STEPS("mov %[n], %[steps]\n"
                      "2:\n"
                      "vldm %[from]!, {d16-d31}\n"
                      "subs %[n], %[n], #1\n"
                      "vstm %[to]!, {d16-d31}\n"
                      "bne 2b\n");
    }
#undef MACE_COPY_STEPS
#undef MACE_COPY_STEP
    return;
  }
  const int piece = count <= 8 ? 4 : count <= 16 ? 8 : 16;
  const float* head = src;
  const float* tail = src + count - piece;
  float* head_out = dst;
  float* tail_out = dst + count - piece;
  int in_bytes = in_w * static_cast<int>(sizeof(float));
  int out_bytes = pitch * static_cast<int>(sizeof(float));
  int n = rows;
#define MACE_COPY_PIECES(first, second)                                                    \
  __asm__ volatile("1:\n"                                                                   \
                   "vld1.32 {" first "}, [%[head]], %[in]\n"                                \
                   "vld1.32 {" second "}, [%[tail]], %[in]\n"                               \
                   "subs %[n], %[n], #1\n"                                                  \
                   "vst1.32 {" first "}, [%[head_out]], %[out]\n"                           \
                   "vst1.32 {" second "}, [%[tail_out]], %[out]\n"                          \
                   "bne 1b\n"                                                               \
                   : [head] "+r"(head), [tail] "+r"(tail), [head_out] "+r"(head_out),      \
                     [tail_out] "+r"(tail_out), [n] "+r"(n)                                \
                   : [in] "r"(in_bytes), [out] "r"(out_bytes)                              \
                   : "cc", "memory", "d16", "d17", "d18", "d19", "d20", "d21", "d22", "d23")
  if (piece == 4) {
    MACE_COPY_PIECES("d16-d17", "d18-d19");
  } else if (piece == 8) {
    MACE_COPY_PIECES("d16-d19", "d20-d23");
  } else {
    in_bytes -= 32;
    out_bytes -= 32;
    __asm__ volatile(
        "1:\n"
        "vld1.32 {d16-d19}, [%[head]]!\n"
        "vld1.32 {d20-d23}, [%[head]], %[in]\n"
        "vld1.32 {d24-d27}, [%[tail]]!\n"
        "vld1.32 {d28-d31}, [%[tail]], %[in]\n"
        "subs %[n], %[n], #1\n"
        "vst1.32 {d16-d19}, [%[head_out]]!\n"
        "vst1.32 {d20-d23}, [%[head_out]], %[out]\n"
        "vst1.32 {d24-d27}, [%[tail_out]]!\n"
        "vst1.32 {d28-d31}, [%[tail_out]], %[out]\n"
        "bne 1b\n"
        : [head] "+r"(head), [tail] "+r"(tail), [head_out] "+r"(head_out),
          [tail_out] "+r"(tail_out), [n] "+r"(n)
        : [in] "r"(in_bytes), [out] "r"(out_bytes)
        : "cc", "memory", "d16", "d17", "d18", "d19", "d20", "d21", "d22", "d23", "d24", "d25",
          "d26", "d27", "d28", "d29", "d30", "d31");
  }
#undef MACE_COPY_PIECES
}

// armv7: a layer's planes read in place as one band each, no pointers yet.
DepthwiseBand InPlaceBand(const ref::DepthwiseConv2dParams& p, const TileEpilogue& epilogue) {
  DepthwiseBand band;
  band.in_pitch = p.in_w;
  band.stride_h = p.stride_h;
  band.out_w = p.out_w;
  band.rows = p.out_h;
  band.epilogue = epilogue;
  return band;
}

// RunWholePlanes's hooks: the copy above, and the kernel's walks worked out
// once for a chunk's planes, each plane copied in and set by `fill` just
// before they run it.
struct Armv7Planes {
  static void CopyRows(const float* src, int in_w, int count, float* dst, int pitch, int rows) {
    CopyFloatRows(src, in_w, count, dst, pitch, rows);
  }
  static bool WalksPlanes(DepthwiseBandKernel kernel) {
    return kernel == arm::NeonDepthwise3x3S1 || kernel == arm::NeonDepthwise3x3S2;
  }
  static bool WalkPlanes(DepthwiseBand* band, int stride_w, int64_t planes,
                         WholePlanesCursor* cursor) {
    const auto fill = [](void* context, int64_t, DepthwiseBand* next) {
      WholePlanesCursor& at = *static_cast<WholePlanesCursor*>(context);
      CopyFloatRows(at.src, at.in_w, at.columns, at.dst, at.pitch, at.copy_rows);
      next->taps = at.filter + at.c * 9;
      next->bias = at.bias != nullptr ? at.bias[at.c] : 0.f;
      next->out = at.out;
      at.src += at.in_plane;
      at.out += at.out_plane;
      if (++at.c == at.channels) at.c = 0;
    };
    return arm::NeonDepthwise3x3Planes(band, stride_w, planes, fill, cursor);
  }
};

}  // namespace

// The column walks read the planes in place, no band copied, with one row
// and column of padding before the input and, at stride 1 (both axes),
// after it; at stride 2 (both axes) nothing after it is read.
bool DepthwiseConv3x3::TakesPlanesInPlace() const {
  const ref::DepthwiseConv2dParams& params = params_;
  const int64_t sh = params.stride_h, sw = params.stride_w;
  const bool s1 = sh == 1 && sw == 1 && params.out_h == params.in_h &&
                  params.out_w == params.in_w && band_kernel_ == arm::NeonDepthwise3x3S1;
  const bool s2 = sh == 2 && sw == 2 && params.in_h >= 2 * params.out_h &&
                  params.in_w >= 2 * params.out_w && band_kernel_ == arm::NeonDepthwise3x3S2;
  return (s1 || s2) && params.multiplier == 1 && fused_activation_ &&
         params.pad_top == 1 && params.pad_left == 1 &&
         arm::NeonDepthwise3x3TakesPlanesInPlace(InPlaceBand(params, epilogue_));
}

int64_t DepthwiseConv3x3::PortBandRows(int64_t rows) const { return rows; }

void DepthwiseConv3x3::CopyBandRows(const float* src, float* dst, int64_t rows) const {
  CopyFloatRows(src, static_cast<int>(params_.in_w), static_cast<int>(copy_columns_), dst,
                static_cast<int>(pitch_), static_cast<int>(rows));
}

void DepthwiseConv3x3::CopyHalfBandRows(const uint16_t* src, uint16_t* dst, int64_t rows) const {
  // Locals: the stores may alias the members as far as the compiler knows.
  const int64_t columns = copy_columns_, in_w = params_.in_w, pitch = pitch_;
  for (int64_t i = 0; i < rows; ++i, src += in_w, dst += pitch) {
    depthwise_3x3::CopyHalfRow(src, columns, dst);
  }
}

void DepthwiseConv3x3::RunWholePlanes(const float* input, const float* filter,
                                      const float* bias, float* output, ThreadPool* pool,
                                      float* scratch) const {
  RunWholePlanesWith<Armv7Planes>(input, filter, bias, output, pool, scratch);
}

void DepthwiseConv3x3::RunInPlace(const float* input, const float* filter, const float* bias,
                                  float* output, ThreadPool* pool) const {
  const ref::DepthwiseConv2dParams& p = params_;
  const int64_t in_plane = p.in_h * p.in_w, out_plane = p.out_h * p.out_w;
  ParallelFor(pool, p.batch * p.channels, [&](int64_t begin, int64_t end, int) {
    struct Cursor {
      const float* in;
      float* out;
      int64_t c;
      const float* filter;
      const float* bias;
      int64_t channels, in_plane, out_plane;
    } cursor = {input + begin * in_plane, output + begin * out_plane, begin % p.channels,
                filter, bias, p.channels, in_plane, out_plane};
    const auto fill = [](void* context, int64_t, DepthwiseBand* next) {
      Cursor& at = *static_cast<Cursor*>(context);
      next->in = at.in;
      next->taps = at.filter + at.c * 9;
      next->bias = at.bias != nullptr ? at.bias[at.c] : 0.f;
      next->out = at.out;
      at.in += at.in_plane;
      at.out += at.out_plane;
      if (++at.c == at.channels) at.c = 0;
    };
    DepthwiseBand band = InPlaceBand(p, epilogue_);
    arm::NeonDepthwise3x3PlanesInPlace(&band, end - begin, fill, &cursor);
  });
}

}  // namespace ops
}  // namespace mace
