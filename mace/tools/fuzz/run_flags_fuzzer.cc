// Fuzz target for the text mace_run takes from users: command-line flags and
// .npy input files. Neither may crash, nor allocate by a size it chooses.
//
// Input layout: [1 byte: even for flags, odd for .npy][payload]. Flags are
// NUL-separated arguments; a .npy payload is the file's bytes.
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "mace/tools/npy_io.h"
#include "mace/tools/run_flags.h"
#include "mace/utils/checked_math.h"

namespace {

// The inputs of an imaginary model that the parsed flags are checked against.
const std::map<std::string, std::vector<int64_t>>& ModelShapes() {
  static const auto* shapes =
      new std::map<std::string, std::vector<int64_t>>{{"x", {1, 2, 4, 4}}, {"y", {1, 10}}};
  return *shapes;
}

void FuzzFlags(std::string_view payload) {
  std::vector<std::string> args = {"mace_run"};
  size_t start = 0;
  while (start <= payload.size()) {
    const size_t end = std::min(payload.find('\0', start), payload.size());
    args.emplace_back(payload.substr(start, end - start));
    start = end + 1;
  }
  std::vector<const char*> argv;
  for (const std::string& arg : args) argv.push_back(arg.c_str());
  mace::tools::RunFlags flags;
  std::string error;
  if (!mace::tools::ParseRunFlags(static_cast<int>(argv.size()), argv.data(), &flags, &error)) {
    return;
  }
  mace::tools::CheckInputShapes(flags, ModelShapes(), &error);
}

void FuzzNpy(std::string_view payload) {
  std::string error;
  mace::tools::NpyHeader header;
  if (mace::tools::ParseNpyHeader(payload, &header, &error)) {
    const int64_t count = mace::CheckedElementCount(header.shape, int64_t{1} << 16);
    // A file that agrees with itself decodes; larger ones are legal but slow.
    if (count >= 0) {
      std::vector<float> data(count);
      mace::tools::DecodeNpy(payload, header.shape, data.data(), &error);
    }
  }
  // The way mace_run uses it: against the model's shape, never the file's.
  float input[32];
  mace::tools::DecodeNpy(payload, ModelShapes().at("x"), input, &error);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const std::string_view payload(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] % 2 == 0) {
    FuzzFlags(payload);
  } else {
    FuzzNpy(payload);
  }
  return 0;
}
