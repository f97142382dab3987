#include "mace/ops/cpu/depthwise_conv_2d_uint8_rows.h"

namespace mace {
namespace ops {

void WidenUint8Row(const uint8_t* in, int16_t* row, int64_t x_begin, int64_t x_end,
                   int64_t /*width*/, int64_t /*bytes_left*/, int32_t zero_point) {
  for (int64_t x = x_begin; x < x_end; ++x) row[x] = static_cast<int16_t>(in[x] - zero_point);
}

int64_t CopyUint8RowsWide(const uint8_t* /*bytes*/, int64_t /*pitch*/, int64_t /*out_h*/,
                          int64_t /*out_w*/, uint8_t* /*out*/) {
  return 0;
}

}  // namespace ops
}  // namespace mace
