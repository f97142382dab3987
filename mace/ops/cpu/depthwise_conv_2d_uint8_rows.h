// Row moves of the uint8 3x3 depthwise driver (depthwise_conv_2d_uint8_fast.cc)
// around its kernels: byte by byte in depthwise_conv_2d_uint8_rows.cc, 16
// bytes at a time with x86-64's SSE2 in
// x86/depthwise_conv_2d_uint8_rows_x86_64.cc.
#ifndef MACE_OPS_CPU_DEPTHWISE_CONV_2D_UINT8_ROWS_H_
#define MACE_OPS_CPU_DEPTHWISE_CONV_2D_UINT8_ROWS_H_

#include <cstdint>

namespace mace {
namespace ops {

// row[x] = in[x] - zero_point for x in [x_begin, x_end) (x_begin <= x_end),
// one row of the padded int16 plane. A port may also write row[x] for x
// in [x_end, width) as 0 (padding), and read up to bytes_left bytes from
// in + x_begin.
void WidenUint8Row(const uint8_t* in, int16_t* row, int64_t x_begin, int64_t x_end, int64_t width,
                   int64_t bytes_left, int32_t zero_point);

// Copies rows y = 0, 1, ... of out_w bytes (pitch bytes apart in `bytes`,
// which has 16 bytes of slack) to out + y * out_w, as many as its port
// moves in 16-byte steps whose excess the rows after them overwrite, out
// of the plane's out_h; returns the first row it did not copy (0 for
// none).
int64_t CopyUint8RowsWide(const uint8_t* bytes, int64_t pitch, int64_t out_h, int64_t out_w,
                          uint8_t* out);

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_DEPTHWISE_CONV_2D_UINT8_ROWS_H_
