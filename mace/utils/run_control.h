// The stop conditions of one Run (RunOptions) as the runtimes check them.
//
// The engine installs the Run's control on its calling thread for the
// length of the Run (ScopedRunControl). The net checks it between ops; the
// CPU thread pool copies the caller's control into each parallel job, so
// every thread checks it before each piece it takes; the OpenCL runtime
// before each enqueued piece of a split kernel. Once a check fails, the
// control stays stopped for the rest of the Run, so every later check is
// one load.
#ifndef MACE_UTILS_RUN_CONTROL_H_
#define MACE_UTILS_RUN_CONTROL_H_

#include <atomic>
#include <chrono>

#include "mace/public/mace.h"

namespace mace {

class RunControl {
 public:
  using Clock = std::chrono::steady_clock;

  // `timeout_micros` <= 0: no deadline.
  RunControl(const CancellationFlag* cancellation, int64_t timeout_micros)
      : cancellation_(cancellation),
        has_deadline_(timeout_micros > 0),
        deadline_(has_deadline_ ? Clock::now() + std::chrono::microseconds(timeout_micros)
                                : Clock::time_point::max()) {}

  // True once the Run must stop; safe from any thread.
  bool ShouldStop() const {
    if (stop_.load(std::memory_order_relaxed) != kRunning) return true;
    if (cancellation_ != nullptr && cancellation_->cancelled()) {
      Mark(kCancelled);
      return true;
    }
    if (has_deadline_ && Clock::now() >= deadline_) {
      Mark(kLate);
      return true;
    }
    return false;
  }

  // The status of a stopped Run (OK while it runs).
  MaceStatus Status() const {
    switch (stop_.load(std::memory_order_relaxed)) {
      case kCancelled:
        return MaceStatus(MaceStatus::MACE_CANCELLED, "the run was cancelled");
      case kLate:
        return MaceStatus(MaceStatus::MACE_DEADLINE_EXCEEDED, "the run's deadline passed");
      default:
        return MaceStatus();
    }
  }

 private:
  enum : int { kRunning = 0, kCancelled = 1, kLate = 2 };
  // The first reason found wins.
  void Mark(int reason) const {
    int expected = kRunning;
    stop_.compare_exchange_strong(expected, reason, std::memory_order_relaxed);
  }

  const CancellationFlag* cancellation_;
  const bool has_deadline_;
  const Clock::time_point deadline_;
  mutable std::atomic<int> stop_{kRunning};
};

// The control of the Run on this thread, or null outside a controlled Run.
const RunControl* CurrentRunControl();

// Installs `control` on this thread while it lives.
class ScopedRunControl {
 public:
  explicit ScopedRunControl(const RunControl* control);
  ~ScopedRunControl();
  ScopedRunControl(const ScopedRunControl&) = delete;
  ScopedRunControl& operator=(const ScopedRunControl&) = delete;

 private:
  const RunControl* previous_;
};

}  // namespace mace

#endif  // MACE_UTILS_RUN_CONTROL_H_
