// FullyConnected on activation images. The weight [O, C * H * W] is stored
// as an activation image of [O, C, 1, H * W]: [ceil(C/4) * H * W, O], pixel
// (c/4 * H * W + h * W + w, o) holding input channels c..c+3 at (h, w) for
// output o, so a weight pixel pairs with an input pixel in one dot
// product. Rank-2 inputs [N, K] are [N, K, 1, 1]. The output [N, O] is the
// image [ceil(O/4), N]. Each work-item computes one block of four outputs
// of one batch. Global size: [ceil(O/4), N].
__kernel void fully_connected(__read_only image2d_t input, __read_only image2d_t weight,
                              __read_only image2d_t bias, int has_bias,
                              __write_only image2d_t output, int in_blocks, int in_h, int in_w,
                              int out_blocks, int out_features, int batch, int act, float limit,
                              float alpha, float beta) {
  const int block = get_global_id(0);
  const int n = get_global_id(1);
  if (block >= out_blocks || n >= batch) return;
  const int plane = in_h * in_w;
  float4 acc = has_bias ? read_imagef(bias, kSampler, (int2)(block, 0)) : (float4)0;
  for (int ib = 0; ib < in_blocks; ++ib) {
    for (int h = 0; h < in_h; ++h) {
      for (int w = 0; w < in_w; ++w) {
        const float4 in = read_imagef(input, kSampler, (int2)(ib * in_w + w, n * in_h + h));
        const int x = ib * plane + h * in_w + w;
        // Rows past O read as 0 (the sampler clamps to the border).
        acc.x += dot(in, read_imagef(weight, kSampler, (int2)(x, block * 4)));
        acc.y += dot(in, read_imagef(weight, kSampler, (int2)(x, block * 4 + 1)));
        acc.z += dot(in, read_imagef(weight, kSampler, (int2)(x, block * 4 + 2)));
        acc.w += dot(in, read_imagef(weight, kSampler, (int2)(x, block * 4 + 3)));
      }
    }
  }
  write_imagef(output, (int2)(block, n),
               mask_lanes(activate(acc, act, limit, alpha, beta), block, out_features));
}
