#include "mace/utils/status.h"

#include <exception>
#include <new>
#include <stdexcept>
#include <string>

#include "mace/public/mace.h"
#include "mace/utils/checked_math.h"

namespace mace {
namespace internal {

namespace {

// The status for a step that threw: the step's name and `what` in the
// message, or the bare code if building the message fails too (memory is
// short).
MaceStatus ExceptionStatus(MaceStatus::Code code, std::string (*where)(void*), void* where_object,
                           const char* what) noexcept {
  try {
    return MaceStatus(code, where(where_object) + ": " + what);
  } catch (...) {
    return MaceStatus(code);
  }
}

}  // namespace

MaceStatus CatchExceptionsCall(MaceStatus (*step)(void*), void* step_object,
                               std::string (*where)(void*), void* where_object) noexcept {
  try {
    return step(step_object);
  } catch (const std::bad_alloc&) {
    return ExceptionStatus(MaceStatus::MACE_OUT_OF_RESOURCES, where, where_object, "out of memory");
  } catch (const std::length_error&) {
    return ExceptionStatus(MaceStatus::MACE_OUT_OF_RESOURCES, where, where_object,
                           "out of memory (a buffer too large to allocate)");
  } catch (const std::exception& e) {
    return ExceptionStatus(MaceStatus::MACE_RUNTIME_ERROR, where, where_object, e.what());
  } catch (...) {
    return ExceptionStatus(MaceStatus::MACE_RUNTIME_ERROR, where, where_object,
                           "an exception of unknown type");
  }
}

}  // namespace internal

std::string MaceStatus::ToString() const {
  static const char* const kNames[] = {"SUCCESS", "INVALID_ARGS", "OUT_OF_RESOURCES", "UNSUPPORTED",
                                       "RUNTIME_ERROR", "CANCELLED", "DEADLINE_EXCEEDED"};
  std::string text = kNames[code_];
  if (!information_.empty()) text += ": " + information_;
  return text;
}

int64_t MaceTensor::size() const {
  // An app chooses this shape: a negative dimension or a product past int64
  // is reported as -1, which matches no tensor of any model.
  int64_t count = 1;
  for (int64_t d : shape_) {
    if (d < 0 || !CheckedMul(count, d, &count)) return -1;
  }
  return count;
}

int TensorDataTypeSize(TensorDataType type) {
  switch (type) {
    case TensorDataType::FLOAT32:
    case TensorDataType::INT32:
      return 4;
    case TensorDataType::INT64:
      return 8;
    case TensorDataType::UINT8:
    case TensorDataType::BOOL:
      return 1;
  }
  return 0;
}

const char* TensorDataTypeName(TensorDataType type) {
  switch (type) {
    case TensorDataType::FLOAT32:
      return "float32";
    case TensorDataType::INT32:
      return "int32";
    case TensorDataType::UINT8:
      return "uint8";
    case TensorDataType::INT64:
      return "int64";
    case TensorDataType::BOOL:
      return "bool";
  }
  return "invalid";
}

const char* MaceVersion() { return "0.1.0"; }

}  // namespace mace
