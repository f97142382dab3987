// Eltwise on activation images, computed in float, with numpy-style
// broadcasting where each operand's stored [N, C, H, W] dimension equals
// the output's or is 1 (a channel count of 1 repeats lane 0 across the
// pixel). Types as mace/ops/ref/eltwise.h numbers them. Global size: the
// output image, [ceil(C/4) * W, N * H].

// Operand pixel for output position (n, block, h, w); `dims` are the
// operand's stored N, C, H, W.
inline float4 eltwise_operand(__read_only image2d_t image, int4 dims, int n, int block, int h,
                              int w) {
  const int on = dims.x == 1 ? 0 : n;
  const int oh = dims.z == 1 ? 0 : h;
  const int ow = dims.w == 1 ? 0 : w;
  if (dims.y == 1) {
    return (float4)(read_imagef(image, kSampler, (int2)(ow, on * dims.z + oh)).x);
  }
  return read_imagef(image, kSampler, (int2)(block * dims.w + ow, on * dims.z + oh));
}

__kernel void eltwise(__read_only image2d_t first, __read_only image2d_t second,
                      __write_only image2d_t output, int image_width, int rows, int channels,
                      int height, int width, int4 first_dims, int4 second_dims, int has_second,
                      float scalar, int scalar_first, int type, float coeff_a, float coeff_b,
                      int act, float limit, float alpha, float beta) {
  const int x = get_global_id(0);
  const int row = get_global_id(1);
  if (x >= image_width || row >= rows) return;
  const int block = x / width;
  const int w = x - block * width;
  const int n = row / height;
  const int h = row - n * height;
  const float4 x0 = eltwise_operand(first, first_dims, n, block, h, w);
  const float4 x1 = has_second ? eltwise_operand(second, second_dims, n, block, h, w)
                               : (float4)(scalar);
  const float4 a = scalar_first ? (float4)(scalar) : x0;
  const float4 b = scalar_first ? x0 : x1;
  const int4 nan_in = isnan(a) | isnan(b);
  float4 result;
  switch (type) {
    case 0: result = coeff_a * a + coeff_b * b; break;
    case 1: result = a - b; break;
    case 2: result = a * b; break;
    case 3: result = a / b; break;
    case 4: result = select(fmin(a, b), (float4)(NAN), nan_in); break;
    case 5: result = select(fmax(a, b), (float4)(NAN), nan_in); break;
    case 6: result = -a; break;
    case 7: result = fabs(a); break;
    case 8: result = (a - b) * (a - b); break;
    case 9: result = pow(a, b); break;
    default: result = (float4)(NAN); break;
  }
  result = convert_float4(activate(TO_DATA4(result), act, limit, alpha, beta));
  write_imagef(output, (int2)(x, row), mask_float_lanes(result, block, channels));
}
