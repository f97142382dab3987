#include "mace/ops/cpu/conv_2d_kernel.h"

#include "mace/ops/cpu/conv_2d_direct.h"
#include "mace/ops/cpu/conv_2d_gemm.h"
#include "mace/ops/cpu/conv_2d_winograd.h"
#include "mace/ops/cpu/depthwise_conv_2d_3x3.h"
#include "mace/ops/cpu/linked_families.h"

namespace mace {
namespace ops {
namespace {

// A grouped conv with one input and one output channel per group is a
// depthwise conv with multiplier 1, and its OIHW filter [C, 1, 3, 3] has the
// same layout as the depthwise [1, C, 3, 3]. ONNX models express depthwise
// layers this way.
class Conv2dAsDepthwise : public Conv2dKernel {
 public:
  Conv2dAsDepthwise(const KernelTable& table, const ref::DepthwiseConv2dParams& params,
                    const float* filter)
      : kernel_(table, params), filter_(filter) {}
  const char* name() const override { return "depthwise_3x3"; }
  int64_t ScratchBytes(int threads) const override { return kernel_.ScratchBytes(threads); }
  void Run(const float* input, const float* bias, float* output, ThreadPool* pool,
           float* scratch) const override {
    kernel_.Run(input, filter_, bias, output, pool, scratch);
  }
  bool SupportsHalf() const override { return kernel_.SupportsHalf(); }
  void RunHalf(const uint16_t* input, const float* bias, uint16_t* output, ThreadPool* pool,
               float* scratch) const override {
    kernel_.RunHalf(input, filter_, bias, output, pool, scratch);
  }

 private:
  DepthwiseConv3x3 kernel_;
  const float* filter_;  // a weight: it outlives the op
};

ref::DepthwiseConv2dParams AsDepthwise(const ref::Conv2DParams& p) {
  ref::DepthwiseConv2dParams d;
  d.batch = p.batch;
  d.channels = p.in_channels;
  d.in_h = p.in_h;
  d.in_w = p.in_w;
  d.multiplier = 1;
  d.out_h = p.out_h;
  d.out_w = p.out_w;
  d.kernel_h = p.kernel_h;
  d.kernel_w = p.kernel_w;
  d.stride_h = p.stride_h;
  d.stride_w = p.stride_w;
  d.dilation_h = p.dilation_h;
  d.dilation_w = p.dilation_w;
  d.pad_top = p.pad_top;
  d.pad_left = p.pad_left;
  d.activation = p.activation;
  return d;
}

}  // namespace

std::unique_ptr<Conv2dKernel> CreateConv2dKernel(const KernelTable& table,
                                                 const ref::Conv2DParams& params,
                                                 const float* filter, int winograd,
                                                 PersistentArena* arena) {
  if (params.group > 1 && params.group == params.in_channels &&
      params.group == params.out_channels) {
    const ref::DepthwiseConv2dParams depthwise = AsDepthwise(params);
    if (DepthwiseConv3x3::Supports(table, depthwise)) {
      return std::make_unique<Conv2dAsDepthwise>(table, depthwise, filter);
    }
  }
  if (kLinksWinogradKernels && (winograd == 2 || winograd == 4 || winograd == 6)) {
    const int tile = Conv2dWinograd::PickTile(table, params, winograd);
    if (tile != 0) return std::make_unique<Conv2dWinograd>(table, params, filter, tile, arena);
  }
  // Half precision runs every other convolution as one GEMM.
  if (table.fp16_gemm != nullptr) return std::make_unique<Conv2dGemm>(table, params, filter, arena);
  if (Conv2dDirect::Supports(table, params)) {
    return std::make_unique<Conv2dDirect>(table, params, filter, arena);
  }
  return std::make_unique<Conv2dGemm>(table, params, filter, arena);
}

}  // namespace ops
}  // namespace mace
