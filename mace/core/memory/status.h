// The planner library's error type. The library is pure C++ (no engine
// headers), so it carries its own tiny status instead of MaceStatus; callers
// translate at the boundary.
#ifndef MACE_CORE_MEMORY_STATUS_H_
#define MACE_CORE_MEMORY_STATUS_H_

#include <string>
#include <utility>

namespace mace {
namespace memory {

class Status {
 public:
  Status() = default;  // OK.
  static Status Error(std::string message) { return Status(std::move(message)); }

  bool ok() const { return ok_; }
  const std::string& message() const { return message_; }

 private:
  explicit Status(std::string message) : ok_(false), message_(std::move(message)) {}

  bool ok_ = true;
  std::string message_;
};

}  // namespace memory
}  // namespace mace

#define MACE_MEMORY_RETURN_IF_ERROR(expr)            \
  do {                                               \
    ::mace::memory::Status _memory_status = (expr);  \
    if (!_memory_status.ok()) return _memory_status; \
  } while (0)

#endif  // MACE_CORE_MEMORY_STATUS_H_
