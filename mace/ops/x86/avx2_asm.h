// Inline-asm text shared by the AVX2 register tiles written out in asm (the
// GEMM tile in sgemm_avx2.cc, the channel-blocked convolution tiles in
// portable_avx2.cc). Each is one reduction step of one tile row: a value
// broadcast into ymm15 and multiplied into the step's weight or B vectors,
// ymm13-14 (two vectors) or ymm12-14 (three), onto the row's accumulators,
// which the including statement names as asm operands.
#ifndef MACE_OPS_X86_AVX2_ASM_H_
#define MACE_OPS_X86_AVX2_ASM_H_

// clang-format off
#define MACE_AVX2_ASM_FMA2(ADDRESS, C0, C1)          \
  "vbroadcastss " ADDRESS ", %%ymm15\n\t"           \
  "vfmadd231ps %%ymm15, %%ymm13, %[" #C0 "]\n\t"    \
  "vfmadd231ps %%ymm15, %%ymm14, %[" #C1 "]\n\t"
#define MACE_AVX2_ASM_FMA3(ADDRESS, C0, C1, C2)      \
  "vbroadcastss " ADDRESS ", %%ymm15\n\t"           \
  "vfmadd231ps %%ymm15, %%ymm12, %[" #C0 "]\n\t"    \
  "vfmadd231ps %%ymm15, %%ymm13, %[" #C1 "]\n\t"    \
  "vfmadd231ps %%ymm15, %%ymm14, %[" #C2 "]\n\t"
// clang-format on

#endif  // MACE_OPS_X86_AVX2_ASM_H_
