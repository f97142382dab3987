// Conversions between float buffers and images. Activations: an NCHW
// buffer and the channel-major image (x = c/4 * W + w, y = n * H + h).
// Weights are arranged on the host and uploaded pixel by pixel.

// The NCHW offset of lane 0 of pixel (x, y), and its channel in `c`.
inline long nchw_offset(int x, int y, int channels, int height, int width, int* c) {
  const int block = x / width;
  const int n = y / height;
  *c = block * 4;
  return (((long)n * channels + *c) * height + (y - n * height)) * width + (x - block * width);
}

__kernel void nchw_to_image(__global const float* input, int channels, int height, int width,
                            int image_width, int image_height, __write_only image2d_t output) {
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  if (x >= image_width || y >= image_height) return;
  int c;
  const long at = nchw_offset(x, y, channels, height, width, &c);
  const long plane = (long)height * width;
  float4 value = (float4)(input[at], 0, 0, 0);
  if (c + 1 < channels) value.y = input[at + plane];
  if (c + 2 < channels) value.z = input[at + 2 * plane];
  if (c + 3 < channels) value.w = input[at + 3 * plane];
  write_imagef(output, (int2)(x, y), value);
}

__kernel void image_to_nchw(__read_only image2d_t input, int channels, int height, int width,
                            int image_width, int image_height, __global float* output) {
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  if (x >= image_width || y >= image_height) return;
  int c;
  const long at = nchw_offset(x, y, channels, height, width, &c);
  const long plane = (long)height * width;
  const float4 value = read_imagef(input, kSampler, (int2)(x, y));
  output[at] = value.x;
  if (c + 1 < channels) output[at + plane] = value.y;
  if (c + 2 < channels) output[at + 2 * plane] = value.z;
  if (c + 3 < channels) output[at + 3 * plane] = value.w;
}

__kernel void pixels_to_image(__global const float4* pixels, int image_width, int image_height,
                              __write_only image2d_t output) {
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  if (x >= image_width || y >= image_height) return;
  write_imagef(output, (int2)(x, y), pixels[(long)y * image_width + x]);
}
