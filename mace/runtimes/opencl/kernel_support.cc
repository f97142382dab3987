#include "mace/runtimes/opencl/kernel_support.h"

#include <map>
#include <mutex>

namespace mace {
namespace opencl {
namespace {

struct Checks {
  std::mutex mutex;
  std::map<std::string, KernelSupportCheck> by_type;
};

Checks& AllChecks() {
  static Checks* checks = new Checks;
  return *checks;
}

}  // namespace

void SetKernelSupportCheck(const std::string& type, KernelSupportCheck check) {
  Checks& checks = AllChecks();
  std::lock_guard<std::mutex> lock(checks.mutex);
  checks.by_type[type] = check;
}

bool KernelSupportsDef(const OperatorDef& def) {
  KernelSupportCheck check = nullptr;
  {
    Checks& checks = AllChecks();
    std::lock_guard<std::mutex> lock(checks.mutex);
    auto found = checks.by_type.find(def.type());
    if (found != checks.by_type.end()) check = found->second;
  }
  return check == nullptr || check(def);
}

int64_t IntArgOf(const OperatorDef& def, const std::string& name, int64_t fallback) {
  for (const Argument& arg : def.arg()) {
    if (arg.name() == name) return arg.has_i() ? arg.i() : fallback;
  }
  return fallback;
}

}  // namespace opencl
}  // namespace mace
