// Inputs with dynamic dimensions (InputOutputInfo.max_dims): a CPU engine
// plans memory again whenever a run brings new input shapes, and every run
// must equal a plain reference at its own shape, whatever ran before. Shapes
// outside the declared ranges, and shapes too large to plan, are refused
// with a status, after which the engine still runs. A runtime other than the
// CPU refuses any new shape.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "mace/proto/mace.pb.h"
#include "mace/public/mace.h"
#include "test/model_builder.h"
#include "test/nhwc_test_runtime.h"

namespace mace {
namespace {

constexpr int kIn = 3;   // input channels
constexpr int kMid = 4;  // channels after the first convolution
constexpr int kOut = 5;  // features of the fully connected layer

struct Weights {
  std::vector<float> w1, b1, w2, b2, w3, b3;
};

Weights MakeWeights() {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  Weights w;
  w.w1.resize(kMid * kIn * 3 * 3);
  w.b1.resize(kMid);
  w.w2.resize(kMid * kMid);
  w.b2.resize(kMid);
  w.w3.resize(kOut * kMid);
  w.b3.resize(kOut);
  for (auto* v : {&w.w1, &w.b1, &w.w2, &w.b2, &w.w3, &w.b3}) {
    for (float& x : *v) x = dist(rng);
  }
  return w;
}

// x[N,3,H,W] -> Conv2D 3x3 pad 1 + RELU -> MaxPool 2x2/2 -> p
// p -> Conv2D 1x1 -> c2;  y = p + c2;  g = global AvgPool(y)
// f = FullyConnected(g), whose input keeps its shape while only H and W
// change (the re-plan then leaves it as it was).
// Planned at [1,3,8,10]; N takes 1..3, H and W 1..`max_hw`.
struct DynamicModel : testing::ModelBuilder {
  explicit DynamicModel(int64_t max_hw = 40) {
    net.set_name("dynamic");
    InputOutputInfo* input = net.add_input_info();
    input->set_name("x");
    for (int64_t d : {1, kIn, 8, 10}) input->add_dims(d);
    for (int64_t d : {int64_t{3}, int64_t{kIn}, max_hw, max_hw}) input->add_max_dims(d);
    net.add_output_info()->set_name("y");
    net.add_output_info()->set_name("g");
    net.add_output_info()->set_name("f");
    const Weights w = MakeWeights();
    AddWeight("w1", {kMid, kIn, 3, 3}, w.w1);
    AddWeight("b1", {kMid}, w.b1);
    AddWeight("w2", {kMid, kMid, 1, 1}, w.w2);
    AddWeight("b2", {kMid}, w.b2);
    AddWeight("w3", {kOut, kMid}, w.w3);
    AddWeight("b3", {kOut}, w.b3);
    OperatorDef* conv = AddOp("Conv2D", "conv1", {"x", "w1", "b1"}, "c1");
    SetString(conv, "activation", "RELU");
    SetInts(conv, "pads", {1, 1, 1, 1});
    OperatorDef* pool = AddOp("Pooling", "pool", {"c1"}, "p");
    SetInt(pool, "pooling_type", 2);
    SetInts(pool, "kernels", {2, 2});
    SetInts(pool, "strides", {2, 2});
    AddOp("Conv2D", "conv2", {"p", "w2", "b2"}, "c2");
    SetInt(AddOp("Eltwise", "add", {"p", "c2"}, "y"), "type", 0);
    OperatorDef* global = AddOp("Pooling", "gap", {"y"}, "g");
    SetInt(global, "pooling_type", 1);
    SetInt(global, "global", 1);
    AddOp("FullyConnected", "fc", {"g", "w3", "b3"}, "f");
  }

  static void SetInts(OperatorDef* op, const std::string& name, std::vector<int64_t> values) {
    Argument* arg = op->add_arg();
    arg->set_name(name);
    for (int64_t v : values) arg->add_ints(v);
  }

