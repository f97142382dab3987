// Files in the test's temporary directory, for the cache and parameter
// file tests.
#ifndef MACE_RUNTIMES_OPENCL_TESTING_TEMP_FILES_H_
#define MACE_RUNTIMES_OPENCL_TESTING_TEMP_FILES_H_

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace mace {
namespace testing {

inline std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

inline void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

}  // namespace testing
}  // namespace mace

#endif  // MACE_RUNTIMES_OPENCL_TESTING_TEMP_FILES_H_
