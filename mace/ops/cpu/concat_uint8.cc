// Concat on uint8: inputs quantized like the output are copied, others
// rescaled on the kernel table's output step (concat_uint8_fast.h), or by
// the reference kernel (ref/quantized/concat.h) without a table. An output
// that states no quantization takes the inputs', which must then agree.
// int32 inputs (shape subgraphs) are moved as bytes. When every input is
// quantized like the output and the axis has nothing outside it (a channel
// Concat of one NCHW image), the engine may place the inputs inside the
// output (OutputConcatenatesInputs) and the op then copies nothing.
#include "mace/ops/cpu/concat_uint8.h"

#include <cstring>
#include <memory>
#include <vector>

#include "mace/ops/common/uint8_checks.h"
#include "mace/ops/concat.h"
#include "mace/ops/cpu/concat_uint8_fast.h"
#include "mace/ops/cpu/op_compute.h"
#include "mace/ops/ref/concat.h"
#include "mace/ops/ref/quantized/concat.h"

namespace mace {
namespace ops {
namespace {

class ConcatUint8Cpu final : public ConcatBase {
 public:
  MaceStatus Prepare(OpContext* /*context*/) override {
    MACE_RETURN_IF_ERROR(InferShapes());
    Tensor* output = Output(0);
    const int rank = output->dim_size();
    int64_t inner = 1;
    for (int d = axis() + 1; d < rank; ++d) inner *= output->dim(d);
    bytes_.outer = 1;
    for (int d = 0; d < axis(); ++d) bytes_.outer *= output->dim(d);
    bytes_.run_bytes.clear();
    inputs_.assign(InputSize(), ref::quantized::ConcatInput());
    for (int i = 0; i < InputSize(); ++i) {
      inputs_[i].run = Input(i)->dim(axis()) * inner;
      bytes_.run_bytes.push_back(inputs_[i].run * DataTypeSize(output->dtype()));
    }
    input_data_.assign(InputSize(), nullptr);
    if (output->dtype() != DT_UINT8) return MaceStatus();
    for (int i = 0; i < InputSize(); ++i) {
      MACE_RETURN_IF_ERROR(CheckQuantizedTensors(*this, {Input(i)}));
    }
    if (output->scale() == 0.f && output->zero_point() == 0) {
      // No range of its own: the inputs must share one.
      for (int i = 1; i < InputSize(); ++i) {
        OP_CHECK(Input(i)->scale() == Input(0)->scale() &&
                     Input(i)->zero_point() == Input(0)->zero_point(),
                 "input '", Input(i)->name(), "' (scale ", Input(i)->scale(), ", zero point ",
                 Input(i)->zero_point(), ") is quantized unlike input '", Input(0)->name(),
                 "' (scale ", Input(0)->scale(), ", zero point ", Input(0)->zero_point(),
                 "), so output '", output->name(), "' must state its quantization");
      }
      output->SetQuantization(Input(0)->quant());
    }
    MACE_RETURN_IF_ERROR(CheckQuantizedTensors(*this, {output}));
    for (int i = 0; i < InputSize(); ++i) {
      const Tensor& input = *Input(i);
      ref::quantized::ConcatInput& entry = inputs_[i];
      entry.zero_point = input.zero_point();
      entry.rescale =
          input.scale() != output->scale() || input.zero_point() != output->zero_point();
      if (!entry.rescale) continue;
      const MaceStatus status = MakeQuantizedMultiplier(
          static_cast<double>(input.scale()) / output->scale(),
          StrCat("input '", input.name(), "' to output '", output->name(), "'"), &entry.multiplier);
      if (!status.ok()) return Invalid(status.information());
    }
    return MaceStatus();
  }

  // uint8 inputs all quantized like the output, joined along an axis with
  // nothing outside it: the output is their bytes one after the other.
  bool OutputConcatenatesInputs() const override {
    if (bytes_.outer != 1 || Output(0)->dtype() != DT_UINT8) return false;
    for (const ref::quantized::ConcatInput& input : inputs_) {
      if (input.rescale) return false;
    }
    return true;
  }

  MaceStatus Run(OpContext* context) override {
    if (OutputConcatenatesInputs()) {
      // Inputs the plan placed inside the output are already where they
      // belong; the others are copied.
      uint8_t* output = Output(0)->mutable_data<uint8_t>();
      for (int i = 0; i < InputSize(); ++i) {
        const uint8_t* input = Input(i)->data<uint8_t>();
        if (input != output) std::memcpy(output, input, inputs_[i].run);
        output += inputs_[i].run;
      }
      return MaceStatus();
    }
    // Buffers are bound after Prepare, so the pointers are gathered here.
    if (Output(0)->dtype() != DT_UINT8) {
      for (int i = 0; i < InputSize(); ++i) input_data_[i] = Input(i)->raw_data();
      ref::Concat(bytes_, input_data_.data(), Output(0)->raw_mutable_data());
      return MaceStatus();
    }
    for (int i = 0; i < InputSize(); ++i) inputs_[i].data = Input(i)->data<uint8_t>();
    if (const KernelTable* table = ContextKernelTable(context)) {
      ConcatUint8Fast(bytes_.outer, inputs_, Output(0)->zero_point(),
                      Output(0)->mutable_data<uint8_t>(), table->requantize_row,
                      ContextPool(context));
      return MaceStatus();
    }
    ref::quantized::Concat(bytes_.outer, inputs_, Output(0)->zero_point(),
                           Output(0)->mutable_data<uint8_t>());
    return MaceStatus();
  }

 private:
  ref::ConcatParams bytes_;
  std::vector<const void*> input_data_;
  std::vector<ref::quantized::ConcatInput> inputs_;
};

}  // namespace

std::unique_ptr<Operation> NewConcatUint8Cpu() { return std::make_unique<ConcatUint8Cpu>(); }

}  // namespace ops
}  // namespace mace
