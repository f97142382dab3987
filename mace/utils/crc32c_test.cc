// Every CRC-32C implementation this CPU runs, against published check values
// and, bit for bit, against a bit-at-a-time oracle at every small length and
// every alignment of the start.
#include "mace/utils/crc32c.h"

#include <cctype>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace mace {
namespace {

constexpr uint32_t kSeed = 7767517;

// The definition, one bit at a time: slow and obviously right.
uint32_t BitwiseCrc32c(const unsigned char* data, size_t size) {
  uint32_t crc = 0xFFFFFFFF;
  for (size_t i = 0; i < size; ++i) {
    crc ^= data[i];
    for (int bit = 0; bit < 8; ++bit) crc = (crc & 1) ? (crc >> 1) ^ 0x82F63B78 : crc >> 1;
  }
  return ~crc;
}

std::vector<unsigned char> RandomBytes(size_t size) {
  std::mt19937 engine(kSeed);
  std::vector<unsigned char> bytes(size);
  for (unsigned char& byte : bytes) byte = static_cast<unsigned char>(engine());
  return bytes;
}

class Crc32cTest : public ::testing::TestWithParam<Crc32cImplementation> {
 protected:
  uint32_t Checksum(const std::vector<unsigned char>& bytes) const {
    return GetParam().extend(0, bytes.data(), bytes.size());
  }
};

TEST_P(Crc32cTest, MatchesCheckValues) {
  const std::string check = "123456789";
  EXPECT_EQ(Checksum({check.begin(), check.end()}), 0xE3069283u);
  EXPECT_EQ(Checksum({}), 0u);
  // The iSCSI test patterns (RFC 3720, B.4).
  std::vector<unsigned char> ascending(32), descending(32);
  for (int i = 0; i < 32; ++i) {
    ascending[i] = static_cast<unsigned char>(i);
    descending[i] = static_cast<unsigned char>(31 - i);
  }
  EXPECT_EQ(Checksum(std::vector<unsigned char>(32, 0x00)), 0x8A9136AAu);
  EXPECT_EQ(Checksum(std::vector<unsigned char>(32, 0xFF)), 0x62A8AB43u);
  EXPECT_EQ(Checksum(ascending), 0x46DD794Eu);
  EXPECT_EQ(Checksum(descending), 0x113FDB5Cu);
}

// Lengths below, at and above the 8-byte word, with the start at every
// offset within a 16-byte line, cover each head, body and tail split.
TEST_P(Crc32cTest, MatchesBitwiseAtEveryLengthAndAlignment) {
  const std::vector<unsigned char> bytes = RandomBytes(512);
  for (size_t start = 0; start < 16; ++start) {
    for (size_t size = 0; size <= 300; ++size) {
      ASSERT_EQ(GetParam().extend(0, bytes.data() + start, size),
                BitwiseCrc32c(bytes.data() + start, size))
          << "start " << start << " size " << size;
    }
  }
}

TEST_P(Crc32cTest, MatchesPortableOnALargeOddBuffer) {
  const std::vector<unsigned char> bytes = RandomBytes((1 << 20) + 13);
  const Crc32cImplementation portable = AvailableCrc32cImplementations().front();
  for (size_t start : {0, 1, 5, 8}) {
    const size_t size = bytes.size() - start;
    EXPECT_EQ(GetParam().extend(0, bytes.data() + start, size),
              portable.extend(0, bytes.data() + start, size))
        << "start " << start;
  }
}

// Lengths around whole rounds of a multi-stream implementation (three
// stretches of 8 KiB), from a nonzero checksum and an odd address.
TEST_P(Crc32cTest, MatchesPortableAroundStretchRounds) {
  const std::vector<unsigned char> bytes = RandomBytes(4 * 3 * 8192 + 64);
  const Crc32cImplementation portable = AvailableCrc32cImplementations().front();
  for (size_t rounds : {size_t{1}, size_t{2}, size_t{3}}) {
    for (int extra : {-9, -1, 0, 1, 8, 17}) {
      const size_t size = static_cast<size_t>(static_cast<int>(rounds * 3 * 8192) + extra);
      for (size_t start : {size_t{0}, size_t{3}}) {
        for (uint32_t initial : {0u, 0x12345678u}) {
          EXPECT_EQ(GetParam().extend(initial, bytes.data() + start, size),
                    portable.extend(initial, bytes.data() + start, size))
              << "size " << size << " start " << start << " initial " << initial;
        }
      }
    }
  }
}

TEST_P(Crc32cTest, ExtendContinuesAChecksum) {
  const std::vector<unsigned char> bytes = RandomBytes(1000);
  const uint32_t whole = BitwiseCrc32c(bytes.data(), bytes.size());
  for (size_t split : {0, 1, 7, 8, 9, 500, 999, 1000}) {
    const uint32_t head = GetParam().extend(0, bytes.data(), split);
    EXPECT_EQ(GetParam().extend(head, bytes.data() + split, bytes.size() - split), whole)
        << "split " << split;
  }
}

INSTANTIATE_TEST_SUITE_P(Available, Crc32cTest,
                         ::testing::ValuesIn(AvailableCrc32cImplementations()),
                         [](const ::testing::TestParamInfo<Crc32cImplementation>& info) {
                           std::string name = info.param.name;
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

TEST(Crc32c, UsesTheLastAvailableImplementation) {
  const std::vector<Crc32cImplementation> implementations = AvailableCrc32cImplementations();
  ASSERT_FALSE(implementations.empty());
  EXPECT_STREQ(implementations.front().name, "portable");
  std::string names;
  for (const Crc32cImplementation& implementation : implementations) {
    names += std::string(names.empty() ? "" : ", ") + implementation.name;
  }
  std::printf("CRC-32C implementations on this CPU: %s\n", names.c_str());
  const std::vector<unsigned char> bytes = RandomBytes(4099);
  EXPECT_EQ(Crc32c(bytes.data(), bytes.size()),
            implementations.back().extend(0, bytes.data(), bytes.size()));
}

}  // namespace
}  // namespace mace
