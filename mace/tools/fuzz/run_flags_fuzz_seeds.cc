// Writes the seed corpus of run_flags_fuzzer into a directory.
#include <cstdio>
#include <fstream>

#include "mace/tools/fuzz/run_flags_seeds.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: run_flags_fuzz_seeds OUTPUT_DIR\n");
    return 2;
  }
  for (const auto& [name, bytes] : mace::tools::RunFlagsFuzzSeeds()) {
    std::ofstream file(std::string(argv[1]) + "/" + name, std::ios::binary);
    file << bytes;
    if (!file) {
      std::fprintf(stderr, "run_flags_fuzz_seeds: cannot write %s/%s\n", argv[1], name.c_str());
      return 1;
    }
  }
  return 0;
}
