#include "mace/ops/cpu/logic_fast.h"

#include <cmath>
#include <cstdint>
#include <vector>

namespace mace {
namespace ops {
namespace {

// The step of each operand in a flat walk of the output: 1 for an operand
// with the output's row-major strides, 0 for a single value; false if some
// operand is neither.
bool FlatSteps(const ref::BroadcastParams& p, size_t operands, int64_t* steps, int64_t* count) {
  const size_t rank = p.shape.size();
  std::vector<int64_t> row_major(rank);
  *count = 1;
  for (size_t d = rank; d-- > 0;) {
    row_major[d] = *count;
    *count *= p.shape[d];
  }
  for (size_t k = 0; k < operands; ++k) {
    bool full = true, single = true;
    for (size_t d = 0; d < rank; ++d) {
      if (p.shape[d] == 1) continue;  // any stride is fine along a size-1 dimension
      full = full && p.strides[k][d] == row_major[d];
      single = single && p.strides[k][d] == 0;
    }
    if (!full && !single) return false;
    steps[k] = full ? 1 : 0;
  }
  return true;
}

template <typename F>
void Binary(int64_t count, const float* a, int64_t sa, const float* b, int64_t sb, float* out,
            F f) {
  if (sa == 1 && sb == 1) {
    for (int64_t i = 0; i < count; ++i) out[i] = f(a[i], b[i]);
  } else if (sa == 1) {
    const float y = b[0];
    for (int64_t i = 0; i < count; ++i) out[i] = f(a[i], y);
  } else if (sb == 1) {
    const float x = a[0];
    for (int64_t i = 0; i < count; ++i) out[i] = f(x, b[i]);
  } else {
    const float v = f(a[0], b[0]);
    for (int64_t i = 0; i < count; ++i) out[i] = v;
  }
}

}  // namespace

bool CompareFlat(ref::CompareType type, const ref::BroadcastParams& params, const float* a,
                 const float* b, float* output) {
  const bool unary = type == ref::CompareType::NOT;
  int64_t steps[2] = {0, 0}, count = 0;
  if (!FlatSteps(params, unary ? 1 : 2, steps, &count)) return false;
  if (unary) {
    for (int64_t i = 0; i < count; ++i) output[i] = a[i * steps[0]] == 0.f ? 1.f : 0.f;
    return true;
  }
  auto bit = [](bool v) { return v ? 1.f : 0.f; };
  switch (type) {
    case ref::CompareType::EQUAL:
      Binary(count, a, steps[0], b, steps[1], output,
             [&](float x, float y) { return bit(x == y); });
      break;
    case ref::CompareType::LESS:
      Binary(count, a, steps[0], b, steps[1], output, [&](float x, float y) { return bit(x < y); });
      break;
    case ref::CompareType::GREATER:
      Binary(count, a, steps[0], b, steps[1], output, [&](float x, float y) { return bit(x > y); });
      break;
    case ref::CompareType::LESS_EQUAL:
      Binary(count, a, steps[0], b, steps[1], output,
             [&](float x, float y) { return bit(x <= y); });
      break;
    case ref::CompareType::GREATER_EQUAL:
      Binary(count, a, steps[0], b, steps[1], output,
             [&](float x, float y) { return bit(x >= y); });
      break;
    case ref::CompareType::AND:
      Binary(count, a, steps[0], b, steps[1], output,
             [&](float x, float y) { return bit(x != 0.f && y != 0.f); });
      break;
    case ref::CompareType::OR:
      Binary(count, a, steps[0], b, steps[1], output,
             [&](float x, float y) { return bit(x != 0.f || y != 0.f); });
      break;
    case ref::CompareType::XOR:
      Binary(count, a, steps[0], b, steps[1], output,
             [&](float x, float y) { return bit((x != 0.f) != (y != 0.f)); });
      break;
    case ref::CompareType::NOT:
      break;
  }
  return true;
}

bool ModFlat(bool fmod, const ref::BroadcastParams& params, const float* a, const float* b,
             float* output) {
  int64_t steps[2] = {0, 0}, count = 0;
  if (!FlatSteps(params, 2, steps, &count)) return false;
  Binary(count, a, steps[0], b, steps[1], output, [fmod](float x, float y) {
    float r = std::fmod(x, y);
    if (!fmod && r != 0.f && ((r < 0.f) != (y < 0.f))) r += y;
    return r;
  });
  return true;
}

bool WhereFlat(const ref::BroadcastParams& params, const float* condition, const float* x,
               const float* y, float* output) {
  int64_t steps[3] = {0, 0, 0}, count = 0;
  if (!FlatSteps(params, 3, steps, &count)) return false;
  if (steps[0] == 1 && steps[1] == 1 && steps[2] == 1) {
    for (int64_t i = 0; i < count; ++i) output[i] = condition[i] != 0.f ? x[i] : y[i];
    return true;
  }
  for (int64_t i = 0; i < count; ++i) {
    output[i] = condition[i * steps[0]] != 0.f ? x[i * steps[1]] : y[i * steps[2]];
  }
  return true;
}

}  // namespace ops
}  // namespace mace