  MaceStatus Create(std::shared_ptr<MaceEngine>* engine,
                    const MaceEngineConfig& config = MaceEngineConfig()) const {
    return CreateEngine({"x"}, {"y", "g", "f"}, config, engine);
  }
};

struct Reference {
  std::vector<int64_t> y_shape, g_shape, f_shape;
  std::vector<float> y, g, f;
};

// The model in plain loops, in double.
Reference Compute(const std::vector<int64_t>& shape, const std::vector<float>& x) {
  const Weights w = MakeWeights();
  const int64_t n = shape[0], h = shape[2], wd = shape[3];
  const int64_t ph = h / 2, pw = wd / 2;
  std::vector<double> c1(n * kMid * h * wd);
  for (int64_t b = 0; b < n; ++b) {
    for (int o = 0; o < kMid; ++o) {
      for (int64_t i = 0; i < h; ++i) {
        for (int64_t j = 0; j < wd; ++j) {
          double sum = w.b1[o];
          for (int c = 0; c < kIn; ++c) {
            for (int ki = 0; ki < 3; ++ki) {
              for (int kj = 0; kj < 3; ++kj) {
                const int64_t yi = i + ki - 1, xj = j + kj - 1;
                if (yi < 0 || yi >= h || xj < 0 || xj >= wd) continue;
                sum += double{w.w1[((o * kIn + c) * 3 + ki) * 3 + kj]} *
                       x[((b * kIn + c) * h + yi) * wd + xj];
              }
            }
          }
          c1[((b * kMid + o) * h + i) * wd + j] = std::max(0.0, sum);
        }
      }
    }
  }
  std::vector<double> p(n * kMid * ph * pw);
  for (int64_t bc = 0; bc < n * kMid; ++bc) {
    for (int64_t i = 0; i < ph; ++i) {
      for (int64_t j = 0; j < pw; ++j) {
        double m = c1[(bc * h + 2 * i) * wd + 2 * j];
        for (int a = 0; a < 2; ++a) {
          for (int e = 0; e < 2; ++e) m = std::max(m, c1[(bc * h + 2 * i + a) * wd + 2 * j + e]);
        }
        p[(bc * ph + i) * pw + j] = m;
      }
    }
  }
  Reference ref;
  ref.y_shape = {n, kMid, ph, pw};
  ref.g_shape = {n, kMid, 1, 1};
  ref.y.resize(p.size());
  ref.g.assign(n * kMid, 0.f);
  for (int64_t b = 0; b < n; ++b) {
    for (int o = 0; o < kMid; ++o) {
      double total = 0;
      for (int64_t s = 0; s < ph * pw; ++s) {
        double sum = w.b2[o];
        for (int c = 0; c < kMid; ++c) sum += double{w.w2[o * kMid + c]} * p[(b * kMid + c) * ph * pw + s];
        const double y = p[(b * kMid + o) * ph * pw + s] + sum;
        ref.y[(b * kMid + o) * ph * pw + s] = static_cast<float>(y);
        total += y;
      }
      ref.g[b * kMid + o] = static_cast<float>(total / (ph * pw));
    }
  }
  ref.f_shape = {n, kOut, 1, 1};
  ref.f.resize(n * kOut);
  for (int64_t b = 0; b < n; ++b) {
    for (int o = 0; o < kOut; ++o) {
      double sum = w.b3[o];
      for (int c = 0; c < kMid; ++c) sum += double{w.w3[o * kMid + c]} * ref.g[b * kMid + c];
      ref.f[b * kOut + o] = static_cast<float>(sum);
    }
  }
  return ref;
}

std::vector<float> RandomInput(const std::vector<int64_t>& shape, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  std::vector<float> x(count);
  for (float& v : x) v = dist(rng);
  return x;
}

std::map<std::string, MaceTensor> Inputs(const std::vector<int64_t>& shape,
                                         const std::vector<float>& x) {
  std::shared_ptr<float> data(new float[std::max<size_t>(x.size(), 1)],
                              std::default_delete<float[]>());
  std::copy(x.begin(), x.end(), data.get());
  return {{"x", MaceTensor(shape, data)}};
}

void ExpectNear(const MaceTensor& got, const std::vector<int64_t>& shape,
                const std::vector<float>& expected, const std::string& what) {
  ASSERT_EQ(got.shape(), shape) << what;
  ASSERT_EQ(got.size(), static_cast<int64_t>(expected.size())) << what;
  for (size_t i = 0; i < expected.size(); ++i) {
    ASSERT_NEAR(got.data().get()[i], expected[i], 1e-4f * (1.f + std::fabs(expected[i])))
        << what << " element " << i;
  }
}

// Runs `shape` on `engine` and checks the outputs against the reference;
// into `reused` (the output map of earlier runs, as an app keeps it) if set.
void RunAndCheck(MaceEngine* engine, const std::vector<int64_t>& shape, uint32_t seed,
                 std::map<std::string, MaceTensor>* reused = nullptr) {
  const std::vector<float> x = RandomInput(shape, seed);
  std::map<std::string, MaceTensor> fresh;
  std::map<std::string, MaceTensor>& outputs = reused != nullptr ? *reused : fresh;
  const MaceStatus status = engine->Run(Inputs(shape, x), &outputs);
  ASSERT_TRUE(status.ok()) << status.ToString();
  const Reference ref = Compute(shape, x);
  const std::string what = "shape " + std::to_string(shape[0]) + "x" + std::to_string(shape[2]) +
                           "x" + std::to_string(shape[3]);
  ExpectNear(outputs.at("y"), ref.y_shape, ref.y, what + " y");
  ExpectNear(outputs.at("g"), ref.g_shape, ref.g, what + " g");
  ExpectNear(outputs.at("f"), ref.f_shape, ref.f, what + " f");
  std::map<std::string, std::vector<int64_t>> shapes;
  ASSERT_TRUE(engine->GetInputShapes(&shapes).ok());
  EXPECT_EQ(shapes.at("x"), shape);
}

int64_t Replans(const MaceEngine& engine) {
  MemoryReport report;
  EXPECT_TRUE(engine.GetMemoryReport(&report).ok());
  return report.replans;
}

TEST(DynamicShapeTest, AlternatingShapesEachMatchTheReference) {
  for (const MemoryStrategy strategy :
       {MemoryStrategy::GREEDY_BY_SIZE, MemoryStrategy::GREEDY_BY_BREADTH}) {
    DynamicModel model;
    MaceEngineConfig config;
    config.SetMemoryStrategy(strategy);
    std::shared_ptr<MaceEngine> engine;
    const MaceStatus status = model.Create(&engine, config);
    ASSERT_TRUE(status.ok()) << status.ToString();
    std::map<std::string, std::vector<int64_t>> max_shapes;
    ASSERT_TRUE(engine->GetInputMaxShapes(&max_shapes).ok());
    EXPECT_EQ(max_shapes.at("x"), (std::vector<int64_t>{3, kIn, 40, 40}));
    const std::vector<std::vector<int64_t>> shapes = {
        {1, kIn, 8, 10},  {2, kIn, 17, 9}, {1, kIn, 8, 10},  {3, kIn, 40, 40},
        {2, kIn, 17, 9},  {1, kIn, 2, 3},  {1, kIn, 2, 33}, {3, kIn, 40, 40},
        {3, kIn, 12, 7},
    };
    uint32_t seed = 1;
    for (const auto& shape : shapes) RunAndCheck(engine.get(), shape, seed++);
    // Eight changes after the planned shape (the first run is the planned one).
    EXPECT_EQ(Replans(*engine), 8);
  }
}

TEST(DynamicShapeTest, TheSameShapeAgainPlansNothing) {
  DynamicModel model;
  std::shared_ptr<MaceEngine> engine;
  ASSERT_TRUE(model.Create(&engine).ok());
  MemoryReport planned;
  ASSERT_TRUE(engine->GetMemoryReport(&planned).ok());
  RunAndCheck(engine.get(), {1, kIn, 8, 10}, 1);
  RunAndCheck(engine.get(), {1, kIn, 8, 10}, 2);
  EXPECT_EQ(Replans(*engine), 0);
  RunAndCheck(engine.get(), {3, kIn, 40, 40}, 3);
  RunAndCheck(engine.get(), {3, kIn, 40, 40}, 4);
  RunAndCheck(engine.get(), {3, kIn, 40, 40}, 5);
  EXPECT_EQ(Replans(*engine), 1);
  MemoryReport large;
  ASSERT_TRUE(engine->GetMemoryReport(&large).ok());
  // The plan follows the shapes: 45 times the pixels, 3 times the batch.
  EXPECT_GT(large.arena_bytes, 20 * planned.arena_bytes);
  RunAndCheck(engine.get(), {1, kIn, 8, 10}, 6);
  MemoryReport back;
  ASSERT_TRUE(engine->GetMemoryReport(&back).ok());
  EXPECT_EQ(back.arena_bytes, planned.arena_bytes);
  EXPECT_EQ(back.replans, 2);
}

TEST(DynamicShapeTest, OutputBuffersOfAnEarlierShapeAreReplaced) {
  DynamicModel model;
  std::shared_ptr<MaceEngine> engine;
  ASSERT_TRUE(model.Create(&engine).ok());
  std::map<std::string, MaceTensor> outputs;
  uint32_t seed = 1;
  for (const std::vector<int64_t>& shape :
       {std::vector<int64_t>{1, kIn, 8, 10}, std::vector<int64_t>{3, kIn, 40, 40},
        std::vector<int64_t>{3, kIn, 40, 40}, std::vector<int64_t>{2, kIn, 5, 6}}) {
    RunAndCheck(engine.get(), shape, seed++, &outputs);
  }
}

TEST(DynamicShapeTest, ShapesOutsideTheDeclaredRangesAreRefused) {
  DynamicModel model;
  std::shared_ptr<MaceEngine> engine;
  ASSERT_TRUE(model.Create(&engine).ok());
  RunAndCheck(engine.get(), {2, kIn, 17, 9}, 1);
  struct Case {
    std::vector<int64_t> shape;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{1, kIn, 41, 10}, "dynamic dimension 2 takes 1 to 40"},
      {{4, kIn, 8, 10}, "dynamic dimension 0 takes 1 to 3"},
      {{1, kIn, 0, 10}, "dynamic dimension 2 takes 1 to 40"},
      {{1, kIn + 1, 8, 10}, "dimension 1 is fixed at 3"},
      {{1, kIn, 8}, "(4 dimensions)"},
      {{1, kIn, int64_t{1} << 40, int64_t{1} << 40}, "dynamic dimension 2 takes 1 to 40"},
      {{1, kIn, -5, 10}, "dynamic dimension 2 takes 1 to 40"},
  };
  for (const Case& c : cases) {
    std::map<std::string, MaceTensor> outputs;
    std::shared_ptr<float> data(new float[1], std::default_delete<float[]>());
    const MaceStatus status = engine->Run({{"x", MaceTensor(c.shape, data)}}, &outputs);
    EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS) << status.ToString();
    EXPECT_NE(status.information().find(c.message), std::string::npos) << status.ToString();
  }
  // Nothing was re-planned for them, and the engine runs on.
  std::map<std::string, std::vector<int64_t>> shapes;
  ASSERT_TRUE(engine->GetInputShapes(&shapes).ok());
  EXPECT_EQ(shapes.at("x"), (std::vector<int64_t>{2, kIn, 17, 9}));
  EXPECT_EQ(Replans(*engine), 1);
  RunAndCheck(engine.get(), {1, kIn, 8, 10}, 2);
}

