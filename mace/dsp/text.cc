#include "mace/dsp/text.h"

namespace mace {
namespace dsp {

void Text::Put(char c) {
  if (size_ < capacity_) {
    buffer_[size_++] = c;
  } else if (capacity_ >= 3) {
    buffer_[capacity_ - 3] = buffer_[capacity_ - 2] = buffer_[capacity_ - 1] = '.';
  }
}

Text& Text::operator<<(const char* text) {
  while (*text != '\0') Put(*text++);
  return *this;
}

Text& Text::operator<<(int64_t value) {
  uint64_t magnitude = value < 0 ? 0 - static_cast<uint64_t>(value) : value;
  char digits[24];
  int count = 0;
  do {
    digits[count++] = static_cast<char>('0' + magnitude % 10);
    magnitude /= 10;
  } while (magnitude != 0);
  if (value < 0) Put('-');
  while (count > 0) Put(digits[--count]);
  return *this;
}

}  // namespace dsp
}  // namespace mace
