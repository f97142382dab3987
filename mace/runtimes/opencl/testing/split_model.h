// A model split between the GPU and the CPU: two convolutions (GPU) around
// a Transpose (here the identity permutation), which the GPU has no kernel
// for (CPU).
//   x[2,5,6,7] -> conv1 3x3 SAME, RELU -> a -> Transpose -> b -> conv2 1x1 -> y
#ifndef MACE_RUNTIMES_OPENCL_TESTING_SPLIT_MODEL_H_
#define MACE_RUNTIMES_OPENCL_TESTING_SPLIT_MODEL_H_

#include "mace/runtimes/opencl/testing/gpu_engine.h"

namespace mace {
namespace testing {

inline const std::vector<int64_t>& SplitModelInputShape() {
  static const std::vector<int64_t> shape = {2, 5, 6, 7};
  return shape;
}

inline ModelBuilder SplitModel() {
  ModelBuilder model = ModelWithInput(SplitModelInputShape());
  model.AddWeight("w1", {6, 5, 3, 3}, RandomValues(6 * 5 * 3 * 3, 1));
  model.AddWeight("b1", {6}, RandomValues(6, 2));
  model.AddWeight("w2", {3, 6, 1, 1}, RandomValues(3 * 6, 3));
  OperatorDef* conv1 = model.AddOp("Conv2D", "conv1", {"x", "w1", "b1"}, "a");
  ModelBuilder::SetInt(conv1, "padding", 1);
  ModelBuilder::SetString(conv1, "activation", "RELU");
  OperatorDef* transpose = model.AddOp("Transpose", "transpose", {"a"}, "b");
  AddInts(transpose, "dims", {0, 1, 2, 3});
  model.AddOp("Conv2D", "conv2", {"b", "w2"}, "y");
  return model;
}

}  // namespace testing
}  // namespace mace

#endif  // MACE_RUNTIMES_OPENCL_TESTING_SPLIT_MODEL_H_
