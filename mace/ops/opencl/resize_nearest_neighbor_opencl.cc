// ResizeNearestNeighbor on the OpenCL runtime: every coordinate and
// rounding mode. The source row of each output row and the source column
// of each output column are computed on the host, by the CPU kernel's own
// function, into a table the remap reads.
#include <memory>
#include <vector>

#include "mace/ops/ref/resize_nearest_neighbor.h"
#include "mace/ops/resize_nearest_neighbor.h"
#include "mace/ops/opencl/kernels.h"
#include "mace/ops/opencl/remap.h"

namespace mace {
namespace opencl {
namespace {

class ResizeNearestNeighborOpenCL : public RemapOp<ops::ResizeNearestNeighborBase> {
 protected:
  MaceStatus PrepareRemap() override {
    const ops::ref::ResizeNearestNeighborParams& p = params();
    std::vector<cl_int> table;
    for (int64_t y = 0; y < p.out_h; ++y) {
      table.push_back(static_cast<cl_int>(
          ops::ref::NearestSourceIndex(p.mode, p.nearest_mode, y, p.in_h, p.out_h, p.scale_h)));
    }
    for (int64_t x = 0; x < p.out_w; ++x) {
      table.push_back(static_cast<cl_int>(
          ops::ref::NearestSourceIndex(p.mode, p.nearest_mode, x, p.in_w, p.out_w, p.scale_w)));
    }
    if (table != host_table_ || table_ == nullptr) {
      MACE_RETURN_IF_ERROR(UploadTable(runtime(), table, &table_));
      host_table_ = table;
    }
    return MaceStatus();
  }

  RemapArgs ArgsFor(int /*output*/) const override {
    RemapArgs args;
    args.mode = RemapMode::kTable;
    args.b = Int4(params().out_h, 0, 0, 0);
    args.table = static_cast<cl_mem>(table_->device_handle());
    return args;
  }

 private:
  std::vector<cl_int> host_table_;
  std::unique_ptr<Memory> table_;
};

}  // namespace

MaceStatus RegisterResizeNearestNeighborOpenCL(OpRegistry* registry) {
  return RegisterOp<ResizeNearestNeighborOpenCL>(registry, "ResizeNearestNeighbor",
                                                 DeviceType::GPU, DT_FLOAT);
}

}  // namespace opencl
}  // namespace mace
