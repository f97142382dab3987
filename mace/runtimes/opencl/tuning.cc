#include "mace/runtimes/opencl/tuning.h"

#include <algorithm>
#include <sstream>

#include "mace/utils/status.h"

namespace mace {
namespace opencl {
namespace {

// Shapes worth timing; the driver's limit and the launch's size prune them.
constexpr LocalSize kShapes[] = {{16, 4}, {8, 8},  {32, 2}, {4, 16}, {64, 1},
                                 {32, 4}, {16, 8}, {8, 4},  {4, 4},  {1, 64}};

int64_t NextPowerOfTwo(int64_t value) {
  int64_t power = 1;
  while (power < value) power *= 2;
  return power;
}

}  // namespace

const DeviceFileFormat kTunedParameterFormat = {"MACECLTP", kTunedParameterVersion,
                                                "MACE OpenCL tuned-parameter file"};

std::string LaunchKey(const std::string& kernel, int64_t width, int64_t height) {
  return StrCat(kernel, " ", width, " ", height);
}

std::string FormatTunedParameters(const TunedParameters& tuned) {
  std::string body;
  for (const auto& entry : tuned) {
    body += StrCat(entry.first, " ", entry.second.width, " ", entry.second.height, "\n");
  }
  return body;
}

bool ParseTunedParameters(const std::string& body, TunedParameters* tuned, std::string* why) {
  tuned->clear();
  std::istringstream lines(body);
  std::string line;
  int number = 0;
  while (std::getline(lines, line)) {
    ++number;
    std::istringstream fields(line);
    std::string kernel, rest;
    int64_t width = 0, height = 0, local_width = 0, local_height = 0;
    if (!(fields >> kernel >> width >> height >> local_width >> local_height) ||
        (fields >> rest) || width <= 0 || height <= 0 || local_width <= 0 ||
        local_height <= 0 || local_width * local_height > (1 << 16)) {
      *why = StrCat("line ", number, " is malformed: '", line, "'");
      tuned->clear();
      return false;
    }
    (*tuned)[LaunchKey(kernel, width, height)] = {static_cast<uint32_t>(local_width),
                                                  static_cast<uint32_t>(local_height)};
  }
  return true;
}

LocalSize DefaultLocalSize(int64_t limit) {
  LocalSize local = {16, 4};
  while (static_cast<int64_t>(local.width) * local.height > std::max<int64_t>(limit, 1)) {
    if (local.height > 1) {
      local.height /= 2;
    } else {
      local.width /= 2;
    }
  }
  return local;
}

std::vector<LocalSize> CandidateLocalSizes(int64_t width, int64_t height, int64_t limit) {
  std::vector<LocalSize> candidates = {DefaultLocalSize(limit)};
  const int64_t widest = NextPowerOfTwo(width), tallest = NextPowerOfTwo(height);
  for (const LocalSize& shape : kShapes) {
    if (static_cast<int64_t>(shape.width) * shape.height > limit || shape.width > widest ||
        shape.height > tallest) {
      continue;
    }
    if (std::find(candidates.begin(), candidates.end(), shape) == candidates.end()) {
      candidates.push_back(shape);
    }
  }
  return candidates;
}

}  // namespace opencl
}  // namespace mace
