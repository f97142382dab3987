// One DSP session (one emulator process, reached through one DspChannel)
// that several Hexagon engines use: the engines of one MaceContext with
// the same emulator and image share it, as the engines of an app share one
// FastRPC session on a phone. An engine made without a context has a
// session of its own.
//
// The protocol has one request in flight, so every call to the DSP is made
// under the session's lock (Locked). Each engine sets its graphs up in
// slots it takes from the session's kMaxGraphs, and gives them back when
// it is destroyed.
//
// When a stopped Run abandons a call (DspChannel kills the process), the
// session closes for every engine that uses it. The next engine to call
// the DSP opens it again; the generation counts the openings, so each
// engine knows its graphs were lost and sets them up again before its next
// call. When the DSP process dies, hangs or replies garbage, the session
// has failed for good: every engine that uses it refuses to run, and the
// context gives engines created later a new session.
#ifndef MACE_RUNTIMES_HEXAGON_DSP_SESSION_H_
#define MACE_RUNTIMES_HEXAGON_DSP_SESSION_H_

#include <bitset>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "mace/dsp/protocol.h"
#include "mace/public/mace.h"
#include "mace/runtimes/hexagon/hexagon_control.h"

namespace mace {
class RunControl;

namespace hexagon {

class DspSession {
 public:
  explicit DspSession(const DspChannelConfig& config);
  ~DspSession();
  DspSession(const DspSession&) = delete;
  DspSession& operator=(const DspSession&) = delete;

  // The session under its lock, for a sequence of calls.
  class Locked {
   public:
    // Waits for the lock. With a RunControl, it checks the Run's stop
    // every DspChannel::kStopCheckMs while another engine's call holds
    // the lock; `*status` is then the Run's stop status and the session is
    // not locked. Otherwise `*status` is OK.
    Locked(DspSession* session, const RunControl* control, MaceStatus* status);
    ~Locked();
    Locked(const Locked&) = delete;
    Locked& operator=(const Locked&) = delete;
    bool locked() const { return locked_; }

    // Opens the session if it is closed (a new process; the generation
    // grows). A session that failed stays failed.
    MaceStatus Open();
    HexagonControl* control() { return &session_->control_; }
    uint64_t generation() const { return session_->generation_; }
    // Why the session failed for good, or "" while it may still be used.
    const std::string& failure() const { return session_->failure_; }
    void Fail(const std::string& why) { session_->failure_ = why; }

    // Takes `count` free graph slots, or fails when the engines of the
    // session would hold more than dsp::kMaxGraphs graphs.
    MaceStatus TakeSlots(size_t count, std::vector<uint32_t>* slots);
    void GiveBack(const std::vector<uint32_t>& slots);

   private:
    DspSession* session_;
    bool locked_ = false;
  };

  // Whether the session failed for good; takes the lock.
  bool failed();
  // The key of a config in a context's table of sessions: engines whose
  // configs give the same key share a session.
  static std::string Key(const DspChannelConfig& config);

 private:
  // The session's lock: `busy_` under `mutex_`, waited for on `freed_`
  // (a waiting Run must wake up to check its stop).
  std::mutex mutex_;
  std::condition_variable freed_;
  bool busy_ = false;
  DspChannelConfig config_;
  HexagonControl control_;
  uint64_t generation_ = 0;
  std::string failure_;
  std::bitset<dsp::kMaxGraphs> used_slots_;
};

}  // namespace hexagon
}  // namespace mace

#endif  // MACE_RUNTIMES_HEXAGON_DSP_SESSION_H_
