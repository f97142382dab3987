#include "mace/runtimes/opencl/tuning.h"

#include <algorithm>
#include <cctype>
#include <limits>

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

// Reads white-space separated fields off one line the way `istream >>`
// does: a word is a run of non-space characters, a number an optional sign
// and decimal digits (what follows the digits stays for the next field).
class FieldReader {
 public:
  explicit FieldReader(const std::string& line) : line_(line) {}

  bool Word(std::string* word) {
    SkipSpace();
    const size_t begin = at_;
    while (at_ < line_.size() && !IsSpace(line_[at_])) ++at_;
    word->assign(line_, begin, at_ - begin);
    return at_ > begin;
  }

  bool Number(int64_t* value) {
    SkipSpace();
    bool negative = false;
    if (at_ < line_.size() && (line_[at_] == '+' || line_[at_] == '-')) {
      negative = line_[at_] == '-';
      ++at_;
    }
    const uint64_t limit = negative ? uint64_t{1} << 63 : std::numeric_limits<int64_t>::max();
    uint64_t magnitude = 0;
    bool digits = false, overflow = false;
    for (; at_ < line_.size() && line_[at_] >= '0' && line_[at_] <= '9'; ++at_) {
      digits = true;
      const uint64_t digit = static_cast<uint64_t>(line_[at_] - '0');
      if (magnitude > (limit - digit) / 10) overflow = true;
      if (!overflow) magnitude = magnitude * 10 + digit;
    }
    if (!digits || overflow) return false;
    *value = negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
    return true;
  }

 private:
  static bool IsSpace(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }
  void SkipSpace() {
    while (at_ < line_.size() && IsSpace(line_[at_])) ++at_;
  }

  const std::string& line_;
  size_t at_ = 0;
};

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
  int number = 0;
  // One entry a line; a final line break ends the last line.
  for (size_t begin = 0; begin < body.size();) {
    size_t end = body.find('\n', begin);
    if (end == std::string::npos) end = body.size();
    const std::string line = body.substr(begin, end - begin);
    begin = end + 1;
    ++number;
    FieldReader fields(line);
    std::string kernel, rest;
    int64_t width = 0, height = 0, local_width = 0, local_height = 0;
    if (!(fields.Word(&kernel) && fields.Number(&width) && fields.Number(&height) &&
          fields.Number(&local_width) && fields.Number(&local_height)) ||
        fields.Word(&rest) || width <= 0 || height <= 0 || local_width <= 0 ||
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
