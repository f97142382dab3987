// A bounded text buffer for the DSP's log and graph printing (no printf
// on the DSP). Text past the capacity is dropped and marked.
#ifndef MACE_DSP_TEXT_H_
#define MACE_DSP_TEXT_H_

#include <stdint.h>

namespace mace {
namespace dsp {

class Text {
 public:
  Text(char* buffer, uint32_t capacity) : buffer_(buffer), capacity_(capacity) {}
  Text& operator<<(const char* text);
  Text& operator<<(int64_t value);
  Text& operator<<(int32_t value) { return *this << static_cast<int64_t>(value); }
  Text& operator<<(uint32_t value) { return *this << static_cast<int64_t>(value); }
  const char* data() const { return buffer_; }
  uint32_t size() const { return size_; }
  void Clear() { size_ = 0; }

 private:
  void Put(char c);
  char* buffer_;
  uint32_t capacity_;
  uint32_t size_ = 0;
};

}  // namespace dsp
}  // namespace mace

#endif  // MACE_DSP_TEXT_H_
