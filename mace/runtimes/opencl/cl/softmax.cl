// Softmax (or log-softmax) along one axis of an activation image, always
// in float: exp and log need the range. Axis 1 (channels) reduces across
// channel blocks and lanes; axes 0, 2 and 3 (N, H, W) reduce each lane on
// its own. Global size: the image, [ceil(C/4) * W, N * H].
__kernel void softmax(__read_only image2d_t input, __write_only image2d_t output,
                      int image_width, int image_height, int batch, int channels, int height,
                      int width, int axis, int use_log) {
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  if (x >= image_width || y >= image_height) return;
  const int block = x / width;
  const int w = x - block * width;
  const int n = y / height;
  const int h = y - n * height;
  const float4 value = read_imagef(input, kSampler, (int2)(x, y));
  float4 result;
  if (axis == 1) {
    const int blocks = (channels + 3) / 4;
    float top = -INFINITY;
    for (int b = 0; b < blocks; ++b) {
      const float4 v = read_imagef(input, kSampler, (int2)(b * width + w, y));
      for (int lane = 0; lane < 4 && b * 4 + lane < channels; ++lane) {
        top = fmax(top, float_lane(v, lane));
      }
    }
    float sum = 0;
    for (int b = 0; b < blocks; ++b) {
      const float4 v = read_imagef(input, kSampler, (int2)(b * width + w, y));
      for (int lane = 0; lane < 4 && b * 4 + lane < channels; ++lane) {
        sum += exp(float_lane(v, lane) - top);
      }
    }
    result = use_log ? value - top - log(sum) : exp(value - top) / sum;
  } else {
    const int size = axis == 0 ? batch : axis == 2 ? height : width;
    float4 top = (float4)(-INFINITY);
    for (int k = 0; k < size; ++k) {
      const int2 at = axis == 0 ? (int2)(x, k * height + h)
                    : axis == 2 ? (int2)(x, n * height + k)
                                : (int2)(block * width + k, y);
      top = fmax(top, read_imagef(input, kSampler, at));
    }
    float4 sum = 0;
    for (int k = 0; k < size; ++k) {
      const int2 at = axis == 0 ? (int2)(x, k * height + h)
                    : axis == 2 ? (int2)(x, n * height + k)
                                : (int2)(block * width + k, y);
      sum += exp(read_imagef(input, kSampler, at) - top);
    }
    result = use_log ? value - top - log(sum) : exp(value - top) / sum;
  }
  write_imagef(output, (int2)(x, y), mask_float_lanes(result, block, channels));
}