TEST(DynamicShapeTest, HostileRangesAndPlansFailCleanly) {
  // A declared range whose largest input would not fit any arena.
  {
    DynamicModel model(int64_t{1} << 30);
    std::shared_ptr<MaceEngine> engine;
    const MaceStatus status = model.Create(&engine);
    EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS) << status.ToString();
    EXPECT_NE(status.information().find("more than"), std::string::npos) << status.ToString();
  }
  // max_dims below the planned shape, or of another rank.
  for (const std::vector<int64_t>& max : {std::vector<int64_t>{1, kIn, 4, 40},
                                          std::vector<int64_t>{1, kIn, 40}}) {
    DynamicModel model;
    model.net.mutable_input_info(0)->clear_max_dims();
    for (int64_t d : max) model.net.mutable_input_info(0)->add_max_dims(d);
    std::shared_ptr<MaceEngine> engine;
    const MaceStatus status = model.Create(&engine);
    EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS) << status.ToString();
  }
  // A shape inside the range whose plan exceeds the engine's memory limit:
  // refused, and the next shape that fits plans and runs. (The range stays
  // within what a 32-bit target can address: 36 MiB for the largest input.)
  DynamicModel model(1024);
  MaceEngineConfig config;
  config.SetMemoryLimit(8 << 20);
  std::shared_ptr<MaceEngine> engine;
  ASSERT_TRUE(model.Create(&engine, config).ok());
  std::map<std::string, MaceTensor> outputs;
  const std::vector<int64_t> huge = {3, kIn, 1024, 1024};
  std::shared_ptr<float> data(new float[1], std::default_delete<float[]>());
  const MaceStatus status = engine->Run({{"x", MaceTensor(huge, data)}}, &outputs);
  EXPECT_EQ(status.code(), MaceStatus::MACE_OUT_OF_RESOURCES) << status.ToString();
  RunAndCheck(engine.get(), {2, kIn, 17, 9}, 3);
  RunAndCheck(engine.get(), {1, kIn, 8, 10}, 4);
  // A shape in range that an op cannot take (the 2x2 pooling of a 1x1
  // plane) fails naming the op; the net is left unplanned, and the next
  // shape that fits plans again, even the one planned before.
  const std::vector<int64_t> tiny = {1, kIn, 1, 1};
  const MaceStatus refused = engine->Run(Inputs(tiny, RandomInput(tiny, 5)), &outputs);
  EXPECT_EQ(refused.code(), MaceStatus::MACE_INVALID_ARGS) << refused.ToString();
  EXPECT_NE(refused.information().find("Pooling 'pool'"), std::string::npos)
      << refused.ToString();
  RunAndCheck(engine.get(), {1, kIn, 8, 10}, 6);
  RunAndCheck(engine.get(), {2, kIn, 17, 9}, 7);
}

