// The channel and the DSP runtime itself: framing, the compiler helpers and
// allocator on the emulated DSP, and clean failure on every fault.
#include "mace/runtimes/hexagon/dsp_channel.h"

#include <signal.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "mace/dsp/protocol.h"
#include "mace/ops/common/quantize.h"
#include "mace/runtimes/hexagon/hexagon_control.h"

namespace mace {
namespace hexagon {
namespace {

using dsp::ArithmeticCase;

bool Contains(const MaceStatus& status, const std::string& text) {
  return status.information().find(text) != std::string::npos;
}

void ExpectPingWorks(DspChannel* channel) {
  DspReply reply;
  const std::string text = "still alive";
  ASSERT_TRUE(channel->Call(dsp::kPing, {}, text.data(), text.size(), &reply).ok());
  EXPECT_EQ(std::string(reply.payload.begin(), reply.payload.end()), text);
}

TEST(DspChannelTest, MissingImageOrEmulatorIsAClearError) {
  DspChannel channel;
  DspChannelConfig config;
  config.image_path = "/nonexistent/dsp_runtime.elf";
  MaceStatus status = channel.Open(config);
  EXPECT_EQ(status.code(), MaceStatus::MACE_UNSUPPORTED);
  EXPECT_TRUE(Contains(status, "/nonexistent/dsp_runtime.elf")) << status.information();
  config.image_path.clear();
  config.emulator_path = "/nonexistent/qemu-hexagon";
  status = channel.Open(config);
  EXPECT_EQ(status.code(), MaceStatus::MACE_UNSUPPORTED);
  EXPECT_TRUE(Contains(status, "/nonexistent/qemu-hexagon")) << status.information();
  EXPECT_FALSE(channel.is_open());
  DspReply reply;
  EXPECT_FALSE(channel.Call(dsp::kPing, {}, nullptr, 0, &reply).ok());
}

class DspSessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    config_.timeout_ms = 20000;
    ASSERT_TRUE(channel_.Open(config_).ok());
  }
  // Injects `fault`, expects an error mentioning `text`, then reopens.
  void ExpectFaultFails(dsp::Fault fault, const std::string& text) {
    DspReply reply;
    const MaceStatus status = channel_.Call(dsp::kFault, {fault}, nullptr, 0, &reply);
    EXPECT_EQ(status.code(), MaceStatus::MACE_RUNTIME_ERROR);
    EXPECT_TRUE(Contains(status, text)) << status.information();
    EXPECT_FALSE(channel_.is_open());
    EXPECT_FALSE(channel_.Call(dsp::kPing, {}, nullptr, 0, &reply).ok());
    ASSERT_TRUE(channel_.Open(config_).ok());
    ExpectPingWorks(&channel_);
  }
  DspChannelConfig config_;
  DspChannel channel_;
};

TEST_F(DspSessionTest, EchoesPayloadsOfManySizes) {
  std::mt19937 rng(7767517);
  for (size_t size : {size_t{0}, size_t{1}, size_t{127}, size_t{128}, size_t{4099},
                      size_t{300000}}) {
    std::vector<uint8_t> payload(size);
    for (uint8_t& b : payload) b = static_cast<uint8_t>(rng());
    DspReply reply;
    ASSERT_TRUE(channel_.Call(dsp::kPing, {1, 2, 3}, payload.data(), size, &reply).ok());
    EXPECT_EQ(reply.status, dsp::kOk);
    EXPECT_EQ(reply.payload, payload) << size;
  }
}

TEST_F(DspSessionTest, UnknownMessageIsRefusedAndTheSessionGoesOn) {
  DspReply reply;
  ASSERT_TRUE(channel_.Call(55, {}, nullptr, 0, &reply).ok());
  EXPECT_EQ(reply.status, dsp::kUnknownMessage);
  ExpectPingWorks(&channel_);
}

uint64_t HostResult(const ArithmeticCase& c) {
  const int32_t sa = static_cast<int32_t>(c.a), sb = static_cast<int32_t>(c.b);
  const uint32_t ua = static_cast<uint32_t>(c.a), ub = static_cast<uint32_t>(c.b);
  const int64_t la = static_cast<int64_t>(c.a), lb = static_cast<int64_t>(c.b);
  switch (c.op) {
    case dsp::kDivSi3: return static_cast<uint32_t>(sa / sb);
    case dsp::kModSi3: return static_cast<uint32_t>(sa % sb);
    case dsp::kUDivSi3: return ua / ub;
    case dsp::kUModSi3: return ua % ub;
    case dsp::kDivDi3: return static_cast<uint64_t>(la / lb);
    case dsp::kModDi3: return static_cast<uint64_t>(la % lb);
    case dsp::kUDivDi3: return c.a / c.b;
    case dsp::kUModDi3: return c.a % c.b;
    default: {
      float x, y;
      std::memcpy(&x, &ua, 4);
      std::memcpy(&y, &ub, 4);
      const float q = x / y;
      uint32_t bits;
      std::memcpy(&bits, &q, 4);
      return bits;
    }
  }
}

// Operands for op: edges, then seeded random values; no division by zero
// and no overflowing INT_MIN / -1.
std::vector<ArithmeticCase> MakeCases() {
  std::vector<ArithmeticCase> cases;
  std::mt19937_64 rng(12345);
  const std::vector<uint64_t> edges32 = {0, 1, 2, 3, 7, 10, 0x7fffffff, 0x80000000, 0x80000001,
                                         0xffffffff, 0xfffffffe, 0xfffffff9, 12345678, 65536};
  const std::vector<uint64_t> edges64 = {
      0, 1, 3, 10, 0x7fffffffffffffffull, 0x8000000000000000ull, 0xffffffffffffffffull,
      0xfffffffffffffff9ull, 0x100000000ull, 0xffffffffull, 1ull << 40, 123456789012345ull};
  const std::vector<uint64_t> floats = {
      0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x40400000, 0x7f800000, 0xff800000,
      0x7fc00000, 0x00000001, 0x007fffff, 0x00800000, 0x7f7fffff, 0x3eaaaaab, 0x0000ffff,
      0x33d6bf95, 0x4b000001};
  for (uint32_t op = 0; op < dsp::kArithmeticOpCount; ++op) {
    const bool is64 = op >= dsp::kDivDi3 && op <= dsp::kUModDi3;
    const std::vector<uint64_t>& edges =
        op == dsp::kDivSf3 ? floats : is64 ? edges64 : edges32;
    std::vector<uint64_t> values = edges;
    for (int i = 0; i < 40; ++i) {
      uint64_t v = rng();
      if (!is64) v &= 0xffffffffu;
      if (i % 3 == 0) v >>= (rng() % 60);  // small values too
      if (!is64 && op != dsp::kDivSf3) v &= 0xffffffffu;
      if (op == dsp::kDivSf3) v &= 0xffffffffu;
      values.push_back(v);
    }
    for (uint64_t a : values) {
      for (uint64_t b : values) {
        const bool signed32 = op == dsp::kDivSi3 || op == dsp::kModSi3;
        const bool signed64 = op == dsp::kDivDi3 || op == dsp::kModDi3;
        if (op != dsp::kDivSf3 && (is64 ? b == 0 : static_cast<uint32_t>(b) == 0)) continue;
        if (signed32 && static_cast<uint32_t>(a) == 0x80000000u &&
            static_cast<uint32_t>(b) == 0xffffffffu)
          continue;
        if (signed64 && a == 0x8000000000000000ull && b == ~0ull) continue;
        cases.push_back({op, 0, a, b});
      }
    }
  }
  return cases;
}

bool IsNaNBits(uint64_t bits) {
  return (bits & 0x7f800000u) == 0x7f800000u && (bits & 0x7fffffu) != 0;
}

TEST_F(DspSessionTest, CompilerHelpersMatchTheHostBitForBit) {
  const std::vector<ArithmeticCase> cases = MakeCases();
  DspReply reply;
  ASSERT_TRUE(channel_
                  .Call(dsp::kSelfTest, {dsp::kSelfTestArithmetic}, cases.data(),
                        cases.size() * sizeof(ArithmeticCase), &reply)
                  .ok());
  ASSERT_EQ(reply.status, dsp::kOk);
  ASSERT_EQ(reply.payload.size(), cases.size() * 8);
  std::vector<size_t> checked(dsp::kArithmeticOpCount);
  for (size_t i = 0; i < cases.size(); ++i) {
    uint64_t got;
    std::memcpy(&got, reply.payload.data() + 8 * i, 8);
    const uint64_t want = HostResult(cases[i]);
    if (cases[i].op == dsp::kDivSf3 && IsNaNBits(want)) {
      EXPECT_TRUE(IsNaNBits(got)) << std::hex << cases[i].a << " / " << cases[i].b;
    } else {
      EXPECT_EQ(got, want) << "op " << cases[i].op << ": " << std::hex << cases[i].a << ", "
                           << cases[i].b;
    }
    ++checked[cases[i].op];
  }
  for (size_t op = 0; op < checked.size(); ++op) EXPECT_GT(checked[op], 500u) << op;
}

// The HVX requantization against common/quantize.h's: every shift, the
// int32 extremes, rounding ties of both signs, zero and the largest
// multipliers, results that overflow int32 before the clamp.
TEST_F(DspSessionTest, VectorRequantizeMatchesTheReferenceBitForBit) {
  std::mt19937 rng(1200);
  std::vector<dsp::RequantizeCase> cases;
  const int32_t multipliers[] = {0, 1, 1 << 30, 0x7fffffff, 0x40000001, 0x5a827999};
  for (int32_t shift = 1; shift <= 62; ++shift) {
    for (int32_t round = 0; round < 6; ++round) {
      dsp::RequantizeCase c{};
      c.multiplier = multipliers[round];
      if (round == 5) c.multiplier = static_cast<int32_t>(rng() >> 1);
      c.shift = shift;
      c.zero_point = static_cast<int32_t>(rng() % 256);
      c.min = static_cast<int32_t>(rng() % 64);
      c.max = 191 + static_cast<int32_t>(rng() % 65);
      const int32_t fixed[] = {0, 1, -1, 2, -2, std::numeric_limits<int32_t>::min(),
                               std::numeric_limits<int32_t>::max(),
                               std::numeric_limits<int32_t>::min() + 1};
      for (int i = 0; i < 32; ++i) {
        if (i < 8) {
          c.x[i] = fixed[i];
        } else if (i < 16 && shift < 31) {
          // Products at an exact half, and one off it, with M = 1 << k.
          const int32_t half = 1 << (shift - 1);
          c.x[i] = (i % 2 ? 1 : -1) * (half + (i % 4 < 2 ? 0 : 1)) * ((i % 8 < 4) ? 1 : 3);
        } else {
          c.x[i] = static_cast<int32_t>(rng() >> (rng() % 32));
          if (rng() % 2) c.x[i] = -c.x[i];
        }
      }
      cases.push_back(c);
    }
  }
  DspReply reply;
  ASSERT_TRUE(channel_
                  .Call(dsp::kSelfTest, {dsp::kSelfTestRequantize}, cases.data(),
                        cases.size() * sizeof(dsp::RequantizeCase), &reply)
                  .ok());
  ASSERT_EQ(reply.status, dsp::kOk);
  ASSERT_EQ(reply.payload.size(), cases.size() * 32);
  size_t mismatches = 0, at_min = 0, at_max = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    const dsp::RequantizeCase& c = cases[i];
    const ops::QuantizedMultiplier m{c.multiplier, c.shift};
    const ops::OutputClamp out{c.zero_point, c.min, c.max};
    for (int j = 0; j < 32; ++j) {
      const uint8_t want = ops::RequantizeToUint8(c.x[j], m, out);
      const uint8_t got = reply.payload[i * 32 + j];
      at_min += want == c.min;
      at_max += want == c.max;
      if (got != want && ++mismatches < 10) {
        ADD_FAILURE() << c.x[j] << " * " << c.multiplier << " >> " << c.shift << " + "
                      << c.zero_point << ": " << int{got} << ", want " << int{want};
      }
    }
  }
  EXPECT_EQ(mismatches, 0u) << "of " << cases.size() * 32;
  // Both clamps are reached, and most results lie between them.
  EXPECT_GT(at_min, 100u);
  EXPECT_GT(at_max, 100u);
  EXPECT_GT(cases.size() * 32 - at_min - at_max, 1000u);
}

