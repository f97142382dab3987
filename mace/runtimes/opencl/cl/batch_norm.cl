// A per-channel affine transform and a fused activation on an activation
// image: BatchNorm with its statistics folded into scale and offset, and
// BiasAdd (offset only). scale and offset are 1-D argument images
// [ceil(C/4), 1]. Global size: the image, [ceil(C/4) * W, N * H].
__kernel void channel_affine(__read_only image2d_t input, __read_only image2d_t scale,
                             __read_only image2d_t offset, int has_scale,
                             __write_only image2d_t output, int image_width, int image_height,
                             int width, int channels, int act, float limit, float alpha,
                             float beta) {
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  if (x >= image_width || y >= image_height) return;
  const int block = x / width;
  DATA4 value = READ_PIXEL(input, (int2)(x, y));
  if (has_scale) value *= READ_PIXEL(scale, (int2)(block, 0));
  value += READ_PIXEL(offset, (int2)(block, 0));
  WRITE_PIXEL(output, (int2)(x, y),
              mask_lanes(activate(value, act, limit, alpha, beta), block, channels));
}
