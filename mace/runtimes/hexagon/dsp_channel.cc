#include "mace/runtimes/hexagon/dsp_channel.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "mace/dsp/protocol.h"
#include "mace/utils/debug_overrides.h"
#include "mace/utils/run_control.h"
#include "mace/utils/status.h"

extern char** environ;

namespace mace {
namespace hexagon {
namespace {

int64_t NowMs() {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return int64_t{now.tv_sec} * 1000 + now.tv_nsec / 1000000;
}

bool IsExecutableFile(const std::string& path) {
  struct stat info;
  return stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) && access(path.c_str(), X_OK) == 0;
}

bool IsReadableFile(const std::string& path) {
  struct stat info;
  return stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) && access(path.c_str(), R_OK) == 0;
}

std::string FindOnPath(const std::string& name) {
  const char* path = DebugOverrideValue(DebugOverride::kSearchPath);
  std::string dirs = path != nullptr ? path : "/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    const size_t end = dirs.find(':', start);
    const std::string dir = dirs.substr(start, end == std::string::npos ? end : end - start);
    if (!dir.empty() && IsExecutableFile(dir + "/" + name)) return dir + "/" + name;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return "";
}

std::string EnvOr(const std::string& value, DebugOverride variable) {
  if (!value.empty()) return value;
  const char* env = DebugOverrideValue(variable);
  return env != nullptr ? env : "";
}

}  // namespace

MaceStatus DspChannelConfigFromOptions(const HexagonOptions& options, DspChannelConfig* config) {
  constexpr int64_t kDayMs = int64_t{24} * 3600 * 1000;
  config->emulator_path = options.emulator_path;
  config->image_path = options.image_path;
  if (options.call_timeout_ms < 0 || options.call_timeout_ms > kDayMs) {
    return MaceStatus(MaceStatus::MACE_INVALID_ARGS,
                      StrCat("Hexagon call timeout ", options.call_timeout_ms,
                             " ms: expected a positive number of milliseconds (at most a day)"));
  }
  if (options.call_timeout_ms > 0) {
    config->timeout_ms = static_cast<int>(options.call_timeout_ms);
    return MaceStatus();
  }
  const char* text = DebugOverrideValue(DebugOverride::kDspTimeoutMs);
  if (text == nullptr) return MaceStatus();
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || errno != 0 || value <= 0 || value > kDayMs) {
    return MaceStatus(MaceStatus::MACE_INVALID_ARGS,
                      StrCat("MACE_DSP_TIMEOUT_MS='", text,
                             "': expected a positive number of milliseconds (at most a day)"));
  }
  config->timeout_ms = static_cast<int>(value);
  return MaceStatus();
}

MaceStatus ResolveDspPaths(const DspChannelConfig& config, std::string* emulator,
                           std::string* image) {
  *emulator = EnvOr(config.emulator_path, DebugOverride::kQemuHexagon);
  if (emulator->empty()) *emulator = FindOnPath("qemu-hexagon");
  if (emulator->empty()) {
    return MaceStatus(MaceStatus::MACE_UNSUPPORTED,
                      "Hexagon DSP: qemu-hexagon was not found (install qemu-user, or give its "
                      "path: HexagonOptions::emulator_path, mace_run --dsp_emulator or "
                      "MACE_QEMU_HEXAGON); the DSP here is emulated");
  }
  if (!IsExecutableFile(*emulator)) {
    return MaceStatus(MaceStatus::MACE_UNSUPPORTED,
                      StrCat("Hexagon DSP: the emulator ", *emulator, " is not an executable"));
  }
  *image = EnvOr(config.image_path, DebugOverride::kDspRuntime);
  if (image->empty()) {
    return MaceStatus(MaceStatus::MACE_UNSUPPORTED,
                      "Hexagon DSP: no DSP image given (HexagonOptions::image_path, mace_run "
                      "--dsp_image or MACE_DSP_RUNTIME: dsp_runtime.elf, built by "
                      "//mace/dsp:dsp_runtime)");
  }
  if (!IsReadableFile(*image)) {
    return MaceStatus(MaceStatus::MACE_UNSUPPORTED,
                      StrCat("Hexagon DSP: the DSP image ", *image, " does not exist"));
  }
  return MaceStatus::MACE_SUCCESS;
}

