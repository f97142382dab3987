// ResizeBilinear on activation images. The taps of each output row and
// column (lower index, upper index, weight of the upper) are computed on
// the host, by the CPU kernel's rules, into `taps`: rows first, then
// columns from `columns` on, three floats each. Global size: the output
// image, [ceil(C/4) * out_w, N * out_h].
__kernel void resize_bilinear(__read_only image2d_t input, __write_only image2d_t output,
                              __global const float* taps, int columns, int in_h, int in_w,
                              int out_h, int out_w, int blocks, int rows) {
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  if (x >= blocks * out_w || y >= rows) return;
  const int block = x / out_w;
  const int ox = x - block * out_w;
  const int n = y / out_h;
  const int oy = y - n * out_h;
  const int y0 = (int)taps[oy * 3], y1 = (int)taps[oy * 3 + 1];
  const float fy = taps[oy * 3 + 2];
  const int x0 = (int)taps[(columns + ox) * 3], x1 = (int)taps[(columns + ox) * 3 + 1];
  const float fx = taps[(columns + ox) * 3 + 2];
  const int left = block * in_w;
  const float4 top = read_imagef(input, kSampler, (int2)(left + x0, n * in_h + y0)) * (1 - fx) +
                     read_imagef(input, kSampler, (int2)(left + x1, n * in_h + y0)) * fx;
  const float4 bottom =
      read_imagef(input, kSampler, (int2)(left + x0, n * in_h + y1)) * (1 - fx) +
      read_imagef(input, kSampler, (int2)(left + x1, n * in_h + y1)) * fx;
  write_imagef(output, (int2)(x, y), top * (1 - fy) + bottom * fy);
}
