// Concat of up to four inputs along one axis of the stored [N, C, H, W]
// into an activation image; the runtime launches it once per group of
// inputs. starts/ends: each input's range along the axis (channels for
// axis 1). Along N, H or W each output pixel comes from one input; along C
// each lane may come from another input (channel counts that are not a
// multiple of 4), so a launch writes only the blocks [first_block,
// end_block) its inputs fill. Computed in float: values move unchanged.
// Global size: the output image, [ceil(C/4) * W, N * H].

inline float4 concat_read(int k, __read_only image2d_t in0, __read_only image2d_t in1,
                          __read_only image2d_t in2, __read_only image2d_t in3, int2 at) {
  if (k == 0) return read_imagef(in0, kSampler, at);
  if (k == 1) return read_imagef(in1, kSampler, at);
  if (k == 2) return read_imagef(in2, kSampler, at);
  return read_imagef(in3, kSampler, at);
}

__kernel void concat(__read_only image2d_t in0, __read_only image2d_t in1,
                     __read_only image2d_t in2, __read_only image2d_t in3,
                     __write_only image2d_t output, int image_width, int rows, int channels,
                     int height, int width, int axis, int4 starts, int4 ends, int count,
                     int first_block, int end_block) {
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  if (x >= image_width || y >= rows) return;
  const int block = x / width;
  const int w = x - block * width;
  const int n = y / height;
  const int h = y - n * height;
  const int s[4] = {starts.x, starts.y, starts.z, starts.w};
  const int e[4] = {ends.x, ends.y, ends.z, ends.w};
  if (axis == 1) {
    if (block < first_block || block >= end_block) return;
    float lanes[4] = {0, 0, 0, 0};
    for (int lane = 0; lane < 4; ++lane) {
      const int c = block * 4 + lane;
      for (int k = 0; k < count; ++k) {
        if (c < s[k] || c >= e[k]) continue;
        const int inner = c - s[k];
        const float4 v = concat_read(k, in0, in1, in2, in3, (int2)((inner >> 2) * width + w, y));
        lanes[lane] = float_lane(v, inner & 3);
      }
    }
    const float4 result = (float4)(lanes[0], lanes[1], lanes[2], lanes[3]);
    write_imagef(output, (int2)(x, y), mask_float_lanes(result, block, channels));
    return;
  }
  const int coord = axis == 0 ? n : axis == 2 ? h : w;
  for (int k = 0; k < count; ++k) {
    if (coord < s[k] || coord >= e[k]) continue;
    const int inner = coord - s[k];
    const int size = e[k] - s[k];
    const int2 at = axis == 0 ? (int2)(x, inner * height + h)
                  : axis == 2 ? (int2)(x, n * size + inner)
                              : (int2)(block * size + inner, y);
    write_imagef(output, (int2)(x, y), concat_read(k, in0, in1, in2, in3, at));
    return;
  }
}
