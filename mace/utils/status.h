// Error helpers. Library code returns MaceStatus and never aborts on bad
// input; these macros keep the early returns short.
#ifndef MACE_UTILS_STATUS_H_
#define MACE_UTILS_STATUS_H_

#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "mace/public/mace.h"
#include "mace/utils/string_builder.h"

namespace mace {

namespace internal {

// The handlers of CatchExceptions, compiled once for every caller: the step
// and the callable that names it come in as plain function pointers.
MaceStatus CatchExceptionsCall(MaceStatus (*step)(void*), void* step_object,
                               std::string (*where)(void*), void* where_object) noexcept;

template <typename T>
void* ObjectAddress(T& object) {
  return const_cast<void*>(static_cast<const void*>(&object));
}

}  // namespace internal

// Runs `step`, a callable returning MaceStatus, and turns an exception
// escaping it into a status, so that none reaches the app: a failed
// allocation (std::bad_alloc, or std::length_error from a container asked
// for more than it can hold) is MACE_OUT_OF_RESOURCES, anything else (a
// custom op's own exception, say) MACE_RUNTIME_ERROR. `where`, a callable
// returning a string, names the step in the message; it is called only on
// failure.
template <typename Step, typename Where>
MaceStatus CatchExceptions(Step&& step, Where&& where) noexcept {
  using StepType = std::remove_reference_t<Step>;
  using WhereType = std::remove_reference_t<Where>;
  return internal::CatchExceptionsCall(
      [](void* object) -> MaceStatus { return (*static_cast<StepType*>(object))(); },
      internal::ObjectAddress(step),
      [](void* object) { return StrCat((*static_cast<WhereType*>(object))()); },
      internal::ObjectAddress(where));
}

}  // namespace mace

#define MACE_RETURN_IF_ERROR(expr)               \
  do {                                           \
    ::mace::MaceStatus _mace_status = (expr);    \
    if (!_mace_status.ok()) return _mace_status; \
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
