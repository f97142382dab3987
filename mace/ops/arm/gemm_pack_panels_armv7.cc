// GEMM panels from a depth-contiguous operand (cpu/gemm_pack_panels.h) on
// armv7: the NEON code both ARM builds share.
#include "mace/ops/arm/gemm_pack_panels_neon.inc"
