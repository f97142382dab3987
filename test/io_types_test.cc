// Typed model inputs and outputs: int32, int64, bool and uint8 tensors that
// the app exchanges with a model whose ops compute in float32 (or int32),
// converted at the engine's boundary. Values the conversion would change are
// refused with MACE_INVALID_ARGS, never rounded.
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "mace/proto/mace.pb.h"
#include "mace/public/mace.h"
#include "test/model_builder.h"

namespace mace {
namespace {

constexpr int64_t k2p24 = int64_t{1} << 24;

void ExpectError(const MaceStatus& status, MaceStatus::Code code, const std::string& words) {
  EXPECT_EQ(status.code(), code) << status.ToString();
  EXPECT_NE(status.information().find(words), std::string::npos) << status.ToString();
}

// x[n] (app type `in`) -> op -> y (app type `out`); the ops compute in float.
// "double": y = x + x (Eltwise SUM); "identity": y = x.
struct TypedModel : testing::ModelBuilder {
  TypedModel(IODataType in, IODataType out, const std::string& op, int64_t n = 4) {
    InputOutputInfo* input = net.add_input_info();
    input->set_name("x");
    input->add_dims(n);
    input->set_data_format(0);
    if (in != IO_DEFAULT) input->set_app_data_type(in);
    InputOutputInfo* output = net.add_output_info();
    output->set_name("y");
    output->set_data_format(0);
    if (out != IO_DEFAULT) output->set_app_data_type(out);
    if (op == "double") {
      OperatorDef* add = AddOp("Eltwise", "add", {"x", "x"}, "y");
      SetInt(add, "type", 0);
    } else {
      AddOp("Identity", "id", {"x"}, "y");
    }
  }

