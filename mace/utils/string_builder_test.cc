#include "mace/utils/string_builder.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace mace {
namespace {

// What std::ostream's `<<` writes for `value` with default flags.
template <typename T>
std::string StreamText(const T& value) {
  std::ostringstream stream;
  stream << value;
  return stream.str();
}

template <typename T>
std::string BuilderText(const T& value) {
  StringBuilder builder;
  builder << value;
  return builder.str();
}

template <typename T>
void ExpectSameAsStream(const T& value) {
  EXPECT_EQ(BuilderText(value), StreamText(value));
}

TEST(StringBuilderTest, Text) {
  ExpectSameAsStream("");
  ExpectSameAsStream("abc");
  ExpectSameAsStream(std::string("with\0nul", 8));
  ExpectSameAsStream(std::string_view("view"));
  ExpectSameAsStream('x');
  ExpectSameAsStream('\0');
  ExpectSameAsStream(static_cast<signed char>(65));
  ExpectSameAsStream(static_cast<unsigned char>(200));
  ExpectSameAsStream(int8_t{-3});
  ExpectSameAsStream(uint8_t{7});
  const unsigned char bytes[] = "bytes";
  ExpectSameAsStream(bytes);
  const char* null_text = nullptr;
  EXPECT_EQ(BuilderText(null_text), "");
}

TEST(StringBuilderTest, BoolAndEnums) {
  ExpectSameAsStream(true);
  ExpectSameAsStream(false);
  enum Plain { kZero, kTwo = 2, kMinus = -5 };
  ExpectSameAsStream(kTwo);
  ExpectSameAsStream(kMinus);
  enum class Scoped : uint8_t { kA = 65 };
  EXPECT_EQ(BuilderText(Scoped::kA), "65");
  enum class Wide : int64_t { kBig = int64_t{1} << 40 };
  EXPECT_EQ(BuilderText(Wide::kBig), "1099511627776");
}

template <typename T>
void ExpectLimitsSameAsStream() {
  ExpectSameAsStream(std::numeric_limits<T>::min());
  ExpectSameAsStream(std::numeric_limits<T>::max());
  ExpectSameAsStream(T{0});
  ExpectSameAsStream(T{1});
  ExpectSameAsStream(static_cast<T>(std::numeric_limits<T>::max() / 10));
}

template <typename T>
void ExpectRandomSameAsStream(std::mt19937_64* random) {
  for (int i = 0; i < 2000; ++i) {
    // Every magnitude: a random value shifted right by a random count.
    const T value = static_cast<T>((*random)() >> ((*random)() % 64));
    ExpectSameAsStream(value);
  }
}

TEST(StringBuilderTest, Integers) {
  ExpectLimitsSameAsStream<short>();
  ExpectLimitsSameAsStream<unsigned short>();
  ExpectLimitsSameAsStream<int>();
  ExpectLimitsSameAsStream<unsigned int>();
  ExpectLimitsSameAsStream<long>();
  ExpectLimitsSameAsStream<unsigned long>();
  ExpectLimitsSameAsStream<long long>();
  ExpectLimitsSameAsStream<unsigned long long>();
  ExpectLimitsSameAsStream<int64_t>();
  ExpectLimitsSameAsStream<size_t>();
  std::mt19937_64 random(20261129);
  ExpectRandomSameAsStream<short>(&random);
  ExpectRandomSameAsStream<unsigned short>(&random);
  ExpectRandomSameAsStream<int>(&random);
  ExpectRandomSameAsStream<unsigned int>(&random);
  ExpectRandomSameAsStream<long>(&random);
  ExpectRandomSameAsStream<unsigned long>(&random);
  ExpectRandomSameAsStream<long long>(&random);
  ExpectRandomSameAsStream<unsigned long long>(&random);
}

TEST(StringBuilderTest, FloatingPointFixedValues) {
  using Limits = std::numeric_limits<double>;
  const double values[] = {0.0,
                           -0.0,
                           0.1,
                           1e-05,
                           1e-04,
                           100000.0,
                           1e+06,
                           3.14159,
                           3.141592,
                           123456.0,
                           1234567.0,
                           0.5,
                           -2.5,
                           1e300,
                           1e-300,
                           4.9e-324,
                           1.0 / 3.0,
                           999999.5,
                           9999995.0,
                           0.0001,
                           -1e-07,
                           2.0e+20,
                           65504.0,
                           1.17549435e-38,
                           Limits::max(),
                           Limits::min(),
                           Limits::infinity(),
                           -Limits::infinity(),
                           Limits::quiet_NaN(),
                           -Limits::quiet_NaN()};
  for (double value : values) {
    ExpectSameAsStream(value);
    ExpectSameAsStream(static_cast<float>(value));
    ExpectSameAsStream(static_cast<long double>(value));
  }
  EXPECT_EQ(BuilderText(0.1), "0.1");
  EXPECT_EQ(BuilderText(1e-05), "1e-05");
  EXPECT_EQ(BuilderText(100000.0), "100000");
  EXPECT_EQ(BuilderText(1e+06), "1e+06");
  EXPECT_EQ(BuilderText(3.14159), "3.14159");
  EXPECT_EQ(BuilderText(-0.0), "-0");
  EXPECT_EQ(BuilderText(std::numeric_limits<double>::quiet_NaN()), "nan");
  EXPECT_EQ(BuilderText(std::numeric_limits<float>::infinity()), "inf");
}

TEST(StringBuilderTest, FloatingPointRandomValues) {
  std::mt19937_64 random(7);
  for (int i = 0; i < 20000; ++i) {
    // Random bit patterns cover every exponent, subnormals and NaNs.
    const uint64_t bits = random();
    double as_double;
    std::memcpy(&as_double, &bits, sizeof(as_double));
    ExpectSameAsStream(as_double);
    const uint32_t low = static_cast<uint32_t>(bits);
    float as_float;
    std::memcpy(&as_float, &low, sizeof(as_float));
    ExpectSameAsStream(as_float);
  }
  std::uniform_real_distribution<double> uniform(-1000.0, 1000.0);
  for (int i = 0; i < 20000; ++i) {
    const double value = uniform(random);
    ExpectSameAsStream(value);
    ExpectSameAsStream(static_cast<float>(value));
  }
}

TEST(StringBuilderTest, Pointers) {
  int object = 0;
  ExpectSameAsStream(static_cast<const void*>(&object));
  ExpectSameAsStream(&object);
  const void* null_pointer = nullptr;
  ExpectSameAsStream(null_pointer);
  EXPECT_EQ(BuilderText(null_pointer), "0");
  ExpectSameAsStream(reinterpret_cast<const void*>(uintptr_t{0x1}));
  ExpectSameAsStream(reinterpret_cast<const void*>(~uintptr_t{0}));
  ExpectSameAsStream(nullptr);
}

TEST(StringBuilderTest, Chains) {
  StringBuilder builder;
  std::ostringstream stream;
  const std::string name = "conv";
  builder << "op " << name << " [" << 3 << "," << -4L << "] " << 0.25f << ' ' << true << '\n';
  stream << "op " << name << " [" << 3 << "," << -4L << "] " << 0.25f << ' ' << true << '\n';
  EXPECT_EQ(builder.str(), stream.str());
  EXPECT_EQ(std::move(builder).str(), stream.str());
}

// StrCat of one argument writes what StringBuilder's << writes.
template <typename T>
void ExpectStrCatLikeBuilder(const T& value) {
  EXPECT_EQ(StrCat(value), BuilderText(value));
}

TEST(StrCatTest, EachArgumentKindAsStringBuilder) {
  ExpectStrCatLikeBuilder("literal");
  ExpectStrCatLikeBuilder(std::string("with\0nul", 8));
  ExpectStrCatLikeBuilder(std::string_view("view"));
  const char* null_text = nullptr;
  ExpectStrCatLikeBuilder(null_text);
  char writable[] = "writable";
  ExpectStrCatLikeBuilder(static_cast<char*>(writable));
  const unsigned char bytes[] = "bytes";
  ExpectStrCatLikeBuilder(bytes);
  ExpectStrCatLikeBuilder('x');
  ExpectStrCatLikeBuilder(static_cast<signed char>(65));
  ExpectStrCatLikeBuilder(static_cast<unsigned char>(200));
  ExpectStrCatLikeBuilder(int8_t{-3});
  ExpectStrCatLikeBuilder(uint8_t{7});
  ExpectStrCatLikeBuilder(true);
  ExpectStrCatLikeBuilder(false);
  ExpectStrCatLikeBuilder(short{-7});
  ExpectStrCatLikeBuilder(static_cast<unsigned short>(65535));
  ExpectStrCatLikeBuilder(std::numeric_limits<int>::min());
  ExpectStrCatLikeBuilder(std::numeric_limits<unsigned>::max());
  ExpectStrCatLikeBuilder(std::numeric_limits<long>::min());
  ExpectStrCatLikeBuilder(std::numeric_limits<unsigned long>::max());
  ExpectStrCatLikeBuilder(std::numeric_limits<long long>::min());
  ExpectStrCatLikeBuilder(std::numeric_limits<unsigned long long>::max());
  ExpectStrCatLikeBuilder(int64_t{-1234567890123});
  ExpectStrCatLikeBuilder(size_t{42});
  ExpectStrCatLikeBuilder(0.25f);
  ExpectStrCatLikeBuilder(1e-7);
  ExpectStrCatLikeBuilder(std::numeric_limits<double>::infinity());
  ExpectStrCatLikeBuilder(std::nan(""));
  ExpectStrCatLikeBuilder(3.25L);
  int object = 0;
  ExpectStrCatLikeBuilder(&object);
  ExpectStrCatLikeBuilder(static_cast<const void*>(nullptr));
  ExpectStrCatLikeBuilder(nullptr);
  enum Plain { kMinus = -5 };
  ExpectStrCatLikeBuilder(kMinus);
  enum class Scoped : uint8_t { kA = 65 };
  ExpectStrCatLikeBuilder(Scoped::kA);
  EXPECT_EQ(StrCat(Scoped::kA), "65");
}

TEST(StrCatTest, ManyArguments) {
  EXPECT_EQ(StrCat(), "");
  const std::string name = "conv";
  StringBuilder builder;
  builder << "op " << name << " [" << 3 << "," << -4L << "] " << 0.25f << ' ' << true << '\n';
  EXPECT_EQ(StrCat("op ", name, " [", 3, ",", -4L, "] ", 0.25f, ' ', true, '\n'), builder.str());
  // A temporary string lives until the call returns.
  EXPECT_EQ(StrCat(std::string("tem") + "porary", '/', std::string_view("view")), "temporary/view");
}

}  // namespace
}  // namespace mace