// A self test whose reply is a failure count and the first failure's text.
void ExpectSelfTestPasses(DspChannel* channel, uint32_t which) {
  DspReply reply;
  ASSERT_TRUE(channel->Call(dsp::kSelfTest, {which}, nullptr, 0, &reply).ok());
  ASSERT_EQ(reply.status, dsp::kOk);
  ASSERT_GE(reply.payload.size(), 4u);
  uint32_t failures;
  std::memcpy(&failures, reply.payload.data(), 4);
  EXPECT_EQ(failures, 0u) << std::string(reply.payload.begin() + 4, reply.payload.end());
}

TEST_F(DspSessionTest, AllocatorSelfTestPassesOnTheDsp) {
  ExpectSelfTestPasses(&channel_, dsp::kSelfTestAllocator);
}

// memcpy and memset on the DSP (vector blocks, a partial load and a
// byte-masked store for the tail) against byte loops, at offsets around
// the vector boundaries and lengths 0 to 140 and beyond two vectors.
TEST_F(DspSessionTest, MemorySelfTestPassesOnTheDsp) {
  ExpectSelfTestPasses(&channel_, dsp::kSelfTestMemory);
}

TEST_F(DspSessionTest, ProcessExitIsAClearError) {
  ExpectFaultFails(dsp::kFaultExit, "exited with status 7");
}