DspChannel::~DspChannel() { Close(); }

void DspChannel::Close() { Shutdown(kGracefulExitMs); }

// Closing the socket ends the DSP's message loop (end of input), so a
// healthy DSP exits by itself (and qemu's exit hooks run); one that has
// not after `grace_ms` is killed.
void DspChannel::Shutdown(int grace_ms) {
  if (fd_ >= 0) {
    close(fd_);
    fd_ = -1;
  }
  if (pid_ > 0) {
    int status = 0;
    pid_t done = waitpid(pid_, &status, WNOHANG);
    for (int waited = 0; done == 0 && waited < grace_ms; waited += 2) {
      usleep(2000);
      done = waitpid(pid_, &status, WNOHANG);
    }
    if (done == 0) {
      kill(pid_, SIGKILL);
      while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
      }
    }
    pid_ = -1;
  }
}

MaceStatus DspChannel::Fail(const std::string& what, int wait_for_exit_ms) {
  // Describe how the process ended, if it did, before killing it. After
  // the channel closed the exit is usually moments away.
  std::string ended;
  if (pid_ > 0) {
    int status = 0;
    pid_t done = waitpid(pid_, &status, WNOHANG);
    for (int waited = 0; done == 0 && waited < wait_for_exit_ms; waited += 5) {
      usleep(5000);
      done = waitpid(pid_, &status, WNOHANG);
    }
    if (done == pid_) {
      ended = WIFEXITED(status) ? StrCat(" (the DSP process exited with status ",
                                         WEXITSTATUS(status), ")")
                                : StrCat(" (the DSP process was killed by signal ",
                                         WTERMSIG(status), ")");
      pid_ = -1;
    }
  }
  Shutdown(0);  // a DSP that misbehaved is not trusted to exit
  return MaceStatus(MaceStatus::MACE_RUNTIME_ERROR,
                    StrCat("Hexagon DSP (", description_, "): ", what, ended,
                           "; the session is closed"));
}

MaceStatus DspChannel::Abandon(const MaceStatus& stop) {
  Shutdown(0);
  return MaceStatus(stop.code(), StrCat(stop.information(), "; the Hexagon DSP call was abandoned "
                                        "and its session (", description_, ") ended"));
}

MaceStatus DspChannel::Open(const DspChannelConfig& config) {
  Close();
  std::string emulator, image;
  MACE_RETURN_IF_ERROR(ResolveDspPaths(config, &emulator, &image));
  description_ = image;
  timeout_ms_ = config.timeout_ms;
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    return MaceStatus(MaceStatus::MACE_RUNTIME_ERROR,
                      StrCat("Hexagon DSP: socketpair failed: ", std::strerror(errno)));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 0);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  std::vector<char*> argv = {const_cast<char*>(emulator.c_str()), const_cast<char*>(image.c_str()),
                             nullptr};
  pid_t pid = -1;
  const int error = posix_spawn(&pid, emulator.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (error != 0) {
    close(fds[0]);
    return MaceStatus(MaceStatus::MACE_RUNTIME_ERROR,
                      StrCat("Hexagon DSP: starting ", emulator, " failed: ", std::strerror(error)));
  }
  pid_ = pid;
  fd_ = fds[0];
  DspReply reply;
  const char ping[] = "ping";
  MACE_RETURN_IF_ERROR(Call(dsp::kPing, {}, ping, 4, &reply));
  if (reply.status != dsp::kOk || reply.payload.size() != 4 ||
      std::memcmp(reply.payload.data(), ping, 4) != 0) {
    return Fail("the DSP image did not answer the first ping");
  }
  return MaceStatus::MACE_SUCCESS;
}

