#include "mace/core/memory/test_util.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>

namespace mace {
namespace memory {
namespace testing {

std::vector<UsageRecord> RandomRecords(std::mt19937* random, const RandomShape& shape,
                                       bool shuffle) {
  std::mt19937& rng = *random;
  const int n = static_cast<int>(rng() % (shape.max_tensors + 1));
  std::vector<UsageRecord> records;
  for (int i = 0; i < n; ++i) {
    UsageRecord record;
    record.first = static_cast<TaskId>(rng() % (shape.max_task + 1));
    record.last = record.first + static_cast<TaskId>(rng() % shape.max_lifetime);
    const bool zero = shape.allow_zero_size && rng() % 8 == 0;
    record.size = zero ? 0 : 1 + rng() % shape.max_size;
    records.push_back(record);
  }
  std::stable_sort(records.begin(), records.end(),
                   [](const UsageRecord& a, const UsageRecord& b) { return a.first < b.first; });
  if (shuffle) std::shuffle(records.begin(), records.end(), rng);
  return records;
}

std::vector<ImageUsageRecord> RandomImageRecords(std::mt19937* random, const RandomShape& shape) {
  std::vector<ImageUsageRecord> images;
  // A few distinct extents, so exact and covering matches happen often.
  const size_t extents[] = {1, 2, 4, 8, 16};
  for (const UsageRecord& record : RandomRecords(random, shape)) {
    ImageSize size{extents[(*random)() % 5], extents[(*random)() % 5]};
    images.push_back({size, record.first, record.last});
  }
  return images;
}

std::string Describe(const std::vector<UsageRecord>& records) {
  std::ostringstream out;
  out << records.size() << " records:";
  for (const UsageRecord& record : records) {
    out << " {" << record.size << ", " << record.first << ", " << record.last << "}";
  }
  return out.str();
}

uint32_t TestSeed(uint32_t fixed) {
  const char* text = std::getenv("MACE_MEMORY_TEST_SEED");
  if (text == nullptr || *text == '\0') return fixed;
  return static_cast<uint32_t>(std::strtoul(text, nullptr, 10));
}

}  // namespace testing
}  // namespace memory
}  // namespace mace
