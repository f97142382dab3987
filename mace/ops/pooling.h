// Pooling: average, max or Lp over sliding NCHW windows, or over the whole plane
// (global). Window and padding arguments are the shared conv_geometry ones;
// ceil_mode and count_include_pad follow ONNX.
//
// Arguments beyond the window ones:
//   pooling_type       int 1 (AVG, default), 2 (MAX) or 3 (LP: ONNX LpPool,
//                      (sum of |x|^p over the window's taps inside the
//                      input)^(1/p))
//   p                  int, LP's exponent, default 2
//   kernels            ints [kh, kw], unless global
//   global             int 0 or 1: the window is the whole plane
//   ceil_mode          int 0 or 1
//   count_include_pad  int 0 or 1: AVG divides by the padded window
//   storage_order      int 0 or 1: how a second output counts indices
//   count_ceil_overhang  int 0 or 1: with count_include_pad and ceil_mode,
//                      the taps of a last window that reach past the
//                      declared end padding count toward the divisor too,
//                      as in ONNX's reference and ONNX Runtime (0: they do
//                      not, as in PyTorch and Caffe)
//
// MAX may have a second output, ONNX MaxPool's Indices: int32, of the
// output's shape, where each maximum lies in the whole input (see
// ref::MaxPoolingWithIndices), counted row-major (storage_order 0) or with
// the two spatial axes swapped (storage_order 1).
//
// PoolingBase is the device-neutral part: arguments (Init) and shapes
// (InferShapes), shared by every device's kernel. The CPU kernel is
// mace/ops/cpu/pooling_cpu.cc.
#ifndef MACE_OPS_POOLING_H_
#define MACE_OPS_POOLING_H_

#include "mace/core/operation.h"
#include "mace/ops/common/conv_geometry.h"
#include "mace/ops/ref/pooling.h"

namespace mace {
namespace ops {

class PoolingBase : public Operation {
 public:
  MaceStatus Init() override;
  DataType OutputType(int index) const override {
    return index == 1 ? DT_INT32 : kernel_dtype();
  }

 protected:
  // Checks the input's type and shape against the arguments, fills params()
  // and sets the output's shape.
  MaceStatus InferShapes();
  const ref::PoolingParams& params() const { return params_; }
  bool global() const { return global_; }
  // Whether the op has the Indices output.
  bool with_indices() const { return OutputSize() == 2; }
  bool column_major() const { return column_major_; }

 private:
  // Output size and the declared padding on all four sides, which
  // count_include_pad needs.
  MaceStatus SetWindow();

  WindowArgs window_;
  int64_t kernel_h_ = 0, kernel_w_ = 0;
  bool global_ = false;
  bool ceil_mode_ = false;
  bool column_major_ = false;
  bool count_ceil_overhang_ = false;
  ref::PoolingParams params_;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_POOLING_H_
