// For tests of huge-page advice: whether this process can give it and see
// it (a kernel with transparent huge pages, MACE_HUGE_PAGES not 0, a
// readable /proc/self/smaps). Tests that check the advice skip otherwise.
#ifndef MACE_UTILS_HUGE_PAGE_TESTING_H_
#define MACE_UTILS_HUGE_PAGE_TESTING_H_

#include <cstdlib>

#include "mace/utils/large_buffer.h"

namespace mace {

inline bool CanSeeHugePageAdvice() {
  void* probe = AllocateLargeBuffer(kHugePageBytes, 64, false);
  const bool can =
      probe != nullptr && AdviseHugePages(probe, kHugePageBytes) && HugePagesAdvisedAt(probe);
  std::free(probe);
  return can;
}

}  // namespace mace

#endif  // MACE_UTILS_HUGE_PAGE_TESTING_H_
