// DspSession's bookkeeping that needs no DSP process: graph slots shared
// by the engines of a session, and the lock a stopped Run gives up waiting
// for.
#include "mace/runtimes/hexagon/dsp_session.h"

#include <chrono>
#include <set>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "mace/utils/run_control.h"

namespace mace {
namespace hexagon {
namespace {

TEST(DspSessionTest, SlotsAreTakenOnceAndGivenBack) {
  DspSession session(DspChannelConfig{});
  MaceStatus status;
  DspSession::Locked locked(&session, nullptr, &status);
  ASSERT_TRUE(status.ok() && locked.locked());
  std::vector<uint32_t> first, second, third;
  ASSERT_TRUE(locked.TakeSlots(40, &first).ok());
  ASSERT_EQ(first.size(), 40u);
  // More than the session has left: refused, naming both counts, and
  // nothing is taken.
  const MaceStatus refused = locked.TakeSlots(dsp::kMaxGraphs - 39, &second);
  EXPECT_EQ(refused.code(), MaceStatus::MACE_OUT_OF_RESOURCES) << refused.ToString();
  EXPECT_NE(refused.information().find("needs 25 DSP graphs"), std::string::npos)
      << refused.ToString();
  EXPECT_NE(refused.information().find("leave 24"), std::string::npos) << refused.ToString();
  EXPECT_TRUE(second.empty());
  ASSERT_TRUE(locked.TakeSlots(dsp::kMaxGraphs - 40, &second).ok());
  std::set<uint32_t> all(first.begin(), first.end());
  all.insert(second.begin(), second.end());
  EXPECT_EQ(all.size(), static_cast<size_t>(dsp::kMaxGraphs));
  EXPECT_LT(*all.rbegin(), dsp::kMaxGraphs);
  // Slots given back are taken again.
  locked.GiveBack({first[3], first[7]});
  ASSERT_TRUE(locked.TakeSlots(2, &third).ok());
  EXPECT_EQ(third, (std::vector<uint32_t>{first[3], first[7]}));
  EXPECT_EQ(locked.TakeSlots(1, &third).code(), MaceStatus::MACE_OUT_OF_RESOURCES);
}

TEST(DspSessionTest, AFailedSessionStaysFailed) {
  DspSession session(DspChannelConfig{});
  EXPECT_FALSE(session.failed());
  {
    MaceStatus status;
    DspSession::Locked locked(&session, nullptr, &status);
    locked.Fail("the DSP died");
    const MaceStatus open = locked.Open();
    EXPECT_EQ(open.code(), MaceStatus::MACE_RUNTIME_ERROR);
    EXPECT_NE(open.information().find("the DSP died"), std::string::npos) << open.ToString();
    EXPECT_EQ(locked.generation(), 0u);
  }
  EXPECT_TRUE(session.failed());
}

// A Run waiting for a session another engine's call holds stops waiting
// when it is cancelled, with the Run's status and without the lock.
TEST(DspSessionTest, AStoppedRunGivesUpWaitingForTheLock) {
  DspSession session(DspChannelConfig{});
  MaceStatus status;
  DspSession::Locked holder(&session, nullptr, &status);
  ASSERT_TRUE(holder.locked());
  CancellationFlag flag;
  RunControl control(&flag, 0);
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    flag.Cancel();
  });
  MaceStatus waited;
  DspSession::Locked waiter(&session, &control, &waited);
  canceller.join();
  EXPECT_FALSE(waiter.locked());
  EXPECT_EQ(waited.code(), MaceStatus::MACE_CANCELLED) << waited.ToString();
  // A deadline in the past: the same, with the deadline's status.
  RunControl late(nullptr, 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  DspSession::Locked too_late(&session, &late, &waited);
  EXPECT_FALSE(too_late.locked());
  EXPECT_EQ(waited.code(), MaceStatus::MACE_DEADLINE_EXCEEDED) << waited.ToString();
}

}  // namespace
}  // namespace hexagon
}  // namespace mace
