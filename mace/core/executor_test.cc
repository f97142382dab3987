// The Executor default for new input shapes: an executor that plans once
// (a whole-graph DSP executor) runs the shapes it has and refuses others.
#include "mace/core/executor.h"

#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace mace {
namespace {

class FixedExecutor : public Executor {
 public:
  FixedExecutor() : input_("x", DT_FLOAT) { input_.Reshape({1, 4, 16}); }
  MaceStatus Init(const NetDef&, const std::vector<std::string>&) override {
    return MaceStatus();
  }
  MaceStatus Run(RunMetadata*) override { return MaceStatus(); }
  Tensor* InputTensor(const std::string& name) override {
    return name == "x" ? &input_ : nullptr;
  }
  const Tensor* OutputTensor(const std::string&) const override { return nullptr; }
  const MemoryReport& memory_report() const override { return report_; }

 private:
  Tensor input_;
  MemoryReport report_;
};

TEST(ExecutorTest, APlanOnceExecutorRefusesANewShape) {
  FixedExecutor executor;
  EXPECT_TRUE(executor.Reshape({{"x", {1, 4, 16}}}).ok());
  EXPECT_EQ(executor.InputMaxShape("x"), (std::vector<int64_t>{1, 4, 16}));
  const MaceStatus changed = executor.Reshape({{"x", {1, 4, 32}}});
  EXPECT_EQ(changed.code(), MaceStatus::MACE_UNSUPPORTED);
  EXPECT_NE(changed.information().find("only the CPU runtime takes new input shapes"),
            std::string::npos)
      << changed.ToString();
  EXPECT_EQ(executor.Reshape({{"y", {1}}}).code(), MaceStatus::MACE_INVALID_ARGS);
  EXPECT_EQ(executor.InputTensor("x")->shape(), (std::vector<int64_t>{1, 4, 16}));
}

}  // namespace
}  // namespace mace
