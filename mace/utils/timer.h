#ifndef MACE_UTILS_TIMER_H_
#define MACE_UTILS_TIMER_H_

#include <chrono>
#include <cstdint>
#include <ctime>

namespace mace {

inline int64_t NowMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// CPU time of the whole process (every thread), or -1 where the clock is
// missing. On a loaded host it leaves out the time spent waiting for a core.
inline int64_t ProcessCpuMicros() {
#if defined(CLOCK_PROCESS_CPUTIME_ID)
  timespec now{};
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now) != 0) return -1;
  return static_cast<int64_t>(now.tv_sec) * 1000000 + now.tv_nsec / 1000;
#else
  return -1;
#endif
}

}  // namespace mace

#endif  // MACE_UTILS_TIMER_H_
