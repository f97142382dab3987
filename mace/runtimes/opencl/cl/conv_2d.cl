// Conv2D on channel-major activation images, the filter as
// [I, ceil(O/4) * KH * KW] (pixel (i, (o/4 * KH + kh) * KW + kw) holds
// output channels o..o+3 of input channel i) and the bias as [ceil(O/4), 1].
// Each work-item computes one block of four output channels at four
// neighbouring output columns, reusing each filter pixel four times.

// The input pixel of channel block `block` at column `iw` of image row `y`;
// 0 outside the tensor (padding).
inline DATA4 conv_input(__read_only image2d_t input, int block, int in_w, int iw, int y) {
  if (iw < 0 || iw >= in_w) return (DATA4)0;
  return READ_PIXEL(input, (int2)(block * in_w + iw, y));
}

inline DATA4 conv_tap(DATA4 acc, DATA4 in, DATA4 w0, DATA4 w1, DATA4 w2, DATA4 w3) {
  acc = mad((DATA4)in.x, w0, acc);
  acc = mad((DATA4)in.y, w1, acc);
  acc = mad((DATA4)in.z, w2, acc);
  return mad((DATA4)in.w, w3, acc);
}

// Adds the taps of one filter position, over every input channel block,
// to four output columns (`iw` is the input column of the first).
inline void conv_accumulate(DATA4* acc, __read_only image2d_t input,
                            __read_only image2d_t filter, int in_blocks, int in_w, int iw,
                            int stride_w, int y, int filter_y) {
  for (int ib = 0; ib < in_blocks; ++ib) {
    const DATA4 w0 = READ_PIXEL(filter, (int2)(ib * 4, filter_y));
    const DATA4 w1 = READ_PIXEL(filter, (int2)(ib * 4 + 1, filter_y));
    const DATA4 w2 = READ_PIXEL(filter, (int2)(ib * 4 + 2, filter_y));
    const DATA4 w3 = READ_PIXEL(filter, (int2)(ib * 4 + 3, filter_y));
    for (int k = 0; k < 4; ++k) {
      acc[k] = conv_tap(acc[k], conv_input(input, ib, in_w, iw + k * stride_w, y), w0, w1, w2, w3);
    }
  }
}

// Applies the activation and writes the four output columns that exist.
inline void conv_store(__write_only image2d_t output, const DATA4* acc, int block, int ow,
                       int out_w, int y, int out_channels, int act, float limit, float alpha,
                       float beta) {
  for (int k = 0; k < 4 && ow + k < out_w; ++k) {
    const DATA4 value = mask_lanes(activate(acc[k], act, limit, alpha, beta), block, out_channels);
    WRITE_PIXEL(output, (int2)(block * out_w + ow + k, y), value);
  }
}

// Global size: [ceil(out_w/4) * ceil(O/4), N * out_h].
__kernel void conv2d(__read_only image2d_t input, __read_only image2d_t filter,
                     __read_only image2d_t bias, int has_bias, __write_only image2d_t output,
                     int in_h, int in_w, int in_blocks, int out_h, int out_w, int out_channels,
                     int column_blocks, int out_blocks, int rows, int kernel_h, int kernel_w,
                     int stride_h, int stride_w, int dilation_h, int dilation_w, int pad_top,
                     int pad_left, int act, float limit, float alpha, float beta) {
  const int item = get_global_id(0);
  const int row = get_global_id(1);
  if (item >= column_blocks * out_blocks || row >= rows) return;
  const int block = item / column_blocks;
  const int ow = (item - block * column_blocks) * 4;
  const int n = row / out_h;
  const int oh = row - n * out_h;
  DATA4 acc[4];
  acc[0] = has_bias ? READ_PIXEL(bias, (int2)(block, 0)) : (DATA4)0;
  acc[1] = acc[2] = acc[3] = acc[0];
  for (int kh = 0; kh < kernel_h; ++kh) {
    const int ih = oh * stride_h - pad_top + kh * dilation_h;
    if (ih < 0 || ih >= in_h) continue;
    for (int kw = 0; kw < kernel_w; ++kw) {
      conv_accumulate(acc, input, filter, in_blocks, in_w,
                      ow * stride_w - pad_left + kw * dilation_w, stride_w, n * in_h + ih,
                      (block * kernel_h + kh) * kernel_w + kw);
    }
  }
  conv_store(output, acc, block, ow, out_w, row, out_channels, act, limit, alpha, beta);
}

// 1x1 filters without padding: no window loops. Same global size.
__kernel void conv2d_1x1(__read_only image2d_t input, __read_only image2d_t filter,
                         __read_only image2d_t bias, int has_bias,
                         __write_only image2d_t output, int in_h, int in_w, int in_blocks,
                         int out_h, int out_w, int out_channels, int column_blocks,
                         int out_blocks, int rows, int stride_h, int stride_w, int act,
                         float limit, float alpha, float beta) {
  const int item = get_global_id(0);
  const int row = get_global_id(1);
  if (item >= column_blocks * out_blocks || row >= rows) return;
  const int block = item / column_blocks;
  const int ow = (item - block * column_blocks) * 4;
  const int n = row / out_h;
  const int ih = (row - n * out_h) * stride_h;
  DATA4 acc[4];
  acc[0] = has_bias ? READ_PIXEL(bias, (int2)(block, 0)) : (DATA4)0;
  acc[1] = acc[2] = acc[3] = acc[0];
  if (ih < in_h) {
    conv_accumulate(acc, input, filter, in_blocks, in_w, ow * stride_w, stride_w, n * in_h + ih,
                    block);
  }
  conv_store(output, acc, block, ow, out_w, row, out_channels, act, limit, alpha, beta);
}
