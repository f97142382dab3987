// BlockedLayoutConvert: the CPU's converter between plain NCHW float tensors
// and channel blocks (mace/ops/cpu/blocked_layout.h), registered for every
// block width a kernel table uses; HalfConvert between float32 and half
// tensors (an fp16 engine's half-precision runs). The net's layout planning
// (mace/core/net_layout.cc) inserts it where blocked and plain ops meet; the
// storages of its input and output say which way it converts.
#include <algorithm>

#include "mace/core/converter_registry.h"
#include "mace/ops/cpu/blocked_layout.h"
#include "mace/ops/cpu/kernel_table.h"
#include "mace/ops/cpu/linked_families.h"
#include "mace/ops/cpu/op_compute.h"
#include "mace/ops/op_registration.h"

namespace mace {
namespace ops {
namespace {

class BlockedLayoutConvertOp : public Operation {
 public:
  MaceStatus Init() override {
    OP_CHECK(InputSize() == 1 && OutputSize() == 1 && Input(0) != nullptr,
             "needs one input and one output");
    return MaceStatus();
  }

  MaceStatus Prepare(OpContext* /*context*/) override {
    const Tensor* input = Input(0);
    OP_CHECK(input->dtype() == DT_FLOAT && input->dim_size() == 4, "input '", input->name(),
             "' must be a rank-4 float32 tensor, got ", DataTypeName(input->dtype()),
             ShapeToString(input->shape()));
    const int from = input->channel_block(), to = Output(0)->channel_block();
    OP_CHECK((from == 0) != (to == 0), "converts between the plain and the blocked layout (input ",
             input->storage().ToString(), ", output ", Output(0)->storage().ToString(), ")");
    block_ = to;
    Output(0)->Reshape(input->shape());
    return MaceStatus();
  }

  MaceStatus Run(OpContext* context) override {
    const Tensor* input = Input(0);
    const int64_t plane = input->dim(2) * input->dim(3);
    // The transposes of the table whose blocks these are, if any.
    const KernelTable* table = ContextKernelTable(context);
    const int block = block_ > 0 ? static_cast<int>(block_) : input->channel_block();
    const bool vectorized = table != nullptr && table->channel_block == block;
    if (block_ > 0) {
      PackChannelBlocks(input->data<float>(), input->dim(0), input->dim(1), plane, block,
                        Output(0)->mutable_data<float>(), ContextPool(context),
                        vectorized ? table->channel_pack : nullptr);
    } else {
      UnpackChannelBlocks(input->data<float>(), input->dim(0), input->dim(1), plane, block,
                          Output(0)->mutable_data<float>(), ContextPool(context),
                          vectorized ? table->channel_unpack : nullptr);
    }
    return MaceStatus();
  }

 private:
  int64_t block_ = 0;
};

// Between plain float32 and plain half tensors, which an fp16 engine keeps
// between ops that compute in half precision (its kernel table converts).
class HalfConvertOp : public Operation {
 public:
  MaceStatus Init() override {
    OP_CHECK(InputSize() == 1 && OutputSize() == 1 && Input(0) != nullptr,
             "needs one input and one output");
    return MaceStatus();
  }

  MaceStatus Prepare(OpContext* context) override {
    const Tensor* input = Input(0);
    const DataType from = input->dtype(), to = Output(0)->dtype();
    OP_CHECK((from == DT_FLOAT && to == DT_HALF) || (from == DT_HALF && to == DT_FLOAT),
             "converts between float32 and half tensors (input ", input->storage().ToString(),
             ", output ", Output(0)->storage().ToString(), ")");
    const KernelTable* table = ContextKernelTable(context);
    OP_CHECK(table != nullptr && table->fp16_from_float != nullptr &&
                 table->fp16_to_float != nullptr,
             "half tensors need a kernel table with half-precision conversions");
    table_ = table;
    Output(0)->Reshape(input->shape());
    return MaceStatus();
  }

  MaceStatus Run(OpContext* context) override {
    const Tensor* input = Input(0);
    const int64_t count = input->size();
    // Chunks of whole cache lines per thread.
    constexpr int64_t kChunk = 4096;
    const bool to_half = input->dtype() == DT_FLOAT;
    ParallelFor(ContextPool(context), (count + kChunk - 1) / kChunk,
                [&](int64_t begin, int64_t end) {
                  const int64_t first = begin * kChunk;
                  const int64_t n = std::min(count, end * kChunk) - first;
                  if (to_half) {
                    table_->fp16_from_float(input->data<float>() + first, n,
                                            Output(0)->mutable_data<uint16_t>() + first);
                  } else {
                    table_->fp16_to_float(input->data<uint16_t>() + first, n,
                                          Output(0)->mutable_data<float>() + first);
                  }
                });
    return MaceStatus();
  }

 private:
  const KernelTable* table_ = nullptr;
};

}  // namespace

MaceStatus RegisterCpuConverters(ConverterRegistry* converters) {
  // A build without the fp16 or the blocked family has no op that offers
  // halves or channel blocks (linked_families.h), so it needs no converter
  // for them.
  for (bool to_half : {true, false}) {
    if (!kLinksFp16Kernels) break;
    Converter converter;
    converter.from = Storage::Plain(to_half ? DT_FLOAT : DT_HALF);
    converter.to = Storage::Plain(to_half ? DT_HALF : DT_FLOAT);
    converter.device = DeviceType::CPU;
    converter.op_type = "HalfConvert";
    converter.factory = [] { return std::unique_ptr<Operation>(new HalfConvertOp()); };
    MACE_RETURN_IF_ERROR(converters->Register(converter));
  }
  // The block widths of the kernel tables: NEON 4, AVX2 8, AVX-512 16.
  for (int block : {4, 8, 16}) {
    if (!kLinksBlockedKernels) break;
    for (bool pack : {true, false}) {
      Converter converter;
      converter.from = pack ? Storage::Plain(DT_FLOAT) : Storage::ChannelBlocks(block);
      converter.to = pack ? Storage::ChannelBlocks(block) : Storage::Plain(DT_FLOAT);
      converter.device = DeviceType::CPU;
      converter.op_type = "BlockedLayoutConvert";
      converter.factory = [] { return std::unique_ptr<Operation>(new BlockedLayoutConvertOp()); };
      MACE_RETURN_IF_ERROR(converters->Register(converter));
    }
  }
  return MaceStatus();
}

}  // namespace ops
}  // namespace mace
