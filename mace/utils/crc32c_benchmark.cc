// CRC-32C throughput of each implementation over a weights-sized buffer. The
// engine checks a model's whole weights blob at init, so this is the time
// verification adds.
//
//   bazel run -c opt //mace/utils:crc32c_benchmark -- [--benchmark_repetitions=9] [FILE.data]
//
// With no file, a seeded random buffer the size of MobileNet v2's weights
// (13.3 MiB) stands in; the bytes do not change the speed.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "mace/utils/crc32c.h"

namespace mace {
namespace {

constexpr size_t kMobileNetV2WeightsBytes = 13951328;  // its converted .data

std::vector<unsigned char> LoadOrMakeBuffer(const char* path) {
  if (path != nullptr) {
    std::ifstream stream(path, std::ios::binary);
    return std::vector<unsigned char>((std::istreambuf_iterator<char>(stream)),
                                      std::istreambuf_iterator<char>());
  }
  std::mt19937 engine(7767517);
  std::vector<unsigned char> bytes(kMobileNetV2WeightsBytes);
  for (unsigned char& byte : bytes) byte = static_cast<unsigned char>(engine());
  return bytes;
}

void BenchmarkCrc32c(benchmark::State& state, Crc32cImplementation implementation,
                     const std::vector<unsigned char>* bytes) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(implementation.extend(0, bytes->data(), bytes->size()));
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes->size()));
}

}  // namespace
}  // namespace mace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (argc > 2) {
    std::fprintf(stderr, "usage: %s [benchmark flags] [FILE]\n", argv[0]);
    return 1;
  }
  static const std::vector<unsigned char> bytes =
      mace::LoadOrMakeBuffer(argc == 2 ? argv[1] : nullptr);
  if (bytes.empty()) {
    std::fprintf(stderr, "%s is empty or unreadable\n", argv[1]);
    return 1;
  }
  std::printf("%zu bytes from %s\n", bytes.size(), argc == 2 ? argv[1] : "a random buffer");
  for (const mace::Crc32cImplementation& implementation : mace::AvailableCrc32cImplementations()) {
    benchmark::RegisterBenchmark(implementation.name, mace::BenchmarkCrc32c, implementation, &bytes)
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
