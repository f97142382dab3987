// The vector parts of the half max pooling (pooling_half.cc), which
// compares halves as int16 keys (see pooling_half.h): each function does
// whole vectors of 8 outputs, the last ones again as one whole vector where
// there is one (overlapping the one before), and returns the outputs done;
// the driver does the rest one by one. The portable versions
// (pooling_half_rows.cc) do none; arm64 has NEON ones
// (arm/pooling_half_rows_aarch64.cc).
#ifndef MACE_OPS_CPU_POOLING_HALF_ROWS_H_
#define MACE_OPS_CPU_POOLING_HALF_ROWS_H_

#include <algorithm>
#include <cstdint>

namespace mace {
namespace ops {

// The padding of a line of keys is -1 (0xffff, a NaN no kernel writes
// here): never above a value, never below a negative one.
constexpr int16_t kHalfKeyPadding = -1;

// line[x] = the maximum of column x over `count` rows from `first`.
int64_t HalfKeyRowVectors(const int16_t* first, int64_t in_w, int64_t count, int16_t* line);

// out[ow] = the maximum of line[ow * stride + k], k < kernel.
int64_t HalfKeyColumnVectors(const int16_t* line, int64_t out_w, int64_t kernel,
                             int64_t stride, int16_t* out);

// 3x3 windows at stride 2 (both ways): each input row's column maxima
// (and minima) over cells 2j, 2j + 1 and 2j + 2 are found once and serve
// the two output rows whose windows share that row. `row` is in padded
// coordinates and readable up to column 2 * out_w + 1.
struct HeldRow {
  int16_t* largest;
  int16_t* smallest;
};

// held = the column triples of `row`.
int64_t HoldRow3x3S2Vectors(const int16_t* row, int64_t out_w, HeldRow held);

// One output row from the window's first row's triples (`first`) and its
// second and third input rows; the third row's triples go to `last` (a
// different line: the last vector overlaps the one before it).
int64_t MaxRow3x3S2Vectors(HeldRow first, const int16_t* second, const int16_t* third,
                           int64_t out_w, HeldRow last, int16_t* out);

// Input rows of one plane in padded coordinates for the 3x3 stride-2
// kernels: read in place before in_place_rows, else copied into a padded
// line (copies[copy]); rows outside the image are `padding`.
struct PlaneRows {
  const int16_t* image;
  int64_t in_h, in_w, pad_left, in_place_rows;
  int16_t* copies[2];
  const int16_t* padding;

  inline __attribute__((always_inline)) const int16_t* Get(int64_t r, int copy) const {
    if (r < 0 || r >= in_h) return padding;
    const int16_t* data = image + r * in_w;
    if (r < in_place_rows) return data;
    std::copy(data, data + in_w, copies[copy] + pad_left);
    return copies[copy];
  }
};

// Whether this build has HalfMaxRows3x3S2 (arm64, in half arithmetic:
// ARMv8.2 FP16 `fmax`; only the maxima are held). Call it only with the
// fp16 table, whose CPU has that arithmetic.
bool HasHalfMaxRows3x3S2();

// `count` output rows of one plane from input row `first_row` on (padded
// coordinates), as HoldRow3x3S2Vectors and MaxRow3x3S2Vectors on the
// maxima, the held maxima alternating between `held` and `other`;
// out_w >= 8.
void HalfMaxRows3x3S2(const PlaneRows& plane, int64_t first_row, int64_t count, int64_t out_w,
                      int16_t* held, int16_t* other, int16_t* out);

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_POOLING_HALF_ROWS_H_
