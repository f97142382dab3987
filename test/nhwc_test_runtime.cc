#include "test/nhwc_test_runtime.h"

#include <algorithm>
#include <vector>

#include "mace/core/converter_registry.h"
#include "mace/core/op_registry.h"
#include "mace/core/operation.h"

namespace mace {
namespace testing {
namespace {

// Element (n, c, h, w) of a logical NCHW shape, at its NCHW and NHWC offsets.
struct Nchw {
  int64_t n, c, h, w;
  explicit Nchw(const std::vector<int64_t>& shape)
      : n(shape[0]), c(shape[1]), h(shape[2]), w(shape[3]) {}
  int64_t Plain(int64_t in, int64_t ic, int64_t ih, int64_t iw) const {
    return ((in * c + ic) * h + ih) * w + iw;
  }
  int64_t Nhwc(int64_t in, int64_t ic, int64_t ih, int64_t iw) const {
    return ((in * h + ih) * w + iw) * c + ic;
  }
};

// Where element (n, c, h, w) of a rank-4 tensor lives in each storage.
enum class Target { kNhwc, kImage };

int64_t StoredOffset(Target target, const Nchw& s, int64_t n, int64_t c, int64_t h, int64_t w) {
  if (target == Target::kNhwc) return s.Nhwc(n, c, h, w);
  // Four channels per RGBA pixel; a row of W * ceil(C/4) pixels per (n, h).
  const int64_t width = s.w * ((s.c + 3) / 4);
  const int64_t x = w * ((s.c + 3) / 4) + c / 4;
  const int64_t y = n * s.h + h;
  return (y * width + x) * 4 + c % 4;
}

// Converts between CPU NCHW and the runtime's storages; other ranks are
// copied as they are (NHWC only).
class LayoutConvert : public Operation {
 public:
  LayoutConvert(Target target, bool to_device) : target_(target), to_device_(to_device) {}
  MaceStatus Prepare(OpContext* /*context*/) override {
    OP_CHECK(Input(0)->dtype() == DT_FLOAT, "converts float32 tensors only");
    Output(0)->Reshape(Input(0)->shape());
    return MaceStatus();
  }
  MaceStatus Run(OpContext* /*context*/) override {
    const float* in = Input(0)->data<float>();
    float* out = Output(0)->mutable_data<float>();
    OP_CHECK(in != nullptr && out != nullptr, "needs host-addressable memory");
    if (Input(0)->dim_size() != 4) {
      OP_CHECK(target_ == Target::kNhwc, "images hold rank-4 tensors only");
      std::copy(in, in + Input(0)->size(), out);
      return MaceStatus();
    }
    const Nchw s(Input(0)->shape());
    for (int64_t n = 0; n < s.n; ++n) {
      for (int64_t c = 0; c < s.c; ++c) {
        for (int64_t h = 0; h < s.h; ++h) {
          for (int64_t w = 0; w < s.w; ++w) {
            const int64_t stored = StoredOffset(target_, s, n, c, h, w);
            if (to_device_) {
              out[stored] = in[s.Plain(n, c, h, w)];
            } else {
              out[s.Plain(n, c, h, w)] = in[stored];
            }
          }
        }
      }
    }
    return MaceStatus();
  }

 private:
  Target target_;
  bool to_device_;
};

// Kernels of the test runtime: NHWC in, NHWC out.
class NhwcOp : public Operation {
 public:
  Storage InputStorage(int /*index*/) const override { return NhwcStorage(); }
  Storage OutputStorage(int /*index*/) const override { return NhwcStorage(); }
};

// RELU on images: pixel by pixel, padding lanes included (they hold 0).
class ImageRelu : public Operation {
 public:
  Storage InputStorage(int /*index*/) const override { return ImageStorage(); }
  Storage OutputStorage(int /*index*/) const override { return ImageStorage(); }
  // Other activations: refused, so they run on the CPU.
  MaceStatus Init() override {
    if (GetString("activation", "") == "RELU") return MaceStatus();
    return MaceStatus(MaceStatus::MACE_UNSUPPORTED, Describe() + ": runs RELU only");
  }
  MaceStatus Prepare(OpContext* /*context*/) override {
    Output(0)->Reshape(Input(0)->shape());
    return MaceStatus();
  }
  MaceStatus Run(OpContext* /*context*/) override {
    const float* in = Input(0)->data<float>();
    float* out = Output(0)->mutable_data<float>();
    MemoryExtent extent;
    MACE_RETURN_IF_ERROR(runtime()->ImageExtentFor(*Input(0), &extent));
    for (int64_t i = 0; i < extent.width * extent.height * 4; ++i) out[i] = std::max(in[i], 0.f);
    return MaceStatus();
  }
};

class NhwcSum : public NhwcOp {
 public:
  MaceStatus Init() override {
    OP_CHECK(GetInt("type", 0) == 0, "runs SUM only");
    return MaceStatus();
  }
  MaceStatus Prepare(OpContext* /*context*/) override {
    OP_CHECK(InputSize() == 2 && Input(0)->shape() == Input(1)->shape(),
             "adds two tensors of one shape");
    Output(0)->Reshape(Input(0)->shape());
    return MaceStatus();
  }
  MaceStatus Run(OpContext* /*context*/) override {
    const float* a = Input(0)->data<float>();
    const float* b = Input(1)->data<float>();
    float* out = Output(0)->mutable_data<float>();
    for (int64_t i = 0; i < Input(0)->size(); ++i) out[i] = a[i] + b[i];
    return MaceStatus();
  }
};

class CountedMemory : public Memory {
 public:
  CountedMemory(const MemoryExtent& extent, std::unique_ptr<Memory> host)
      : Memory(extent), host_(std::move(host)) {}
  unsigned char* host() override { return host_->host(); }

