// The files an app names when it creates an engine. Through the C API
// (which the Python and Java bindings call) and the C++ API, every path that
// is not a regular file is refused at once, naming it; and a mapped weights
// file that changes under a live engine fails the next Run with an error
// instead of a SIGBUS or other weights, unless the engine copied it.
//
// SetUp arms alarm(): a regression that blocks on a FIFO or reads
// /dev/zero without end kills the test instead of hanging it.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "mace/public/mace.h"
#include "mace/public/mace_c.h"
#include "test/model_builder.h"

namespace mace {
namespace {

// x[1,2,2,2] -> BiasAdd(b) -> y: the CPU kernel reads b from the weights
// blob at every Run.
struct BiasModel : testing::ModelBuilder {
  explicit BiasModel(float bias0 = 10.f, float bias1 = -10.f) {
    net.set_name("bias");
    InputOutputInfo* input = net.add_input_info();
    input->set_name("x");
    for (int64_t d : {1, 2, 2, 2}) input->add_dims(d);
    net.add_output_info()->set_name("y");
    AddWeight("b", {2}, {bias0, bias1});
    AddOp("BiasAdd", "bias_add", {"x", "b"}, "y");
  }
};

class ModelFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    alarm(60);
    dir_ = ::testing::TempDir() + "/model_files_test_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    mkdir(dir_.c_str(), 0700);
    graph_ = Write("model.pb", model_.Graph());
    weights_ = Write("model.data", model_.data);
    // The weights file's times go into the past, so that a write during the
    // test changes them whatever the file system's clock granularity.
    const struct timespec past[2] = {{1000000000, 0}, {1000000000, 0}};
    ASSERT_EQ(utimensat(AT_FDCWD, weights_.c_str(), past, 0), 0);
  }
  void TearDown() override { alarm(0); }

  std::string Write(const std::string& name, const std::string& bytes) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
    return path;
  }

  // Creates an engine from files through the C API; returns its code and
  // keeps the message.
  MaceCStatus CreateWithC(const std::string& graph, const std::string& weights,
                          bool copy_weights = false) {
    MaceCConfig* config = nullptr;
    EXPECT_EQ(mace_c_config_create(MACE_C_CPU, &config), MACE_C_OK);
    EXPECT_EQ(mace_c_config_set_copy_weights_file(config, copy_weights ? 1 : 0), MACE_C_OK);
    MaceCEngine* engine = nullptr;
    const MaceCStatus code =
        mace_c_engine_create_from_files(graph.c_str(), weights.c_str(), config, &engine);
    c_error_ = mace_c_last_error();
    mace_c_engine_destroy(engine);
    mace_c_config_destroy(config);
    return code;
  }

  MaceStatus CreateWithCpp(const std::string& weights, const MaceEngineConfig& config,
                           std::shared_ptr<MaceEngine>* engine) {
    const std::string graph = model_.Graph();
    return CreateMaceEngineFromProto(reinterpret_cast<const unsigned char*>(graph.data()),
                                     graph.size(), weights, {"x"}, {"y"}, config, engine);
  }

  // y for x = 0 (the bias of each element's channel), or the error.
  static MaceStatus Run(MaceEngine* engine, std::vector<float>* y) {
    std::shared_ptr<float> x(new float[8](), std::default_delete<float[]>());
    std::map<std::string, MaceTensor> outputs;
    const MaceStatus status = engine->Run({{"x", MaceTensor({1, 2, 2, 2}, x)}}, &outputs);
    if (status.ok()) {
      const float* data = outputs.at("y").data().get();
      y->assign(data, data + 8);
    }
    return status;
  }

  void ExpectRefused(const std::string& graph, const std::string& weights,
                     const std::string& message) {
    EXPECT_EQ(CreateWithC(graph, weights), MACE_C_INVALID_ARGS) << c_error_;
    EXPECT_EQ(c_error_, message);
  }

  std::string Changed() const {
    return "weights file '" + weights_ +
           "' changed since the engine was created; create the engine again";
  }

  BiasModel model_;
  std::string dir_, graph_, weights_;
  std::string c_error_;
  const std::vector<float> biased_ = {10, 10, 10, 10, -10, -10, -10, -10};
};

