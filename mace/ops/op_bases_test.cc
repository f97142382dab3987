// The device-neutral op bases serve kernels of other devices and data types
// as they are: a stand-in kernel of another type that only derives from an
// op's base (as an OpenCL one would) gets the CPU kernel's output shapes and
// its argument errors, and its type checks follow its own kernel type.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "mace/core/workspace.h"
#include "mace/ops/batch_to_space_nd.h"
#include "mace/ops/channel_shuffle.h"
#include "mace/ops/concat.h"
#include "mace/ops/depth_to_space.h"
#include "mace/ops/identity.h"
#include "mace/ops/pad.h"
#include "mace/ops/registry.h"
#include "mace/ops/reshape.h"
#include "mace/ops/resize_bilinear.h"
#include "mace/ops/resize_nearest_neighbor.h"
#include "mace/ops/slice.h"
#include "mace/ops/space_to_batch_nd.h"
#include "mace/ops/space_to_depth.h"
#include "mace/ops/split.h"
#include "mace/ops/squeeze.h"
#include "mace/ops/transpose.h"

namespace mace {
namespace ops {
namespace {

// A kernel that has nothing but its base: shapes, no computation.
template <typename Base>
class ShapeOnlyKernel final : public Base {
 public:
  MaceStatus Prepare(OpContext* /*context*/) override { return this->InferShapes(); }
  MaceStatus Run(OpContext* /*context*/) override { return MaceStatus(); }
};

template <typename Base>
std::unique_ptr<Operation> NewShapeOnly() {
  return std::make_unique<ShapeOnlyKernel<Base>>();
}

struct OpCase {
  std::string type;
  std::function<std::unique_ptr<Operation>()> shape_only;
  std::vector<std::vector<int64_t>> input_shapes;
  std::vector<Argument> args;
  int outputs = 1;
};

Argument IntArg(const std::string& name, int64_t value) {
  Argument arg;
  arg.set_name(name);
  arg.set_i(value);
  return arg;
}

Argument IntsArg(const std::string& name, const std::vector<int64_t>& values) {
  Argument arg;
  arg.set_name(name);
  for (int64_t v : values) arg.add_ints(v);
  return arg;
}

Argument StringArg(const std::string& name, const std::string& value) {
  Argument arg;
  arg.set_name(name);
  arg.set_s(value);
  return arg;
}

// Constructs `op` as a kernel of `kernel_dtype` on inputs of `input_dtype`
// with the case's shapes, prepares it and returns its output shapes.
MaceStatus PrepareShapes(const OpCase& c, std::unique_ptr<Operation> op, DataType kernel_dtype,
                         DataType input_dtype, std::vector<std::vector<int64_t>>* output_shapes) {
  Workspace workspace;
  OperatorDef def;
  def.set_type(c.type);
  def.set_name("op");
  for (size_t i = 0; i < c.input_shapes.size(); ++i) {
    const std::string name = "x" + std::to_string(i);
    workspace.CreateTensor(name, input_dtype)->Reshape(c.input_shapes[i]);
    def.add_input(name);
  }
  for (int i = 0; i < c.outputs; ++i) def.add_output("y" + std::to_string(i));
  for (const Argument& arg : c.args) *def.add_arg() = arg;
  op->set_kernel_dtype(kernel_dtype);
  MACE_RETURN_IF_ERROR(op->Construct(def, &workspace));
  OpContext context;
  context.workspace = &workspace;
  MACE_RETURN_IF_ERROR(op->Prepare(&context));
  output_shapes->clear();
  for (int i = 0; i < op->OutputSize(); ++i) output_shapes->push_back(op->Output(i)->shape());
  return MaceStatus();
}

std::unique_ptr<Operation> CpuKernel(const std::string& type) {
  OpRegistry registry;
  EXPECT_TRUE(RegisterAllOps(&registry).ok());
  return registry.Create(type, DeviceType::CPU, DT_FLOAT);
}

std::vector<OpCase> Cases() {
  return {
      {"BatchToSpaceND",
       NewShapeOnly<BatchToSpaceNDBase>,
       {{8, 3, 2, 5}},
       {IntsArg("block_shape", {2, 2}), IntsArg("crops", {0, 1, 1, 0})}},
      {"ChannelShuffle", NewShapeOnly<ChannelShuffleBase>, {{1, 6, 2, 3}}, {IntArg("group", 3)}},
      {"Concat", NewShapeOnly<ConcatBase>, {{2, 3, 4}, {2, 5, 4}}, {IntArg("axis", -2)}},
      {"DepthToSpace",
       NewShapeOnly<DepthToSpaceBase>,
       {{1, 8, 3, 2}},
       {IntArg("block_size", 2), StringArg("mode", "CRD")}},
      {"Identity", NewShapeOnly<IdentityBase>, {{3, 1, 7}}, {}},
      {"Pad", NewShapeOnly<PadBase>, {{2, 3}}, {IntsArg("paddings", {1, 0, 2, 3})}},
      {"Reshape", NewShapeOnly<ReshapeBase>, {{2, 3, 4}}, {IntsArg("shape", {0, -1, 2})}},
      {"ResizeBilinear",
       NewShapeOnly<ResizeBilinearBase>,
       {{1, 2, 3, 5}},
       {IntsArg("size", {7, 4})}},
      {"ResizeNearestNeighbor",
       NewShapeOnly<ResizeNearestNeighborBase>,
       {{1, 2, 3, 5}},
       {IntsArg("size", {6, 10})}},
      {"Slice",
       NewShapeOnly<SliceBase>,
       {{4, 6}},
       {IntsArg("starts", {-1, 1}), IntsArg("ends", {-5, 100}), IntsArg("steps", {-2, 2})}},
      {"SpaceToBatchND",
       NewShapeOnly<SpaceToBatchNDBase>,
       {{1, 2, 3, 5}},
       {IntsArg("block_shape", {2, 3}), IntsArg("paddings", {1, 0, 0, 1})}},
      {"SpaceToDepth", NewShapeOnly<SpaceToDepthBase>, {{1, 2, 4, 6}}, {IntArg("block_size", 2)}},
      {"Split", NewShapeOnly<SplitBase>, {{2, 7, 3}}, {IntsArg("split", {2, 5})}, 2},
      {"Squeeze", NewShapeOnly<SqueezeBase>, {{1, 3, 1, 2}}, {}},
      {"Transpose", NewShapeOnly<TransposeBase>, {{2, 3, 4}}, {IntsArg("dims", {1, 2, 0})}},
  };
}

TEST(OpBasesTest, AnotherKernelTypeGetsTheCpuKernelsShapes) {
  for (const OpCase& c : Cases()) {
    SCOPED_TRACE(c.type);
    std::vector<std::vector<int64_t>> cpu_shapes, other_shapes;
    const MaceStatus cpu = PrepareShapes(c, CpuKernel(c.type), DT_FLOAT, DT_FLOAT, &cpu_shapes);
    ASSERT_TRUE(cpu.ok()) << cpu.information();
    const MaceStatus other = PrepareShapes(c, c.shape_only(), DT_UINT8, DT_UINT8, &other_shapes);
    ASSERT_TRUE(other.ok()) << other.information();
    EXPECT_EQ(other_shapes, cpu_shapes);
  }
}

TEST(OpBasesTest, AnotherKernelTypeGetsTheCpuKernelsErrors) {
  for (const OpCase& good : Cases()) {
    if (good.type == "Identity") continue;  // checks nothing
    SCOPED_TRACE(good.type);
    // An empty input fails the same way with either kernel, but in the ops
    // that take empty tensors (Split, and Slice, which a selection such as
    // NonMaxSuppression's may leave empty).
    const bool takes_empty = good.type == "Split" || good.type == "Slice";
    OpCase c = good;
    c.input_shapes[0][0] = 0;
    std::vector<std::vector<int64_t>> shapes;
    const MaceStatus cpu = PrepareShapes(c, CpuKernel(c.type), DT_FLOAT, DT_FLOAT, &shapes);
    const MaceStatus other = PrepareShapes(c, c.shape_only(), DT_UINT8, DT_UINT8, &shapes);
    ASSERT_EQ(cpu.ok(), takes_empty) << cpu.information();
    EXPECT_EQ(other.code(), cpu.code());
    EXPECT_EQ(other.information(), cpu.information());
  }
}

TEST(OpBasesTest, TypeChecksFollowTheKernelType) {
  for (const OpCase& c : Cases()) {
    if (c.type == "Identity") continue;  // takes any type
    SCOPED_TRACE(c.type);
    std::vector<std::vector<int64_t>> shapes;
    const MaceStatus status = PrepareShapes(c, c.shape_only(), DT_UINT8, DT_INT8, &shapes);
    EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS);
    // Data-movement ops also move float32 and int32 (shape subgraphs).
    const bool moves = c.type == "Concat" || c.type == "Split" || c.type == "Slice" ||
                       c.type == "Reshape" || c.type == "Squeeze" || c.type == "Transpose";
    const std::string expected =
        moves ? "is int8 but must be uint8, float32 or int32" : "is int8 but must be uint8";
    EXPECT_NE(status.information().find(expected), std::string::npos) << status.information();
  }
}

}  // namespace
}  // namespace ops
}  // namespace mace
