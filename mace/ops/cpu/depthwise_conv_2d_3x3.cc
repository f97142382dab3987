#include "mace/ops/cpu/depthwise_conv_2d_3x3.h"

#include <algorithm>
#include <cstring>

#include "mace/ops/cpu/fused_activation.h"
#include "mace/ops/cpu/parallel_copy.h"
#include "mace/runtimes/cpu/scratch_buffer.h"

#if defined(__ARM_NEON)
#include "mace/ops/arm/neon_kernels.h"
#endif

namespace mace {
namespace ops {
namespace {

// One thread's padded band: it stays in L1 while the kernel reads it.
constexpr int64_t kBandBytes = 16 << 10;
constexpr int64_t kCacheLineFloats = 16;
// The widest vector a band kernel computes (see DepthwiseBand).
constexpr int64_t kWidestVector = 16;
constexpr int64_t kFloatBytes = sizeof(float);
// Half planes at most this wide run 8 channels at a time (RunPackedGroups).
constexpr int64_t kPackedMaxWidth = 28;
// And with at most this many input and padded pixels: a thread's scratch
// holds the padded pixels and the outputs of 8 channels (16 bytes a pixel).
constexpr int64_t kPackedMaxPixels = 8192;

int64_t RoundUp(int64_t value, int64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

// dst[i] = src[i] for the `count` halves of one row (raw 16-bit values):
// pieces of 32 and then 16 bytes whose size is fixed, so each is one load
// and one store (of a register pair for 32), the last one overlapping the
// piece before it; shorter rows by 8, 4 and 2 bytes. Nothing outside either
// row is read or written. Band rows are 7 to 112 halves, too short for a
// library copy's setup to pay off.
void CopyHalfRow(const uint16_t* src, int64_t count, uint16_t* dst) {
#if defined(__aarch64__)
  // Rows of 32 halves or more (the 112- and 56-wide planes) in 64-byte
  // steps (CopyBytes): 4 instructions per 64 bytes where the 32-byte pieces
  // took 10.
  if (count >= 32) {
    CopyBytes(dst, src, count * static_cast<int64_t>(sizeof(uint16_t)));
    return;
  }
#endif
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

#if defined(__aarch64__)
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
#elif defined(__ARM_NEON)
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
#endif

#if !defined(__aarch64__) && defined(__ARM_NEON)
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
#endif

#if defined(__aarch64__)
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
#endif

}  // namespace

bool DepthwiseConv3x3::Supports(const KernelTable& table, const ref::DepthwiseConv2dParams& p) {
  return table.depthwise3x3_s1 != nullptr && p.kernel_h == 3 && p.kernel_w == 3 &&
         p.dilation_h == 1 && p.dilation_w == 1 && (p.stride_w == 1 || p.stride_w == 2) &&
         (p.stride_h == 1 || p.stride_h == 2);
}

DepthwiseConv3x3::DepthwiseConv3x3(const KernelTable& table,
                                   const ref::DepthwiseConv2dParams& params)
    : params_(params) {
  band_kernel_ = params.stride_w == 1 ? table.depthwise3x3_s1 : table.depthwise3x3_s2;
  fused_activation_ = FuseActivation(params.activation, &epilogue_);
  const int64_t sh = params.stride_h, sw = params.stride_w;
  if (table.fp16_depthwise3x3_s1 != nullptr) {
    band_kernel_ = sw == 1 ? table.fp16_depthwise3x3_s1 : table.fp16_depthwise3x3_s2;
    fp16_from_float_ = table.fp16_from_float;
    copy_columns_ = std::min(params.in_w, (params.out_w - 1) * sw + 3 - params.pad_left);
    // Half rows: whole vectors of 8 outputs read 8 * ceil(out_w / 8) * sw + 2.
    pitch_ = RoundUp(RoundUp(params.out_w, 8) * sw + 2, 2 * kCacheLineFloats);
    const int64_t budget_rows = std::max(kBandBytes / (pitch_ * 2), sh + 3);
    band_rows_ = std::min(params.out_h, (budget_rows - 3) / sh + 1);
    if (band_rows_ < params.out_h && band_rows_ % 2 == 1) --band_rows_;
    band_floats_ = ThreadRegionFloats((((band_rows_ - 1) * sh + 3) * pitch_ + 1) / 2);
    // Small planes (MobileNets' 28x28 to 7x7) as groups of 8 channels: a
    // plane's rows are too short for vectors along them, and each plane's
    // band, its padding and its calls cost more than its arithmetic.
    const int64_t in_pixels = params.in_h * params.in_w, out_pixels = params.out_h * params.out_w;
    const int64_t padded_pixels = ((params.out_h - 1) * sh + 3) * ((params.out_w - 1) * sw + 3);
    if (table.fp16_depthwise3x3_packed != nullptr && params.multiplier == 1 &&
        params.out_w <= kPackedMaxWidth && in_pixels >= 8 && out_pixels >= 8 &&
        in_pixels <= kPackedMaxPixels && padded_pixels <= kPackedMaxPixels && fused_activation_) {
      packed_kernel_ = table.fp16_depthwise3x3_packed;
      packed_w_ = (params.out_w - 1) * sw + 3;
      const int64_t padded_h = (params.out_h - 1) * sh + 3;
      packed_pixels_ = padded_h * packed_w_;
      packed_offsets_.resize(in_pixels);
      for (int64_t ih = 0; ih < params.in_h; ++ih) {
        for (int64_t iw = 0; iw < params.in_w; ++iw) {
          const int64_t y = ih + params.pad_top, x = iw + params.pad_left;
          const bool read = y < padded_h && x < packed_w_;
          // Bytes: 8 halves a pixel.
          packed_offsets_[ih * params.in_w + iw] =
              static_cast<int32_t>((read ? y * packed_w_ + x : packed_pixels_) * 16);
        }
      }
      // The padded pixels with the spare one, then the staged outputs: 8
      // halves each.
      packed_floats_ = ThreadRegionFloats((packed_pixels_ + 1 + out_pixels) * 8 / 2);
    }
    return;
  }
#if defined(__aarch64__)
  // One row and column of padding before the input (after it too at
  // stride 1); the kernel says which shapes it reads in place.
  in_place_ =
      (band_kernel_ == arm::NeonDepthwise3x3S1 || band_kernel_ == arm::NeonDepthwise3x3S2) &&
      params.multiplier == 1 && fused_activation_ && sh == sw && params.pad_top == 1 &&
      params.pad_left == 1 && arm::NeonDepthwise3x3TakesInPlace(InPlaceShape(params, epilogue_));
#endif
#if !defined(__aarch64__) && defined(__ARM_NEON)
  // armv7: the column walks read the planes in place, no band copied, with
  // one row and column of padding before the input and, at stride 1 (both
  // axes), after it; at stride 2 (both axes) nothing after it is read.
  const bool s1 = sh == 1 && sw == 1 && params.out_h == params.in_h &&
                  params.out_w == params.in_w && band_kernel_ == arm::NeonDepthwise3x3S1;
  const bool s2 = sh == 2 && sw == 2 && params.in_h >= 2 * params.out_h &&
                  params.in_w >= 2 * params.out_w && band_kernel_ == arm::NeonDepthwise3x3S2;
  in_place_ = (s1 || s2) && params.multiplier == 1 && fused_activation_ &&
              params.pad_top == 1 && params.pad_left == 1 &&
              arm::NeonDepthwise3x3TakesPlanesInPlace(InPlaceBand(params, epilogue_));
#endif
  // Outputs read padded columns [0, (out_w - 1) * sw + 3); input column iw
  // is padded column iw + pad_left, and columns past the last read one need
  // not be copied.
  copy_columns_ = std::min(params.in_w, (params.out_w - 1) * sw + 3 - params.pad_left);
  pitch_ = RoundUp(std::max(params.out_w, kWidestVector) * sw + 2, kCacheLineFloats);
  // Output rows r .. r + n - 1 read padded rows r * sh .. (r + n - 1) * sh + 2.
  const int64_t budget_rows = std::max(kBandBytes / (pitch_ * kFloatBytes), sh + 3);
  band_rows_ = std::min(params.out_h, (budget_rows - 3) / sh + 1);
  // Kernels compute output rows in pairs; arm64's in fours.
#if defined(__aarch64__)
  if (band_rows_ < params.out_h && band_rows_ >= 8) band_rows_ -= band_rows_ % 4;
#endif
  if (band_rows_ < params.out_h && band_rows_ % 2 == 1) --band_rows_;
  band_floats_ = ThreadRegionFloats(((band_rows_ - 1) * sh + 3) * pitch_);
}

int64_t DepthwiseConv3x3::ScratchBytes(int threads) const {
  return threads * std::max(band_floats_, packed_floats_) * kFloatBytes;
}

void DepthwiseConv3x3::FillBand(const void* input_data, int64_t first_row, int64_t rows,
                                bool half_input, bool padding_rows_are_zero,
                                float* padded) const {
  const ref::DepthwiseConv2dParams& p = params_;
  // Band rows [0, top) and [bottom, rows) are padding, the rest input rows.
  const int64_t top = std::clamp<int64_t>(p.pad_top - first_row, 0, rows);
  const int64_t bottom = std::clamp<int64_t>(p.pad_top + p.in_h - first_row, top, rows);
  if (fp16_from_float_ != nullptr) {
    uint16_t* half = reinterpret_cast<uint16_t*>(padded);
    if (!padding_rows_are_zero) {
      std::fill(half, half + top * pitch_, uint16_t{0});  // zero bits: a half zero
      std::fill(half + bottom * pitch_, half + rows * pitch_, uint16_t{0});
    }
    if (copy_columns_ <= 0) return;
    const int64_t offset = (first_row + top - p.pad_top) * p.in_w;
    uint16_t* dst = half + top * pitch_ + p.pad_left;
    if (half_input) {
      // Already halves: a copy. Locals: the stores may alias the members
      // as far as the compiler knows.
      const uint16_t* src = static_cast<const uint16_t*>(input_data) + offset;
      const int64_t columns = copy_columns_, in_w = p.in_w, pitch = pitch_;
      for (int64_t i = top; i < bottom; ++i, src += in_w, dst += pitch) {
        CopyHalfRow(src, columns, dst);
      }
      return;
    }
    const float* src = static_cast<const float*>(input_data) + offset;
    for (int64_t i = top; i < bottom; ++i, src += p.in_w, dst += pitch_) {
      fp16_from_float_(src, copy_columns_, dst);
    }
    return;
  }
  const float* input = static_cast<const float*>(input_data);
  if (!padding_rows_are_zero) {
    std::fill(padded, padded + top * pitch_, 0.f);
    std::fill(padded + bottom * pitch_, padded + rows * pitch_, 0.f);
  }
  // Locals: memcpy may alias the members as far as the compiler knows, and
  // rows are short enough for reloads to show.
  const int64_t bytes = copy_columns_ * kFloatBytes;
  const int64_t in_w = p.in_w, pitch = pitch_;
  if (bytes <= 0) return;
  const float* src = input + (first_row + top - p.pad_top) * in_w;
  float* dst = padded + top * pitch + p.pad_left;
#if defined(__aarch64__)
  CopyFloatRows(src, in_w, copy_columns_, dst, pitch, bottom - top);
#elif defined(__ARM_NEON)
  CopyFloatRows(src, static_cast<int>(in_w), static_cast<int>(copy_columns_), dst,
                static_cast<int>(pitch), static_cast<int>(bottom - top));
#else
  for (int64_t i = top; i < bottom; ++i, src += in_w, dst += pitch) std::memcpy(dst, src, bytes);
#endif
}

void DepthwiseConv3x3::RunBand(const Plane& plane, int64_t row, int64_t rows, bool half,
                               float* padded, BandState* state) const {
  const ref::DepthwiseConv2dParams& p = params_;
  const int64_t first_row = row * p.stride_h;
  const int64_t padded_rows = (rows - 1) * p.stride_h + 3;
  // Padding rows sit at the same band rows whenever the band starts at the
  // same padded row, and the kernel never writes the band.
  const bool same_rows = state->first_row == first_row && state->rows >= padded_rows;
  if (!same_rows || state->input != plane.input) {
    FillBand(plane.input, first_row, padded_rows, half, same_rows, padded);
    state->input = plane.input;
    state->first_row = first_row;
    state->rows = padded_rows;
  }
  DepthwiseBand band;
  band.in = padded;
  band.in_pitch = pitch_;
  band.stride_h = p.stride_h;
  band.taps = plane.taps;
  band.bias = plane.bias;
  const int64_t value_bytes = half ? sizeof(uint16_t) : sizeof(float);
  band.out = reinterpret_cast<float*>(static_cast<char*>(plane.output) +
                                      row * p.out_w * value_bytes);
  band.out_w = p.out_w;
  band.rows = rows;
  band.epilogue = epilogue_;
  band.out_half = half ? 1 : 0;
  band_kernel_(band);
  // Half outputs come only with a fused activation (SupportsHalf).
  if (!fused_activation_) p.activation.ApplyInPlace(band.out, rows * p.out_w);
}

void DepthwiseConv3x3::Run(const float* input, const float* filter, const float* bias,
                           float* output, ThreadPool* pool, float* scratch) const {
  if (in_place_) {
    RunInPlace(input, filter, bias, output, pool);
    return;
  }
#if defined(__ARM_NEON)
  // A plane a band: RunPlanes and RunBand spent some 260 instructions a
  // plane on 64-bit index arithmetic and band bookkeeping, as much as the
  // kernel itself on a 7x7 plane. The work is split over planes, so only
  // with enough of them to keep every thread busy. Not with the fp16
  // kernels, whose band holds halves.
  const ref::DepthwiseConv2dParams& p = params_;
  if (p.multiplier == 1 && band_rows_ >= p.out_h && fused_activation_ &&
      fp16_from_float_ == nullptr && p.batch * p.channels >= 4 * NumThreads(pool)) {
    RunWholePlanes(input, filter, bias, output, pool, scratch);
    return;
  }
#endif
  RunPlanes(input, filter, bias, output, false, pool, scratch);
}

void DepthwiseConv3x3::RunWholePlanes(const float* input, const float* filter,
                                      const float* bias, float* output, ThreadPool* pool,
                                      float* scratch) const {
#if defined(__ARM_NEON)
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
#if !defined(__aarch64__)
    // armv7: the kernel's walks worked out once for the chunk's planes,
    // each plane copied in and set by `fill` just before they run it.
    if (band_kernel_ == arm::NeonDepthwise3x3S1 || band_kernel_ == arm::NeonDepthwise3x3S2) {
      struct Cursor {
        const float* src;
        float* out;
        int c;
        const float* filter;
        const float* bias;
        float* dst;
        int in_w, columns, pitch, copy_rows, channels;
        int64_t in_plane, out_plane;
      } cursor = {src,     out,   c,         filter,   bias,     dst,      in_w,
                  columns, pitch, copy_rows, channels, in_plane, out_plane};
      const auto fill = [](void* context, int64_t, DepthwiseBand* next) {
        Cursor& at = *static_cast<Cursor*>(context);
        CopyFloatRows(at.src, at.in_w, at.columns, at.dst, at.pitch, at.copy_rows);
        next->taps = at.filter + at.c * 9;
        next->bias = at.bias != nullptr ? at.bias[at.c] : 0.f;
        next->out = at.out;
        at.src += at.in_plane;
        at.out += at.out_plane;
        if (++at.c == at.channels) at.c = 0;
      };
      if (arm::NeonDepthwise3x3Planes(&band, static_cast<int>(p.stride_w), end - begin, fill,
                                      &cursor)) {
        return;
      }
    }
#endif
    for (int64_t plane = begin; plane < end; ++plane) {
      CopyFloatRows(src, in_w, columns, dst, pitch, copy_rows);
      band.taps = filter + c * 9;
      band.bias = bias != nullptr ? bias[c] : 0.f;
      band.out = out;
      band_kernel_(band);
      src += in_plane;
      out += out_plane;
      if (++c == channels) c = 0;
    }
  });
#else
  RunPlanes(input, filter, bias, output, false, pool, scratch);
#endif
}

void DepthwiseConv3x3::RunInPlace(const float* input, const float* filter, const float* bias,
                                  float* output, ThreadPool* pool) const {
#if defined(__aarch64__)
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
#elif defined(__ARM_NEON)
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
#else
  (void)input, (void)filter, (void)bias, (void)output, (void)pool;
#endif
}

void DepthwiseConv3x3::RunHalf(const uint16_t* input, const float* filter, const float* bias,
                               uint16_t* output, ThreadPool* pool, float* scratch) const {
  if (packed_kernel_ != nullptr) {
    RunPackedGroups(input, filter, bias, output, pool, scratch);
    return;
  }
  RunPlanes(input, filter, bias, output, true, pool, scratch);
}

void DepthwiseConv3x3::RunPackedGroups(const uint16_t* input, const float* filter,
                                       const float* bias, uint16_t* output, ThreadPool* pool,
                                       float* scratch) const {
  const ref::DepthwiseConv2dParams& p = params_;
  const int64_t groups = (p.channels + 7) / 8;
  const int64_t in_plane = p.in_h * p.in_w, out_plane = p.out_h * p.out_w;
  ParallelFor(pool, p.batch * groups, [&](int64_t begin, int64_t end, int chunk) {
    uint16_t* padded = reinterpret_cast<uint16_t*>(scratch + chunk * packed_floats_);
    // Only the input pixels are written: the padding stays zero.
    std::fill(padded, padded + (packed_pixels_ + 1) * 8, uint16_t{0});
    DepthwisePackedGroup group;
    group.in_plane = in_plane;
    group.in_pixels = in_plane;
    group.in_offsets = packed_offsets_.data();
    group.padded = padded;
    group.padded_w = packed_w_;
    group.stride_h = static_cast<int32_t>(p.stride_h);
    group.stride_w = static_cast<int32_t>(p.stride_w);
    group.out_plane = out_plane;
    group.out_h = p.out_h;
    group.out_w = p.out_w;
    group.staging = padded + (packed_pixels_ + 1) * 8;
    group.epilogue = epilogue_;
    for (int64_t item = begin; item < end; ++item) {
      const int64_t n = item / groups, c0 = item % groups * 8;
      group.channels = static_cast<int32_t>(std::min<int64_t>(8, p.channels - c0));
      group.in = input + (n * p.channels + c0) * in_plane;
      group.taps = filter + c0 * 9;
      group.bias = bias != nullptr ? bias + c0 : nullptr;
      group.out = output + (n * p.channels + c0) * out_plane;
      packed_kernel_(group);
    }
  });
}

void DepthwiseConv3x3::RunPlanes(const void* input_data, const float* filter, const float* bias,
                                 void* output_data, bool half, ThreadPool* pool,
                                 float* scratch) const {
  const char* input = static_cast<const char*>(input_data);
  char* output = static_cast<char*>(output_data);
  const int64_t value_bytes = half ? sizeof(uint16_t) : sizeof(float);
  const ref::DepthwiseConv2dParams& p = params_;
  const int64_t out_channels = p.channels * p.multiplier;
  const int64_t in_plane = p.in_h * p.in_w * value_bytes;
  const int64_t out_plane = p.out_h * p.out_w * value_bytes;
  ParallelFor(pool, p.batch * out_channels * p.out_h, [&](int64_t begin, int64_t end, int chunk) {
    float* padded = scratch + chunk * band_floats_;
    // Columns outside the copied ones are never written again, so they stay
    // zero for every band this thread fills.
    std::fill(padded, padded + band_floats_, 0.f);
    BandState state;
    // Output plane (n, c * multiplier + m), counted without a division per
    // plane: planes of 7x7 cost a few hundred cycles.
    const int64_t first_plane = begin / p.out_h;
    int64_t row = begin % p.out_h;
    int64_t n = first_plane / out_channels, c = first_plane % out_channels / p.multiplier,
            m = first_plane % out_channels % p.multiplier;
    Plane plane;
    char* plane_output = output + first_plane * out_plane;
    for (int64_t item = begin; item < end; plane_output += out_plane, row = 0) {
      const int64_t oc = c * p.multiplier + m;
      plane.output = plane_output;
      plane.input = input + (n * p.channels + c) * in_plane;
      plane.taps = filter + (m * p.channels + c) * 9;
      plane.bias = bias != nullptr ? bias[oc] : 0.f;
      const int64_t last = std::min(p.out_h, row + end - item);
      for (int64_t r = row; r < last; r += band_rows_) {
        RunBand(plane, r, std::min(band_rows_, last - r), half, padded, &state);
      }
      item += last - row;
      if (++m == p.multiplier) {
        m = 0;
        if (++c == p.channels) {
          c = 0;
          ++n;
        }
      }
    }
  });
}

}  // namespace ops
}  // namespace mace