MaceStatus DspChannel::SendAll(const void* data, size_t size, int64_t deadline_ms) {
  const uint8_t* bytes = static_cast<const uint8_t*>(data);
  while (size > 0) {
    pollfd item = {fd_, POLLOUT, 0};
    const int64_t left = deadline_ms - NowMs();
    if (left <= 0) return Fail("timed out sending a request");
    const int ready = poll(&item, 1, static_cast<int>(left));
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) return Fail("timed out sending a request");
    const ssize_t sent = send(fd_, bytes, size, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (sent < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (sent <= 0) {
      return Fail(StrCat("the DSP stopped reading (", std::strerror(errno), ")"), 1000);
    }
    bytes += sent;
    size -= static_cast<size_t>(sent);
  }
  return MaceStatus::MACE_SUCCESS;
}

MaceStatus DspChannel::ReceiveAll(void* data, size_t size, int64_t deadline_ms,
                                  bool first_of_reply) {
  uint8_t* bytes = static_cast<uint8_t*>(data);
  // A stopped Run abandons the call: the DSP reads no request while it
  // works, so ending its process is the only way to reach it.
  const RunControl* control = CurrentRunControl();
  while (size > 0) {
    if (control != nullptr && control->ShouldStop()) return Abandon(control->Status());
    pollfd item = {fd_, POLLIN, 0};
    const int64_t left = deadline_ms - NowMs();
    auto late = [this] {
      return Fail(StrCat("no reply before the deadline (", timeout_ms_, " ms a call)"));
    };
    if (left <= 0) return late();
    const int64_t wait = control != nullptr ? std::min<int64_t>(left, kStopCheckMs) : left;
    const int ready = poll(&item, 1, static_cast<int>(wait));
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) continue;  // the deadline or the stop, checked above
    const ssize_t got = recv(fd_, bytes, size, MSG_DONTWAIT);
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (got == 0) {
      return Fail(bytes == data && first_of_reply ? "the DSP closed the channel without replying"
                                                  : "the DSP closed the channel in the middle of a reply",
                  1000);
    }
    if (got < 0) return Fail(StrCat("reading the reply failed: ", std::strerror(errno)));
    bytes += got;
    size -= static_cast<size_t>(got);
  }
  return MaceStatus::MACE_SUCCESS;
}

MaceStatus DspChannel::Call(uint32_t type, const std::vector<uint32_t>& params,
                            const void* payload, size_t payload_size, DspReply* reply) {
  if (!is_open()) {
    return MaceStatus(MaceStatus::MACE_RUNTIME_ERROR,
                      "Hexagon DSP: the session is closed (open it again)");
  }
  MACE_CHECK_ARG(params.size() <= dsp::kMaxParams && payload_size <= dsp::kMaxPayloadBytes,
                 "Hexagon DSP: a request of ", params.size(), " params and ", payload_size,
                 " bytes is too large");
  const int64_t deadline = NowMs() + timeout_ms_;
  dsp::RequestHeader header;
  header.magic = dsp::kRequestMagic;
  header.type = type;
  header.nparams = static_cast<uint32_t>(params.size());
  header.nbytes = static_cast<uint32_t>(payload_size);
  header.checksum =
      dsp::FrameChecksum(header, params.data(), params.size() * 4, payload, payload_size);
  MACE_RETURN_IF_ERROR(SendAll(&header, sizeof(header), deadline));
  MACE_RETURN_IF_ERROR(SendAll(params.data(), params.size() * 4, deadline));
  MACE_RETURN_IF_ERROR(SendAll(payload, payload_size, deadline));

  dsp::ReplyHeader answer;
  MACE_RETURN_IF_ERROR(ReceiveAll(&answer, sizeof(answer), deadline, true));
  if (answer.magic != dsp::kReplyMagic) return Fail("the reply does not start with a reply header");
  if (answer.nbytes > dsp::kMaxPayloadBytes) {
    return Fail(StrCat("the reply claims ", answer.nbytes, " bytes"));
  }
  reply->payload.resize(answer.nbytes);
  MACE_RETURN_IF_ERROR(ReceiveAll(reply->payload.data(), answer.nbytes, deadline, false));
  if (dsp::FrameChecksum(answer, reply->payload.data(), reply->payload.size(), nullptr, 0) !=
      answer.checksum) {
    return Fail("the reply's checksum is wrong");
  }
  reply->status = answer.status;
  reply->dsp_time_us = answer.dsp_time_us;
  return MaceStatus::MACE_SUCCESS;
}

}  // namespace hexagon
}  // namespace mace
