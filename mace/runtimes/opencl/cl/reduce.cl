// Reduce over any axes of a tensor of rank 4 or less. Output element f
// (row-major) peels into the kept dimensions (sizes kept_sizes, input
// element strides kept_strides, innermost last); it then combines every
// element of the reduced dimensions likewise. type as mace/ops/ref/
// reduce.h's ReduceType: 0 mean, 1 min, 2 max, 3 prod, 4 sum.
// Global size: the output image.
__kernel void reduce(__read_only image2d_t input, __write_only image2d_t output, int4 in_dims,
                     int4 out_dims, int4 kept_sizes, int4 kept_strides, int4 reduced_sizes,
                     int4 reduced_strides, int type) {
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  int4 o;
  if (!pixel_origin(x, y, out_dims, &o)) return;
  const int count = reduced_sizes.x * reduced_sizes.y * reduced_sizes.z * reduced_sizes.w;
  float4 value = 0;
  for (int lane = 0; lane < 4 && o.y + lane < out_dims.y; ++lane) {
    const int4 kept = unflatten_nchw(flatten_nchw(o + (int4)(0, lane, 0, 0), out_dims), kept_sizes);
    const int base = kept.x * kept_strides.x + kept.y * kept_strides.y +
                     kept.z * kept_strides.z + kept.w * kept_strides.w;
    float acc = type == 1 ? INFINITY : type == 2 ? -INFINITY : type == 3 ? 1 : 0;
    for (int r = 0; r < count; ++r) {
      const int4 at = unflatten_nchw(r, reduced_sizes);
      const float v = read_flat(input,
                                base + at.x * reduced_strides.x + at.y * reduced_strides.y +
                                    at.z * reduced_strides.z + at.w * reduced_strides.w,
                                in_dims);
      acc = type == 1 ? fmin(acc, v) : type == 2 ? fmax(acc, v) : type == 3 ? acc * v : acc + v;
    }
    value = with_lane(value, lane, type == 0 ? acc / count : acc);
  }
  write_imagef(output, (int2)(x, y), value);
}
