// Shared by the planner tests: reproducible random inputs and readable
// dumps of them for failure messages.
#ifndef MACE_CORE_MEMORY_TEST_UTIL_H_
#define MACE_CORE_MEMORY_TEST_UTIL_H_

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "mace/core/memory/usage_record.h"

namespace mace {
namespace memory {
namespace testing {

struct RandomShape {
  int max_tensors = 30;
  int max_task = 20;
  int max_lifetime = 6;  // tasks a tensor lives, at most
  size_t max_size = 64;
  bool allow_zero_size = true;
};

// Sorted by first task, as the in-order strategies expect; sometimes
// shuffled afterwards when `shuffle` is set, to check that order does not
// break the other strategies.
std::vector<UsageRecord> RandomRecords(std::mt19937* random, const RandomShape& shape,
                                       bool shuffle = false);
std::vector<ImageUsageRecord> RandomImageRecords(std::mt19937* random, const RandomShape& shape);

std::string Describe(const std::vector<UsageRecord>& records);

// The seed for a randomized test: MACE_MEMORY_TEST_SEED if set, else the
// fixed default. Tests print it so a failure can be replayed.
uint32_t TestSeed(uint32_t fixed);

}  // namespace testing
}  // namespace memory
}  // namespace mace

#endif  // MACE_CORE_MEMORY_TEST_UTIL_H_
