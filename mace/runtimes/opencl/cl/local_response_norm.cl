// LocalResponseNorm across channels: x / (bias + alpha * sum of squares of
// channels [c - radius, c + radius]) ^ beta, in float. Each work-item
// computes one pixel (four channels). Global size: the image.
__kernel void local_response_norm(__read_only image2d_t input, __write_only image2d_t output,
                                  int4 dims, int radius, float bias, float alpha, float beta) {
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  int4 o;
  if (!pixel_origin(x, y, dims, &o)) return;
  const float4 center = read_imagef(input, kSampler, (int2)(x, y));
  float4 value = 0;
  for (int lane = 0; lane < 4 && o.y + lane < dims.y; ++lane) {
    const int c = o.y + lane;
    const int first = max(c - radius, 0), last = min(c + radius, dims.y - 1);
    float sum = 0;
    for (int k = first; k <= last; ++k) {
      const float v = read_element(input, (int4)(o.x, k, o.z, o.w), dims);
      sum = fma(v, v, sum);
    }
    value = with_lane(value, lane, float_lane(center, lane) / pow(bias + alpha * sum, beta));
  }
  write_imagef(output, (int2)(x, y), value);
}
