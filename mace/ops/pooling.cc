#include "mace/ops/pooling.h"

#include <algorithm>

#include "mace/ops/common/op_checks.h"
#include "mace/ops/cpu/pooling_cpu.h"
#include "mace/ops/cpu/pooling_uint8.h"
#include "mace/ops/op_registration.h"

namespace mace {
namespace ops {
namespace {

// The largest p: |x|^p then stays finite in double for |x| up to 2.
constexpr int64_t kMaxLpExponent = 1000;

}  // namespace

MaceStatus PoolingBase::Init() {
  OP_CHECK(InputSize() == 1 && (OutputSize() == 1 || OutputSize() == 2),
           "needs one input and one or two outputs, got ", InputSize(), " inputs and ",
           OutputSize(), " outputs");
  OP_CHECK(Input(0) != nullptr, "input is missing");
  const int64_t type = GetInt("pooling_type", 1);
  OP_CHECK(type >= 1 && type <= 3, "pooling_type must be 1 (AVG), 2 (MAX) or 3 (LP), got ", type);
  params_.type = static_cast<ref::PoolingType>(type);
  if (params_.type == ref::PoolingType::LP) {
    OP_CHECK(kernel_dtype() == DT_FLOAT, "LP pooling needs a float input, not ",
             DataTypeName(kernel_dtype()));
    params_.p = GetInt("p", 2);
    OP_CHECK(params_.p >= 1 && params_.p <= kMaxLpExponent, "p must be in [1, ", kMaxLpExponent,
             "], got ", params_.p);
  }
  MACE_RETURN_IF_ERROR(ParseFlag(*this, "storage_order", &column_major_));
  MACE_RETURN_IF_ERROR(ParseFlag(*this, "count_ceil_overhang", &count_ceil_overhang_));
  if (OutputSize() == 2) {
    OP_CHECK(params_.type == ref::PoolingType::MAX,
             "only MAX pooling (pooling_type 2) has an indices output");
    OP_CHECK(kernel_dtype() == DT_FLOAT, "the indices output needs a float input, not ",
             DataTypeName(kernel_dtype()));
  }
  MACE_RETURN_IF_ERROR(ParseFlag(*this, "global", &global_));
  MACE_RETURN_IF_ERROR(ParseFlag(*this, "ceil_mode", &ceil_mode_));
  MACE_RETURN_IF_ERROR(ParseFlag(*this, "count_include_pad", &params_.count_include_pad));
  if (global_) return MaceStatus();  // the window is the whole plane
  MACE_RETURN_IF_ERROR(ParseWindowArgs(*this, &window_));
  const std::vector<int64_t> kernels = GetInts("kernels");
  OP_CHECK(kernels.size() == 2, "kernels must be two integers [kh, kw] unless global is set");
  kernel_h_ = kernels[0];
  kernel_w_ = kernels[1];
  OP_CHECK(std::min(kernel_h_, kernel_w_) >= 1, "kernels must be positive, got [", kernel_h_, ", ",
           kernel_w_, "]");
  OP_CHECK(std::max({kernel_h_, kernel_w_, window_.stride_h, window_.stride_w, window_.dilation_h,
                     window_.dilation_w, window_.pad_top, window_.pad_left, window_.pad_bottom,
                     window_.pad_right}) <= kMaxWindowArg,
           "kernels, strides, dilations and pads must not exceed ", kMaxWindowArg);
  return MaceStatus();
}

MaceStatus PoolingBase::InferShapes() {
  const Tensor* input = Input(0);
  MACE_RETURN_IF_ERROR(CheckNchwInput(*this, kernel_dtype()));
  params_.batch = input->dim(0);
  params_.channels = input->dim(1);
  params_.in_h = input->dim(2);
  params_.in_w = input->dim(3);
  if (global_) {
    params_.kernel_h = params_.in_h;
    params_.kernel_w = params_.in_w;
    params_.out_h = params_.out_w = 1;
  } else {
    MACE_RETURN_IF_ERROR(SetWindow());
  }
  Output(0)->Reshape({params_.batch, params_.channels, params_.out_h, params_.out_w});
  if (OutputSize() == 2) {
    Output(1)->Reshape({params_.batch, params_.channels, params_.out_h, params_.out_w});
  }
  return MaceStatus();
}

MaceStatus PoolingBase::SetWindow() {
  WindowGeometry geometry;
  MACE_RETURN_IF_ERROR(
      ComputeWindow(*this, window_, params_.in_h, params_.in_w, kernel_h_, kernel_w_, &geometry));
  const int64_t extent_h = (kernel_h_ - 1) * window_.dilation_h + 1;
  const int64_t extent_w = (kernel_w_ - 1) * window_.dilation_w + 1;
  params_.kernel_h = kernel_h_;
  params_.kernel_w = kernel_w_;
  params_.stride_h = window_.stride_h;
  params_.stride_w = window_.stride_w;
  params_.dilation_h = window_.dilation_h;
  params_.dilation_w = window_.dilation_w;
  params_.pad_top = geometry.pad_top;
  params_.pad_left = geometry.pad_left;
  params_.out_h = geometry.out_h;
  params_.out_w = geometry.out_w;
  if (window_.explicit_pads || window_.padding == 0) {
    params_.pad_bottom = window_.explicit_pads ? window_.pad_bottom : 0;
    params_.pad_right = window_.explicit_pads ? window_.pad_right : 0;
    if (ceil_mode_) {
      params_.out_h = CeilModeSize(params_.in_h, params_.pad_top, params_.pad_bottom, extent_h,
                                   window_.stride_h);
      params_.out_w = CeilModeSize(params_.in_w, params_.pad_left, params_.pad_right, extent_w,
                                   window_.stride_w);
      if (count_ceil_overhang_) {
        // The end padding grows to the last window's end, so every kernel's
        // count_include_pad divisor counts the overhang taps.
        params_.pad_bottom = std::max(params_.pad_bottom, (params_.out_h - 1) * window_.stride_h +
                                                              extent_h - params_.in_h -
                                                              params_.pad_top);
        params_.pad_right = std::max(params_.pad_right, (params_.out_w - 1) * window_.stride_w +
                                                            extent_w - params_.in_w -
                                                            params_.pad_left);
      }
    }
  } else {
    // SAME already sizes the output to cover the input; ceil_mode changes nothing.
    params_.pad_bottom = std::max<int64_t>(
        (params_.out_h - 1) * window_.stride_h + extent_h - params_.in_h - params_.pad_top, 0);
    params_.pad_right = std::max<int64_t>(
        (params_.out_w - 1) * window_.stride_w + extent_w - params_.in_w - params_.pad_left, 0);
  }
  return MaceStatus();
}

MaceStatus RegisterPooling(OpRegistry* registry) {
  if (kIntegerKernels) {
    MACE_RETURN_IF_ERROR(
        registry->Register("Pooling", DeviceType::CPU, DT_UINT8, NewPoolingUint8Cpu));
  }
  return registry->Register("Pooling", DeviceType::CPU, DT_FLOAT, NewPoolingCpu);
}

}  // namespace ops
}  // namespace mace
