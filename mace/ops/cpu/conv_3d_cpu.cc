#include "mace/ops/cpu/conv_3d_cpu.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "mace/ops/conv_3d.h"
#include "mace/ops/cpu/fused_activation.h"
#include "mace/ops/cpu/op_compute.h"

namespace mace {
namespace ops {
namespace {

// The widest B panel the packer serves (AVX-512: nr = 32), with room.
constexpr int kMaxLanes = 64;

// What the vol2col packer reads: one group's input channels.
struct Vol2colSource {
  const float* input = nullptr;
  const ref::Conv3DParams* params = nullptr;
};

// Fills B panels of output voxels [voxel0, voxel0 + voxels) for reduction
// indices [depth0, depth0 + depth), index = (channel, kd, kh, kw) row-major:
// lane l of depth index d holds the input value tap (kd, kh, kw) of voxel l
// reads in that channel, or 0 in the padding.
void PackVol2col(const void* context, int64_t voxel0, int64_t voxels, int64_t depth0, int64_t depth,
                 int width, float* dst) {
  const Vol2colSource& s = *static_cast<const Vol2colSource*>(context);
  const ref::Conv3DParams& p = *s.params;
  const int64_t in_volume = p.in[0] * p.in[1] * p.in[2];
  const int64_t out_plane = p.out[1] * p.out[2];
  const int64_t taps = p.kernel[0] * p.kernel[1] * p.kernel[2];
  int64_t base_d[kMaxLanes], base_h[kMaxLanes], base_w[kMaxLanes];
  for (int64_t first = 0; first < voxels; first += width, dst += width * depth) {
    const int valid = static_cast<int>(std::min<int64_t>(width, voxels - first));
    for (int lane = 0; lane < valid; ++lane) {
      const int64_t voxel = voxel0 + first + lane;
      const int64_t od = voxel / out_plane, rest = voxel % out_plane;
      base_d[lane] = od * p.stride[0] - p.pad[0];
      base_h[lane] = (rest / p.out[2]) * p.stride[1] - p.pad[1];
      base_w[lane] = (rest % p.out[2]) * p.stride[2] - p.pad[2];
    }
    int64_t channel = depth0 / taps, tap = depth0 % taps;
    int64_t kd = tap / (p.kernel[1] * p.kernel[2]);
    int64_t kh = (tap / p.kernel[2]) % p.kernel[1], kw = tap % p.kernel[2];
    for (int64_t d = 0; d < depth; ++d) {
      const float* volume = s.input + channel * in_volume;
      const int64_t dz = kd * p.dilation[0], dy = kh * p.dilation[1], dx = kw * p.dilation[2];
      float* out = dst + d * width;
      for (int lane = 0; lane < valid; ++lane) {
        const int64_t id = base_d[lane] + dz, ih = base_h[lane] + dy, iw = base_w[lane] + dx;
        const bool inside =
            id >= 0 && id < p.in[0] && ih >= 0 && ih < p.in[1] && iw >= 0 && iw < p.in[2];
        out[lane] = inside ? volume[(id * p.in[1] + ih) * p.in[2] + iw] : 0.f;
      }
      std::fill(out + valid, out + width, 0.f);
      if (++kw == p.kernel[2]) {
        kw = 0;
        if (++kh == p.kernel[1]) {
          kh = 0;
          if (++kd == p.kernel[0]) {
            kd = 0;
            ++channel;
          }
        }
      }
    }
  }
}

// The float GEMM table of the engine (an fp16 engine's table too has no
// float path this kernel uses), or null for the reference kernel.
const KernelTable* FloatKernelTable(const OpContext* context) {
  const KernelTable* table = ContextKernelTable(context);
  if (table != nullptr && table->fp16_gemm != nullptr) {
    CpuRuntime* cpu = ContextCpu(context);
    table = cpu != nullptr ? KernelTableFor(cpu->kernel_isa()) : ActiveKernelTable();
  }
  if (table != nullptr && (table->fp16_gemm != nullptr || table->nr > kMaxLanes)) return nullptr;
  return table;
}

class Conv3DCpu final : public Conv3DBase {
 public:
  // A constant filter is packed here, once; a computed one on every Run.
  MaceStatus Prepare(OpContext* context) override {
    MACE_RETURN_IF_ERROR(InferShapes());
    fast_.reset();
    table_ = FloatKernelTable(context);
    if (table_ == nullptr) return MaceStatus();
    const Tensor* filter = Input(1);
    if (filter->is_weight()) {
      fast_ = std::make_unique<Conv3dGemm>(*table_, params(), filter->data<float>(),
                                           ContextArena(context));
      return scratch_.Reserve(context, fast_->ScratchBytes(NumThreads(ContextPool(context))));
    }
    // The filter has no values yet: size the scratch on a zero one.
    const std::vector<float> zeros(static_cast<size_t>(filter->size()), 0.f);
    const Conv3dGemm sizing(*table_, params(), zeros.data(), nullptr);
    return scratch_.Reserve(context, sizing.ScratchBytes(NumThreads(ContextPool(context))));
  }

