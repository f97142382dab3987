// The engine in a process that runs out of memory: creating an engine whose
// kernels cannot pack their weights returns MACE_OUT_OF_RESOURCES naming the
// op, and the process lives on. Each case runs in a child process with its
// address space capped (RLIMIT_AS) a little above what it holds once the
// weights file is mapped, so only the packed copies fail to fit; a control
// case with room to spare shows the same model loads and runs.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "mace/proto/mace.pb.h"
#include "mace/public/mace.h"

namespace mace {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
#else
constexpr bool kAddressSanitizer = false;
#endif

constexpr int64_t kChannels = 2048;  // a 1x1 filter of 16 MiB
constexpr int64_t kMiB = int64_t{1} << 20;
constexpr int64_t kWeightBytes = kChannels * kChannels * 4;

// x[1,2048,4,4] -> Conv2D 1x1 (2048 -> 2048, bias) -> y
std::string Graph() {
  NetDef net;
  net.set_name("wide");
  InputOutputInfo* input = net.add_input_info();
  input->set_name("x");
  for (int64_t d : {int64_t{1}, kChannels, int64_t{4}, int64_t{4}}) input->add_dims(d);
  net.add_output_info()->set_name("y");
  ConstTensor* w = net.add_tensors();
  w->set_name("w");
  for (int64_t d : {kChannels, kChannels, int64_t{1}, int64_t{1}}) w->add_dims(d);
  w->set_offset(0);
  w->set_data_size(kChannels * kChannels);
  ConstTensor* b = net.add_tensors();
  b->set_name("b");
  b->add_dims(kChannels);
  b->set_offset(kWeightBytes);
  b->set_data_size(kChannels);
  OperatorDef* conv = net.add_op();
  conv->set_type("Conv2D");
  conv->set_name("wide_conv");
  for (const char* name : {"x", "w", "b"}) conv->add_input(name);
  conv->add_output("y");
  return net.SerializeAsString();
}

std::string WriteWeights() {
  const std::string path = ::testing::TempDir() + "/memory_limit_test.data";
  std::vector<float> values(kChannels * kChannels + kChannels);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 13) * 0.01f;
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(values.data()),
             static_cast<std::streamsize>(values.size() * sizeof(float)));
  return path;
}

// The process's current address-space size in bytes, from /proc, or -1.
int64_t AddressSpaceBytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    long long kib = 0;
    if (std::sscanf(line.c_str(), "VmSize: %lld kB", &kib) == 1) return kib * 1024;
  }
  return -1;
}

struct Outcome {
  enum Kind { kSkipped, kCreated, kFailed, kDied } kind = kDied;
  std::string text;  // the status message, or why the case was skipped
};

// Creates (and on success runs) the engine in a child process whose address
// space may grow by `headroom` bytes past the mapped weights.
Outcome CreateUnderLimit(const std::string& graph, const std::string& weights, int64_t headroom) {
  int fds[2];
  if (pipe(fds) != 0) return {Outcome::kDied, "pipe failed"};
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    auto report = [&](char kind, const std::string& text) {
      const std::string message = std::string(1, kind) + text;
      ssize_t written = write(fds[1], message.data(), message.size());
      (void)written;
      _exit(0);
    };
    MaceEngineConfig config;
    config.SetCPUThreadPolicy(1, CPUAffinityPolicy::AFFINITY_NONE);
    const int64_t now = AddressSpaceBytes();
    if (now < 0) report('s', "no /proc/self/status");
    rlimit limit;
    limit.rlim_cur = limit.rlim_max = static_cast<rlim_t>(now + kWeightBytes + headroom);
    if (setrlimit(RLIMIT_AS, &limit) != 0) report('s', "setrlimit(RLIMIT_AS) failed");
    // Emulators (qemu-user) accept the limit without enforcing it.
    void* probe = std::malloc(static_cast<size_t>(kWeightBytes + headroom + 64 * kMiB));
    if (probe != nullptr) {
      std::free(probe);
      report('s', "RLIMIT_AS is not enforced here");
    }
    std::shared_ptr<MaceEngine> engine;
    MaceStatus status =
        CreateMaceEngineFromProto(reinterpret_cast<const unsigned char*>(graph.data()),
                                  graph.size(), weights, {"x"}, {"y"}, config, &engine);
    if (!status.ok()) report('f', status.ToString());
    std::shared_ptr<float> x(new float[kChannels * 16](), std::default_delete<float[]>());
    std::map<std::string, MaceTensor> outputs;
    status = engine->Run({{"x", MaceTensor({1, kChannels, 4, 4}, x)}}, &outputs);
    report(status.ok() ? 'c' : 'f', status.ToString());
  }
  close(fds[1]);
  std::string message;
  char buffer[512];
  ssize_t got = 0;
  while ((got = read(fds[0], buffer, sizeof(buffer))) > 0) message.append(buffer, got);
  close(fds[0]);
  int wait_status = 0;
  waitpid(pid, &wait_status, 0);
  if (!WIFEXITED(wait_status) || WEXITSTATUS(wait_status) != 0 || message.empty()) {
    return {Outcome::kDied,
            "the child did not return a status (wait status " + std::to_string(wait_status) + ")"};
  }
  const Outcome::Kind kind = message[0] == 's'   ? Outcome::kSkipped
                             : message[0] == 'c' ? Outcome::kCreated
                                                 : Outcome::kFailed;
  return {kind, message.substr(1)};
}

TEST(MemoryLimitTest, PackingWithoutMemoryIsAStatusNamingTheOp) {
  if (kAddressSanitizer) GTEST_SKIP() << "AddressSanitizer reserves more address space than a cap";
  const std::string graph = Graph();
  const std::string weights = WriteWeights();
  // Room for the graph, the runtime and the activations (1 MiB), not for a
  // second copy of the 16 MiB filter.
  const Outcome tight = CreateUnderLimit(graph, weights, 8 * kMiB);
  if (tight.kind == Outcome::kSkipped) GTEST_SKIP() << tight.text;
  ASSERT_EQ(tight.kind, Outcome::kFailed) << tight.text;
  EXPECT_NE(tight.text.find("OUT_OF_RESOURCES"), std::string::npos) << tight.text;
  EXPECT_NE(tight.text.find("wide_conv"), std::string::npos) << tight.text;
  EXPECT_NE(tight.text.find("out of memory"), std::string::npos) << tight.text;
  std::printf("the capped process got: %s\n", tight.text.c_str());
  // The same model with room for its packed weights loads and runs.
  const Outcome roomy = CreateUnderLimit(graph, weights, 3 * kWeightBytes + 64 * kMiB);
  EXPECT_EQ(roomy.kind, Outcome::kCreated) << roomy.text;
}

}  // namespace
}  // namespace mace