TEST_F(DspSessionTest, TruncatedReplyIsAClearError) {
  ExpectFaultFails(dsp::kFaultTruncated, "in the middle of a reply");
}

TEST_F(DspSessionTest, CorruptChecksumIsAClearError) {
  ExpectFaultFails(dsp::kFaultBadChecksum, "checksum");
}

TEST_F(DspSessionTest, GarbageReplyIsAClearError) {
  ExpectFaultFails(dsp::kFaultBadMagic, "reply header");
}

TEST_F(DspSessionTest, HangHitsTheDeadline) {
  channel_.set_timeout_ms(300);
  ExpectFaultFails(dsp::kFaultHang, "deadline");
}

TEST_F(DspSessionTest, ProcessKilledMidCallIsAClearError) {
  const pid_t pid = channel_.pid();
  std::thread killer([pid] {
    usleep(200 * 1000);
    kill(pid, SIGKILL);
  });
  ExpectFaultFails(dsp::kFaultHang, "killed by signal 9");
  killer.join();
}

TEST_F(DspSessionTest, WritingToADeadProcessDoesNotRaiseSigpipe) {
  kill(channel_.pid(), SIGKILL);
  usleep(100 * 1000);
  std::vector<uint8_t> big(1 << 20, 7);  // more than the socket buffers
  DspReply reply;
  const MaceStatus status = channel_.Call(dsp::kPing, {}, big.data(), big.size(), &reply);
  EXPECT_EQ(status.code(), MaceStatus::MACE_RUNTIME_ERROR);
  EXPECT_FALSE(channel_.is_open());
  ASSERT_TRUE(channel_.Open(config_).ok());
  ExpectPingWorks(&channel_);
}