TEST_F(ModelFilesTest, LoadsRegularFilesAndLinksToThem) {
  EXPECT_EQ(CreateWithC(graph_, weights_), MACE_C_OK) << c_error_;
  const std::string link = dir_ + "/link.pb";
  ASSERT_EQ(symlink(graph_.c_str(), link.c_str()), 0);
  EXPECT_EQ(CreateWithC(link, weights_), MACE_C_OK) << c_error_;
}

TEST_F(ModelFilesTest, RefusesAFifoAsGraphOrWeightsWithoutBlocking) {
  const std::string fifo = dir_ + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  ExpectRefused(fifo, weights_, "the model graph '" + fifo + "' is a FIFO, not a regular file");
  ExpectRefused(graph_, fifo, "weights file '" + fifo + "' is a FIFO, not a regular file");
  // The copying load opens it the same way.
  EXPECT_EQ(CreateWithC(graph_, fifo, true), MACE_C_INVALID_ARGS);
  std::shared_ptr<MaceEngine> engine;
  const MaceStatus status = CreateWithCpp(fifo, MaceEngineConfig(), &engine);
  EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS);
  EXPECT_EQ(status.information(), "weights file '" + fifo + "' is a FIFO, not a regular file");
}

TEST_F(ModelFilesTest, RefusesDevNullAndDevZero) {
  ExpectRefused("/dev/zero", weights_,
                "the model graph '/dev/zero' is a character device, not a regular file");
  ExpectRefused(graph_, "/dev/zero",
                "weights file '/dev/zero' is a character device, not a regular file");
  ExpectRefused(graph_, "/dev/null",
                "weights file '/dev/null' is a character device, not a regular file");
}

TEST_F(ModelFilesTest, RefusesADirectory) {
  ExpectRefused(dir_, weights_, "the model graph '" + dir_ + "' is a directory, not a file");
  ExpectRefused(graph_, dir_, "weights file '" + dir_ + "' is a directory, not a file");
}

TEST_F(ModelFilesTest, RefusesSymbolicLinkLoopsAndDanglingLinks) {
  const std::string a = dir_ + "/a", b = dir_ + "/b";
  ASSERT_EQ(symlink(b.c_str(), a.c_str()), 0);
  ASSERT_EQ(symlink(a.c_str(), b.c_str()), 0);
  const std::string loop =
      "': too many levels of symbolic links (a symbolic link loop, or a chain longer than the "
      "kernel follows)";
  ExpectRefused(a, weights_, "cannot open the model graph '" + a + loop);
  ExpectRefused(graph_, a, "cannot open weights file '" + a + loop);

  const std::string dangling = dir_ + "/dangling", missing = dir_ + "/missing";
  ASSERT_EQ(symlink(missing.c_str(), dangling.c_str()), 0);
  const std::string nothing = "': a symbolic link to '" + missing + "', which does not exist";
  ExpectRefused(dangling, weights_, "cannot open the model graph '" + dangling + nothing);
  ExpectRefused(graph_, dangling, "cannot open weights file '" + dangling + nothing);
}

TEST_F(ModelFilesTest, AMappedFileRewrittenBetweenRunsFailsTheNextRun) {
  std::shared_ptr<MaceEngine> engine;
  ASSERT_TRUE(CreateWithCpp(weights_, MaceEngineConfig(), &engine).ok());
  std::vector<float> y;
  ASSERT_TRUE(Run(engine.get(), &y).ok());
  EXPECT_EQ(y, biased_);
  // Same size, other bytes: the mapped pages now hold other weights.
  const BiasModel other(1.f, 2.f);
  ASSERT_EQ(other.data.size(), model_.data.size());
  {
    std::fstream file(weights_, std::ios::binary | std::ios::in | std::ios::out);
    file << other.data;
  }
  MaceStatus status = Run(engine.get(), &y);
  EXPECT_EQ(status.code(), MaceStatus::MACE_RUNTIME_ERROR);
  EXPECT_EQ(status.information(), Changed());
  // And on every later Run: the engine does not take the new weights.
  status = Run(engine.get(), &y);
  EXPECT_EQ(status.information(), Changed());
  // A new engine reads the file as it is now.
  ASSERT_TRUE(CreateWithCpp(weights_, MaceEngineConfig(), &engine).ok());
  ASSERT_TRUE(Run(engine.get(), &y).ok());
  EXPECT_EQ(y, std::vector<float>({1, 1, 1, 1, 2, 2, 2, 2}));
}

