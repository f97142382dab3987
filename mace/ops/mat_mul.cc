// MatMul: batched A x B with numpy-style broadcasting of the batch (all but
// the last two) dimensions. Either operand may be a weight. An optional bias
// [N] is added to every output row, which is how converters fold a following
// BiasAdd.
//
// On a CPU with fast kernels each product runs on the packed GEMM; a
// constant, unbatched B is packed once in Prepare.

#include "mace/ops/ref/mat_mul.h"

#include <algorithm>

#include "mace/ops/cpu/gemm.h"
#include "mace/ops/cpu/op_compute.h"
#include "mace/ops/registry.h"

namespace mace {
namespace ops {
namespace {

class MatMulOp : public Operation {
 public:
  MaceStatus Init() override {
    OP_CHECK(InputSize() >= 2 && InputSize() <= 3 && OutputSize() == 1,
             "needs inputs [A, B, optional bias] and one output, got ", InputSize(), " inputs and ",
             OutputSize(), " outputs");
    OP_CHECK(Input(0) != nullptr, "input A is missing");
    OP_CHECK(Input(1) != nullptr, "input B is missing");
    MACE_RETURN_IF_ERROR(ParseFlag("transpose_a", &params_.transpose_a));
    MACE_RETURN_IF_ERROR(ParseFlag("transpose_b", &params_.transpose_b));
    return MaceStatus();
  }

  MaceStatus Prepare(OpContext* context) override {
    const Tensor* a = Input(0);
    const Tensor* b = Input(1);
    const Tensor* bias = Bias();
    for (const Tensor* tensor : {a, b, bias}) {
      if (tensor == nullptr) continue;
      OP_CHECK(tensor->dtype() == DT_FLOAT, "'", tensor->name(), "' is ",
               DataTypeName(tensor->dtype()), " but must be float32");
      OP_CHECK(std::all_of(tensor->shape().begin(), tensor->shape().end(),
                           [](int64_t d) { return d > 0; }),
               "'", tensor->name(), "' has shape ", ShapeToString(tensor->shape()),
               " with a non-positive dimension");
    }
    OP_CHECK(a->dim_size() >= 2, "A has shape ", ShapeToString(a->shape()),
             " but needs rank 2 or more");
    OP_CHECK(b->dim_size() >= 2, "B has shape ", ShapeToString(b->shape()),
             " but needs rank 2 or more");
    params_.m = params_.transpose_a ? a->dim(-1) : a->dim(-2);
    params_.k = params_.transpose_a ? a->dim(-2) : a->dim(-1);
    params_.n = params_.transpose_b ? b->dim(-2) : b->dim(-1);
    const int64_t b_k = params_.transpose_b ? b->dim(-1) : b->dim(-2);
    OP_CHECK(b_k == params_.k, "A ", ShapeToString(a->shape()), " (transpose_a ",
             params_.transpose_a, ") has inner dimension ", params_.k, " but B ",
             ShapeToString(b->shape()), " (transpose_b ", params_.transpose_b, ") has ", b_k);
    if (bias != nullptr) {
      OP_CHECK(bias->dim_size() == 1 && bias->dim(0) == params_.n, "bias has shape ",
               ShapeToString(bias->shape()), " but needs [", params_.n, "]");
    }
    MACE_RETURN_IF_ERROR(BroadcastBatch(a->shape(), b->shape()));
    std::vector<int64_t> output_shape = params_.batch_shape;
    output_shape.push_back(params_.m);
    output_shape.push_back(params_.n);
    Output(0)->Reshape(output_shape);
    return PrepareFastKernel(context);
  }

  MaceStatus Run(OpContext* context) override {
    const Tensor* bias = Bias();
    if (table_ != nullptr) {
      RunGemm(context, bias != nullptr ? bias->data<float>() : nullptr);
      return MaceStatus();
    }
    ref::MatMul(params_, Input(0)->data<float>(), Input(1)->data<float>(),
                bias != nullptr ? bias->data<float>() : nullptr, Output(0)->mutable_data<float>());
    return MaceStatus();
  }

  int64_t Macs() const override {
    int64_t batch_count = 1;
    for (int64_t d : params_.batch_shape) batch_count *= d;
    return batch_count * params_.m * params_.k * params_.n;
  }

 private:
  const Tensor* Bias() const { return InputSize() > 2 ? Input(2) : nullptr; }

  MaceStatus ParseFlag(const std::string& name, bool* flag) const {
    const int64_t value = GetInt(name, 0);
    OP_CHECK(value == 0 || value == 1, name, " must be 0 or 1, got ", value);
    *flag = value == 1;
    return MaceStatus();
  }

