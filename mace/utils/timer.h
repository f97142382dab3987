#ifndef MACE_UTILS_TIMER_H_
#define MACE_UTILS_TIMER_H_

#include <chrono>
#include <cstdint>

namespace mace {

inline int64_t NowMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace mace

#endif  // MACE_UTILS_TIMER_H_
