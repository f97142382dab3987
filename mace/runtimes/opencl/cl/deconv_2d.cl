// Deconv2D (transposed convolution) on activation images, the filter
// [I, O, KH, KW] transposed on the host and stored as a Conv2D filter
// [O, I, KH, KW] (pixel (i, (o/4 * KH + kh) * KW + kw), lane o%4), the
// bias as [ceil(O/4), 1]. Each work-item gathers the taps of one output
// pixel (four output channels): input row ih contributes to output row
// oh when oh + pad_top - kh * dilation_h = ih * stride_h.
// Uses conv_tap of conv_2d.cl. Global size: [ceil(O/4) * out_w, N * out_h].
__kernel void deconv2d(__read_only image2d_t input, __read_only image2d_t filter,
                       __read_only image2d_t bias, int has_bias, __write_only image2d_t output,
                       int in_h, int in_w, int in_blocks, int out_h, int out_w, int out_channels,
                       int out_blocks, int rows, int kernel_h, int kernel_w, int stride_h,
                       int stride_w, int dilation_h, int dilation_w, int pad_top, int pad_left,
                       int act, float limit, float alpha, float beta) {
  const int x = get_global_id(0);
  const int row = get_global_id(1);
  if (x >= out_blocks * out_w || row >= rows) return;
  const int block = x / out_w;
  const int ow = x - block * out_w;
  const int n = row / out_h;
  const int oh = row - n * out_h;
  DATA4 acc = has_bias ? READ_PIXEL(bias, (int2)(block, 0)) : (DATA4)0;
  for (int kh = 0; kh < kernel_h; ++kh) {
    const int h_offset = oh + pad_top - kh * dilation_h;
    if (h_offset < 0 || h_offset % stride_h != 0) continue;
    const int ih = h_offset / stride_h;
    if (ih >= in_h) continue;
    for (int kw = 0; kw < kernel_w; ++kw) {
      const int w_offset = ow + pad_left - kw * dilation_w;
      if (w_offset < 0 || w_offset % stride_w != 0) continue;
      const int iw = w_offset / stride_w;
      if (iw >= in_w) continue;
      const int filter_y = (block * kernel_h + kh) * kernel_w + kw;
      for (int ib = 0; ib < in_blocks; ++ib) {
        const DATA4 in = READ_PIXEL(input, (int2)(ib * in_w + iw, n * in_h + ih));
        acc = conv_tap(acc, in, READ_PIXEL(filter, (int2)(ib * 4, filter_y)),
                       READ_PIXEL(filter, (int2)(ib * 4 + 1, filter_y)),
                       READ_PIXEL(filter, (int2)(ib * 4 + 2, filter_y)),
                       READ_PIXEL(filter, (int2)(ib * 4 + 3, filter_y)));
      }
    }
  }
  WRITE_PIXEL(output, (int2)(x, row),
              mask_lanes(activate(acc, act, limit, alpha, beta), block, out_channels));
}
