#include "mace/ops/cpu/eltwise_kernel.h"

#include <algorithm>
#include <vector>

#include "mace/ops/cpu/fused_activation.h"

namespace mace {
namespace ops {
namespace {

// Waking a thread costs about as much as adding this many elements.
constexpr int64_t kMinElementsPerThread = 8192;
// Thread ranges start on whole vectors (and cache lines).
constexpr int64_t kRangeAlign = 16;
// Activations that are not fused run on blocks this small, still in L1.
constexpr int64_t kActivationBlock = 1024;

bool KernelOp(const ref::EltwiseParams& p, int32_t* op) {
  switch (p.type) {
    case ref::EltwiseType::SUM:
      *op = p.coeff_a == 1.f && p.coeff_b == 1.f ? kEltwiseSum : kEltwiseWeightedSum;
      return true;
    case ref::EltwiseType::SUB:
      *op = kEltwiseSub;
      return true;
    case ref::EltwiseType::PROD:
      *op = kEltwiseProd;
      return true;
    case ref::EltwiseType::DIV:
      *op = kEltwiseDiv;
      return true;
    case ref::EltwiseType::MIN:
      *op = kEltwiseMin;
      return true;
    case ref::EltwiseType::MAX:
      *op = kEltwiseMax;
      return true;
    case ref::EltwiseType::NEG:
      *op = kEltwiseNeg;
      return true;
    case ref::EltwiseType::ABS:
      *op = kEltwiseAbs;
      return true;
    case ref::EltwiseType::SQR_DIFF:
      *op = kEltwiseSqrDiff;
      return true;
    case ref::EltwiseType::POW:
      return false;
  }
  return false;
}

}  // namespace

std::unique_ptr<EltwiseKernel> EltwiseKernel::Create(const KernelTable& table,
                                                     const ref::EltwiseParams& params) {
  int32_t op = kEltwiseSum;
  if (table.eltwise == nullptr || !KernelOp(params, &op)) return nullptr;
  const bool unary = ref::IsUnary(params.type);
  // Non-trivial dimensions, outermost first, merged while both operands
  // continue contiguously (a broadcast operand "continues" with stride 0).
  std::vector<Dim> dims;
  for (size_t d = 0; d < params.shape.size(); ++d) {
    if (params.shape[d] == 1) continue;
    Dim dim;
    dim.size = params.shape[d];
    dim.a_stride = params.a_strides[d];
    dim.b_stride = unary ? 0 : params.b_strides[d];
    if (!dims.empty() && dims.back().a_stride == dim.a_stride * dim.size &&
        dims.back().b_stride == dim.b_stride * dim.size) {
      dims.back().size *= dim.size;
      dims.back().a_stride = dim.a_stride;
      dims.back().b_stride = dim.b_stride;
      continue;
    }
    dims.push_back(dim);
  }
  Dim row;
  if (!dims.empty()) {
    row = dims.back();
    dims.pop_back();
  } else {
    row.a_stride = 1;
    row.b_stride = unary ? 0 : 1;
  }
  int32_t broadcast;
  if (row.a_stride == 1 && (unary || row.b_stride == 1)) {
    broadcast = kEltwiseVectors;
  } else if (row.a_stride == 1 && row.b_stride == 0) {
    broadcast = kEltwiseScalarB;
  } else if (row.a_stride == 0 && row.b_stride == 1) {
    broadcast = kEltwiseScalarA;
  } else {
    return nullptr;
  }
  if (dims.size() > static_cast<size_t>(kMaxOuterDims)) return nullptr;

  std::unique_ptr<EltwiseKernel> kernel(new EltwiseKernel());
  kernel->outer_count_ = static_cast<int>(dims.size());
  std::copy(dims.begin(), dims.end(), kernel->outer_);
  kernel->row_size_ = row.size;
  kernel->total_ = row.size;
  for (const Dim& dim : dims) kernel->total_ *= dim.size;
  kernel->kernel_ = table.eltwise;
  kernel->row_.op = op;
  kernel->row_.broadcast = broadcast;
  kernel->row_.coeff_a = params.coeff_a;
  kernel->row_.coeff_b = params.coeff_b;
  kernel->activation_ = params.activation;
  kernel->fused_activation_ = FuseActivation(params.activation, &kernel->row_.epilogue);
  return kernel;
}

void EltwiseKernel::RunRange(const float* a, const float* b, float* output, int64_t begin,
                             int64_t end) const {
  // Position the odometer over the outer dimensions at begin's row.
  int64_t index[kMaxOuterDims] = {};
  int64_t a_offset = 0, b_offset = 0;
  int64_t column = begin % row_size_;
  for (int64_t rest = begin / row_size_, d = outer_count_ - 1; d >= 0; --d) {
    index[d] = rest % outer_[d].size;
    rest /= outer_[d].size;
    a_offset += index[d] * outer_[d].a_stride;
    b_offset += index[d] * outer_[d].b_stride;
  }
  const int32_t broadcast = row_.broadcast;
  EltwiseRow row = row_;
  for (int64_t position = begin; position < end;) {
    const int64_t count = std::min(row_size_ - column, end - position);
    row.a = a + a_offset + (broadcast == kEltwiseScalarA ? 0 : column);
    row.b = b == nullptr ? nullptr : b + b_offset + (broadcast == kEltwiseScalarB ? 0 : column);
    row.out = output + position;
    if (fused_activation_) {
      row.count = count;
      kernel_(row);
    } else {
      for (int64_t done = 0; done < count; done += row.count) {
        row.count = std::min(kActivationBlock, count - done);
        kernel_(row);
        activation_.ApplyInPlace(row.out, row.count);
        if (broadcast != kEltwiseScalarA) row.a += row.count;
        if (broadcast != kEltwiseScalarB && row.b != nullptr) row.b += row.count;
        row.out += row.count;
      }
    }
    position += count;
    column = 0;
    for (int d = outer_count_ - 1; d >= 0; --d) {
      const Dim& dim = outer_[d];
      a_offset += dim.a_stride;
      b_offset += dim.b_stride;
      if (++index[d] < dim.size) break;
      a_offset -= dim.a_stride * dim.size;
      b_offset -= dim.b_stride * dim.size;
      index[d] = 0;
    }
  }
}

void EltwiseKernel::Run(const float* a, const float* b, float* output, ThreadPool* pool) const {
  const int64_t tasks = std::clamp<int64_t>(total_ / kMinElementsPerThread, 1, NumThreads(pool));
  if (tasks == 1) return RunRange(a, b, output, 0, total_);
  ParallelFor(pool, tasks, [&](int64_t first, int64_t last) {
    for (int64_t task = first; task < last; ++task) {
      const int64_t begin = total_ * task / tasks / kRangeAlign * kRangeAlign;
      const int64_t end =
          task + 1 == tasks ? total_ : total_ * (task + 1) / tasks / kRangeAlign * kRangeAlign;
      RunRange(a, b, output, begin, end);
    }
  });
}

}  // namespace ops
}  // namespace mace
