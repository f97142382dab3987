// The GPU ResizeBilinear and ResizeNearestNeighbor against the CPU
// reference in both storages: up and down, every coordinate mode and
// nearest rounding, sizes and scales, channels not a multiple of 4,
// W = 1, H = 1, batch > 1, an output wider than one work-group.
#include <string>
#include <vector>

#include "mace/runtimes/opencl/testing/gpu_op_test.h"

namespace mace {
namespace testing {
namespace {

struct ResizeCase {
  std::vector<int64_t> input;
  std::vector<int64_t> size;  // empty: the scales
  float height_scale = 0.f, width_scale = 0.f;
};

std::vector<ResizeCase> Cases() {
  return {
      {{1, 3, 4, 5}, {7, 9}},  {{2, 5, 6, 6}, {3, 4}}, {{1, 2, 1, 1}, {3, 5}},
      {{1, 6, 5, 1}, {5, 3}},  {{1, 4, 2, 3}, {}, 2.5f, 6.f}, {{1, 9, 2, 2}, {4, 5}},
  };
}

void AddResizeArgs(OpModel* m, const ResizeCase& c, const std::string& mode) {
  if (!c.size.empty()) {
    AddInts(m->op, "size", c.size);
  } else {
    SetFloat(m->op, "height_scale", c.height_scale);
    SetFloat(m->op, "width_scale", c.width_scale);
  }
  ModelBuilder::SetString(m->op, "coordinate_transformation_mode", mode);
}

using ResizeOpenCLTest = GpuOpTest;

TEST_P(ResizeOpenCLTest, Bilinear) {
  for (const ResizeCase& c : Cases()) {
    for (const char* mode : {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric"}) {
      SCOPED_TRACE(ShapeName(c.input) + " " + mode);
      OpModel m("ResizeBilinear", c.input);
      AddResizeArgs(&m, c, mode);
      ExpectOpOnGpu(m, GetParam());
    }
  }
}

TEST_P(ResizeOpenCLTest, NearestNeighbor) {
  for (const ResizeCase& c : Cases()) {
    for (const char* mode : {"half_pixel", "align_corners", "asymmetric"}) {
      for (const char* rounding : {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"}) {
        SCOPED_TRACE(ShapeName(c.input) + " " + mode + " " + rounding);
        OpModel m("ResizeNearestNeighbor", c.input);
        AddResizeArgs(&m, c, mode);
        ModelBuilder::SetString(m.op, "nearest_mode", rounding);
        ExpectOpOnGpu(m, GetParam());
      }
    }
  }
}

INSTANTIATE_STORAGES(ResizeOpenCLTest);

}  // namespace
}  // namespace testing
}  // namespace mace
