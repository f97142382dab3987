// Minimal logging: LOG(INFO|WARNING|ERROR) and VLOG(0..4) to stderr.
// VLOG verbosity comes from MACE_CPP_MIN_VLOG_LEVEL at run time; levels above
// MACE_MAX_VLOG_LEVEL (a compile-time define) are compiled out.
#ifndef MACE_UTILS_LOGGING_H_
#define MACE_UTILS_LOGGING_H_

#include "mace/utils/string_builder.h"

#ifndef MACE_MAX_VLOG_LEVEL
#define MACE_MAX_VLOG_LEVEL 4
#endif

namespace mace {
namespace logging {

enum Severity { INFO = 0, WARNING = 1, ERROR = 2 };

class LogMessage {
 public:
  LogMessage(const char* file, int line, int severity, int vlog_level);
  ~LogMessage();
  StringBuilder& stream() { return stream_; }

 private:
  const char* file_;
  int line_;
  int severity_;
  int vlog_level_;
  StringBuilder stream_;
};

int MinVLogLevel();

}  // namespace logging
}  // namespace mace

#define LOG(severity) \
  ::mace::logging::LogMessage(__FILE__, __LINE__, ::mace::logging::severity, -1).stream()

#define VLOG_IS_ON(level) \
  ((level) <= MACE_MAX_VLOG_LEVEL && (level) <= ::mace::logging::MinVLogLevel())

#define VLOG(level)                 \
  if (!VLOG_IS_ON(level)) {         \
  } else                            \
    ::mace::logging::LogMessage(__FILE__, __LINE__, ::mace::logging::INFO, level).stream()

#endif  // MACE_UTILS_LOGGING_H_
