// Pooling on half tensors (Storage::Plain(DT_HALF)) in an fp16 engine:
//   - max pooling, any window at horizontal stride 1 or 2 (undilated) whose
//     every output covers at least one input element. Halves are compared
//     as 16-bit integers: the maximum is the largest int16 when that is not
//     negative, else the smallest (negative halves order the other way), so
//     it is exact and needs no half arithmetic. The window's rows are
//     reduced into a line, whose padding never wins, then kernel_w cells
//     per output; 3x3 windows at stride 2 reduce each input row's column
//     triples once for the two output rows that share the row;
//   - global average pooling, summed in single precision (the table's half
//     to float conversion and plane sum) and rounded to half.
#ifndef MACE_OPS_CPU_POOLING_HALF_H_
#define MACE_OPS_CPU_POOLING_HALF_H_

#include <cstdint>

#include "mace/ops/cpu/kernel_table.h"
#include "mace/ops/ref/pooling.h"
#include "mace/runtimes/cpu/thread_pool.h"

namespace mace {
namespace ops {

class HalfPooling {
 public:
  // Whether the table has the conversions this needs and `params` is one
  // of the cases above.
  static bool Supports(const KernelTable& table, const ref::PoolingParams& params);

  HalfPooling(const KernelTable& table, const ref::PoolingParams& params);
  int64_t ScratchBytes(int threads) const;
  // input and output as in ref::Pooling, in halves; output must not alias
  // input. `scratch` holds ScratchBytes(NumThreads(pool)) bytes.
  void Run(const uint16_t* input, uint16_t* output, ThreadPool* pool, float* scratch) const;

 private:
  void RunMax(const uint16_t* input, uint16_t* output, ThreadPool* pool, float* scratch) const;
  void RunMax3x3S2(const uint16_t* input, uint16_t* output, ThreadPool* pool,
                   float* scratch) const;
  void RunGlobalAverage(const uint16_t* input, uint16_t* output, ThreadPool* pool,
                        float* scratch) const;

  const KernelTable& table_;
  ref::PoolingParams params_;
  bool global_average_ = false;
  bool three_by_two_ = false;  // 3x3 max windows at stride 2: rows reused
  bool half_max_ = false;      // ... compared with half `fmax`
  int64_t line_ = 0;        // keys per thread line (max)
  int64_t per_thread_ = 0;  // scratch floats per thread
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_POOLING_HALF_H_
