#include "mace/dsp/self_test.h"

#include "mace/dsp/hvx.h"
#include "mace/dsp/protocol.h"
#include "mace/dsp/sys.h"

namespace mace {
namespace dsp {
namespace {

// The divisions go through volatile operands so that the compiler emits
// the helper calls rather than folding anything.
uint64_t Evaluate(const ArithmeticCase& c) {
  volatile uint64_t va = c.a, vb = c.b;
  const uint64_t a = va, b = vb;
  switch (c.op) {
    case kDivSi3: return static_cast<uint32_t>(static_cast<int32_t>(a) / static_cast<int32_t>(b));
    case kModSi3: return static_cast<uint32_t>(static_cast<int32_t>(a) % static_cast<int32_t>(b));
    case kUDivSi3: return static_cast<uint32_t>(a) / static_cast<uint32_t>(b);
    case kUModSi3: return static_cast<uint32_t>(a) % static_cast<uint32_t>(b);
    case kDivDi3: return static_cast<uint64_t>(static_cast<int64_t>(a) / static_cast<int64_t>(b));
    case kModDi3: return static_cast<uint64_t>(static_cast<int64_t>(a) % static_cast<int64_t>(b));
    case kUDivDi3: return a / b;
    case kUModDi3: return a % b;
    case kDivSf3: {
      const float x = __builtin_bit_cast(float, static_cast<uint32_t>(a));
      const float y = __builtin_bit_cast(float, static_cast<uint32_t>(b));
      volatile float q = x / y;
      return __builtin_bit_cast(uint32_t, static_cast<float>(q));
    }
    default: return 0;
  }
}

// memcpy and memset (whole vectors, then a partial load and a byte-masked
// store) against byte loops: destination and source offsets around the
// vector boundaries, every length up to 140 and a few beyond two vectors;
// the bytes around the destination must stay as they were.
uint32_t MemorySweep(uint8_t* src, uint8_t* dst, uint32_t buffer, Text* error) {
  const uint32_t offsets[] = {0, 1, 2, 3, 31, 64, 127, 128, 129};
  const uint32_t long_lengths[] = {255, 256, 257, 300};
  uint32_t failures = 0;
  for (uint32_t i = 0; i < buffer; ++i) src[i] = static_cast<uint8_t>(i * 7 + 3);
  for (uint32_t dst_offset : offsets) {
    for (uint32_t src_offset : offsets) {
      for (uint32_t k = 0; k < 141 + 4; ++k) {
        const uint32_t n = k < 141 ? k : long_lengths[k - 141];
        for (int fill = 0; fill < 2; ++fill) {  // memcpy, then memset
          for (uint32_t i = 0; i < buffer; ++i) dst[i] = 0xa5;
          if (fill) {
            memset(dst + dst_offset, 0x3c, n);
          } else {
            memcpy(dst + dst_offset, src + src_offset, n);
          }
          for (uint32_t i = 0; i < buffer; ++i) {
            const bool inside = i >= dst_offset && i < dst_offset + n;
            const uint8_t want = !inside ? 0xa5 : fill ? 0x3c : src[src_offset + i - dst_offset];
            if (dst[i] == want) continue;
            if (failures++ == 0) {
              *error << (fill ? "memset" : "memcpy") << " of " << n << " bytes to offset "
                     << dst_offset << " from " << src_offset << ": byte " << i << " is "
                     << dst[i] << ", not " << want;
            }
            break;
          }
        }
      }
    }
  }
  return failures;
}

}  // namespace

uint32_t RunSelfTest(uint32_t which, Allocator* heap, const uint8_t* payload, uint32_t size,
                     uint8_t** reply, uint32_t* reply_size, Text* error) {
  *reply = nullptr;
  *reply_size = 0;
  if (which == kSelfTestArithmetic) {
    if (size % sizeof(ArithmeticCase) != 0) {
      *error << "payload is not a whole number of cases";
      return kBadRequest;
    }
    const uint32_t count = size / sizeof(ArithmeticCase);
    uint64_t* results = static_cast<uint64_t*>(heap->Allocate(count * 8 + 1));
    if (results == nullptr) return kOutOfMemory;
    for (uint32_t i = 0; i < count; ++i) {
      ArithmeticCase c;
      memcpy(&c, payload + i * sizeof(c), sizeof(c));
      if (c.op >= kArithmeticOpCount) {
        heap->Free(results);
        *error << "case " << i << ": unknown operation";
        return kBadRequest;
      }
      results[i] = Evaluate(c);
    }
    *reply = reinterpret_cast<uint8_t*>(results);
    *reply_size = count * 8;
    return kOk;
  }
  if (which == kSelfTestAllocator) {
    constexpr uint32_t kRegion = 256u << 10;
    uint8_t* region = static_cast<uint8_t*>(heap->Allocate(kRegion));
    uint32_t* result = static_cast<uint32_t*>(heap->Allocate(512));
    if (region == nullptr || result == nullptr) {
      heap->Free(region);
      heap->Free(result);
      return kOutOfMemory;
    }
    char text[400];
    Text failures(text, sizeof(text));
    result[0] = AllocatorStress(region, kRegion, &failures);
    memcpy(result + 1, failures.data(), failures.size());
    heap->Free(region);
    *reply = reinterpret_cast<uint8_t*>(result);
    *reply_size = 4 + failures.size();
    return kOk;
  }
  if (which == kSelfTestRequantize) {
    if (size % sizeof(RequantizeCase) != 0) {
      *error << "payload is not a whole number of cases";
      return kBadRequest;
    }
    const uint32_t count = size / sizeof(RequantizeCase);
    HvxVector* lanes = static_cast<HvxVector*>(heap->Allocate(128));
    uint8_t* results = static_cast<uint8_t*>(heap->Allocate(count * kHvxLanes + 1));
    if (lanes == nullptr || results == nullptr) {
      heap->Free(lanes);
      heap->Free(results);
      return kOutOfMemory;
    }
    for (uint32_t i = 0; i < count; ++i) {
      RequantizeCase c;
      memcpy(&c, payload + i * sizeof(c), sizeof(c));
      if (c.multiplier < 0 || c.shift < 1 || c.shift > 62 || c.min < 0 || c.max > 255 ||
          c.min > c.max) {
        heap->Free(lanes);
        heap->Free(results);
        *error << "case " << i << ": bad multiplier or range";
        return kBadRequest;
      }
      memcpy(lanes, c.x, 128);
      *lanes = RequantizeVector(
          *lanes, VectorRequantizer(c.multiplier, c.shift, c.zero_point, c.min, c.max));
      const int32_t* values = reinterpret_cast<const int32_t*>(lanes);
      for (uint32_t j = 0; j < kHvxLanes; ++j) {
        results[i * kHvxLanes + j] = static_cast<uint8_t>(values[j]);
      }
    }
    heap->Free(lanes);
    *reply = results;
    *reply_size = count * kHvxLanes;
    return kOk;
  }
  if (which == kSelfTestMemory) {
    constexpr uint32_t kBuffer = 640;
    uint8_t* src = static_cast<uint8_t*>(heap->Allocate(kBuffer));
    uint8_t* dst = static_cast<uint8_t*>(heap->Allocate(kBuffer));
    uint32_t* result = static_cast<uint32_t*>(heap->Allocate(512));
    if (src == nullptr || dst == nullptr || result == nullptr) {
      heap->Free(src);
      heap->Free(dst);
      heap->Free(result);
      return kOutOfMemory;
    }
    char text[400];
    Text failures(text, sizeof(text));
    result[0] = MemorySweep(src, dst, kBuffer, &failures);
    memcpy(result + 1, failures.data(), failures.size());
    heap->Free(src);
    heap->Free(dst);
    *reply = reinterpret_cast<uint8_t*>(result);
    *reply_size = 4 + failures.size();
    return kOk;
  }
  *error << "unknown self test " << which;
  return kBadRequest;
}

}  // namespace dsp
}  // namespace mace
