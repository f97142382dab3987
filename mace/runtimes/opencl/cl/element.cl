// Single-element access to activation images, for kernels that move or
// combine elements one at a time. `dims` is the tensor as (N, C, H, W)
// (ActivationDims); element (n, c, h, w) is lane c%4 of pixel
// (c/4 * W + w, n * H + h).

inline int flatten_nchw(int4 at, int4 dims) {
  return ((at.x * dims.y + at.y) * dims.z + at.z) * dims.w + at.w;
}

inline int4 unflatten_nchw(int index, int4 dims) {
  int4 at;
  at.w = index % dims.w;
  index /= dims.w;
  at.z = index % dims.z;
  index /= dims.z;
  at.y = index % dims.y;
  at.x = index / dims.y;
  return at;
}

inline float read_element(__read_only image2d_t image, int4 at, int4 dims) {
  const float4 pixel =
      read_imagef(image, kSampler, (int2)((at.y >> 2) * dims.w + at.w, at.x * dims.z + at.z));
  return float_lane(pixel, at.y & 3);
}

// The element of row-major index `index`.
inline float read_flat(__read_only image2d_t image, int index, int4 dims) {
  return read_element(image, unflatten_nchw(index, dims), dims);
}

// The coordinates of lane 0 of pixel (x, y) of a tensor of `dims`; false
// when the pixel is outside the tensor (a rounded-up global size).
inline bool pixel_origin(int x, int y, int4 dims, int4* at) {
  const int block = x / dims.w;
  if (block >= (dims.y + 3) / 4 || y >= dims.x * dims.z) return false;
  *at = (int4)(y / dims.z, block * 4, y % dims.z, x - block * dims.w);
  return true;
}

inline float4 with_lane(float4 v, int lane, float value) {
  if (lane == 0) v.x = value;
  if (lane == 1) v.y = value;
  if (lane == 2) v.z = value;
  if (lane == 3) v.w = value;
  return v;
}
