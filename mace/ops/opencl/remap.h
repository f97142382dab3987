// The shared kernel of the data-movement ops (cl/remap.cl): each output
// element of an activation image copies one input element, chosen by a
// mode and its parameters. Tensors up to rank 4, as (N, C, H, W).
#ifndef MACE_OPS_OPENCL_REMAP_H_
#define MACE_OPS_OPENCL_REMAP_H_

#include <memory>
#include <string>
#include <vector>

#include "mace/core/operation.h"
#include "mace/core/tensor.h"
#include "mace/runtimes/opencl/image_layout.h"
#include "mace/runtimes/opencl/opencl_runtime.h"
#include "mace/ops/opencl/image_kernel.h"

namespace mace {
namespace opencl {

// The mappings of cl/remap.cl's remap_source.
enum class RemapMode : int {
  kFlat = 0,            // the same row-major index
  kStrided = 1,         // in = a + out * b per dimension
  kPad = 2,             // in = out - a, b.x the pad type; outside: constant
  kChannelShuffle = 3,  // a.x groups, a.y the first shuffled channel
  kDepthToSpace = 4,    // a.x block, a.y CRD
  kSpaceToDepth = 5,    // a.x block, a.y CRD
  kBatchToSpace = 6,    // a = (block_h, block_w, crop_top, crop_left)
  kSpaceToBatch = 7,    // a = (block_h, block_w, pad_top, pad_left)
  kTable = 8,           // rows table[h], columns table[b.x + w]
};

struct RemapArgs {
  RemapMode mode = RemapMode::kFlat;
  cl_int4 a = {{0, 0, 0, 0}};
  cl_int4 b = {{0, 0, 0, 0}};
  float constant = 0.f;
  cl_mem table = nullptr;
};

// A tensor's shape as OpenCL (N, C, H, W).
cl_int4 Dims4(const std::vector<int64_t>& shape);

// Per-dimension values of a tensor of rank <= 4 (one value per dimension)
// at its (N, C, H, W) positions, `fill` elsewhere: rank 1 is C.
cl_int4 PerDimension(const std::vector<int64_t>& values, int64_t fill);

// Four values as a cl_int4.
cl_int4 Int4(int64_t x, int64_t y, int64_t z, int64_t w);

class RemapKernel {
 public:
  MaceStatus Prepare(Runtime* runtime);
  // Fills `output` (its shape set) from `input` as `args` say.
  MaceStatus Run(const Tensor& input, const Tensor& output, const RemapArgs& args);

 private:
  Kernel kernel_;
};

// Copies `values` into a new device buffer (GPU_BUFFER) for a kernel's
// __global const argument.
template <typename T>
MaceStatus UploadTable(Runtime* runtime, const std::vector<T>& values,
                       std::unique_ptr<Memory>* table);

// Uploads `data`, the dense elements of a tensor of `shape` (a weight
// rearranged or seen under another shape), into a new image of `kind`.
MaceStatus UploadWeightAs(Runtime* runtime, ImageKind kind, const std::string& name,
                          const std::vector<int64_t>& shape, const float* data,
                          std::unique_ptr<Memory>* image);

// INVALID_ARGS naming `op` unless input 0 and every output are float32
// tensors of rank 4 or less (what activation images hold).
MaceStatus CheckImageTensors(const Operation& op);

// For kernels that run one work-item per output pixel: checks the tensors
// (CheckImageTensors) and creates kernel `name` on the first call.
MaceStatus PrepareImageKernel(const Operation& op, const char* name, Kernel* kernel);

// Runs `kernel` (its arguments set) over the image of `op`'s output 0;
// `work_per_item` as for OpenCLRuntime::Enqueue2D.
MaceStatus RunOverOutput(const Operation& op, Kernel* kernel, double work_per_item = 0);

// A data-movement op on the GPU: Base (the op's device-neutral base)
// parses the arguments and sets the output shapes; the op says which
// remap fills each output.
template <typename Base>
class RemapOp : public ImageKernel<Base> {
 public:
  MaceStatus PrepareKernel(OpContext* /*context*/) override {
    MACE_RETURN_IF_ERROR(this->InferShapes());
    MACE_RETURN_IF_ERROR(CheckImageTensors(*this));
    MACE_RETURN_IF_ERROR(PrepareRemap());
    return remap_.Prepare(this->runtime());
  }

  MaceStatus Run(OpContext* /*context*/) override {
    for (int i = 0; i < this->OutputSize(); ++i) {
      MACE_RETURN_IF_ERROR(remap_.Run(*this->Input(0), *this->Output(i), ArgsFor(i)));
    }
    return MaceStatus();
  }

 protected:
  // Called after the shapes are known, e.g. to upload a table.
  virtual MaceStatus PrepareRemap() { return MaceStatus(); }
  virtual RemapArgs ArgsFor(int output) const = 0;

 private:
  RemapKernel remap_;
};

}  // namespace opencl
}  // namespace mace

#endif  // MACE_OPS_OPENCL_REMAP_H_