  std::shared_ptr<MaceEngine> Engine() const {
    std::shared_ptr<MaceEngine> engine;
    const MaceStatus status = CreateEngine({"x"}, {"y"}, MaceEngineConfig(), &engine);
    EXPECT_TRUE(status.ok()) << status.ToString();
    return engine;
  }
};

template <typename T>
MaceTensor Tensor(const std::vector<T>& values, TensorDataType type) {
  std::shared_ptr<void> data(new T[values.size()], std::default_delete<T[]>());
  std::memcpy(data.get(), values.data(), values.size() * sizeof(T));
  return MaceTensor({static_cast<int64_t>(values.size())}, data, type);
}

template <typename T>
std::vector<T> Values(const MaceTensor& tensor) {
  const T* data = static_cast<const T*>(tensor.raw_data().get());
  return std::vector<T>(data, data + tensor.size());
}

TEST(IoTypesTest, DataTypeSizesAndNames) {
  EXPECT_EQ(TensorDataTypeSize(TensorDataType::INT64), 8);
  EXPECT_EQ(TensorDataTypeSize(TensorDataType::BOOL), 1);
  EXPECT_STREQ(TensorDataTypeName(TensorDataType::INT64), "int64");
  EXPECT_STREQ(TensorDataTypeName(TensorDataType::BOOL), "bool");
  // The existing values keep their numbers.
  EXPECT_EQ(static_cast<int>(TensorDataType::FLOAT32), 0);
  EXPECT_EQ(static_cast<int>(TensorDataType::INT32), 1);
  EXPECT_EQ(static_cast<int>(TensorDataType::UINT8), 2);
}

TEST(IoTypesTest, Int64InAndOut) {
  auto engine = TypedModel(IO_INT64, IO_INT64, "double").Engine();
  ASSERT_NE(engine, nullptr);
  std::map<std::string, MaceTensor> outputs;
  const std::vector<int64_t> x = {0, -5, k2p24, -k2p24};
  ASSERT_TRUE(engine->Run({{"x", Tensor(x, TensorDataType::INT64)}}, &outputs).ok());
  const MaceTensor& y = outputs.at("y");
  EXPECT_EQ(y.data_type(), TensorDataType::INT64);
  EXPECT_EQ(Values<int64_t>(y), std::vector<int64_t>({0, -10, 2 * k2p24, -2 * k2p24}));
}

TEST(IoTypesTest, Int32InInt64Out) {
  auto engine = TypedModel(IO_INT32, IO_INT64, "double").Engine();
  ASSERT_NE(engine, nullptr);
  std::map<std::string, MaceTensor> outputs;
  const std::vector<int32_t> x = {7, -1, static_cast<int32_t>(k2p24), 3};
  ASSERT_TRUE(engine->Run({{"x", Tensor(x, TensorDataType::INT32)}}, &outputs).ok());
  EXPECT_EQ(Values<int64_t>(outputs.at("y")), std::vector<int64_t>({14, -2, 2 * k2p24, 6}));
}

// 2^24 is the last integer float32 holds exactly (with its negative); the
// next one would be rounded to 2^24, so it is refused, naming input and value.
TEST(IoTypesTest, IntegersBeyondTwoToThe24AreRefused) {
  for (const IODataType type : {IO_INT64, IO_INT32}) {
    auto engine = TypedModel(type, IO_INT64, "identity").Engine();
    ASSERT_NE(engine, nullptr);
    for (const int64_t bad : {k2p24 + 1, -k2p24 - 1, int64_t{2147483647}}) {
      std::map<std::string, MaceTensor> outputs;
      const MaceTensor x = type == IO_INT64
                               ? Tensor<int64_t>({1, bad, 2, 3}, TensorDataType::INT64)
                               : Tensor<int32_t>({1, static_cast<int32_t>(bad), 2, 3},
                                                 TensorDataType::INT32);
      ExpectError(engine->Run({{"x", x}}, &outputs), MaceStatus::MACE_INVALID_ARGS,
                  "input 'x' holds " + std::to_string(bad) + " (element 1)");
    }
    if (type == IO_INT64) {
      std::map<std::string, MaceTensor> outputs;
      ExpectError(engine->Run({{"x", Tensor<int64_t>({int64_t{1} << 40, 0, 0, 0},
                                                     TensorDataType::INT64)}},
                              &outputs),
                  MaceStatus::MACE_INVALID_ARGS, "holds 1099511627776");
    }
    // The boundary itself passes, both signs.
    std::map<std::string, MaceTensor> outputs;
    const MaceTensor x = type == IO_INT64
                             ? Tensor<int64_t>({k2p24, -k2p24, 0, 1}, TensorDataType::INT64)
                             : Tensor<int32_t>({static_cast<int32_t>(k2p24),
                                                static_cast<int32_t>(-k2p24), 0, 1},
                                               TensorDataType::INT32);
    ASSERT_TRUE(engine->Run({{"x", x}}, &outputs).ok());
    EXPECT_EQ(Values<int64_t>(outputs.at("y")), std::vector<int64_t>({k2p24, -k2p24, 0, 1}));
  }
}

TEST(IoTypesTest, BoolInAndOut) {
  auto engine = TypedModel(IO_BOOL, IO_BOOL, "identity").Engine();
  ASSERT_NE(engine, nullptr);
  std::map<std::string, MaceTensor> outputs;
  ASSERT_TRUE(engine->Run({{"x", Tensor<uint8_t>({0, 1, 1, 0}, TensorDataType::BOOL)}}, &outputs)
                  .ok());
  EXPECT_EQ(outputs.at("y").data_type(), TensorDataType::BOOL);
  EXPECT_EQ(Values<uint8_t>(outputs.at("y")), std::vector<uint8_t>({0, 1, 1, 0}));
  for (const uint8_t bad : {2, 255}) {
    ExpectError(engine->Run({{"x", Tensor<uint8_t>({1, 0, bad, 0}, TensorDataType::BOOL)}},
                            &outputs),
                MaceStatus::MACE_INVALID_ARGS,
                "input 'x' is bool but element 2 is the byte " + std::to_string(bad));
  }
}

TEST(IoTypesTest, Uint8IntoAFloatModel) {
  auto engine = TypedModel(IO_UINT8, IO_DEFAULT, "identity").Engine();
  ASSERT_NE(engine, nullptr);
  std::map<std::string, MaceTensor> outputs;
  ASSERT_TRUE(
      engine->Run({{"x", Tensor<uint8_t>({0, 7, 128, 255}, TensorDataType::UINT8)}}, &outputs)
          .ok());
  EXPECT_EQ(outputs.at("y").data_type(), TensorDataType::FLOAT32);
  EXPECT_EQ(Values<float>(outputs.at("y")), std::vector<float>({0.f, 7.f, 128.f, 255.f}));
}

TEST(IoTypesTest, InputDataTypesAreTheDeclaredOnes) {
  const std::vector<std::pair<IODataType, TensorDataType>> cases = {
      {IO_INT64, TensorDataType::INT64}, {IO_INT32, TensorDataType::INT32},
      {IO_BOOL, TensorDataType::BOOL},   {IO_UINT8, TensorDataType::UINT8},
      {IO_DEFAULT, TensorDataType::FLOAT32}};
  for (const auto& [declared, expected] : cases) {
    auto engine = TypedModel(declared, IO_DEFAULT, "identity").Engine();
    ASSERT_NE(engine, nullptr);
    std::map<std::string, TensorDataType> types;
    ASSERT_TRUE(engine->GetInputDataTypes(&types).ok());
    EXPECT_EQ(types, (std::map<std::string, TensorDataType>{{"x", expected}}))
        << TensorDataTypeName(expected);
  }
  auto engine = TypedModel(IO_INT64, IO_DEFAULT, "identity").Engine();
  ASSERT_NE(engine, nullptr);
  ExpectError(engine->GetInputDataTypes(nullptr), MaceStatus::MACE_INVALID_ARGS, "needs a map");
}

// Apps that feed float32 (as before typed inputs existed) and read float32
// buffers keep working.
TEST(IoTypesTest, Float32StillAcceptedForCompatibility) {
  auto engine = TypedModel(IO_INT64, IO_INT64, "double").Engine();
  ASSERT_NE(engine, nullptr);
  std::shared_ptr<void> buffer(new float[4], std::default_delete<float[]>());
  std::map<std::string, MaceTensor> outputs = {
      {"y", MaceTensor({4}, buffer, TensorDataType::FLOAT32)}};
  ASSERT_TRUE(
      engine->Run({{"x", Tensor<float>({1.f, 2.f, 3.f, 4.5f}, TensorDataType::FLOAT32)}}, &outputs)
          .ok());
  EXPECT_EQ(outputs.at("y").data_type(), TensorDataType::FLOAT32);
  EXPECT_EQ(Values<float>(outputs.at("y")), std::vector<float>({2.f, 4.f, 6.f, 9.f}));
}

TEST(IoTypesTest, WrongTensorTypesAreRefused) {
  auto engine = TypedModel(IO_INT64, IO_INT64, "identity").Engine();
  ASSERT_NE(engine, nullptr);
  std::map<std::string, MaceTensor> outputs;
  ExpectError(engine->Run({{"x", Tensor<int32_t>({1, 2, 3, 4}, TensorDataType::INT32)}}, &outputs),
              MaceStatus::MACE_INVALID_ARGS,
              "input 'x' is int32 but the model expects int64 (or float32)");
  ExpectError(engine->Run({{"x", Tensor<uint8_t>({1, 0, 1, 0}, TensorDataType::BOOL)}}, &outputs),
              MaceStatus::MACE_INVALID_ARGS, "input 'x' is bool but the model expects int64");
  // An output buffer of a third type.
  std::map<std::string, MaceTensor> int_out = {
      {"y", Tensor<int32_t>({0, 0, 0, 0}, TensorDataType::INT32)}};
  ExpectError(engine->Run({{"x", Tensor<int64_t>({1, 2, 3, 4}, TensorDataType::INT64)}}, &int_out),
              MaceStatus::MACE_INVALID_ARGS, "output 'y' buffer is int32 but the output is int64");
  // An app buffer of the declared type is filled in place.
  std::map<std::string, MaceTensor> long_out = {
      {"y", Tensor<int64_t>({0, 0, 0, 0}, TensorDataType::INT64)}};
  const void* where = long_out.at("y").raw_data().get();
  ASSERT_TRUE(
      engine->Run({{"x", Tensor<int64_t>({1, 2, 3, 4}, TensorDataType::INT64)}}, &long_out).ok());
  EXPECT_EQ(long_out.at("y").raw_data().get(), where);
  EXPECT_EQ(Values<int64_t>(long_out.at("y")), std::vector<int64_t>({1, 2, 3, 4}));
}

// A float the declared integer output cannot hold exactly fails the run,
// naming the output and the value.
TEST(IoTypesTest, OutputsThatAreNotExactIntegersAreRefused) {
  {
    auto engine = TypedModel(IO_DEFAULT, IO_INT64, "identity").Engine();
    ASSERT_NE(engine, nullptr);
    std::map<std::string, MaceTensor> outputs;
    ExpectError(
        engine->Run({{"x", Tensor<float>({1.f, 0.5f, 0.f, 0.f}, TensorDataType::FLOAT32)}},
                    &outputs),
        MaceStatus::MACE_INVALID_ARGS, "output 'y' is int64 but element 1 is 0.5");
    ExpectError(
        engine->Run({{"x", Tensor<float>({1e19f, 0.f, 0.f, 0.f}, TensorDataType::FLOAT32)}},
                    &outputs),
        MaceStatus::MACE_INVALID_ARGS, "output 'y' is int64 but element 0");
    ASSERT_TRUE(
        engine->Run({{"x", Tensor<float>({-3.f, 1e12f, 0.f, 0.f}, TensorDataType::FLOAT32)}},
                    &outputs)
            .ok());
    EXPECT_EQ(Values<int64_t>(outputs.at("y")),
              std::vector<int64_t>({-3, 999999995904LL, 0, 0}));  // 1e12f exactly
  }
  {
    auto engine = TypedModel(IO_DEFAULT, IO_INT32, "identity").Engine();
    ASSERT_NE(engine, nullptr);
    std::map<std::string, MaceTensor> outputs;
    ExpectError(
        engine->Run({{"x", Tensor<float>({0.f, 0.f, 0.f, 3e9f}, TensorDataType::FLOAT32)}},
                    &outputs),
        MaceStatus::MACE_INVALID_ARGS, "output 'y' is int32 but element 3");
  }
  {
    auto engine = TypedModel(IO_DEFAULT, IO_BOOL, "identity").Engine();
    ASSERT_NE(engine, nullptr);
    std::map<std::string, MaceTensor> outputs;
    ExpectError(
        engine->Run({{"x", Tensor<float>({0.f, 1.f, 2.f, 0.f}, TensorDataType::FLOAT32)}},
                    &outputs),
        MaceStatus::MACE_INVALID_ARGS, "output 'y' is bool but element 2 is 2, which is not 0 or 1");
  }
}

// An output the engine computes as int32 (ArgMax) may be declared int64.
TEST(IoTypesTest, Int32EngineOutputAsInt64) {
  TypedModel model(IO_DEFAULT, IO_INT64, "identity");
  model.net.clear_op();
  model.net.mutable_output_info(0)->set_data_type(DT_INT32);
  model.net.mutable_input_info(0)->clear_dims();
  for (int64_t d : {1, 3, 1, 2}) model.net.mutable_input_info(0)->add_dims(d);
  model.net.mutable_input_info(0)->set_data_format(2);
  OperatorDef* argmax = model.AddOp("ArgMax", "argmax", {"x"}, "y");
  testing::ModelBuilder::SetInt(argmax, "axis", 1);
  std::shared_ptr<MaceEngine> engine = model.Engine();
  ASSERT_NE(engine, nullptr);
  std::shared_ptr<float> x(new float[6]{0.f, 5.f, 9.f, 1.f, 2.f, 3.f}, std::default_delete<float[]>());
  std::map<std::string, MaceTensor> outputs;
  ASSERT_TRUE(engine->Run({{"x", MaceTensor({1, 3, 1, 2}, x)}}, &outputs).ok());
  EXPECT_EQ(outputs.at("y").data_type(), TensorDataType::INT64);
  EXPECT_EQ(Values<int64_t>(outputs.at("y")), std::vector<int64_t>({1, 0}));
}

// Declaring float32 for the app over a tensor the engine keeps as int32
// would hand the app the wrong bytes: the model is refused at Init.
TEST(IoTypesTest, Float32OverAnIntegerTensorIsRefused) {
  TypedModel model(IO_DEFAULT, IO_FLOAT32, "identity");
  model.net.clear_op();
  model.net.mutable_output_info(0)->set_data_type(DT_INT32);
  OperatorDef* argmax = model.AddOp("ArgMax", "argmax", {"x"}, "y");
  testing::ModelBuilder::SetInt(argmax, "axis", 0);
  std::shared_ptr<MaceEngine> engine;
  ExpectError(model.CreateEngine({"x"}, {"y"}, MaceEngineConfig(), &engine),
              MaceStatus::MACE_INVALID_ARGS,
              "model output 'y' is declared float32 for the app but the engine computes it as int32");
}

}  // namespace
}  // namespace mace
