// Fast 3x3 depthwise convolution at stride 1 or 2 on each axis (no
// dilation, any padding and channel multiplier).
//
// Real networks run this on small planes (MobileNet's 14x14 and 7x7), where
// per-row and per-border work costs more than the arithmetic. So each thread
// copies a band of input rows into a zero-padded scratch band once, and the
// ISA's band kernel then computes every output of it with whole vectors:
// there are no border pixels, no rows in the padding and no call per row.
// Work is split over (plane, output row) pairs, which balances well even
// with few channels; a thread's rows of one plane run in bands that fit L1.
#ifndef MACE_OPS_CPU_DEPTHWISE_CONV_2D_3X3_H_
#define MACE_OPS_CPU_DEPTHWISE_CONV_2D_3X3_H_

#include <cstdint>
#include <vector>

#include "mace/ops/cpu/kernel_table.h"
#include "mace/ops/ref/depthwise_conv_2d.h"
#include "mace/runtimes/cpu/thread_pool.h"

namespace mace {
namespace ops {

class DepthwiseConv3x3 {
 public:
  static bool Supports(const KernelTable& table, const ref::DepthwiseConv2dParams& params);

  DepthwiseConv3x3(const KernelTable& table, const ref::DepthwiseConv2dParams& params);

  // Scratch Run needs when the pool has `threads` threads.
  int64_t ScratchBytes(int threads) const;

  // Arguments as in ref::DepthwiseConv2d; output must not alias input.
  // `scratch` holds ScratchBytes(NumThreads(pool)) bytes.
  void Run(const float* input, const float* filter, const float* bias, float* output,
           ThreadPool* pool, float* scratch) const;
  // Whether RunHalf can run: with the table's fp16 kernels and an
  // activation they apply.
  bool SupportsHalf() const { return fp16_from_float_ != nullptr && fused_activation_; }
  // The same on input and output held as halves (raw 16-bit patterns).
  void RunHalf(const uint16_t* input, const float* filter, const float* bias, uint16_t* output,
               ThreadPool* pool, float* scratch) const;

 private:
  struct Plane {
    const void* input = nullptr;  // the input channel (floats, or halves)
    const float* taps = nullptr;
    float bias = 0.f;
    void* output = nullptr;  // the output channel (floats, or halves)
  };
  // The padded rows a thread's band holds, so that a band the previous one
  // already filled (channel multiplier > 1) is not copied again.
  struct BandState {
    const void* input = nullptr;
    int64_t first_row = -1, rows = 0;
  };
  // Run over tensors of floats or (half) of halves.
  void RunPlanes(const void* input, const float* filter, const float* bias, void* output,
                 bool half, ThreadPool* pool, float* scratch) const;

  // Output rows [row, row + rows) of one plane through the thread's band.
  void RunBand(const Plane& plane, int64_t row, int64_t rows, bool half, float* padded,
               BandState* state) const;
  // Copies padded rows [first_row, first_row + rows) into the band (input
  // of halves when `half`).
  void FillBand(const void* input, int64_t first_row, int64_t rows, bool half,
                bool padding_rows_are_zero, float* padded) const;

  // Float planes that are each one band (channel multiplier 1): the band's
  // copy and the kernel's arguments straight from a plane's pointers, with
  // no per-band bookkeeping, on the ARM ports (the others: RunPlanes).
  void RunWholePlanes(const float* input, const float* filter, const float* bias,
                      float* output, ThreadPool* pool, float* scratch) const;

  // Float planes the port's kernel reads in place (TakesPlanesInPlace), so
  // no band is copied; the work is split over planes. arm64: one row and
  // column of padding before the input; stride 1 on 7x7 and 14x14 maps,
  // stride 2 on outputs of 8 columns and 4 rows or more. armv7: planes of
  // 13 columns or more at stride 1 and of 4 output columns or more at
  // stride 2, through its column walks.
  void RunInPlace(const float* input, const float* filter, const float* bias, float* output,
                  ThreadPool* pool) const;

  // RunWholePlanes over a port's row copy and plane walk
  // (cpu/depthwise_conv_2d_3x3_planes.h).
  template <class Port>
  void RunWholePlanesWith(const float* input, const float* filter, const float* bias,
                          float* output, ThreadPool* pool, float* scratch) const;

  // Each port's file defines these, with RunWholePlanes and RunInPlace
  // (cpu/depthwise_conv_2d_3x3_port.cc, arm/depthwise_conv_2d_3x3_aarch64.cc,
  // arm/depthwise_conv_2d_3x3_armv7.cc; BUILD.bazel picks the file):
  // whether the port's kernel reads this layer's planes in place
  // (RunInPlace; the band kernel, activation and shape are set),
  bool TakesPlanesInPlace() const;
  // a band's output rows as the port's kernels take them, at most `rows`,
  int64_t PortBandRows(int64_t rows) const;
  // and the copy of `rows` input rows (copy_columns_ values, in_w apart)
  // into band rows pitch_ apart, of floats or of halves.
  void CopyBandRows(const float* src, float* dst, int64_t rows) const;
  void CopyHalfBandRows(const uint16_t* src, uint16_t* dst, int64_t rows) const;

  // RunHalf on small planes through the table's packed kernel: groups of 8
  // channels as vector lanes.
  void RunPackedGroups(const uint16_t* input, const float* filter, const float* bias,
                       uint16_t* output, ThreadPool* pool, float* scratch) const;

  ref::DepthwiseConv2dParams params_;
  DepthwiseBandKernel band_kernel_ = nullptr;
  // With the packed kernel: each input pixel's byte offset in the padded group
  // (packed_pixels_ of them, padded_w_ a row, then a spare one for pixels
  // no output reads) and a thread's region of the scratch for it.
  DepthwisePackedKernel packed_kernel_ = nullptr;
  std::vector<int32_t> packed_offsets_;
  int64_t packed_w_ = 0, packed_pixels_ = 0, packed_floats_ = 0;
  // With the table's fp16 kernels: the band holds half values, converted
  // from the input as it is copied (pitch_ then counts halves).
  void (*fp16_from_float_)(const float* src, int64_t count, uint16_t* dst) = nullptr;
  TileEpilogue epilogue_;
  bool fused_activation_ = false;
  bool in_place_ = false;  // Run takes RunInPlace
  // The band holds rows of pitch_ floats with input column 0 at pad_left;
  // copy_columns_ input columns are read (none when <= 0).
  int64_t pitch_ = 0;
  int64_t copy_columns_ = 0;
  int64_t band_rows_ = 0;    // output rows per band
  int64_t band_floats_ = 0;  // one thread's band, whole thread regions
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_DEPTHWISE_CONV_2D_3X3_H_