TEST(DynamicShapeTest, APlainModelStillRefusesAnotherShape) {
  DynamicModel model;
  model.net.mutable_input_info(0)->clear_max_dims();
  std::shared_ptr<MaceEngine> engine;
  ASSERT_TRUE(model.Create(&engine).ok());
  std::map<std::string, MaceTensor> outputs;
  const std::vector<int64_t> shape = {1, kIn, 8, 12};
  const MaceStatus status = engine->Run(Inputs(shape, RandomInput(shape, 1)), &outputs);
  EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS);
  EXPECT_NE(status.information().find("has shape [1,3,8,12] but the model expects [1,3,8,10]"),
            std::string::npos)
      << status.ToString();
  RunAndCheck(engine.get(), {1, kIn, 8, 10}, 2);
}

class DeviceDynamicShapeTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { testing::InstallNhwcTestRuntime(); }
};

TEST_F(DeviceDynamicShapeTest, ADeviceRuntimeRefusesANewShape) {
  // The stand-in GPU runtime runs the Eltwise: the net spans two runtimes,
  // and only the CPU's plans again.
  DynamicModel model;
  std::shared_ptr<MaceEngine> engine;
  ASSERT_TRUE(model.Create(&engine, MaceEngineConfig(DeviceType::GPU)).ok());
  RunAndCheck(engine.get(), {1, kIn, 8, 10}, 1);
  std::map<std::string, MaceTensor> outputs;
  const std::vector<int64_t> shape = {2, kIn, 17, 9};
  const MaceStatus status = engine->Run(Inputs(shape, RandomInput(shape, 2)), &outputs);
  EXPECT_EQ(status.code(), MaceStatus::MACE_UNSUPPORTED) << status.ToString();
  EXPECT_NE(status.information().find("only the CPU runtime takes new input shapes"),
            std::string::npos)
      << status.ToString();
  RunAndCheck(engine.get(), {1, kIn, 8, 10}, 3);
}

}  // namespace
}  // namespace mace
