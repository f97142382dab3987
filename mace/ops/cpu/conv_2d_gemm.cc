#include "mace/ops/cpu/conv_2d_gemm.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "mace/ops/cpu/conv_2d_panel_runs.h"
#include "mace/ops/cpu/conv_2d_split_columns.h"
#include "mace/ops/cpu/fused_activation.h"
#include "mace/ops/cpu/linked_families.h"

namespace mace {
namespace ops {
namespace {

// The widest B panel of any kernel table (AVX-512: nr = 32).
constexpr int kMaxPanelWidth = 32;

// Lanes of a panel that lie in one output row: their input columns are
// iw0, iw0 + stride_w, ... in input row ih0 (before the tap's offsets).
struct RowSegment {
  int lane0 = 0, lanes = 0;
  int64_t ih0 = 0, iw0 = 0;
};

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Runs are at most a panel wide (32 values): fixed-size chunks of 32 and
// 16 bytes inline as a few vector moves rather than a libc call per run.
template <typename T>
inline void CopyRun(const T* src, int64_t count, T* dst) {
  constexpr int64_t kWide = 32 / sizeof(T), kNarrow = 16 / sizeof(T);
  int64_t i = 0;
  for (; i + kWide <= count; i += kWide) std::memcpy(dst + i, src + i, 32);
  if (i + kNarrow <= count) {
    std::memcpy(dst + i, src + i, 16);
    i += kNarrow;
  }
  for (; i < count; ++i) dst[i] = src[i];
}
inline void CopyFloats(const float* src, int64_t count, float* dst) { CopyRun(src, count, dst); }

// Halves as two copies of one size (32, 16, 8 or 4 bytes) from the run's
// two ends, overlapping in its middle: no per-value tail loop for the short
// runs of narrow maps (out_w 7 or 14 splits a 24-lane panel in short runs).
template <int kBytes>
inline void CopyHalfEnds(const uint16_t* src, int64_t count, uint16_t* dst) {
  constexpr int64_t kHalves = kBytes / 2;
  std::memcpy(dst, src, kBytes);
  std::memcpy(dst + count - kHalves, src + count - kHalves, kBytes);
}
inline void CopyRun(const uint16_t* src, int64_t count, uint16_t* dst) {
  if (count >= 16) {
    for (; count > 32; count -= 16, src += 16, dst += 16) std::memcpy(dst, src, 32);
    CopyHalfEnds<32>(src, count, dst);
  } else if (count >= 8) {
    CopyHalfEnds<16>(src, count, dst);
  } else if (count >= 4) {
    CopyHalfEnds<8>(src, count, dst);
  } else if (count >= 2) {
    CopyHalfEnds<4>(src, count, dst);
  } else if (count == 1) {
    *dst = *src;
  }
}

// The fp16 tables' B panel width (KernelTable::fp16_nr), in halves.
constexpr int kHalfPanelWidth = 24;
// Slack after a half padded image for PackPaddedRuns' whole-row reads past
// a run's end, in floats.
constexpr int64_t kHalfPaddedSlackFloats = kHalfPanelWidth / 2;

// One B panel row of halves, as three 16-byte moves.
inline void CopyHalfPanelRow(const uint16_t* src, uint16_t* dst) {
  std::memcpy(dst, src, kHalfPanelWidth * sizeof(uint16_t));
}

// Fills `lanes` values of one tap from input row `row` (null when the row is
// in the padding), reading columns iw, iw + stride, ...: the lanes that fall
// left or right of the image are zeroed in one go, the rest are a plain copy
// (unit stride) or a strided gather, with no per-element checks.
void CopyTapRun(const float* row, int64_t in_w, int64_t iw, int64_t stride, int lanes, float* out) {
  if (row == nullptr) {
    std::fill(out, out + lanes, 0.f);
    return;
  }
  const int64_t last = iw + (lanes - 1) * stride;
  if (iw >= 0 && last < in_w) {
    // The common case, away from the left and right padding.
    const float* src = row + iw;
    if (stride == 1) {
      CopyFloats(src, lanes, out);
    } else {
      for (int i = 0; i < lanes; ++i) out[i] = src[i * stride];
    }
    return;
  }
  // Lanes [lo, hi) read columns inside [0, in_w). Unit stride needs no
  // division, which would cost more than the copy on rows of 7 or 14.
  int64_t lo = 0, hi = lanes;
  if (stride == 1) {
    lo = std::min<int64_t>(lanes, std::max<int64_t>(0, -iw));
    hi = std::max(lo, std::min<int64_t>(lanes, in_w - iw));
  } else {
    if (iw < 0) lo = std::min<int64_t>(lanes, CeilDiv(-iw, stride));
    hi = std::max(lo, in_w - iw <= 0 ? 0 : std::min<int64_t>(lanes, CeilDiv(in_w - iw, stride)));
  }
  std::fill(out, out + lo, 0.f);
  if (hi > lo) {
    const float* src = row + iw + lo * stride;  // the first column inside
    if (stride == 1) {
      CopyFloats(src, hi - lo, out + lo);
    } else {
      for (int64_t i = 0; i < hi - lo; ++i) out[lo + i] = src[i * stride];
    }
  }
  std::fill(out + hi, out + lanes, 0.f);
}

// The split-column form of CopyTapRun for horizontal stride 2: `row` holds
// the even columns of an input row, then the odd ones (half_w each), so the
// columns iw, iw + 2, ... are consecutive in one half.
void CopySplitTapRun(const float* row, int64_t in_w, int64_t half_w, int64_t iw, int lanes,
                     float* out) {
  if (row == nullptr) {
    std::fill(out, out + lanes, 0.f);
    return;
  }
  int64_t lo = 0, hi = lanes;
  if (iw < 0) lo = std::min<int64_t>(lanes, CeilDiv(-iw, 2));
  hi = std::max(lo, in_w - iw <= 0 ? 0 : std::min<int64_t>(lanes, CeilDiv(in_w - iw, 2)));
  std::fill(out, out + lo, 0.f);
  if (hi > lo) {
    const int64_t first = iw + 2 * lo;  // the first column inside the image
    CopyFloats(row + (first & 1) * half_w + (first >> 1), hi - lo, out + lo);
  }
  std::fill(out + hi, out + lanes, 0.f);
}

// Calls emit(lane, lanes, oh, ow) for each run of the `valid` panel lanes
// from output pixel `first` that lies in one output row (out_w wide).
template <typename Emit>
void ForEachRowRun(int64_t first, int valid, int64_t out_w, Emit&& emit) {
  for (int lane = 0; lane < valid;) {
    const int64_t pixel = first + lane;
    const int64_t oh = pixel / out_w, ow = pixel % out_w;
    const int lanes = static_cast<int>(std::min<int64_t>(valid - lane, out_w - ow));
    emit(lane, lanes, oh, ow);
    lane += lanes;
  }
}

// Writes channels [begin, end) of `input` (in_h x in_w planes) with each row
// split into even then odd columns, rows 2 * half_w apart.
void SplitColumns(const float* input, int64_t in_h, int64_t in_w, int64_t half_w, int64_t begin,
                  int64_t end, float* split) {
  const int64_t odd = in_w / 2;
  for (int64_t row = begin * in_h; row < end * in_h; ++row) {
    const float* src = input + row * in_w;
    float* even_dst = split + row * 2 * half_w;
    float* odd_dst = even_dst + half_w;
    SplitRowColumns(src, even_dst, half_w, odd_dst, odd);
    if (half_w > odd) odd_dst[odd] = 0.f;  // odd width: a spare odd column
  }
}

// Copies channels [begin, end) of `input` (in_h x in_w planes), keeping
// every stride_h-th row and stride_w-th column from the first: out_h x
// out_w planes, dense.
// Floats or halves (copied as they are).
template <typename T>
void Subsample(const T* input, const ref::Conv2DParams& p, int64_t begin, int64_t end, T* copy) {
  const int64_t out_plane = p.out_h * p.out_w;
  for (int64_t c = begin; c < end; ++c) {
    const T* plane = input + c * p.in_h * p.in_w;
    T* dst = copy + c * out_plane;
    for (int64_t oh = 0; oh < p.out_h; ++oh, dst += p.out_w) {
      const T* src = plane + oh * p.stride_h * p.in_w;
      if (p.stride_w == 1) {
        std::memcpy(dst, src, p.out_w * sizeof(T));
      } else {
        for (int64_t ow = 0; ow < p.out_w; ++ow) dst[ow] = src[ow * p.stride_w];
      }
    }
  }
}

}  // namespace

bool Conv2dGemm::IsStridedPointwise(const ref::Conv2DParams& p) {
  return p.kernel_h == 1 && p.kernel_w == 1 && (p.stride_h > 1 || p.stride_w > 1) &&
         p.pad_top == 0 && p.pad_left == 0 && (p.out_h - 1) * p.stride_h < p.in_h &&
         (p.out_w - 1) * p.stride_w < p.in_w;
}

void PackIm2col(const void* context, int64_t pixel0, int64_t pixels, int64_t depth0, int64_t depth,
                int width, float* dst) {
  const Im2colSource& s = *static_cast<const Im2colSource*>(context);
  const int64_t pitch = s.split_columns ? 2 * s.half_w : s.in_w;  // between input rows
  const int64_t plane_size = s.in_h * pitch;
  RowSegment segments[kMaxPanelWidth];
  for (int64_t p = 0; p < pixels; p += width, dst += width * depth) {
    const int valid = static_cast<int>(std::min<int64_t>(width, pixels - p));
    // Split the panel's lanes at output row boundaries once; every tap then
    // reads one input row per segment.
    int count = 0;
    ForEachRowRun(pixel0 + p, valid, s.out_w, [&](int lane, int lanes, int64_t oh, int64_t ow) {
      RowSegment& segment = segments[count++];
      segment.lane0 = lane;
      segment.lanes = lanes;
      segment.ih0 = oh * s.stride_h - s.pad_top;
      segment.iw0 = ow * s.stride_w - s.pad_left;
    });
    // Walk (channel, kh, kw) incrementally from depth0.
    const int64_t taps = s.kernel_h * s.kernel_w;
    int64_t channel = depth0 / taps;
    int64_t kh = (depth0 % taps) / s.kernel_w, kw = depth0 % s.kernel_w;
    for (int64_t d = 0; d < depth; ++d) {
      const float* plane = s.input + channel * plane_size;
      const int64_t dy = kh * s.dilation_h, dx = kw * s.dilation_w;
      float* out = dst + d * width;
      for (int i = 0; i < count; ++i) {
        const RowSegment& segment = segments[i];
        const int64_t ih = segment.ih0 + dy;
        const float* row = ih >= 0 && ih < s.in_h ? plane + ih * pitch : nullptr;
        if (s.split_columns) {
          CopySplitTapRun(row, s.in_w, s.half_w, segment.iw0 + dx, segment.lanes,
                          out + segment.lane0);
        } else {
          CopyTapRun(row, s.in_w, segment.iw0 + dx, s.stride_w, segment.lanes, out + segment.lane0);
        }
      }
      std::fill(out + valid, out + width, 0.f);
      if (++kw == s.kernel_w) {
        kw = 0;
        if (++kh == s.kernel_h) {
          kh = 0;
          ++channel;
        }
      }
    }
  }
}

namespace {

// PackPaddedIm2col on a padded image of floats or of halves (raw 16-bit
// patterns, copied as they are).
template <typename T>
void PackPaddedRuns(const PaddedColumnsSource& s, const T* padded, int64_t pixel0, int64_t pixels,
                    int64_t depth0, int64_t depth, int width, T* dst) {
  const int64_t* offsets = s.image->offsets() + depth0;
  // Each segment is the lanes of one output row: a tap's inputs for them
  // are one run at the segment's origin plus the tap's offset.
  PanelSegment<T> segments[kMaxPanelWidth];
  for (int64_t p = 0; p < pixels; p += width, dst += width * depth) {
    const int valid = static_cast<int>(std::min<int64_t>(width, pixels - p));
    int count = 0;
    ForEachRowRun(pixel0 + p, valid, s.out_w, [&](int lane, int lanes, int64_t oh, int64_t ow) {
      segments[count++] = {lane, lanes, padded + s.image->Origin(oh, ow)};
    });
    // 8-wide float panels where the port packs them itself (armv7).
    if constexpr (std::is_same_v<T, float>) {
      if (width == 8 && PackFloatPanel8(segments, count, valid, offsets, depth, dst)) continue;
    }
    if constexpr (std::is_same_v<T, uint16_t>) {
      if (valid == width && width == kHalfPanelWidth) {
        // Halves, a whole panel: each segment is copied as a whole panel
        // row from its first lane, 48 bytes with no length dispatch. The
        // lanes it writes past its own belong to the next segment or to
        // the next tap's row, both written after it; only the last tap
        // copies exact runs, so nothing past the panel is written. The
        // reads past a run stay in the padded image's slack (CopyFloats).
        // On the 7-, 14- and 28-wide maps of stride-2 layers each tap of
        // a panel is 2 to 4 runs, and the length dispatch of every run
        // cost more than the copy.
        const int64_t whole_taps = count == 1 ? depth : depth - 1;
        for (int64_t d = 0; d < whole_taps; ++d) {
          T* out = dst + d * width;
          const int64_t offset = offsets[d];
          for (int i = 0; i < count; ++i) {
            CopyHalfPanelRow(segments[i].origin + offset, out + segments[i].lane0);
          }
        }
        if (whole_taps < depth) {
          T* out = dst + whole_taps * width;
          const int64_t offset = offsets[whole_taps];
          for (int i = 0; i < count; ++i) {
            CopyRun(segments[i].origin + offset, segments[i].lanes, out + segments[i].lane0);
          }
        }
        continue;
      }
    }
    for (int64_t d = 0; d < depth; ++d) {
      T* out = dst + d * width;
      const int64_t offset = offsets[d];
      for (int i = 0; i < count; ++i) {
        CopyRun(segments[i].origin + offset, segments[i].lanes, out + segments[i].lane0);
      }
      std::fill(out + valid, out + width, T(0));
    }
  }
}

}  // namespace

void PackPaddedIm2col(const void* context, int64_t pixel0, int64_t pixels, int64_t depth0,
                      int64_t depth, int width, float* dst) {
  const PaddedColumnsSource& s = *static_cast<const PaddedColumnsSource*>(context);
  PackPaddedRuns(s, s.padded, pixel0, pixels, depth0, depth, width, dst);
}

void PackPaddedIm2colHalf(const void* context, int64_t pixel0, int64_t pixels, int64_t depth0,
                          int64_t depth, int width, uint16_t* dst) {
  const PaddedColumnsSource& s = *static_cast<const PaddedColumnsSource*>(context);
  PackPaddedRuns(s, s.half_padded, pixel0, pixels, depth0, depth, width, dst);
}

Conv2dGemm::Conv2dGemm(const KernelTable& table, const ref::Conv2DParams& params,
                       const float* filter, PersistentArena* arena)
    : table_(table), params_(params) {
  const int64_t in_per_group = params.in_channels / params.group;
  m_ = params.out_channels / params.group;
  n_ = params.out_h * params.out_w;
  k_ = in_per_group * params.kernel_h * params.kernel_w;
  if (params.kernel_h == 1 && params.kernel_w == 1 && params.stride_h == 1 &&
      params.stride_w == 1 && params.pad_top == 0 && params.pad_left == 0 &&
      params.out_h == params.in_h && params.out_w == params.in_w) {
    source_ = Source::kInput;
  } else if (IsStridedPointwise(params)) {
    source_ = Source::kSubsampled;
  } else if (PaddedImage::Supports(params)) {
    source_ = Source::kPadded;
    padded_image_ = PaddedImage(params, in_per_group, params.out_w);
  } else if (params.stride_w == 2 && params.dilation_w == 1) {
    source_ = Source::kSplit;
  }
  fused_activation_ = FuseActivation(params.activation, &epilogue_);
  if (kLinksFp16Kernels && table.fp16_gemm != nullptr) {
    fp16_filters_.resize(params.group);
    for (int64_t g = 0; g < params.group; ++g) {
      fp16_filters_[g].Pack(table, filter + g * m_ * k_, m_, k_, k_, 1, arena);
    }
    return;
  }
  filters_.resize(params.group);
  for (int64_t g = 0; g < params.group; ++g) {
    // OIHW is already [out channel][(ic, kh, kw)]: A rows with unit depth stride.
    filters_[g].Pack(filter + g * m_ * k_, m_, k_, k_, 1, table.mr, arena);
  }
}

GemmOperand Conv2dGemm::Columns(const float* group_input, Im2colSource* source,
                                PaddedColumnsSource* padded_source) const {
  GemmOperand columns;
  if (source_ == Source::kInput || source_ == Source::kSubsampled) {
    columns.data = group_input;
    columns.stride = 1;
    columns.depth_stride = n_;  // the input's plane, or the subsampled one's
    return columns;
  }
  if (source_ == Source::kPadded) {
    padded_source->padded = group_input;
    padded_source->image = &padded_image_;
    padded_source->out_w = params_.out_w;
    columns.packer = PackPaddedIm2col;
    columns.packer_context = padded_source;
    return columns;
  }
  source->input = group_input;
  source->in_h = params_.in_h;
  source->in_w = params_.in_w;
  source->out_w = params_.out_w;
  source->kernel_h = params_.kernel_h;
  source->kernel_w = params_.kernel_w;
  source->stride_h = params_.stride_h;
  source->stride_w = params_.stride_w;
  source->dilation_h = params_.dilation_h;
  source->dilation_w = params_.dilation_w;
  source->pad_top = params_.pad_top;
  source->pad_left = params_.pad_left;
  source->split_columns = source_ == Source::kSplit;
  source->half_w = (params_.in_w + 1) / 2;
  columns.packer = PackIm2col;
  columns.packer_context = source;
  return columns;
}

int64_t Conv2dGemm::CopyFloats() const {
  const int64_t in_per_group = params_.in_channels / params_.group;
  switch (source_) {
    case Source::kSubsampled:
      return in_per_group * n_;
    case Source::kPadded:
      // The half copy takes a half as many floats more.
      return padded_image_.floats() +
             (HalfColumns() ? (padded_image_.floats() + 1) / 2 + kHalfPaddedSlackFloats : 0);
    case Source::kSplit:
      return in_per_group * params_.in_h * 2 * ((params_.in_w + 1) / 2);
    default:
      return 0;
  }
}

int64_t Conv2dGemm::GemmFloatsPerThread() const {
  if (kLinksFp16Kernels && !fp16_filters_.empty()) {
    const int64_t floats = Fp16GemmScratchFloatsPerThread(table_, n_, k_);
    if (!SupportsHalf() && !HalfColumns()) return floats;
    return std::max(floats, Fp16GemmHalfScratchFloatsPerThread(table_, k_));
  }
  GemmOperand lhs, columns;
  lhs.packed = &filters_[0];
  if (source_ != Source::kInput && source_ != Source::kSubsampled) columns.packer = PackIm2col;
  return GemmScratchFloatsPerThread(table_, m_, n_, k_, lhs, columns);
}

int64_t Conv2dGemm::ScratchBytes(int threads) const {
  return (threads * GemmFloatsPerThread() + CopyFloats()) * static_cast<int64_t>(sizeof(float));
}

void Conv2dGemm::Run(const float* input, const float* bias, float* output, ThreadPool* pool,
                     float* scratch) const {
  const int64_t in_plane = params_.in_h * params_.in_w;
  const int64_t in_per_group = params_.in_channels / params_.group;
  for (int64_t b = 0; b < params_.batch; ++b) {
    for (int64_t g = 0; g < params_.group; ++g) {
      Im2colSource source;
      PaddedColumnsSource padded_source;
      const float* group_input = input + (b * params_.in_channels + g * in_per_group) * in_plane;
      // The copy sits after the GEMM's per-thread scratch.
      float* copy = scratch + NumThreads(pool) * GemmFloatsPerThread();
      if (kLinksFp16Kernels && source_ == Source::kPadded && HalfColumns()) {
        // Filled in floats, then converted once: the padded image is a
        // fraction of the columns the panels would otherwise convert.
        uint16_t* half = reinterpret_cast<uint16_t*>(copy + padded_image_.floats());
        const int64_t per_channel = padded_image_.floats() / in_per_group;
        ParallelFor(pool, in_per_group, [&](int64_t begin, int64_t end) {
          padded_image_.Fill(group_input, begin, end, copy);
          table_.fp16_from_float(copy + begin * per_channel, (end - begin) * per_channel,
                                 half + begin * per_channel);
        });
        padded_source.padded = copy;
        padded_source.image = &padded_image_;
        padded_source.out_w = params_.out_w;
        padded_source.half_padded = half;
        TileEpilogue epilogue = epilogue_;
        epilogue.row_bias = bias != nullptr ? bias + g * m_ : nullptr;
        Fp16GemmHalfPanels(table_, m_, n_, k_, fp16_filters_[g], PackPaddedIm2colHalf,
                           &padded_source, output + (b * params_.out_channels + g * m_) * n_, n_,
                           epilogue, pool, scratch);
        continue;
      }
      if (source_ == Source::kPadded) {
        ParallelFor(pool, in_per_group, [&](int64_t begin, int64_t end) {
          padded_image_.Fill(group_input, begin, end, copy);
        });
        group_input = copy;
      } else if (source_ == Source::kSplit) {
        const int64_t half_w = (params_.in_w + 1) / 2;
        ParallelFor(pool, in_per_group, [&](int64_t begin, int64_t end) {
          SplitColumns(group_input, params_.in_h, params_.in_w, half_w, begin, end, copy);
        });
        group_input = copy;
      } else if (source_ == Source::kSubsampled) {
        ParallelFor(pool, in_per_group, [&](int64_t begin, int64_t end) {
          Subsample(group_input, params_, begin, end, copy);
        });
        group_input = copy;
      }
      const GemmOperand columns = Columns(group_input, &source, &padded_source);
      if (kLinksFp16Kernels && !fp16_filters_.empty()) {
        TileEpilogue epilogue = epilogue_;
        epilogue.row_bias = bias != nullptr ? bias + g * m_ : nullptr;
        float* out = output + (b * params_.out_channels + g * m_) * n_;
        Fp16Gemm(table_, m_, n_, k_, fp16_filters_[g], columns, out, n_, epilogue, pool, scratch);
        continue;
      }
      GemmOperand lhs;
      lhs.packed = &filters_[g];
      TileEpilogue epilogue = epilogue_;
      epilogue.row_bias = bias != nullptr ? bias + g * m_ : nullptr;
      float* out = output + (b * params_.out_channels + g * m_) * n_;
      Gemm(table_, m_, n_, k_, lhs, columns, out, n_, epilogue, pool, scratch);
    }
  }
  if (!fused_activation_) {
    ApplyActivation(params_.activation, output, params_.batch * params_.out_channels * n_, pool);
  }
}

bool Conv2dGemm::SupportsHalf() const {
  return kLinksFp16Kernels && !fp16_filters_.empty() && table_.fp16_gemm_half != nullptr &&
         (source_ == Source::kInput || source_ == Source::kSubsampled || HalfColumns()) &&
         params_.group == 1 && fused_activation_;
}

void Conv2dGemm::RunHalf(const uint16_t* input, const float* bias, uint16_t* output,
                         ThreadPool* pool, float* scratch) const {
  if constexpr (!kLinksFp16Kernels) return;
  TileEpilogue epilogue = epilogue_;
  epilogue.row_bias = bias;
  const int64_t in_image = params_.in_channels * params_.in_h * params_.in_w;
  for (int64_t b = 0; b < params_.batch; ++b) {
    uint16_t* out = output + b * params_.out_channels * n_;
    if (source_ == Source::kInput) {
      Fp16GemmHalf(table_, m_, n_, k_, fp16_filters_[0], input + b * in_image, n_, out, n_,
                   epilogue, pool, scratch);
      continue;
    }
    if (source_ == Source::kSubsampled) {
      // The strided 1x1's subsampled copy in halves, where Run keeps its own.
      uint16_t* copy =
          reinterpret_cast<uint16_t*>(scratch + NumThreads(pool) * GemmFloatsPerThread());
      ParallelFor(pool, params_.in_channels, [&](int64_t begin, int64_t end) {
        Subsample(input + b * in_image, params_, begin, end, copy);
      });
      Fp16GemmHalf(table_, m_, n_, k_, fp16_filters_[0], copy, n_, out, n_, epilogue, pool,
                   scratch);
      continue;
    }
    // im2col: the half padded image (where Run keeps it, after the float
    // one) filled from the halves as they are, panels packed from it.
    float* copy = scratch + NumThreads(pool) * GemmFloatsPerThread();
    uint16_t* half = reinterpret_cast<uint16_t*>(copy + padded_image_.floats());
    ParallelFor(pool, params_.in_channels, [&](int64_t begin, int64_t end) {
      padded_image_.Fill(input + b * in_image, begin, end, half);
    });
    PaddedColumnsSource source;
    source.image = &padded_image_;
    source.out_w = params_.out_w;
    source.half_padded = half;
    Fp16GemmHalfPanelsToHalves(table_, m_, n_, k_, fp16_filters_[0], PackPaddedIm2colHalf, &source,
                               out, n_, epilogue, pool, scratch);
  }
}

}  // namespace ops
}  // namespace mace
