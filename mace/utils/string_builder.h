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

// One argument of StrCat as it was given (text, a number, a pointer), not
// yet formatted: StrCat's call sites only fill an array of these, and one
// function formats them all as StringBuilder's << would.
class StrCatArg {
 public:
  StrCatArg(const char* text) : kind_(kText) { value_.text = text; }
  StrCatArg(const signed char* text) : StrCatArg(reinterpret_cast<const char*>(text)) {}
  StrCatArg(const unsigned char* text) : StrCatArg(reinterpret_cast<const char*>(text)) {}
  StrCatArg(const std::string& text) : StrCatArg(std::string_view(text)) {}
  StrCatArg(std::string_view text) : kind_(kView) { value_.view = {text.data(), text.size()}; }
  StrCatArg(char c) : kind_(kChar) { value_.c = c; }
  StrCatArg(signed char c) : StrCatArg(static_cast<char>(c)) {}
  StrCatArg(unsigned char c) : StrCatArg(static_cast<char>(c)) {}
  StrCatArg(bool value) : StrCatArg(value ? '1' : '0') {}
  StrCatArg(short value) : StrCatArg(static_cast<long long>(value)) {}
  StrCatArg(int value) : StrCatArg(static_cast<long long>(value)) {}
  StrCatArg(long value) : StrCatArg(static_cast<long long>(value)) {}
  StrCatArg(long long value) : kind_(kSigned) { value_.s = value; }
  StrCatArg(unsigned short value) : StrCatArg(static_cast<unsigned long long>(value)) {}
  StrCatArg(unsigned int value) : StrCatArg(static_cast<unsigned long long>(value)) {}
  StrCatArg(unsigned long value) : StrCatArg(static_cast<unsigned long long>(value)) {}
  StrCatArg(unsigned long long value) : kind_(kUnsigned) { value_.u = value; }
  StrCatArg(float value) : StrCatArg(static_cast<double>(value)) {}
  StrCatArg(double value) : kind_(kDouble) { value_.d = value; }
  // By address: the argument outlives the StrCat call it is given to.
  StrCatArg(const long double& value) : kind_(kLongDouble) { value_.ld = &value; }
  StrCatArg(const void* pointer) : kind_(kPointer) { value_.p = pointer; }
  StrCatArg(std::nullptr_t) : StrCatArg("nullptr") {}
  template <typename Enum, typename = std::enable_if_t<std::is_enum<Enum>::value>>
  StrCatArg(Enum value) : StrCatArg(+static_cast<std::underlying_type_t<Enum>>(value)) {}

  void AppendTo(StringBuilder* builder) const;

 private:
  enum Kind : unsigned char {
    kText,
    kView,
    kChar,
    kSigned,
    kUnsigned,
    kDouble,
    kLongDouble,
    kPointer
  };
  struct View {
    const char* data;
    size_t size;
  };
  union {
    const char* text;
    View view;
    char c;
    long long s;
    unsigned long long u;
    double d;
    const long double* ld;
    const void* p;
  } value_;
  Kind kind_;
};

// The arguments' text, concatenated; out of line, for StrCat.
std::string ConcatArgs(const StrCatArg* args, size_t count);

// The text of every argument, as StringBuilder's << writes it, concatenated.
// A call site only fills an array of StrCatArg: messages are mostly built
// on failure paths, and this keeps those paths short.
template <typename... Args>
std::string StrCat(const Args&... args) {
  if constexpr (sizeof...(Args) == 0) {
    return std::string();
  } else {
    const StrCatArg pieces[] = {StrCatArg(args)...};
    return ConcatArgs(pieces, sizeof...(Args));
  }
}

}  // namespace mace

#endif  // MACE_UTILS_STRING_BUILDER_H_
