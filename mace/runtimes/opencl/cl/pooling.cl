// Max and average pooling on activation images, computed in float: one
// output pixel (four channels) per work-item. Average pooling divides by
// the taps inside the input, or with count_include_pad by the taps inside
// the input or its declared padding; a window with no tap yields 0.
// Global size: the output image, [ceil(C/4) * out_w, N * out_h].
__kernel void pooling(__read_only image2d_t input, __write_only image2d_t output, int in_h,
                      int in_w, int out_h, int out_w, int channels, int image_width, int rows,
                      int kernel_h, int kernel_w, int stride_h, int stride_w, int dilation_h,
                      int dilation_w, int pad_top, int pad_left, int pad_bottom, int pad_right,
                      int is_max, int count_include_pad) {
  const int x = get_global_id(0);
  const int row = get_global_id(1);
  if (x >= image_width || row >= rows) return;
  const int block = x / out_w;
  const int ow = x - block * out_w;
  const int n = row / out_h;
  const int oh = row - n * out_h;
  float4 sum = 0, top = 0;
  int valid = 0, padded = 0;
  for (int kh = 0; kh < kernel_h; ++kh) {
    const int ih = oh * stride_h - pad_top + kh * dilation_h;
    const bool h_in_padded = ih >= -pad_top && ih < in_h + pad_bottom;
    for (int kw = 0; kw < kernel_w; ++kw) {
      const int iw = ow * stride_w - pad_left + kw * dilation_w;
      if (h_in_padded && iw >= -pad_left && iw < in_w + pad_right) ++padded;
      if (ih < 0 || ih >= in_h || iw < 0 || iw >= in_w) continue;
      const float4 v = read_imagef(input, kSampler, (int2)(block * in_w + iw, n * in_h + ih));
      top = valid == 0 ? v : fmax(top, v);
      sum += v;
      ++valid;
    }
  }
  const int divisor = count_include_pad ? padded : valid;
  const float4 result = is_max ? top : (divisor > 0 ? sum / (float)divisor : (float4)0);
  write_imagef(output, (int2)(x, row), mask_float_lanes(result, block, channels));
}
