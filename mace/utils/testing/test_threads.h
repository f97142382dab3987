// The thread counts that kernel and engine tests run each case with, from
// MACE_TEST_THREADS: a comma-separated list of counts from 1 to 64, where 1
// is the single-thread path (no pool). Unset, it is 1,2,3: the
// single-thread path, an even split, and an uneven one. Emulated ARM runs
// in tools/test.sh set 1,3 (every kernel still runs whole and on uneven
// chunks); a value that does not parse stops the test with a message.
#ifndef MACE_UTILS_TESTING_TEST_THREADS_H_
#define MACE_UTILS_TESTING_TEST_THREADS_H_

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace mace {
namespace testing {

inline std::vector<int> TestThreadCounts() {
  const char* text = std::getenv("MACE_TEST_THREADS");
  if (text == nullptr || *text == '\0') return {1, 2, 3};
  std::vector<int> counts;
  const std::string value(text);
  size_t start = 0;
  while (start <= value.size()) {
    const size_t end = std::min(value.find(',', start), value.size());
    const std::string item = value.substr(start, end - start);
    int count = 0;
    bool ok = !item.empty() && item.size() <= 2;
    for (char c : item) {
      ok = ok && c >= '0' && c <= '9';
      if (ok) count = count * 10 + (c - '0');
    }
    if (!ok || count < 1 || count > 64) {
      std::fprintf(stderr,
                   "MACE_TEST_THREADS=\"%s\": expected thread counts from 1 to 64, "
                   "separated by commas\n",
                   text);
      std::abort();
    }
    counts.push_back(count);
    start = end + 1;
  }
  return counts;
}

}  // namespace testing
}  // namespace mace

#endif  // MACE_UTILS_TESTING_TEST_THREADS_H_
