// What Conv2D, DepthwiseConv2d and Deconv2D share before their own checks:
// inputs [input, filter, optional bias], the window arguments (capped so
// index arithmetic stays far from int64 overflow on hostile models) and a
// fused activation without PReLU.
#ifndef MACE_OPS_COMMON_CONV_INPUTS_H_
#define MACE_OPS_COMMON_CONV_INPUTS_H_

#include "mace/core/operation.h"
#include "mace/ops/common/activation.h"
#include "mace/ops/common/conv_geometry.h"
#include "mace/ops/common/op_checks.h"

namespace mace {
namespace ops {

// Checks the input and output counts, parses and caps the window arguments
// and parses the fused activation. For Init.
MaceStatus ParseConvArgs(const Operation& op, WindowArgs* window, Activation* activation);

// Checks the input, filter and bias (if any) with CheckTensor (type `dtype`,
// positive dimensions, bounded element count) and that input and filter
// have rank 4; `filter_layout` names the filter's dimensions for the rank
// error ("(OIHW)").
MaceStatus CheckConvInputs(const Operation& op, DataType dtype, const char* filter_layout);

// Copies the batch, the input's spatial size, the filter's window and the
// strides and dilations into a convolution's `params` (Conv2DParams and its
// kin); the rest is the op's own.
template <typename Params>
void SetWindowParams(const Tensor& input, const Tensor& filter, const WindowArgs& window,
                     Params* params) {
  params->batch = input.dim(0);
  params->in_h = input.dim(2);
  params->in_w = input.dim(3);
  params->kernel_h = filter.dim(2);
  params->kernel_w = filter.dim(3);
  params->stride_h = window.stride_h;
  params->stride_w = window.stride_w;
  params->dilation_h = window.dilation_h;
  params->dilation_w = window.dilation_w;
}

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_COMMON_CONV_INPUTS_H_
