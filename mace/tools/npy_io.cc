#include "mace/tools/npy_io.h"

#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

namespace mace {
namespace tools {
namespace {

bool EndsWith(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Parses the header dict, e.g. {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
bool ParseHeader(const std::string& header, std::vector<int64_t>* shape, std::string* error) {
  if (header.find("'descr': '<f4'") == std::string::npos) {
    *error = "only float32 ('<f4') .npy files are supported";
    return false;
  }
  if (header.find("'fortran_order': False") == std::string::npos) {
    *error = "Fortran-order .npy files are not supported";
    return false;
  }
  const size_t open = header.find("'shape': (");
  const size_t close = open == std::string::npos ? open : header.find(')', open);
  if (close == std::string::npos) {
    *error = "the .npy header has no shape";
    return false;
  }
  std::string dims = header.substr(open + 10, close - open - 10);
  std::stringstream stream(dims);
  std::string item;
  shape->clear();
  while (std::getline(stream, item, ',')) {
    if (item.find_first_not_of(' ') == std::string::npos) continue;
    char* end = nullptr;
    const long long value = std::strtoll(item.c_str(), &end, 10);
    if (value < 0 || value > (1LL << 31)) {
      *error = "the .npy shape is invalid";
      return false;
    }
    shape->push_back(value);
  }
  return true;
}

}  // namespace

bool ReadFloatTensor(const std::string& path, int64_t expected_count, std::vector<float>* data,
                     std::vector<int64_t>* shape, std::string* error) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    *error = "cannot open '" + path + "'";
    return false;
  }
  const std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  size_t payload = 0;
  shape->clear();
  if (EndsWith(path, ".npy")) {
    if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) {
      *error = "'" + path + "' is not a .npy file";
      return false;
    }
    const int major = static_cast<unsigned char>(bytes[6]);
    size_t header_len = 0;
    size_t header_start = 0;
    if (major == 1) {
      header_len = static_cast<unsigned char>(bytes[8]) | static_cast<unsigned char>(bytes[9]) << 8;
      header_start = 10;
    } else if (bytes.size() >= 12) {
      uint32_t len = 0;
      std::memcpy(&len, bytes.data() + 8, 4);
      header_len = len;
      header_start = 12;
    }
    if (header_start == 0 || header_start + header_len > bytes.size()) {
      *error = "'" + path + "' has a truncated .npy header";
      return false;
    }
    if (!ParseHeader(bytes.substr(header_start, header_len), shape, error)) {
      *error = "'" + path + "': " + *error;
      return false;
    }
    payload = header_start + header_len;
  }
  const size_t count = (bytes.size() - payload) / sizeof(float);
  if ((bytes.size() - payload) % sizeof(float) != 0 ||
      static_cast<int64_t>(count) != expected_count) {
    *error = "'" + path + "' holds " + std::to_string(bytes.size() - payload) +
             " data bytes but the input needs " + std::to_string(expected_count) +
             " float32 values";
    return false;
  }
  data->resize(count);
  std::memcpy(data->data(), bytes.data() + payload, count * sizeof(float));
  return true;
}

bool WriteNpy(const std::string& path, const std::vector<int64_t>& shape, const float* data,
              std::string* error) {
  std::string dims;
  int64_t count = 1;
  for (int64_t d : shape) {
    dims += std::to_string(d) + ", ";
    count *= d;
  }
  if (shape.size() > 1) dims.resize(dims.size() - 1);
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + dims + "), }";
  // Pad so that the data starts on a 64-byte boundary, ending with '\n'.
  const size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  std::ofstream file(path, std::ios::binary);
  if (!file) {
    *error = "cannot write '" + path + "'";
    return false;
  }
  const uint16_t len = static_cast<uint16_t>(header.size());
  file.write("\x93NUMPY\x01\x00", 8);
  const char len_bytes[2] = {static_cast<char>(len & 0xff), static_cast<char>(len >> 8)};
  file.write(len_bytes, 2);
  file.write(header.data(), header.size());
  file.write(reinterpret_cast<const char*>(data), count * sizeof(float));
  if (!file) {
    *error = "failed writing '" + path + "'";
    return false;
  }
  return true;
}

}  // namespace tools
}  // namespace mace
