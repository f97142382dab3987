#ifndef MACE_UTILS_TIMER_H_
#define MACE_UTILS_TIMER_H_

#include <chrono>
#include <cstdint>
#include <ctime>

#if defined(__unix__) || defined(__APPLE__)
#include <sys/resource.h>
#endif

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

// The kernel's side of the process so far: CPU time in the kernel (page
// clearing, page-table work, system calls) and page faults, every thread.
// `valid` is false where getrusage is missing.
struct ProcessKernelUsage {
  bool valid = false;
  int64_t system_micros = 0;
  int64_t minor_faults = 0;
  int64_t major_faults = 0;
};

inline ProcessKernelUsage ProcessKernelNow() {
  ProcessKernelUsage usage;
#if defined(__unix__) || defined(__APPLE__)
  rusage now{};
  if (getrusage(RUSAGE_SELF, &now) != 0) return usage;
  usage.valid = true;
  usage.system_micros = static_cast<int64_t>(now.ru_stime.tv_sec) * 1000000 + now.ru_stime.tv_usec;
  usage.minor_faults = now.ru_minflt;
  usage.major_faults = now.ru_majflt;
#endif
  return usage;
}

}  // namespace mace

#endif  // MACE_UTILS_TIMER_H_
