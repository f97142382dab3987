// The storages of the runtime's image kernels: activation input 0 and
// every output in activation images; other inputs (weights) where they
// are. A kernel derives from ImageKernel<its device-neutral base>, e.g.
// ImageKernel<ops::Conv2DBase>. Weights are read on the host only at
// Prepare, to be uploaded. Outputs never share their input's image:
// OpenCL 1.2 leaves a kernel that reads and writes one image undefined.
//
// Whether the OpenCL runtime runs an op is decided in two places only:
// a kernel registered for its type (kernels.cc), and that kernel's
// Accepts, which Prepare asks first. Accepts returning MACE_UNSUPPORTED
// makes the net give the op to the CPU's kernel instead (Net::CreateOps).
#ifndef MACE_OPS_OPENCL_IMAGE_KERNEL_H_
#define MACE_OPS_OPENCL_IMAGE_KERNEL_H_

#include <string>
#include <vector>

#include "mace/core/operation.h"
#include "mace/runtimes/opencl/image_layout.h"
#include "mace/runtimes/opencl/opencl_runtime.h"

namespace mace {
namespace opencl {

template <typename Base>
class ImageKernel : public Base {
 public:
  Storage InputStorage(int index) const override {
    return index == 0 ? ImageStorage(ImageKind::kActivation) : Operation::InputStorage(index);
  }
  Storage OutputStorage(int /*index*/) const override {
    return ImageStorage(ImageKind::kActivation);
  }
  int InPlaceInput() const override { return -1; }
  // Weights are arranged and uploaded into images at Prepare.
  bool ReadsHostWeights() const override { return false; }

  // Accepts, then the kernel's own PrepareKernel.
  MaceStatus Prepare(OpContext* context) final {
    MACE_RETURN_IF_ERROR(Accepts());
    return PrepareKernel(context);
  }

 protected:
  // Sets output shapes, uploads weights, creates the OpenCL kernels.
  virtual MaceStatus PrepareKernel(OpContext* context) = 0;

  // Whether this kernel takes the op as bound (arguments and input shapes
  // are known): OK, or MACE_UNSUPPORTED with the reason. Nothing is
  // uploaded before it answers. This takes ops whose activation inputs and
  // recorded output shapes fit the device's activation images, and whose
  // inputs read in host storage (weights, shape arguments, uploaded or read
  // at Prepare) are constants. A kernel with more limits overrides it and
  // calls this one.
  virtual MaceStatus Accepts() const {
    const OpenCLRuntime* runtime = AsOpenCL(this->runtime());
    if (runtime == nullptr) {
      return MaceStatus(MaceStatus::MACE_INVALID_ARGS,
                        StrCat(this->Describe(), ": runs on the OpenCL runtime only"));
    }
    for (int k = 0; k < this->InputSize(); ++k) {
      const Tensor* input = this->Input(k);
      if (input == nullptr || input->is_weight()) continue;
      if (this->InputStorage(k).layout != Layout::kImage) {
        return Refuse(StrCat("reads input '", input->name(),
                             "' on the host when prepared, so it must be a constant"));
      }
      if (!runtime->FitsActivationImage(input->shape())) {
        return Refuse(StrCat("input '", input->name(), "' of shape ",
                             ShapeToString(input->shape()), " does not fit an image of ",
                             runtime->device_info().device));
      }
    }
    for (const OutputShape& output : this->def().output_shape()) {
      const std::vector<int64_t> shape(output.dims().begin(), output.dims().end());
      if (!runtime->FitsActivationImage(shape)) {
        return Refuse(StrCat("output shape ", ShapeToString(shape), " does not fit an image of ",
                             runtime->device_info().device));
      }
    }
    return MaceStatus();
  }

  // MACE_UNSUPPORTED naming the op and `why`.
  MaceStatus Refuse(const std::string& why) const {
    return MaceStatus(MaceStatus::MACE_UNSUPPORTED,
                      StrCat(this->Describe(), ": the GPU kernel refuses it: ", why));
  }
};

}  // namespace opencl
}  // namespace mace

#endif  // MACE_OPS_OPENCL_IMAGE_KERNEL_H_
