// StringBuilder: the engine's text formatting (log lines, status messages)
// without C++ streams, so that a library linking the C++ runtime statically
// carries no stream or locale code. `builder << value` writes what
// std::ostream's `<<` writes with its default flags: integers in decimal,
// char types as characters, bool as 1 or 0, float and double as printf's
// "%g" (6 significant digits), pointers as "0x..." (a null pointer as 0),
// enums as their integer value.
#ifndef MACE_UTILS_STRING_BUILDER_H_
#define MACE_UTILS_STRING_BUILDER_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace mace {

class StringBuilder {
 public:
  StringBuilder() = default;

  // A null C string writes nothing (a stream sets its bad bit instead).
  StringBuilder& operator<<(const char* text);
  StringBuilder& operator<<(const std::string& text) {
    text_ += text;
    return *this;
  }
  StringBuilder& operator<<(std::string_view text) {
    text_.append(text.data(), text.size());
    return *this;
  }
  StringBuilder& operator<<(char c) {
    text_ += c;
    return *this;
  }
  StringBuilder& operator<<(signed char c) { return *this << static_cast<char>(c); }
  StringBuilder& operator<<(unsigned char c) { return *this << static_cast<char>(c); }
  StringBuilder& operator<<(const signed char* text) {
    return *this << reinterpret_cast<const char*>(text);
  }
  StringBuilder& operator<<(const unsigned char* text) {
    return *this << reinterpret_cast<const char*>(text);
  }
  StringBuilder& operator<<(bool value) { return *this << (value ? '1' : '0'); }

  StringBuilder& operator<<(short value) { return AppendSigned(value); }
  StringBuilder& operator<<(int value) { return AppendSigned(value); }
  StringBuilder& operator<<(long value) { return AppendSigned(value); }
  StringBuilder& operator<<(long long value) { return AppendSigned(value); }
  StringBuilder& operator<<(unsigned short value) { return AppendUnsigned(value); }
  StringBuilder& operator<<(unsigned int value) { return AppendUnsigned(value); }
  StringBuilder& operator<<(unsigned long value) { return AppendUnsigned(value); }
  StringBuilder& operator<<(unsigned long long value) { return AppendUnsigned(value); }

  StringBuilder& operator<<(float value) { return *this << static_cast<double>(value); }
  StringBuilder& operator<<(double value);
  StringBuilder& operator<<(long double value);

  StringBuilder& operator<<(const void* pointer);
  StringBuilder& operator<<(std::nullptr_t) { return *this << "nullptr"; }

  template <typename Enum, typename = std::enable_if_t<std::is_enum<Enum>::value>>
  StringBuilder& operator<<(Enum value) {
    // Unary + promotes a char-sized underlying type to int: a number, not a
    // character.
    return *this << +static_cast<std::underlying_type_t<Enum>>(value);
  }

  const std::string& str() const& { return text_; }
  std::string str() && { return std::move(text_); }

 private:
  StringBuilder& AppendSigned(long long value);
  StringBuilder& AppendUnsigned(unsigned long long value);

  std::string text_;
};

}  // namespace mace

#endif  // MACE_UTILS_STRING_BUILDER_H_
