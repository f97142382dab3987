#include "mace/ops/testing/op_tester.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "gtest/gtest.h"

namespace mace {
namespace ops {
namespace testing {

OpTester::OpTester(const std::string& type, std::function<MaceStatus(OpRegistry*)> register_fn)
    : type_(type) {
  register_status_ = register_fn(&registry_);
  def_.set_type(type);
  def_.set_name("op_under_test");
}

OpTester& OpTester::Input(const std::string& name, const std::vector<int64_t>& shape,
                          const std::vector<float>& data) {
  Tensor* tensor = workspace_.CreateTensor(name, DT_FLOAT);
  tensor->Reshape(shape);
  tensor->AllocateOwned();
  EXPECT_EQ(static_cast<int64_t>(data.size()), tensor->size()) << "input " << name;
  // std::copy_n, unlike memcpy, is defined for an empty range of null pointers.
  std::copy_n(data.begin(), std::min<int64_t>(data.size(), tensor->size()),
              tensor->mutable_data<float>());
  def_.add_input(name);
  return *this;
}

OpTester& OpTester::Weight(const std::string& name, const std::vector<int64_t>& shape,
                           const std::vector<float>& data) {
  Tensor* tensor = workspace_.CreateTensor(name, DT_FLOAT);
  tensor->Reshape(shape);
  EXPECT_EQ(static_cast<int64_t>(data.size()), tensor->size()) << "weight " << name;
  storage_.emplace_back((data.size() * sizeof(float) + 7) / 8 + 1);
  std::copy(data.begin(), data.end(), reinterpret_cast<float*>(storage_.back().data()));
  tensor->SetConstBuffer(storage_.back().data(), data.size() * sizeof(float));
  def_.add_input(name);
  return *this;
}

OpTester& OpTester::IntWeight(const std::string& name, const std::vector<int64_t>& shape,
                              const std::vector<int32_t>& data) {
  Tensor* tensor = workspace_.CreateTensor(name, DT_INT32);
  tensor->Reshape(shape);
  EXPECT_EQ(static_cast<int64_t>(data.size()), tensor->size()) << "weight " << name;
  storage_.emplace_back((data.size() * sizeof(int32_t) + 7) / 8 + 1);
  std::copy(data.begin(), data.end(), reinterpret_cast<int32_t*>(storage_.back().data()));
  tensor->SetConstBuffer(storage_.back().data(), data.size() * sizeof(int32_t));
  def_.add_input(name);
  return *this;
}

OpTester& OpTester::QuantizedInput(const std::string& name, const std::vector<int64_t>& shape,
                                   const std::vector<uint8_t>& data, float scale,
                                   int32_t zero_point) {
  Tensor* tensor = workspace_.CreateTensor(name, DT_UINT8);
  tensor->Reshape(shape);
  tensor->AllocateOwned();
  tensor->SetQuantization(scale, zero_point);
  EXPECT_EQ(static_cast<int64_t>(data.size()), tensor->size()) << "input " << name;
  std::copy_n(data.begin(), std::min<int64_t>(data.size(), tensor->size()),
              tensor->mutable_data<uint8_t>());
  def_.add_input(name);
  return *this;
}

OpTester& OpTester::QuantizedWeight(const std::string& name, DataType dtype,
                                    const std::vector<int64_t>& shape,
                                    const std::vector<uint8_t>& bytes, const QuantParams& quant) {
  Tensor* tensor = workspace_.CreateTensor(name, dtype);
  tensor->Reshape(shape);
  tensor->SetQuantization(quant);
  EXPECT_EQ(static_cast<int64_t>(bytes.size()), tensor->size()) << "weight " << name;
  storage_.emplace_back(bytes.size() / 8 + 1);
  std::copy(bytes.begin(), bytes.end(), reinterpret_cast<uint8_t*>(storage_.back().data()));
  tensor->SetConstBuffer(storage_.back().data(), bytes.size());
  def_.add_input(name);
  return *this;
}

OpTester& OpTester::QuantizedOutput(const std::string& name, float scale, int32_t zero_point) {
  def_.add_output(name);
  def_.add_output_type(DT_UINT8);
  // quantize_info is indexed like the outputs.
  while (def_.quantize_info_size() + 1 < def_.output_size()) def_.add_quantize_info();
  QuantizeActivationInfo* info = def_.add_quantize_info();
  info->set_scale(scale);
  info->set_zero_point(zero_point);
  return *this;
}

OpTester& OpTester::EmptyInput() {
  def_.add_input("");
  return *this;
}

OpTester& OpTester::Output(const std::string& name, DataType dtype) {
  def_.add_output(name);
  def_.add_output_type(dtype);
  return *this;
}

OpTester& OpTester::PlannedShape(const std::vector<int64_t>& shape) {
  ::mace::OutputShape* declared = def_.add_output_shape();
  for (int64_t d : shape) declared->add_dims(d);
  return *this;
}

OpTester& OpTester::Arg(const std::string& name, int64_t value) {
  Argument* arg = def_.add_arg();
  arg->set_name(name);
  arg->set_i(value);
  return *this;
}

OpTester& OpTester::Arg(const std::string& name, float value) {
  Argument* arg = def_.add_arg();
  arg->set_name(name);
  arg->set_f(value);
  return *this;
}

OpTester& OpTester::Arg(const std::string& name, const std::string& value) {
  Argument* arg = def_.add_arg();
  arg->set_name(name);
  arg->set_s(value);
  return *this;
}

OpTester& OpTester::Args(const std::string& name, const std::vector<int64_t>& values) {
  Argument* arg = def_.add_arg();
  arg->set_name(name);
  for (int64_t v : values) arg->add_ints(v);
  return *this;
}

OpTester& OpTester::Args(const std::string& name, const std::vector<float>& values) {
  Argument* arg = def_.add_arg();
  arg->set_name(name);
  for (float v : values) arg->add_floats(v);
  return *this;
}

MaceStatus OpTester::Run() {
  MACE_RETURN_IF_ERROR(register_status_);
  op_ = registry_.Create(type_, DeviceType::CPU, kernel_dtype_);
  if (op_ == nullptr) return MaceStatus(MaceStatus::MACE_UNSUPPORTED, "op not registered");
  MACE_RETURN_IF_ERROR(op_->Construct(def_, &workspace_));
  OpContext context;
  context.workspace = &workspace_;
  context.runtime = runtime_;
  MACE_RETURN_IF_ERROR(op_->Prepare(&context));
  for (int i = 0; i < op_->OutputSize(); ++i) {
    Tensor* output = op_->Output(i);
    // Poison the output so a kernel that skips elements cannot pass.
    output->AllocateOwned();
    if (output->dtype() == DT_FLOAT) {
      float* data = output->mutable_data<float>();
      for (int64_t k = 0; k < output->size(); ++k) data[k] = std::nanf("");
    } else if (output->dtype() == DT_UINT8) {
      std::memset(output->mutable_data<uint8_t>(), 0xa5, output->size());
    }
  }
  return op_->Run(&context);
}

MaceStatus OpTester::RunAgain(const std::map<std::string, std::vector<float>>& inputs) {
  for (const auto& [name, data] : inputs) {
    Tensor* tensor = workspace_.GetTensor(name);
    if (op_ == nullptr || tensor == nullptr || tensor->is_weight() || tensor->dtype() != DT_FLOAT ||
        tensor->size() != static_cast<int64_t>(data.size())) {
      return MaceStatus(MaceStatus::MACE_INVALID_ARGS,
                        "RunAgain needs a run op and float inputs of that many values");
    }
    std::copy(data.begin(), data.end(), tensor->mutable_data<float>());
  }
  OpContext context;
  context.workspace = &workspace_;
  context.runtime = runtime_;
  return op_->Run(&context);
}

const Tensor& OpTester::GetOutput(const std::string& name) const {
  return *workspace_.GetTensor(name);
}

std::vector<float> OpTester::OutputData(const std::string& name) const {
  const Tensor& tensor = GetOutput(name);
  return std::vector<float>(tensor.data<float>(), tensor.data<float>() + tensor.size());
}

std::vector<int32_t> OpTester::OutputInts(const std::string& name) const {
  const Tensor& tensor = GetOutput(name);
  return std::vector<int32_t>(tensor.data<int32_t>(), tensor.data<int32_t>() + tensor.size());
}

std::vector<uint8_t> OpTester::OutputBytes(const std::string& name) const {
  const Tensor& tensor = GetOutput(name);
  const uint8_t* data = static_cast<const uint8_t*>(tensor.raw_data());
  return std::vector<uint8_t>(data, data + tensor.raw_size());
}

std::vector<int64_t> OpTester::OutputShape(const std::string& name) const {
  return GetOutput(name).shape();
}

std::vector<float> RandomFloats(int64_t count, uint32_t seed, float low, float high) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<float> dist(low, high);
  std::vector<float> values(count);
  for (float& v : values) v = dist(engine);
  return values;
}

int64_t NumElements(const std::vector<int64_t>& shape) {
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  return count;
}

void ExpectNear(const std::vector<float>& actual, const std::vector<float>& expected,
                float atol, float rtol) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    const float tolerance = atol + rtol * std::fabs(expected[i]);
    if (!(std::fabs(actual[i] - expected[i]) <= tolerance)) {
      ADD_FAILURE() << "element " << i << ": got " << actual[i] << ", want " << expected[i];
      return;
    }
  }
}

}  // namespace testing
}  // namespace ops
}  // namespace mace
