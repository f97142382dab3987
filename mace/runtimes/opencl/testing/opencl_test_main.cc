// main() of the OpenCL tests: fixes PoCL's environment before OpenCL is
// loaded, so that every run sees the same device limits and reuses
// compiled kernels. POCL_MEMORY_LIMIT=4 (GB) fixes the largest image at
// 8192 pixels; POCL_CACHE_DIR keeps PoCL's kernel cache between runs
// (the first build of the program takes seconds on PoCL). Variables set
// by the caller win. The tests are tagged no-sandbox so that the cache
// directory is writable; elsewhere PoCL gets a directory of the test's own.
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "gtest/gtest.h"

int main(int argc, char** argv) {
  setenv("POCL_MEMORY_LIMIT", "4", /*overwrite=*/0);
  if (std::getenv("POCL_CACHE_DIR") == nullptr) {
    const passwd* user = getpwuid(getuid());
    if (user != nullptr && user->pw_dir != nullptr) {
      const std::string cache = std::string(user->pw_dir) + "/.cache";
      mkdir(cache.c_str(), 0755);
      const std::string dir = cache + "/mace-pocl";
      mkdir(dir.c_str(), 0755);
      if (access(dir.c_str(), W_OK) == 0) setenv("POCL_CACHE_DIR", dir.c_str(), 0);
    }
    // PoCL cannot build kernels without a writable cache directory.
    const char* test_tmpdir = std::getenv("TEST_TMPDIR");
    if (test_tmpdir != nullptr) setenv("POCL_CACHE_DIR", test_tmpdir, 0);
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
