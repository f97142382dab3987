// The wire format between the host and the DSP runtime, shared by both
// sides (the host's channel in mace/runtimes/hexagon and the DSP's message
// loop). Fixed-width fields only: Hexagon clang defaults to short enums and
// unsigned char, so nothing here depends on the compiler's choices.
//
// A request is a RequestHeader, `nparams` 32-bit words and `nbytes` of
// payload; a reply is a ReplyHeader and `nbytes` of payload. The checksum of
// either covers the header (with the checksum field zero), the params and
// the payload.
#ifndef MACE_DSP_PROTOCOL_H_
#define MACE_DSP_PROTOCOL_H_

#include <stddef.h>
#include <stdint.h>

namespace mace {
namespace dsp {

constexpr uint32_t kRequestMagic = 0x5153444du;  // "MDSQ"
constexpr uint32_t kReplyMagic = 0x5253444du;    // "MDSR"
constexpr uint32_t kMaxParams = 1024;
constexpr uint32_t kMaxPayloadBytes = 256u << 20;
// Graphs one session holds at once; kSetupGraph, kExecute, kTeardown and
// kPrintGraph take the graph's slot in params[0] (0 when absent).
constexpr uint32_t kMaxGraphs = 64;

enum MessageType : uint32_t {
  kPing = 1,           // replies with the request's payload
  kSetupGraph = 2,     // params[0]: slot; payload: a serialized graph (graph_format.h)
  kExecute = 3,        // params[0]: slot, params[1]: ExecuteFlags (0 when absent);
                       // payload: the inputs, concatenated in graph order
  kTeardown = 4,       // params[0]: slot; drops the graph
  kGetPerfInfo = 5,    // reply: PerfInfo
  kResetPerfInfo = 6,
  kGetLog = 7,         // reply: the log text, and clears it
  kPrintGraph = 8,     // params[0]: slot; reply: a text description of the graph
  kSetDebugLevel = 9,  // params[0]: the level
  kSelfTest = 10,      // params[0]: SelfTest
  kFault = 100,        // params[0]: Fault (test images only)
};

enum ExecuteFlags : uint32_t {
  // The reply's payload ends with one OpProfile per op of the graph, in
  // graph order, after the outputs.
  kExecuteProfile = 1,
};

// One op's time in a profiled kExecute, on the DSP's clock (the emulator's
// monotonic clock here: QEMU reads the Hexagon cycle counter as 0). Three
// words, so that it needs no 8-byte alignment in the reply.
struct OpProfile {
  uint32_t op_type;  // OpType (graph_format.h)
  uint32_t nanos_low, nanos_high;
};

enum SelfTest : uint32_t {
  kSelfTestArithmetic = 1,  // payload: ArithmeticCase[]; reply: uint64 results
  kSelfTestAllocator = 2,   // reply: uint32 failures, then the failure text
  kSelfTestRequantize = 3,  // payload: RequantizeCase[]; reply: 32 uint8 per case
  kSelfTestMemory = 4,      // memcpy / memset sweep; reply: uint32 failures, then text
};

// One vector of the HVX requantization checked by kSelfTestRequantize:
// clamp(zero_point + Requantize(x[i], multiplier, shift), min, max).
struct RequantizeCase {
  int32_t multiplier, shift, zero_point, min, max, reserved;
  int32_t x[32];
};

// The compiler helpers checked by kSelfTestArithmetic.
enum ArithmeticOp : uint32_t {
  kDivSi3 = 0, kModSi3, kUDivSi3, kUModSi3,
  kDivDi3, kModDi3, kUDivDi3, kUModDi3,
  kDivSf3,  // a and b hold float bits
  kArithmeticOpCount,
};

struct ArithmeticCase {
  uint32_t op;
  uint32_t reserved;
  uint64_t a, b;
};

enum Fault : uint32_t {
  kFaultExit = 1,         // the process exits without replying
  kFaultHang = 2,         // never replies
  kFaultBadChecksum = 3,  // a reply with a wrong checksum
  kFaultTruncated = 4,    // half a reply, then exits
  kFaultBadMagic = 5,     // garbage instead of a reply header
};

enum ReplyStatus : uint32_t {
  kOk = 0,
  kBadRequest = 1,   // payload: the reason
  kBadChecksum = 2,
  kOutOfMemory = 3,
  kInvalidGraph = 4,  // payload: the reason
  kNoGraph = 5,
  kUnknownMessage = 6,
};

struct RequestHeader {
  uint32_t magic;
  uint32_t type;
  uint32_t nparams;
  uint32_t nbytes;
  uint32_t checksum;
};

struct ReplyHeader {
  uint32_t magic;
  uint32_t status;
  uint32_t nbytes;
  uint32_t dsp_time_us;  // time the DSP spent on the request
  uint32_t checksum;
};

struct PerfInfo {
  uint32_t executions;
  uint32_t total_time_us;
  uint32_t last_time_us;
  uint32_t nodes;
  uint32_t arena_bytes;  // the graph's planned activation memory
  uint32_t heap_used_bytes;
};

static_assert(sizeof(RequestHeader) == 20, "wire layout");
static_assert(sizeof(ReplyHeader) == 20, "wire layout");
static_assert(sizeof(ArithmeticCase) == 24, "wire layout");
static_assert(sizeof(RequantizeCase) == 152, "wire layout");

// FNV-1a over bytes, continued from `hash`.
inline uint32_t ChecksumUpdate(uint32_t hash, const void* data, size_t size) {
  const uint8_t* bytes = static_cast<const uint8_t*>(data);
  for (size_t i = 0; i < size; ++i) {
    hash = (hash ^ bytes[i]) * 16777619u;
  }
  return hash;
}
constexpr uint32_t kChecksumSeed = 2166136261u;

// The checksum of a header whose checksum field is ignored, plus two spans.
template <typename Header>
uint32_t FrameChecksum(const Header& header, const void* a, size_t a_size, const void* b,
                       size_t b_size) {
  Header copy = header;
  copy.checksum = 0;
  uint32_t hash = ChecksumUpdate(kChecksumSeed, &copy, sizeof(copy));
  hash = ChecksumUpdate(hash, a, a_size);
  return ChecksumUpdate(hash, b, b_size);
}

}  // namespace dsp
}  // namespace mace

#endif  // MACE_DSP_PROTOCOL_H_
