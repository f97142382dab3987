// Deterministic mutations of the run_flags_fuzzer seeds through the fuzz
// target, so the normal test suite (and its sanitizer builds) covers it.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "mace/tools/fuzz/run_flags_seeds.h"
#include "mace/tools/npy_io.h"
#include "mace/tools/run_flags.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace mace {
namespace tools {
namespace {

TEST(RunFlagsFuzzTest, SeedsAreValid) {
  // The mutations below only mean something if the unmutated seeds parse.
  for (const auto& [name, bytes] : RunFlagsFuzzSeeds()) {
    std::string error;
    const std::string payload = bytes.substr(1);
    if (bytes[0] % 2 == 1) {
      NpyHeader header;
      ASSERT_TRUE(ParseNpyHeader(payload, &header, &error)) << name << ": " << error;
      std::vector<float> data(64);
      EXPECT_TRUE(DecodeNpy(payload, header.shape, data.data(), &error)) << name << ": " << error;
      continue;
    }
    std::vector<std::string> args = {"mace_run"};
    for (size_t start = 0; start <= payload.size();) {
      const size_t end = std::min(payload.find('\0', start), payload.size());
      args.push_back(payload.substr(start, end - start));
      start = end + 1;
    }
    std::vector<const char*> argv;
    for (const std::string& arg : args) argv.push_back(arg.c_str());
    RunFlags flags;
    EXPECT_TRUE(ParseRunFlags(static_cast<int>(argv.size()), argv.data(), &flags, &error))
        << name << ": " << error;
  }
}

TEST(RunFlagsFuzzTest, SurvivesMutations) {
  const uint32_t kSeed = 7767517;
  std::mt19937 rng(kSeed);
  for (const auto& [name, seed] : RunFlagsFuzzSeeds()) {
    for (int iteration = 0; iteration < 1000; ++iteration) {
      std::string input = seed;
      const int edits = 1 + rng() % 4;
      for (int e = 0; e < edits; ++e) {
        // Byte 0 picks the parser; mutating it would just swap the seed's kind.
        const size_t at = 1 + rng() % (input.size() - 1);
        switch (rng() % 4) {
          case 0:
            input[at] = static_cast<char>(rng());
            break;
          case 1:
            input[at] ^= static_cast<char>(1 << (rng() % 8));
            break;
          case 2:
            input.resize(at + 1);
            break;
          default:
            input.insert(at, 1, static_cast<char>(rng()));
            break;
        }
      }
      LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
    }
  }
  SUCCEED() << "1000 mutations of each seed (rng seed " << kSeed << ") ran without a crash";
}

}  // namespace
}  // namespace tools
}  // namespace mace
