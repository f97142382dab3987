#include "mace/ops/cpu/quantize_cpu.h"

#include <algorithm>

#include "mace/ops/cpu/kernel_table.h"
#include "mace/ops/cpu/op_compute.h"
#include "mace/ops/quantize.h"
#include "mace/ops/ref/quantized/quantize.h"

namespace mace {
namespace ops {
namespace {

class QuantizeCpu final : public QuantizeBase {
 public:
  MaceStatus Prepare(OpContext* context) override {
    const KernelTable* table = ContextKernelTable(context);
    kernel_ = table != nullptr ? table->quantize_uint8 : nullptr;
    return InferShapes();
  }

  MaceStatus Run(OpContext* context) override {
    Tensor* output = Output(0);
    if (kernel_ != nullptr) {
      // Threads take pieces of kPiece values (a whole number of vectors),
      // small enough that the pool's split into pieces per thread stays
      // even (a 224 x 224 x 3 input is 147 of them).
      const float* in = Input(0)->data<float>();
      uint8_t* out = output->mutable_data<uint8_t>();
      const int64_t count = output->size();
      const float scale = output->scale();
      const int32_t zero_point = output->zero_point();
      ParallelFor(ContextPool(context), (count + kPiece - 1) / kPiece,
                  [&](int64_t begin, int64_t end) {
                    const int64_t first = begin * kPiece;
                    const int64_t last = std::min(count, end * kPiece);
                    kernel_(in + first, last - first, scale, zero_point, out + first);
                  });
    } else {
      ref::quantized::Quantize(Input(0)->data<float>(), output->size(), output->scale(),
                               output->zero_point(), output->mutable_data<uint8_t>());
    }
    return MaceStatus();
  }

 private:
  static constexpr int64_t kPiece = 1024;
  QuantizeUint8Kernel kernel_ = nullptr;
};

}  // namespace

std::unique_ptr<Operation> NewQuantizeCpu() { return std::make_unique<QuantizeCpu>(); }

}  // namespace ops
}  // namespace mace
