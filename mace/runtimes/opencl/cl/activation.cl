// Activation on activation images, pixel by pixel. PRELU reads its
// per-channel slopes from a 1-D argument image [ceil(C/4), 1].
// Global size: the image, [ceil(C/4) * W, N * H].
__kernel void activation(__read_only image2d_t input, __read_only image2d_t alpha,
                         __write_only image2d_t output, int image_width, int image_height,
                         int width, int channels, int act, float limit, float coefficient,
                         float beta) {
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  if (x >= image_width || y >= image_height) return;
  const int block = x / width;
  DATA4 value = READ_PIXEL(input, (int2)(x, y));
  if (act == 4) {  // PRELU
    const DATA4 slope = READ_PIXEL(alpha, (int2)(block, 0));
    value = fmax(value, (DATA)0) + slope * fmin(value, (DATA)0);
  } else {
    value = activate(value, act, limit, coefficient, beta);
  }
  WRITE_PIXEL(output, (int2)(x, y), mask_lanes(value, block, channels));
}