  MaceStatus Run(OpContext* context) override {
    const Tensor* bias = Bias();
    const float* bias_data = bias != nullptr ? bias->data<float>() : nullptr;
    const float* input = Input(0)->data<float>();
    float* output = Output(0)->mutable_data<float>();
    if (table_ == nullptr) {
      ref::Conv3D(params(), input, Input(1)->data<float>(), bias_data, output);
      return MaceStatus();
    }
    ThreadPool* pool = ContextPool(context);
    if (fast_ != nullptr) {
      fast_->Run(input, bias_data, output, pool, scratch_.Get(context));
    } else {
      const Conv3dGemm computed(*table_, params(), Input(1)->data<float>(), nullptr);
      computed.Run(input, bias_data, output, pool, scratch_.Get(context));
    }
    return MaceStatus();
  }

 private:
  const KernelTable* table_ = nullptr;
  std::unique_ptr<Conv3dGemm> fast_;
  OpScratch scratch_;
};

}  // namespace

Conv3dGemm::Conv3dGemm(const KernelTable& table, const ref::Conv3DParams& params,
                       const float* filter, PersistentArena* arena)
    : table_(table), params_(params) {
  const int64_t taps = params.kernel[0] * params.kernel[1] * params.kernel[2];
  m_ = params.out_channels / params.group;
  n_ = params.out[0] * params.out[1] * params.out[2];
  k_ = params.in_channels / params.group * taps;
  pointwise_ = taps == 1;
  for (int axis = 0; axis < 3; ++axis) {
    pointwise_ = pointwise_ && params.stride[axis] == 1 && params.pad[axis] == 0 &&
                 params.out[axis] == params.in[axis];
  }
  fused_activation_ = FuseActivation(params.activation, &epilogue_);
  filters_.resize(params.group);
  for (int64_t g = 0; g < params.group; ++g) {
    // OIDHW is already [out channel][(ic, kd, kh, kw)]: A rows, unit depth stride.
    filters_[g].Pack(filter + g * m_ * k_, m_, k_, k_, 1, table.mr, arena);
  }
}

GemmOperand Conv3dGemm::Columns(const float* group_input, const void* source) const {
  GemmOperand columns;
  if (pointwise_) {
    columns.data = group_input;
    columns.stride = 1;
    columns.depth_stride = n_;
  } else {
    columns.packer = PackVol2col;
    columns.packer_context = source;
  }
  return columns;
}

int64_t Conv3dGemm::ScratchBytes(int threads) const {
  GemmOperand lhs;
  lhs.packed = &filters_[0];
  Vol2colSource source;
  const int64_t floats =
      GemmScratchFloatsPerThread(table_, m_, n_, k_, lhs, Columns(nullptr, &source));
  return threads * floats * static_cast<int64_t>(sizeof(float));
}

void Conv3dGemm::Run(const float* input, const float* bias, float* output, ThreadPool* pool,
                     float* scratch) const {
  const int64_t in_volume = params_.in[0] * params_.in[1] * params_.in[2];
  const int64_t in_per_group = params_.in_channels / params_.group;
  for (int64_t b = 0; b < params_.batch; ++b) {
    for (int64_t g = 0; g < params_.group; ++g) {
      Vol2colSource source;
      source.input = input + (b * params_.in_channels + g * in_per_group) * in_volume;
      source.params = &params_;
      GemmOperand lhs;
      lhs.packed = &filters_[g];
      TileEpilogue epilogue = epilogue_;
      epilogue.row_bias = bias != nullptr ? bias + g * m_ : nullptr;
      float* out = output + (b * params_.out_channels + g * m_) * n_;
      Gemm(table_, m_, n_, k_, lhs, Columns(source.input, &source), out, n_, epilogue, pool,
           scratch);
    }
  }
  if (!fused_activation_) {
    ApplyActivation(params_.activation, output, params_.batch * params_.out_channels * n_, pool);
  }
}

std::unique_ptr<Operation> NewConv3DCpu() { return std::make_unique<Conv3DCpu>(); }

}  // namespace ops
}  // namespace mace
