// Shared by every kernel. Images are read and written as floats whatever
// their storage (CL_HALF_FLOAT or CL_FLOAT images both convert), so the
// kernels compute in float by default. Half arithmetic is used only when
// the runtime asks for it and the device has cl_khr_fp16: an unguarded
// half type or pragma fails to build on devices without the extension.
#if defined(MACE_HALF_COMPUTE) && defined(cl_khr_fp16)
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
typedef half DATA;
typedef half4 DATA4;
#define READ_PIXEL(image, coord) read_imageh((image), kSampler, (coord))
#define WRITE_PIXEL(image, coord, value) write_imageh((image), (coord), (value))
#define TO_DATA4(value) convert_half4(value)
#else
typedef float DATA;
typedef float4 DATA4;
#define READ_PIXEL(image, coord) read_imagef((image), kSampler, (coord))
#define WRITE_PIXEL(image, coord, value) write_imagef((image), (coord), (value))
#define TO_DATA4(value) (value)
#endif

// Reads outside an image give 0. Kernels still bounds-check their reads:
// a planned image may be larger than the tensor it holds.
__constant sampler_t kSampler =
    CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;

// Lanes of channel block `block` past `channels` are kept at 0, so that a
// reader may take whole blocks.
inline DATA4 mask_lanes(DATA4 value, int block, int channels) {
  const int valid = channels - block * 4;
  if (valid < 4) value.w = 0;
  if (valid < 3) value.z = 0;
  if (valid < 2) value.y = 0;
  return value;
}

// mask_lanes for kernels that compute in float whatever the storage.
inline float4 mask_float_lanes(float4 value, int block, int channels) {
  const int valid = channels - block * 4;
  if (valid < 4) value.w = 0;
  if (valid < 3) value.z = 0;
  if (valid < 2) value.y = 0;
  return value;
}

// The fused activations, numbered as mace/ops/common/activation.h's
// ActivationType (PRELU, 4, is not fused).
inline DATA4 activate(DATA4 x, int type, float limit, float alpha, float beta) {
  switch (type) {
    case 1:  // RELU
      return fmax(x, (DATA)0);
    case 2:  // RELUX
      return clamp(x, (DATA)0, (DATA)limit);
    case 3:  // LEAKYRELU
      return fmax(x, (DATA)0) + (DATA)alpha * fmin(x, (DATA)0);
    case 5:  // SIGMOID
      return (DATA)1 / ((DATA)1 + exp(-x));
    case 6:  // TANH
      return tanh(x);
    case 7:  // HARDSWISH
      return x * clamp(x + (DATA)3, (DATA)0, (DATA)6) / (DATA)6;
    case 8:  // HARDSIGMOID
      return clamp((DATA)alpha * x + (DATA)beta, (DATA)0, (DATA)1);
    default:
      return x;
  }
}

// Lane `lane` (0-3) of a pixel.
inline DATA lane_of(DATA4 v, int lane) {
  return lane == 0 ? v.x : lane == 1 ? v.y : lane == 2 ? v.z : v.w;
}

inline float float_lane(float4 v, int lane) {
  return lane == 0 ? v.x : lane == 1 ? v.y : lane == 2 ? v.z : v.w;
}
