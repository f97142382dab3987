#include "mace/utils/string_builder.h"

#include <cstdint>
#include <cstdio>

namespace mace {

StringBuilder& StringBuilder::operator<<(const char* text) {
  if (text != nullptr) text_ += text;
  return *this;
}

StringBuilder& StringBuilder::AppendUnsigned(unsigned long long value) {
  char digits[24];
  char* end = digits + sizeof(digits);
  char* begin = end;
  do {
    *--begin = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0);
  text_.append(begin, end);
  return *this;
}

StringBuilder& StringBuilder::AppendSigned(long long value) {
  if (value >= 0) return AppendUnsigned(static_cast<unsigned long long>(value));
  text_ += '-';
  // Negated in unsigned arithmetic: the most negative value has no positive
  // counterpart.
  return AppendUnsigned(0ULL - static_cast<unsigned long long>(value));
}

StringBuilder& StringBuilder::operator<<(double value) {
  char buffer[32];
  const int length = std::snprintf(buffer, sizeof(buffer), "%.6g", value);
  if (length > 0) text_.append(buffer, static_cast<size_t>(length));
  return *this;
}

StringBuilder& StringBuilder::operator<<(long double value) {
  char buffer[48];
  const int length = std::snprintf(buffer, sizeof(buffer), "%.6Lg", value);
  if (length > 0) text_.append(buffer, static_cast<size_t>(length));
  return *this;
}

StringBuilder& StringBuilder::operator<<(const void* pointer) {
  const uintptr_t address = reinterpret_cast<uintptr_t>(pointer);
  if (address == 0) return *this << '0';
  static const char kDigits[] = "0123456789abcdef";
  char digits[2 + 2 * sizeof(uintptr_t)];
  char* end = digits + sizeof(digits);
  char* begin = end;
  for (uintptr_t rest = address; rest != 0; rest >>= 4) *--begin = kDigits[rest & 15];
  *--begin = 'x';
  *--begin = '0';
  text_.append(begin, end);
  return *this;
}

void StrCatArg::AppendTo(StringBuilder* builder) const {
  switch (kind_) {
    case kText:
      *builder << value_.text;
      break;
    case kView:
      *builder << std::string_view(value_.view.data, value_.view.size);
      break;
    case kChar:
      *builder << value_.c;
      break;
    case kSigned:
      *builder << value_.s;
      break;
    case kUnsigned:
      *builder << value_.u;
      break;
    case kDouble:
      *builder << value_.d;
      break;
    case kLongDouble:
      *builder << *value_.ld;
      break;
    case kPointer:
      *builder << value_.p;
      break;
  }
}

std::string ConcatArgs(const StrCatArg* args, size_t count) {
  StringBuilder builder;
  for (size_t i = 0; i < count; ++i) args[i].AppendTo(&builder);
  return std::move(builder).str();
}

}  // namespace mace