 private:
  std::unique_ptr<Memory> host_;
};

MaceStatus RegisterNhwcKernels(OpRegistry* registry, ConverterRegistry* converters) {
  MACE_RETURN_IF_ERROR(RegisterOp<ImageRelu>(registry, "Activation", DeviceType::GPU, DT_FLOAT));
  MACE_RETURN_IF_ERROR(RegisterOp<NhwcSum>(registry, "Eltwise", DeviceType::GPU, DT_FLOAT));
  struct Entry {
    Target target;
    Storage storage;
    const char* to_name;
    const char* from_name;
  };
  for (const Entry& entry : {Entry{Target::kNhwc, NhwcStorage(), "ToNhwc", "ToNchw"},
                             Entry{Target::kImage, ImageStorage(), "ToImage", "FromImage"}}) {
    for (bool to_device : {true, false}) {
      Converter converter;
      converter.from = to_device ? Storage::Plain(DT_FLOAT) : entry.storage;
      converter.to = to_device ? entry.storage : Storage::Plain(DT_FLOAT);
      converter.device = DeviceType::GPU;
      converter.op_type = to_device ? entry.to_name : entry.from_name;
      const Target target = entry.target;
      converter.factory = [target, to_device] {
        return std::unique_ptr<Operation>(new LayoutConvert(target, to_device));
      };
      MACE_RETURN_IF_ERROR(converters->Register(converter));
    }
  }
  return MaceStatus();
}

}  // namespace

NhwcRuntimeCounters& NhwcCounters() {
  static NhwcRuntimeCounters* counters = new NhwcRuntimeCounters;
  return *counters;
}

Storage NhwcStorage() {
  Storage storage = Storage::Plain(DT_FLOAT);
  storage.memory_type = MemoryType::GPU_BUFFER;
  storage.layout = Layout::kNHWC;
  return storage;
}

Storage ImageStorage() {
  Storage storage = Storage::Plain(DT_FLOAT);
  storage.memory_type = MemoryType::GPU_IMAGE;
  storage.layout = Layout::kImage;
  storage.image = 1;
  return storage;
}

MaceStatus NhwcTestRuntime::Allocate(const MemoryExtent& extent, std::unique_ptr<Memory>* memory) {
  MACE_UNSUPPORTED_IF(extent.type == MemoryType::CPU_BUFFER, name(), " has no ",
                      MemoryTypeName(extent.type), " memory");
  std::unique_ptr<Memory> host = NewHostMemory(extent.type, extent.bytes);
  if (host == nullptr) return MaceStatus(MaceStatus::MACE_OUT_OF_RESOURCES, "out of memory");
  *memory = std::make_unique<CountedMemory>(extent, std::move(host));
  NhwcCounters().allocations++;
  if (extent.type == MemoryType::GPU_IMAGE) NhwcCounters().images++;
  NhwcCounters().allocated_bytes += extent.bytes;
  return MaceStatus();
}

MaceStatus NhwcTestRuntime::ImageExtentFor(const Tensor& tensor, MemoryExtent* extent) const {
  MACE_CHECK_ARG(tensor.storage() == ImageStorage() && tensor.dim_size() == 4, "tensor '",
                 tensor.name(), "' is not a rank-4 image tensor");
  const Nchw s(tensor.shape());
  *extent = MemoryExtent::Image(s.w * ((s.c + 3) / 4), s.n * s.h, 4 * sizeof(float));
  return MaceStatus();
}

MaceStatus NhwcTestRuntime::BeforeRun() {
  NhwcCounters().runs++;
  return MaceStatus();
}

void InstallNhwcTestRuntime() {
  RuntimeProvider provider;
  provider.create = [](const MaceEngineConfig& /*config*/, std::unique_ptr<Runtime>* runtime) {
    *runtime = std::make_unique<NhwcTestRuntime>();
    return MaceStatus();
  };
  provider.register_kernels = RegisterNhwcKernels;
  SetRuntimeProviderForTesting(DeviceType::GPU, provider);
}

}  // namespace testing
}  // namespace mace
