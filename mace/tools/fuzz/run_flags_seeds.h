// Seed inputs of run_flags_fuzzer, in its [selector byte][payload] layout:
// shared by the corpus writer and the mutation test.
#ifndef MACE_TOOLS_FUZZ_RUN_FLAGS_SEEDS_H_
#define MACE_TOOLS_FUZZ_RUN_FLAGS_SEEDS_H_

#include <string>
#include <utility>
#include <vector>

namespace mace {
namespace tools {

// Named seeds: valid flag sets and valid .npy files (versions 1.0 and 2.0).
std::vector<std::pair<std::string, std::string>> RunFlagsFuzzSeeds();

}  // namespace tools
}  // namespace mace

#endif  // MACE_TOOLS_FUZZ_RUN_FLAGS_SEEDS_H_
