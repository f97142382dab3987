// <immintrin.h> for the AVX-512 files. GCC 12's AVX-512 intrinsics start
// from deliberately undefined vectors, which its uninitialized-use warnings
// flag inside the header; they are silenced for this include only.
#ifndef MACE_OPS_X86_AVX512_INTRINSICS_H_
#define MACE_OPS_X86_AVX512_INTRINSICS_H_

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#endif  // MACE_OPS_X86_AVX512_INTRINSICS_H_
