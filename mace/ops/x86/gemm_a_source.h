// Where an x86 GEMM tile's A values come from (sgemm_avx2.cc,
// sgemm_avx512.cc): At(i, offset) is row i's value `offset` steps on, and
// Advance moves `steps` steps on. A packed panel holds each step's kRows
// values together; a plain A (GemmDirectAMicroKernel) has row i at a + i *
// lda with its steps adjacent. In an unnamed namespace: each kernel file,
// built with its own instruction set's flags, keeps its own copy, which
// the linker cannot merge with another file's.
#ifndef MACE_OPS_X86_GEMM_A_SOURCE_H_
#define MACE_OPS_X86_GEMM_A_SOURCE_H_

#include <cstdint>

namespace mace {
namespace ops {
namespace x86 {
namespace {

template <int kRows>
struct PanelA {
  const float* a;
  float At(int i, int offset) const { return a[kRows * offset + i]; }
  void Advance(int steps) { a += kRows * steps; }
};

struct RowsA {
  const float* a;
  int64_t lda;
  float At(int i, int offset) const { return a[i * lda + offset]; }
  void Advance(int steps) { a += steps; }
};

}  // namespace
}  // namespace x86
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_X86_GEMM_A_SOURCE_H_
