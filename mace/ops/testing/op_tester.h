// Runs one op in isolation for unit tests: inputs and weights in, outputs out,
// through the same Construct -> Prepare -> Run lifecycle the Net uses.
#ifndef MACE_OPS_TESTING_OP_TESTER_H_
#define MACE_OPS_TESTING_OP_TESTER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "mace/core/op_registry.h"
#include "mace/core/workspace.h"

namespace mace {
namespace ops {
namespace testing {

class OpTester {
 public:
  // `register_fn` registers the op under test, e.g. RegisterConv2D.
  OpTester(const std::string& type, std::function<MaceStatus(OpRegistry*)> register_fn);

  // A non-constant float input (like a model input or an earlier op's output).
  OpTester& Input(const std::string& name, const std::vector<int64_t>& shape,
                  const std::vector<float>& data);
  // A constant float tensor (a weight).
  OpTester& Weight(const std::string& name, const std::vector<int64_t>& shape,
                   const std::vector<float>& data);
  OpTester& IntWeight(const std::string& name, const std::vector<int64_t>& shape,
                      const std::vector<int32_t>& data);
  // uint8 graphs: a non-constant uint8 input with its quantization, a
  // constant uint8 or int8 weight given as bytes (quant may hold
  // channel_scales), and an output with the quantization a converter states
  // in quantize_info (scale 0: none).
  OpTester& QuantizedInput(const std::string& name, const std::vector<int64_t>& shape,
                           const std::vector<uint8_t>& data, float scale, int32_t zero_point);
  OpTester& QuantizedWeight(const std::string& name, DataType dtype,
                            const std::vector<int64_t>& shape, const std::vector<uint8_t>& bytes,
                            const QuantParams& quant);
  OpTester& QuantizedOutput(const std::string& name, float scale, int32_t zero_point);
  // The kernel's data type (the net's "T"): float32 unless set.
  OpTester& KernelType(DataType dtype) {
    kernel_dtype_ = dtype;
    return *this;
  }

  // An optional input left out ("" in OperatorDef.input).
  OpTester& EmptyInput();
  OpTester& Output(const std::string& name, DataType dtype = DT_FLOAT);
  // The shape the model declares for the next output without one
  // (OperatorDef.output_shape), which ops reading shape arguments at run
  // time plan for.
  OpTester& PlannedShape(const std::vector<int64_t>& shape);

  OpTester& Arg(const std::string& name, int64_t value);
  OpTester& Arg(const std::string& name, int value) { return Arg(name, int64_t{value}); }
  OpTester& Arg(const std::string& name, float value);
  OpTester& Arg(const std::string& name, const std::string& value);
  OpTester& Arg(const std::string& name, const char* value) { return Arg(name, std::string(value)); }
  OpTester& Args(const std::string& name, const std::vector<int64_t>& values);
  OpTester& Args(const std::string& name, const std::vector<float>& values);

  // Runs the op on `runtime` (its thread pool and scratch) instead of none.
  OpTester& WithRuntime(Runtime* runtime) {
    runtime_ = runtime;
    return *this;
  }

  // Builds the op and runs Prepare then Run. Returns the first error.
  MaceStatus Run();

  // After Run: gives non-constant float inputs new values (as many as each
  // has), by name, and runs the op again without Prepare, as a net's next
  // run does.
  MaceStatus RunAgain(const std::map<std::string, std::vector<float>>& inputs);
  MaceStatus RunAgain(const std::string& name, const std::vector<float>& data) {
    return RunAgain(std::map<std::string, std::vector<float>>{{name, data}});
  }

  const Tensor& GetOutput(const std::string& name) const;
  std::vector<float> OutputData(const std::string& name) const;
  std::vector<int32_t> OutputInts(const std::string& name) const;
  std::vector<uint8_t> OutputBytes(const std::string& name) const;
  std::vector<int64_t> OutputShape(const std::string& name) const;
  const Operation& op() const { return *op_; }

 private:
  std::string type_;
  OpRegistry registry_;
  MaceStatus register_status_;
  OperatorDef def_;
  Workspace workspace_;
  std::vector<std::vector<uint64_t>> storage_;
  std::unique_ptr<Operation> op_;
  Runtime* runtime_ = nullptr;
  DataType kernel_dtype_ = DT_FLOAT;
};

// Uniform floats in [low, high) from a fixed-seed engine.
std::vector<float> RandomFloats(int64_t count, uint32_t seed, float low = -1.f, float high = 1.f);
int64_t NumElements(const std::vector<int64_t>& shape);

// Expects |a - b| <= atol + rtol * |b| element-wise, reporting the first miss.
void ExpectNear(const std::vector<float>& actual, const std::vector<float>& expected,
                float atol = 1e-5f, float rtol = 1e-5f);

}  // namespace testing
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_TESTING_OP_TESTER_H_
