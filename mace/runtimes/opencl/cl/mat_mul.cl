// MatMul on activation images of any rank from 2 to 4, with the batch
// dimensions broadcast (at most two of them). Each output element reads
// its row of A and column of B element by element; `batch` is the output
// batch shape (b0, b1) and `strides` the matrix strides of A (x, y) and
// B (z, w) along it. Global size: the output image.
__kernel void mat_mul(__read_only image2d_t a, __read_only image2d_t b,
                      __read_only image2d_t bias, int has_bias, __write_only image2d_t output,
                      int4 a_dims, int4 b_dims, int4 out_dims, int m, int k, int n,
                      int transpose_a, int transpose_b, int2 batch, int4 strides) {
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  int4 o;
  if (!pixel_origin(x, y, out_dims, &o)) return;
  float4 value = 0;
  for (int lane = 0; lane < 4 && o.y + lane < out_dims.y; ++lane) {
    const int flat = flatten_nchw(o + (int4)(0, lane, 0, 0), out_dims);
    const int j = flat % n;
    const int i = flat / n % m;
    const int matrix = flat / (m * n);
    const int b1 = matrix % batch.y, b0 = matrix / batch.y;
    const int a_base = (b0 * strides.x + b1 * strides.y) * m * k;
    const int b_base = (b0 * strides.z + b1 * strides.w) * k * n;
    float sum = has_bias ? float_lane(read_imagef(bias, kSampler, (int2)(j / 4, 0)), j % 4) : 0;
    for (int l = 0; l < k; ++l) {
      const float av = read_flat(a, a_base + (transpose_a ? l * m + i : i * k + l), a_dims);
      const float bv = read_flat(b, b_base + (transpose_b ? j * k + l : l * n + j), b_dims);
      sum = fma(av, bv, sum);
    }
    value = with_lane(value, lane, sum);
  }
  write_imagef(output, (int2)(x, y), value);
}