  // Right-aligns the batch dimensions of A and B, checks that each pair is
  // equal or has a 1, and records per operand how far one step along each
  // output batch dimension moves, in whole matrices.
  MaceStatus BroadcastBatch(const std::vector<int64_t>& a_shape,
                            const std::vector<int64_t>& b_shape) {
    const int a_rank = static_cast<int>(a_shape.size()) - 2;
    const int b_rank = static_cast<int>(b_shape.size()) - 2;
    const int rank = std::max(a_rank, b_rank);
    params_.batch_shape.assign(rank, 1);
    params_.a_batch_strides.assign(rank, 0);
    params_.b_batch_strides.assign(rank, 0);
    int64_t a_stride = 1, b_stride = 1;
    for (int i = rank - 1; i >= 0; --i) {
      const int a_index = i - (rank - a_rank), b_index = i - (rank - b_rank);
      const int64_t a_dim = a_index >= 0 ? a_shape[a_index] : 1;
      const int64_t b_dim = b_index >= 0 ? b_shape[b_index] : 1;
      OP_CHECK(a_dim == b_dim || a_dim == 1 || b_dim == 1, "batch dimensions of A ",
               ShapeToString(a_shape), " and B ", ShapeToString(b_shape), " do not broadcast (",
               a_dim, " vs ", b_dim, ")");
      params_.batch_shape[i] = std::max(a_dim, b_dim);
      params_.a_batch_strides[i] = a_dim == 1 ? 0 : a_stride;
      params_.b_batch_strides[i] = b_dim == 1 ? 0 : b_stride;
      a_stride *= a_dim;
      b_stride *= b_dim;
    }
    return MaceStatus();
  }

  // Operands of one product, matrices at `a` and `b`.
  GemmOperand OperandA(const float* a) const {
    GemmOperand operand;
    operand.data = a;
    operand.stride = params_.transpose_a ? 1 : params_.k;
    operand.depth_stride = params_.transpose_a ? params_.m : 1;
    return operand;
  }
  GemmOperand OperandB(const float* b) const {
    GemmOperand operand;
    if (packed_b_.rows() > 0) {
      operand.packed = &packed_b_;
      return operand;
    }
    operand.data = b;
    operand.stride = params_.transpose_b ? params_.k : 1;
    operand.depth_stride = params_.transpose_b ? 1 : params_.n;
    return operand;
  }

  MaceStatus PrepareFastKernel(OpContext* context) {
    table_ = ContextKernelTable(context);
    packed_b_ = PackedPanels();
    if (table_ == nullptr) return MaceStatus();
    const bool one_b = std::all_of(params_.b_batch_strides.begin(), params_.b_batch_strides.end(),
                                   [](int64_t stride) { return stride == 0; });
    if (Input(1)->is_weight() && one_b) {
      const GemmOperand b = OperandB(Input(1)->data<float>());
      packed_b_.Pack(b.data, params_.n, params_.k, b.stride, b.depth_stride, table_->nr,
                     ContextArena(context));
    }
    const int64_t floats = GemmScratchFloatsPerThread(*table_, params_.m, params_.n, params_.k,
                                                      OperandA(nullptr), OperandB(nullptr));
    return scratch_.Reserve(context, NumThreads(ContextPool(context)) * floats * 4);
  }

  void RunGemm(OpContext* context, const float* bias) {
    const int rank = static_cast<int>(params_.batch_shape.size());
    int64_t batch_count = 1;
    for (int64_t d : params_.batch_shape) batch_count *= d;
    TileEpilogue epilogue;
    epilogue.col_bias = bias;
    const float* a = Input(0)->data<float>();
    const float* b = Input(1)->data<float>();
    float* output = Output(0)->mutable_data<float>();
    for (int64_t batch = 0; batch < batch_count; ++batch) {
      int64_t a_matrix = 0, b_matrix = 0, rest = batch;
      for (int i = rank - 1; i >= 0; --i) {
        const int64_t coordinate = rest % params_.batch_shape[i];
        rest /= params_.batch_shape[i];
        a_matrix += coordinate * params_.a_batch_strides[i];
        b_matrix += coordinate * params_.b_batch_strides[i];
      }
      Gemm(*table_, params_.m, params_.n, params_.k, OperandA(a + a_matrix * params_.m * params_.k),
           OperandB(b + b_matrix * params_.k * params_.n), output + batch * params_.m * params_.n,
           params_.n, epilogue, ContextPool(context), scratch_.Get(context));
    }
  }

  ref::MatMulParams params_;
  const KernelTable* table_ = nullptr;  // null: reference kernel
  PackedPanels packed_b_;               // filled for a constant, unbatched B
  OpScratch scratch_;
};

}  // namespace

MaceStatus RegisterMatMul(OpRegistry* registry) {
  return RegisterOp<MatMulOp>(registry, "MatMul", DeviceType::CPU, DT_FLOAT);
}

}  // namespace ops
}  // namespace mace
