// Max pooling with ONNX MaxPool's Indices output on the CPU, as
// ref::MaxPoolingWithIndices computes it.
//
// The constructor works out, for every output row and column, the range of
// window taps that fall inside the input (padding and dilation included),
// so Run scans only those taps with no bounds checks. Work is split over
// (plane, output row) pairs.
#ifndef MACE_OPS_CPU_POOLING_INDICES_H_
#define MACE_OPS_CPU_POOLING_INDICES_H_

#include <cstdint>
#include <vector>

#include "mace/ops/ref/pooling.h"
#include "mace/runtimes/cpu/thread_pool.h"

namespace mace {
namespace ops {

class MaxPoolingIndicesKernel {
 public:
  MaxPoolingIndicesKernel(const ref::PoolingParams& params, bool column_major);

  // Arguments as in ref::MaxPoolingWithIndices; pool may be null.
  void Run(const float* input, float* output, int32_t* indices, ThreadPool* pool) const;

 private:
  // The taps [begin, end) of one output's window that lie inside the input.
  struct TapRange {
    int64_t begin = 0, end = 0;
  };

  ref::PoolingParams params_;
  bool column_major_ = false;
  std::vector<TapRange> rows_;     // one per output row
  std::vector<TapRange> columns_;  // one per output column
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_POOLING_INDICES_H_