TEST_F(ModelFilesTest, AMappedFileTruncatedBetweenRunsFailsTheNextRunWithoutSigbus) {
  std::shared_ptr<MaceEngine> engine;
  ASSERT_TRUE(CreateWithCpp(weights_, MaceEngineConfig(), &engine).ok());
  std::vector<float> y;
  ASSERT_TRUE(Run(engine.get(), &y).ok());
  // Every mapped page is now past the end of the file: reading one faults.
  ASSERT_EQ(truncate(weights_.c_str(), 0), 0);
  const MaceStatus status = Run(engine.get(), &y);
  EXPECT_EQ(status.code(), MaceStatus::MACE_RUNTIME_ERROR);
  EXPECT_EQ(status.information(), Changed());
}

TEST_F(ModelFilesTest, AFileReplacedByRenameOrDeletedLeavesTheEngineOnItsOwnWeights) {
  std::shared_ptr<MaceEngine> engine;
  ASSERT_TRUE(CreateWithCpp(weights_, MaceEngineConfig(), &engine).ok());
  const std::string replacement = Write("replacement.data", BiasModel(1.f, 2.f).data);
  ASSERT_EQ(std::rename(replacement.c_str(), weights_.c_str()), 0);
  std::vector<float> y;
  MaceStatus status = Run(engine.get(), &y);
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(y, biased_);
  // An app that extracts its weights to a file, creates the engine and
  // deletes the file.
  std::shared_ptr<MaceEngine> second;
  ASSERT_TRUE(CreateWithCpp(weights_, MaceEngineConfig(), &second).ok());
  ASSERT_EQ(std::remove(weights_.c_str()), 0);
  status = Run(second.get(), &y);
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(y, std::vector<float>({1, 1, 1, 1, 2, 2, 2, 2}));
}

TEST_F(ModelFilesTest, ACopiedFileMayBeRewrittenOrTruncated) {
  MaceEngineConfig config;
  config.SetCopyWeightsFile(true);
  std::shared_ptr<MaceEngine> engine;
  ASSERT_TRUE(CreateWithCpp(weights_, config, &engine).ok());
  std::vector<float> y;
  ASSERT_TRUE(Run(engine.get(), &y).ok());
  EXPECT_EQ(y, biased_);
  {
    std::fstream file(weights_, std::ios::binary | std::ios::in | std::ios::out);
    file << BiasModel(1.f, 2.f).data;
  }
  ASSERT_TRUE(Run(engine.get(), &y).ok());
  EXPECT_EQ(y, biased_);
  ASSERT_EQ(truncate(weights_.c_str(), 0), 0);
  ASSERT_TRUE(Run(engine.get(), &y).ok());
  EXPECT_EQ(y, biased_);
}

TEST_F(ModelFilesTest, TheCApiCopiesWhenAsked) {
  MaceCConfig* config = nullptr;
  ASSERT_EQ(mace_c_config_create(MACE_C_CPU, &config), MACE_C_OK);
  ASSERT_EQ(mace_c_config_set_copy_weights_file(config, 1), MACE_C_OK);
  EXPECT_EQ(mace_c_config_set_copy_weights_file(nullptr, 1), MACE_C_INVALID_ARGS);
  MaceCEngine* engine = nullptr;
  ASSERT_EQ(mace_c_engine_create_from_files(graph_.c_str(), weights_.c_str(), config, &engine),
            MACE_C_OK)
      << mace_c_last_error();
  mace_c_config_destroy(config);
  ASSERT_EQ(truncate(weights_.c_str(), 0), 0);
  const int64_t dims[4] = {1, 2, 2, 2};
  const float x[8] = {};
  ASSERT_EQ(mace_c_engine_set_input(engine, "x", MACE_C_FLOAT32, dims, 4, x, sizeof(x)), MACE_C_OK);
  ASSERT_EQ(mace_c_engine_run(engine), MACE_C_OK) << mace_c_last_error();
  const void* data = nullptr;
  size_t size = 0;
  ASSERT_EQ(mace_c_engine_get_output(engine, "y", nullptr, nullptr, nullptr, &data, &size),
            MACE_C_OK);
  ASSERT_EQ(size, sizeof(float) * 8);
  const float* y = static_cast<const float*>(data);
  EXPECT_EQ(std::vector<float>(y, y + 8), biased_);
  mace_c_engine_destroy(engine);
}

}  // namespace
}  // namespace mace
