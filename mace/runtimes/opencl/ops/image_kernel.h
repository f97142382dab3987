// The storages of the runtime's image kernels: activation input 0 and
// every output in activation images; other inputs (weights) where they
// are. A kernel derives from ImageKernel<its device-neutral base>, e.g.
// ImageKernel<ops::Conv2DBase>. Weights are read on the host only at
// Prepare, to be uploaded. Outputs never share their input's image:
// OpenCL 1.2 leaves a kernel that reads and writes one image undefined.
#ifndef MACE_RUNTIMES_OPENCL_OPS_IMAGE_KERNEL_H_
#define MACE_RUNTIMES_OPENCL_OPS_IMAGE_KERNEL_H_

#include "mace/core/operation.h"
#include "mace/runtimes/opencl/image_layout.h"

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
};

}  // namespace opencl
}  // namespace mace

#endif  // MACE_RUNTIMES_OPENCL_OPS_IMAGE_KERNEL_H_
