// The weights checksum end to end: a model whose NetDef carries the CRC-32C
// of its weights loads from memory and from a mapped file, a flipped or
// missing byte is refused on both paths, and apps can turn the check off.
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "mace/proto/mace.pb.h"
#include "mace/public/mace.h"
#include "mace/utils/crc32c.h"

namespace mace {
namespace {

constexpr char kMismatch[] = "the weights data does not match the model (CRC32C expected ";

// x[1,2,2,2] -> BiasAdd(b = {10, -10}) -> y, with the bias 64 bytes into
// the blob so the padding is covered too.
struct BiasModel {
  NetDef net;
  std::string data = std::string(64, '\0');

  BiasModel() {
    net.set_name("bias");
    InputOutputInfo* input = net.add_input_info();
    input->set_name("x");
    for (int64_t d : {1, 2, 2, 2}) input->add_dims(d);
    net.add_output_info()->set_name("y");
    const float bias[2] = {10.f, -10.f};
    ConstTensor* tensor = net.add_tensors();
    tensor->set_name("b");
    tensor->add_dims(2);
    tensor->set_offset(data.size());
    tensor->set_data_size(2);
    data.append(reinterpret_cast<const char*>(bias), sizeof(bias));
    OperatorDef* op = net.add_op();
    op->set_type("BiasAdd");
    op->set_name("bias_add");
    op->add_input("x");
    op->add_input("b");
    op->add_output("y");
    net.set_weights_crc32c(Crc32c(data.data(), data.size()));
  }

  MaceStatus FromMemory(const std::string& weights, const MaceEngineConfig& config,
                        std::shared_ptr<MaceEngine>* engine) const {
    const std::string graph = net.SerializeAsString();
    return CreateMaceEngineFromProto(reinterpret_cast<const unsigned char*>(graph.data()),
                                     graph.size(),
                                     reinterpret_cast<const unsigned char*>(weights.data()),
                                     weights.size(), {"x"}, {"y"}, config, engine);
  }

  MaceStatus FromFile(const std::string& weights, const MaceEngineConfig& config,
                      std::shared_ptr<MaceEngine>* engine) const {
    const std::string path = ::testing::TempDir() + "/bias.data";
    std::ofstream(path, std::ios::binary | std::ios::trunc) << weights;
    const std::string graph = net.SerializeAsString();
    return CreateMaceEngineFromProto(reinterpret_cast<const unsigned char*>(graph.data()),
                                     graph.size(), path, {"x"}, {"y"}, config, engine);
  }
};

using Loader = MaceStatus (BiasModel::*)(const std::string&, const MaceEngineConfig&,
                                         std::shared_ptr<MaceEngine>*) const;

class WeightsChecksumTest : public ::testing::TestWithParam<Loader> {
 protected:
  MaceStatus Load(const BiasModel& model, const std::string& weights,
                  const MaceEngineConfig& config = MaceEngineConfig()) {
    engine_.reset();
    return (model.*GetParam())(weights, config, &engine_);
  }

  // y[0] and y[4], the first element of each channel, for x = 0.
  std::vector<float> FirstOfEachChannel() {
    std::shared_ptr<float> x(new float[8](), std::default_delete<float[]>());
    std::map<std::string, MaceTensor> outputs;
    const MaceStatus status = engine_->Run({{"x", MaceTensor({1, 2, 2, 2}, x)}}, &outputs);
    EXPECT_TRUE(status.ok()) << status.ToString();
    if (!status.ok()) return {};
    return {outputs["y"].data().get()[0], outputs["y"].data().get()[4]};
  }

