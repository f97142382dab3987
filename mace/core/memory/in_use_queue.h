// Objects currently holding a live tensor, released in (last_task, object_id)
// order. The order matters: EQUALITY reuses the most recently released object
// and the 2D GREEDY_IN_ORDER breaks ties by release order.
#ifndef MACE_CORE_MEMORY_IN_USE_QUEUE_H_
#define MACE_CORE_MEMORY_IN_USE_QUEUE_H_

#include <functional>
#include <queue>
#include <utility>
#include <vector>

#include "mace/core/memory/usage_record.h"

namespace mace {
namespace memory {

class InUseQueue {
 public:
  void Push(TaskId last_task, size_t object_id) { queue_.emplace(last_task, object_id); }

  // Calls release(object_id) for every object whose last user finished
  // strictly before `task`; touching intervals never share.
  template <typename Release>
  void ReleaseBefore(TaskId task, Release release) {
    while (!queue_.empty() && queue_.top().first < task) {
      release(queue_.top().second);
      queue_.pop();
    }
  }

 private:
  using Entry = std::pair<TaskId, size_t>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> queue_;
};

}  // namespace memory
}  // namespace mace

#endif  // MACE_CORE_MEMORY_IN_USE_QUEUE_H_
