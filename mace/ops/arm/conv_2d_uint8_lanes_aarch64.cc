// The uint8 GEMM convolution's packing vectors (cpu/conv_2d_uint8_lanes.h)
// on aarch64: the NEON code both ARM builds share.
#include "mace/ops/arm/conv_2d_uint8_lanes_neon.inc"
