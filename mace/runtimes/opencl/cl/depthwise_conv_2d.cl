// DepthwiseConv2d on activation images: output channel o = c * M + m reads
// input channel c with filter m. The filter is [KH * KW * M, ceil(C/4)]
// (pixel ((m * KH + kh) * KW + kw, c/4), lane c%4); the bias [ceil(O/4), 1].
// One output pixel (four output channels) per work-item; global size: the
// output image, [ceil(O/4) * out_w, N * out_h].

__kernel void depthwise_conv2d(__read_only image2d_t input, __read_only image2d_t filter,
                               __read_only image2d_t bias, int has_bias,
                               __write_only image2d_t output, int in_h, int in_w, int out_h,
                               int out_w, int out_channels, int multiplier, int image_width,
                               int rows, int kernel_h, int kernel_w, int stride_h, int stride_w,
                               int dilation_h, int dilation_w, int pad_top, int pad_left,
                               int act, float limit, float alpha, float beta) {
  const int x = get_global_id(0);
  const int row = get_global_id(1);
  if (x >= image_width || row >= rows) return;
  const int block = x / out_w;
  const int ow = x - block * out_w;
  const int n = row / out_h;
  const int oh = row - n * out_h;
  DATA4 acc = has_bias ? READ_PIXEL(bias, (int2)(block, 0)) : (DATA4)0;
  for (int kh = 0; kh < kernel_h; ++kh) {
    const int ih = oh * stride_h - pad_top + kh * dilation_h;
    if (ih < 0 || ih >= in_h) continue;
    const int y = n * in_h + ih;
    for (int kw = 0; kw < kernel_w; ++kw) {
      const int iw = ow * stride_w - pad_left + kw * dilation_w;
      if (iw < 0 || iw >= in_w) continue;
      if (multiplier == 1) {
        const DATA4 in = READ_PIXEL(input, (int2)(block * in_w + iw, y));
        acc = mad(in, READ_PIXEL(filter, (int2)(kh * kernel_w + kw, block)), acc);
        continue;
      }
      // Each lane has its own input channel and filter.
      DATA taps[4] = {0, 0, 0, 0};
      for (int lane = 0; lane < 4; ++lane) {
        const int o = block * 4 + lane;
        if (o >= out_channels) break;
        const int c = o / multiplier;
        const int m = o - c * multiplier;
        const DATA4 in = READ_PIXEL(input, (int2)((c >> 2) * in_w + iw, y));
        const DATA4 w = READ_PIXEL(filter, (int2)((m * kernel_h + kh) * kernel_w + kw, c >> 2));
        taps[lane] = lane_of(in, c & 3) * lane_of(w, c & 3);
      }
      acc += (DATA4)(taps[0], taps[1], taps[2], taps[3]);
    }
  }
  acc = mask_lanes(activate(acc, act, limit, alpha, beta), block, out_channels);
  WRITE_PIXEL(output, (int2)(x, row), acc);
}
