// Concat on the OpenCL runtime along any axis of tensors of rank 1 to 4,
// any number of inputs, channel counts that are not a multiple of 4
// included. Constant inputs are uploaded once. The kernel takes four
// inputs at a time; the launches are planned at Prepare.
#include <algorithm>
#include <memory>
#include <vector>

#include "mace/ops/concat.h"
#include "mace/runtimes/opencl/image_layout.h"
#include "mace/runtimes/opencl/opencl_runtime.h"
#include "mace/ops/opencl/image_kernel.h"
#include "mace/ops/opencl/kernels.h"

namespace mace {
namespace opencl {
namespace {

constexpr int kInputsPerLaunch = 4;

class ConcatOpenCL : public ImageKernel<ops::ConcatBase> {
 public:
  // Every input is an activation image (constants are uploaded instead).
  Storage InputStorage(int /*index*/) const override {
    return ImageStorage(ImageKind::kActivation);
  }

  MaceStatus PrepareKernel(OpContext* /*context*/) override {
    MACE_RETURN_IF_ERROR(InferShapes());
    const int rank = Input(0)->dim_size();
    OP_CHECK(rank >= 1 && rank <= 4, "the GPU kernel takes tensors of rank 1 to 4");
    OP_CHECK(Input(0)->dtype() == DT_FLOAT, "the GPU kernel concatenates float32 tensors");
    OpenCLRuntime* runtime = AsOpenCL(this->runtime());
    OP_CHECK(runtime != nullptr, "runs on the OpenCL runtime only");
    constants_.resize(InputSize());
    for (int i = 0; i < InputSize(); ++i) {
      if (Input(i)->is_weight() && constants_[i] == nullptr) {
        MACE_RETURN_IF_ERROR(
            runtime->UploadWeight(ImageKind::kActivation, *Input(i), &constants_[i]));
      }
    }
    // The stored axis: rank 1 [C] is stored as [1, C, 1, 1].
    stored_axis_ = rank == 1 ? 1 : axis();
    starts_.clear();
    ends_.clear();
    int64_t at = 0;
    for (int i = 0; i < InputSize(); ++i) {
      starts_.push_back(at);
      at += ActivationDims(Input(i)->shape())[stored_axis_];
      ends_.push_back(at);
    }
    PlanLaunches(ActivationDims(Output(0)->shape())[1]);
    if (!kernel_.created()) MACE_RETURN_IF_ERROR(kernel_.Create(runtime, "concat"));
    return MaceStatus();
  }

  MaceStatus Run(OpContext* /*context*/) override {
    std::vector<cl_mem> inputs(InputSize());
    for (int i = 0; i < InputSize(); ++i) {
      if (constants_[i] != nullptr) {
        inputs[i] = static_cast<cl_mem>(constants_[i]->device_handle());
      } else {
        MACE_RETURN_IF_ERROR(DeviceMemoryOf(*Input(i), &inputs[i]));
      }
    }
    cl_mem output = nullptr;
    MACE_RETURN_IF_ERROR(DeviceMemoryOf(*Output(0), &output));
    const std::vector<int64_t> dims = ActivationDims(Output(0)->shape());
    ImageShape image;
    MACE_RETURN_IF_ERROR(ImageShapeFor(ImageKind::kActivation, Output(0)->shape(), &image));
    auto i32 = [](int64_t value) { return static_cast<cl_int>(value); };
    for (const Launch& launch : launches_) {
      cl_mem group[kInputsPerLaunch];
      cl_int starts[kInputsPerLaunch], ends[kInputsPerLaunch];
      for (int k = 0; k < kInputsPerLaunch; ++k) {
        // Unused slots repeat the first input; the kernel never reads them.
        const int i = launch.first + std::min(k, launch.count - 1);
        group[k] = inputs[i];
        starts[k] = i32(starts_[i]);
        ends[k] = k < launch.count ? i32(ends_[i]) : starts[k];
      }
      const cl_int4 start4 = {{starts[0], starts[1], starts[2], starts[3]}};
      const cl_int4 end4 = {{ends[0], ends[1], ends[2], ends[3]}};
      MACE_RETURN_IF_ERROR(kernel_.SetArgs(
          group[0], group[1], group[2], group[3], output, i32(image.width), i32(image.height),
          i32(dims[1]), i32(dims[2]), i32(dims[3]), i32(stored_axis_), start4, end4,
          static_cast<cl_int>(launch.count), i32(launch.first_block), i32(launch.end_block)));
      MACE_RETURN_IF_ERROR(kernel_.Run2D(image.width, image.height));
    }
    return MaceStatus();
  }

 private:
  // Up to four consecutive inputs and, along channels, the output blocks
  // they alone fill.
  struct Launch {
    int first = 0;
    int count = 0;
    int64_t first_block = 0, end_block = 0;
  };

  void PlanLaunches(int64_t channels) {
    launches_.clear();
    const int inputs = InputSize();
    if (stored_axis_ != 1) {
      for (int first = 0; first < inputs; first += kInputsPerLaunch) {
        launches_.push_back({first, std::min(kInputsPerLaunch, inputs - first), 0, 0});
      }
      return;
    }
    // Block b takes lanes from the inputs whose channels meet [4b, 4b + 4).
    auto first_input = [&](int64_t block) {
      int i = 0;
      while (ends_[i] <= block * 4) ++i;
      return i;
    };
    auto last_input = [&](int64_t block) {
      int i = inputs - 1;
      while (starts_[i] >= block * 4 + 4) --i;
      return i;
    };
    const int64_t blocks = (channels + 3) / 4;
    for (int64_t block = 0; block < blocks;) {
      const int first = first_input(block);
      int64_t end = block + 1;
      while (end < blocks && last_input(end) < first + kInputsPerLaunch) ++end;
      const int last = last_input(end - 1);
      launches_.push_back({first, last - first + 1, block, end});
      block = end;
    }
  }

  int64_t stored_axis_ = 1;
  std::vector<int64_t> starts_, ends_;
  std::vector<Launch> launches_;
  std::vector<std::unique_ptr<Memory>> constants_;
  Kernel kernel_;
};

}  // namespace

MaceStatus RegisterConcatOpenCL(OpRegistry* registry) {
  return RegisterOp<ConcatOpenCL>(registry, "Concat", DeviceType::GPU, DT_FLOAT);
}

}  // namespace opencl
}  // namespace mace
