#include "mace/utils/run_control.h"

namespace mace {
namespace {

thread_local const RunControl* tls_run_control = nullptr;

}  // namespace

const RunControl* CurrentRunControl() { return tls_run_control; }

ScopedRunControl::ScopedRunControl(const RunControl* control) : previous_(tls_run_control) {
  tls_run_control = control;
}

ScopedRunControl::~ScopedRunControl() { tls_run_control = previous_; }

}  // namespace mace