  std::shared_ptr<MaceEngine> engine_;
};

TEST_P(WeightsChecksumTest, MatchingWeightsLoadAndRun) {
  BiasModel model;
  const MaceStatus status = Load(model, model.data);
  ASSERT_TRUE(status.ok()) << status.ToString();
  EXPECT_EQ(FirstOfEachChannel(), (std::vector<float>{10.f, -10.f}));
}

TEST_P(WeightsChecksumTest, AFlippedBitAnywhereIsRefused) {
  BiasModel model;
  // In the padding, in a weight's low mantissa bit, in its sign.
  for (size_t bit : {size_t{3}, size_t{64 * 8}, model.data.size() * 8 - 1}) {
    std::string corrupt = model.data;
    corrupt[bit / 8] ^= static_cast<char>(1 << (bit % 8));
    const MaceStatus status = Load(model, corrupt);
    EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS) << "bit " << bit;
    EXPECT_NE(status.information().find(kMismatch), std::string::npos) << status.ToString();
    EXPECT_NE(status.information().find("a truncated or corrupt .data file?"), std::string::npos);
    EXPECT_EQ(engine_, nullptr);
  }
}

TEST_P(WeightsChecksumTest, TruncatedWeightsAreReportedAsAChecksumMismatch) {
  BiasModel model;
  for (size_t size : {size_t{0}, size_t{64}, model.data.size() - 1}) {
    const MaceStatus status = Load(model, model.data.substr(0, size));
    EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS) << "size " << size;
    EXPECT_NE(status.information().find(kMismatch), std::string::npos) << status.ToString();
  }
}

TEST_P(WeightsChecksumTest, TheMessageGivesBothChecksums) {
  BiasModel model;
  model.net.set_weights_crc32c(0x0000BEEF);
  const MaceStatus status = Load(model, model.data);
  char got[16];
  std::snprintf(got, sizeof(got), "0x%08X", Crc32c(model.data.data(), model.data.size()));
  EXPECT_NE(status.information().find(std::string(kMismatch) + "0x0000BEEF, got " + got + ")"),
            std::string::npos)
      << status.ToString();
}

TEST_P(WeightsChecksumTest, AppsCanTurnVerificationOff) {
  BiasModel model;
  std::string corrupt = model.data;
  corrupt[64 + 3] ^= 0x80;  // the sign of the first bias
  MaceEngineConfig config;
  EXPECT_TRUE(config.verify_weights());
  config.SetVerifyWeights(false);
  EXPECT_FALSE(config.verify_weights());
  const MaceStatus status = Load(model, corrupt, config);
  ASSERT_TRUE(status.ok()) << status.ToString();
  EXPECT_EQ(FirstOfEachChannel(), (std::vector<float>{-10.f, -10.f}));
}

TEST_P(WeightsChecksumTest, ModelsWithoutAChecksumLoadUnchecked) {
  BiasModel model;
  model.net.clear_weights_crc32c();
  std::string changed = model.data;
  changed[0] = 1;  // padding: the model still works
  const MaceStatus status = Load(model, changed);
  ASSERT_TRUE(status.ok()) << status.ToString();
  EXPECT_EQ(FirstOfEachChannel(), (std::vector<float>{10.f, -10.f}));
}

TEST_P(WeightsChecksumTest, AModelWithNoWeightsChecksTheEmptyBlob) {
  BiasModel model;
  model.net.clear_tensors();
  model.net.mutable_op(0)->set_type("Identity");
  model.net.mutable_op(0)->mutable_input()->RemoveLast();
  model.net.set_weights_crc32c(0);  // the CRC-32C of no bytes
  MaceStatus status = Load(model, "");
  EXPECT_TRUE(status.ok()) << status.ToString();
  status = Load(model, "x");
  EXPECT_NE(status.information().find(kMismatch), std::string::npos) << status.ToString();
}

INSTANTIATE_TEST_SUITE_P(Loaders, WeightsChecksumTest,
                         ::testing::Values(&BiasModel::FromMemory, &BiasModel::FromFile),
                         [](const ::testing::TestParamInfo<Loader>& info) {
                           return info.param == &BiasModel::FromMemory ? "FromMemory"
                                                                       : "FromMappedFile";
                         });

}  // namespace
}  // namespace mace
