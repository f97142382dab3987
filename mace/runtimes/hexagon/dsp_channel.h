// The host's end of the channel to the DSP runtime: it starts the DSP image
// under qemu-hexagon with its stdin and stdout on a socket pair and keeps it
// for the channel's lifetime, as a FastRPC session would. Each Call sends
// one framed request (mace/dsp/protocol.h) and waits for its reply with a
// deadline. When the DSP dies, hangs or sends something that is not a valid
// reply, the call returns an error, the process is killed and the channel
// is closed: every later call fails until Open starts a new session.
//
// Writes use send(MSG_NOSIGNAL), so a dead DSP never raises SIGPIPE in the
// host.
//
// A call made during a Run with a RunControl (RunOptions) checks it every
// kStopCheckMs while it waits for the reply; once the Run must stop, the
// process is killed and the call returns the Run's stop status
// (MACE_CANCELLED or MACE_DEADLINE_EXCEEDED): the session is closed, as
// after a failure, and Open starts a new one.
#ifndef MACE_RUNTIMES_HEXAGON_DSP_CHANNEL_H_
#define MACE_RUNTIMES_HEXAGON_DSP_CHANNEL_H_

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "mace/public/mace.h"

namespace mace {
namespace hexagon {

struct DspChannelConfig {
  // The emulator and the DSP image. Empty: MACE_QEMU_HEXAGON (else
  // qemu-hexagon on PATH) and MACE_DSP_RUNTIME.
  std::string emulator_path;
  std::string image_path;
  // Deadline of each call, start-up included.
  int timeout_ms = 30000;
};

struct DspReply {
  uint32_t status = 0;  // ReplyStatus
  uint32_t dsp_time_us = 0;
  std::vector<uint8_t> payload;
};

class DspChannel {
 public:
  DspChannel() = default;
  ~DspChannel();
  DspChannel(const DspChannel&) = delete;
  DspChannel& operator=(const DspChannel&) = delete;

  // Starts the DSP process and checks it answers a ping. Fails clearly when
  // the emulator or the image cannot be found.
  MaceStatus Open(const DspChannelConfig& config);
  // Ends the session: the DSP process exits at the end of its input, or is
  // killed if it has not within kGracefulExitMs.
  void Close();
  static constexpr int kGracefulExitMs = 500;
  bool is_open() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }

  // Sends a request and reads its reply. Transport failures (the DSP died,
  // the deadline passed, a malformed reply) close the channel; a reply
  // with a non-zero status is returned as it is, for the caller to judge.
  MaceStatus Call(uint32_t type, const std::vector<uint32_t>& params, const void* payload,
                  size_t payload_size, DspReply* reply);
  void set_timeout_ms(int timeout_ms) { timeout_ms_ = timeout_ms; }
  static constexpr int kStopCheckMs = 1;

 private:
  // Closes the channel; the error says how the process ended if it did
  // within `wait_for_exit_ms`.
  MaceStatus Fail(const std::string& what, int wait_for_exit_ms = 0);
  void Shutdown(int grace_ms);
  // Kills the DSP for a stopped Run; `stop` is the Run's status.
  MaceStatus Abandon(const MaceStatus& stop);
  MaceStatus SendAll(const void* data, size_t size, int64_t deadline_ms);
  MaceStatus ReceiveAll(void* data, size_t size, int64_t deadline_ms, bool first_of_reply);

  pid_t pid_ = -1;
  int fd_ = -1;
  int timeout_ms_ = 30000;
  std::string description_;  // names the image in errors
};

// The engine's channel configuration from MaceEngineConfig's
// HexagonOptions: the paths as given (empty ones are resolved from the
// environment when the channel opens), the deadline of each call when
// non-zero, else MACE_DSP_TIMEOUT_MS when set (a whole model on the
// emulator can take longer than the default). A timeout that is not a
// positive number of milliseconds up to a day is MACE_INVALID_ARGS.
MaceStatus DspChannelConfigFromOptions(const HexagonOptions& options, DspChannelConfig* config);

// Where the emulator and image are, resolved as DspChannelConfig says; an
// error names what is missing and how to provide it.
MaceStatus ResolveDspPaths(const DspChannelConfig& config, std::string* emulator,
                           std::string* image);

}  // namespace hexagon
}  // namespace mace

#endif  // MACE_RUNTIMES_HEXAGON_DSP_CHANNEL_H_