TEST(HexagonControlTest, ControlCallsWorkWithoutAndFailCleanlyAfterFaults) {
  HexagonControl control;
  control.Config(DspChannelConfig());
  ASSERT_TRUE(control.Init().ok());
  std::vector<std::vector<uint8_t>> outputs;
  EXPECT_EQ(control.ExecuteGraph({}, &outputs).code(), MaceStatus::MACE_INVALID_ARGS);
  std::string text;
  EXPECT_FALSE(control.PrintGraph(&text).ok());  // no graph yet
  EXPECT_TRUE(control.SetDebugLevel(2).ok());
  EXPECT_EQ(control.SetDebugLevel(9).code(), MaceStatus::MACE_INVALID_ARGS);
  dsp::PerfInfo perf;
  ASSERT_TRUE(control.GetPerfInfo(&perf).ok());
  EXPECT_EQ(perf.executions, 0u);
  EXPECT_TRUE(control.ResetPerfInfo().ok());
  EXPECT_TRUE(control.PrintLog(&text).ok());
  // A corrupt graph is refused with the DSP's reason; the session goes on.
  SerializedGraph bad;
  bad.blob.assign(64, 0);
  const MaceStatus status = control.SetupGraph(bad);
  EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS);
  EXPECT_TRUE(Contains(status, "magic")) << status.information();
  EXPECT_TRUE(control.ResetPerfInfo().ok());
  control.Finalize();
  EXPECT_FALSE(control.ResetPerfInfo().ok());
  ASSERT_TRUE(control.Init().ok());
  EXPECT_TRUE(control.ResetPerfInfo().ok());
}

}  // namespace
}  // namespace hexagon
}  // namespace mace
