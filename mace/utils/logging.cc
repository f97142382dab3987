#include "mace/utils/logging.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "mace/utils/debug_overrides.h"

namespace mace {
namespace logging {

int MinVLogLevel() {
  static const int level = [] {
    const char* env = DebugOverrideValue(DebugOverride::kVlogLevel);
    return env == nullptr ? 0 : std::atoi(env);
  }();
  return level;
}

LogMessage::LogMessage(const char* file, int line, int severity, int vlog_level)
    : file_(file), line_(line), severity_(severity), vlog_level_(vlog_level) {}

LogMessage::~LogMessage() {
  static const char kTags[] = "IWE";
  const char* base = std::strrchr(file_, '/');
  base = base == nullptr ? file_ : base + 1;
  const char tag = vlog_level_ >= 0 ? 'V' : kTags[severity_];
  std::fprintf(stderr, "%c %s:%d] %s\n", tag, base, line_, stream_.str().c_str());
}

}  // namespace logging
}  // namespace mace
