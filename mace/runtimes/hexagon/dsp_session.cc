#include "mace/runtimes/hexagon/dsp_session.h"

#include <chrono>

#include "mace/utils/run_control.h"
#include "mace/utils/status.h"

namespace mace {
namespace hexagon {

DspSession::DspSession(const DspChannelConfig& config) : config_(config) {
  control_.Config(config);
}

DspSession::~DspSession() { control_.Finalize(); }

std::string DspSession::Key(const DspChannelConfig& config) {
  // Paths as given: empty ones are resolved from the environment at Open.
  return StrCat(config.emulator_path, '\n', config.image_path);
}

bool DspSession::failed() {
  MaceStatus unused;
  Locked locked(this, nullptr, &unused);
  return !failure_.empty();
}

DspSession::Locked::Locked(DspSession* session, const RunControl* control, MaceStatus* status)
    : session_(session) {
  *status = MaceStatus();
  std::unique_lock<std::mutex> lock(session->mutex_);
  while (session->busy_) {
    if (control == nullptr) {
      session->freed_.wait(lock);
      continue;
    }
    session->freed_.wait_for(lock, std::chrono::milliseconds(DspChannel::kStopCheckMs));
    if (session->busy_ && control->ShouldStop()) {
      *status = control->Status();
      return;
    }
  }
  session->busy_ = true;
  locked_ = true;
}

DspSession::Locked::~Locked() {
  if (!locked_) return;
  {
    std::lock_guard<std::mutex> lock(session_->mutex_);
    session_->busy_ = false;
  }
  session_->freed_.notify_all();
}

MaceStatus DspSession::Locked::Open() {
  if (!session_->failure_.empty()) {
    return MaceStatus(MaceStatus::MACE_RUNTIME_ERROR,
                      StrCat("the Hexagon DSP session failed: ", session_->failure_));
  }
  if (session_->control_.initialized()) return MaceStatus();
  ++session_->generation_;
  return session_->control_.Init();
}

MaceStatus DspSession::Locked::TakeSlots(size_t count, std::vector<uint32_t>* slots) {
  slots->clear();
  for (uint32_t slot = 0; slot < dsp::kMaxGraphs && slots->size() < count; ++slot) {
    if (!session_->used_slots_.test(slot)) slots->push_back(slot);
  }
  if (slots->size() < count) {
    const size_t free_slots = slots->size();
    slots->clear();
    return MaceStatus(MaceStatus::MACE_OUT_OF_RESOURCES,
                      StrCat("the model needs ", count, " DSP graphs; the DSP session holds ",
                             dsp::kMaxGraphs, " and its other engines leave ", free_slots));
  }
  for (uint32_t slot : *slots) session_->used_slots_.set(slot);
  return MaceStatus();
}

void DspSession::Locked::GiveBack(const std::vector<uint32_t>& slots) {
  for (uint32_t slot : slots) session_->used_slots_.reset(slot);
}

}  // namespace hexagon
}  // namespace mace
