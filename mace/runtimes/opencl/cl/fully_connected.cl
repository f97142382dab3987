// FullyConnected as a convolution whose window is the whole input: the
// weight [O, C * H * W] is stored as a Conv2D filter [O, C, H, W] (pixel
// (c, (o/4 * H + h) * W + w), lane o%4), rank-2 inputs [N, K] as
// [N, K, 1, 1]. The output [N, O] is the image [ceil(O/4), N]. Each
// work-item computes one block of four outputs of one batch.
// Uses conv_tap of conv_2d.cl. Global size: [ceil(O/4), N].
__kernel void fully_connected(__read_only image2d_t input, __read_only image2d_t weight,
                              __read_only image2d_t bias, int has_bias,
                              __write_only image2d_t output, int in_blocks, int in_h, int in_w,
                              int out_blocks, int out_features, int batch, int act, float limit,
                              float alpha, float beta) {
  const int block = get_global_id(0);
  const int n = get_global_id(1);
  if (block >= out_blocks || n >= batch) return;
  DATA4 acc = has_bias ? READ_PIXEL(bias, (int2)(block, 0)) : (DATA4)0;
  for (int h = 0; h < in_h; ++h) {
    for (int w = 0; w < in_w; ++w) {
      const int filter_y = (block * in_h + h) * in_w + w;
      for (int ib = 0; ib < in_blocks; ++ib) {
        const DATA4 in = READ_PIXEL(input, (int2)(ib * in_w + w, n * in_h + h));
        acc = conv_tap(acc, in, READ_PIXEL(weight, (int2)(ib * 4, filter_y)),
                       READ_PIXEL(weight, (int2)(ib * 4 + 1, filter_y)),
                       READ_PIXEL(weight, (int2)(ib * 4 + 2, filter_y)),
                       READ_PIXEL(weight, (int2)(ib * 4 + 3, filter_y)));
      }
    }
  }
  const DATA4 value = mask_lanes(activate(acc, act, limit, alpha, beta), block, out_features);
  WRITE_PIXEL(output, (int2)(block, n), value);
}
