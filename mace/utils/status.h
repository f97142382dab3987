// Error helpers. Library code returns MaceStatus and never aborts on bad
// input; these macros keep the early returns short.
#ifndef MACE_UTILS_STATUS_H_
#define MACE_UTILS_STATUS_H_

#include <sstream>
#include <string>
#include <utility>

#include "mace/public/mace.h"

namespace mace {

template <typename... Args>
std::string StrCat(Args&&... args) {
  std::ostringstream stream;
  (stream << ... << std::forward<Args>(args));
  return stream.str();
}

}  // namespace mace

#define MACE_RETURN_IF_ERROR(expr)                 \
  do {                                             \
    ::mace::MaceStatus _mace_status = (expr);      \
    if (!_mace_status.ok()) return _mace_status;   \
  } while (0)

// Checks user-controlled input; on failure returns MACE_INVALID_ARGS with the
// concatenated message.
#define MACE_CHECK_ARG(condition, ...)                                 \
  do {                                                                 \
    if (!(condition)) {                                                \
      return ::mace::MaceStatus(::mace::MaceStatus::MACE_INVALID_ARGS, \
                                ::mace::StrCat(__VA_ARGS__));          \
    }                                                                  \
  } while (0)

#define MACE_UNSUPPORTED_IF(condition, ...)                           \
  do {                                                                \
    if (condition) {                                                  \
      return ::mace::MaceStatus(::mace::MaceStatus::MACE_UNSUPPORTED, \
                                ::mace::StrCat(__VA_ARGS__));         \
    }                                                                 \
  } while (0)

#endif  // MACE_UTILS_STATUS_H_
