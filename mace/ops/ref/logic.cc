#include "mace/ops/ref/logic.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace mace {
namespace ops {
namespace ref {
namespace {

// Calls f(out_index, offsets) for every output element in row-major order,
// where offsets[k] is operand k's element offset.
template <typename F>
void ForEach(const BroadcastParams& p, F f) {
  const int rank = static_cast<int>(p.shape.size());
  const size_t operands = p.strides.size();
  int64_t count = 1;
  for (int64_t d : p.shape) count *= d;
  std::vector<int64_t> index(rank, 0);
  std::vector<int64_t> offsets(operands, 0);
  for (int64_t i = 0; i < count; ++i) {
    f(i, offsets);
    for (int d = rank - 1; d >= 0; --d) {
      ++index[d];
      for (size_t k = 0; k < operands; ++k) offsets[k] += p.strides[k][d];
      if (index[d] < p.shape[d]) break;
      for (size_t k = 0; k < operands; ++k) offsets[k] -= p.strides[k][d] * index[d];
      index[d] = 0;
    }
  }
}

float CompareOne(CompareType type, float a, float b) {
  switch (type) {
    case CompareType::EQUAL:
      return a == b ? 1.f : 0.f;
    case CompareType::LESS:
      return a < b ? 1.f : 0.f;
    case CompareType::GREATER:
      return a > b ? 1.f : 0.f;
    case CompareType::LESS_EQUAL:
      return a <= b ? 1.f : 0.f;
    case CompareType::GREATER_EQUAL:
      return a >= b ? 1.f : 0.f;
    case CompareType::AND:
      return (a != 0.f && b != 0.f) ? 1.f : 0.f;
    case CompareType::OR:
      return (a != 0.f || b != 0.f) ? 1.f : 0.f;
    case CompareType::XOR:
      return ((a != 0.f) != (b != 0.f)) ? 1.f : 0.f;
    case CompareType::NOT:
      return a == 0.f ? 1.f : 0.f;
  }
  return 0.f;
}

}  // namespace

bool ParseCompareType(const std::string& name, CompareType* type) {
  static const struct {
    const char* name;
    CompareType type;
  } kNames[] = {
      {"equal", CompareType::EQUAL},
      {"less", CompareType::LESS},
      {"greater", CompareType::GREATER},
      {"less_equal", CompareType::LESS_EQUAL},
      {"greater_equal", CompareType::GREATER_EQUAL},
      {"and", CompareType::AND},
      {"or", CompareType::OR},
      {"xor", CompareType::XOR},
      {"not", CompareType::NOT},
  };
  for (const auto& entry : kNames) {
    if (name == entry.name) {
      *type = entry.type;
      return true;
    }
  }
  return false;
}

bool MakeBroadcast(const std::vector<std::vector<int64_t>>& shapes, BroadcastParams* params) {
  size_t rank = 0;
  for (const auto& shape : shapes) rank = std::max(rank, shape.size());
  params->shape.assign(rank, 1);
  params->strides.assign(shapes.size(), std::vector<int64_t>(rank, 0));
  for (size_t k = 0; k < shapes.size(); ++k) {
    const std::vector<int64_t>& shape = shapes[k];
    const size_t pad = rank - shape.size();
    for (size_t i = 0; i < shape.size(); ++i) {
      int64_t& out = params->shape[pad + i];
      if (shape[i] == 1) continue;
      if (out != 1 && out != shape[i]) return false;
      out = shape[i];
    }
  }
  for (size_t k = 0; k < shapes.size(); ++k) {
    const std::vector<int64_t>& shape = shapes[k];
    const size_t pad = rank - shape.size();
    int64_t stride = 1;
    for (size_t i = shape.size(); i-- > 0;) {
      params->strides[k][pad + i] = shape[i] == 1 ? 0 : stride;
      stride *= shape[i];
    }
  }
  return true;
}

void Compare(CompareType type, const BroadcastParams& params, const float* a, const float* b,
             float* output) {
  const bool unary = type == CompareType::NOT;
  ForEach(params, [&](int64_t i, const std::vector<int64_t>& off) {
    output[i] = CompareOne(type, a[off[0]], unary ? 0.f : b[off[1]]);
  });
}

void Mod(bool fmod, const BroadcastParams& params, const float* a, const float* b, float* output) {
  ForEach(params, [&](int64_t i, const std::vector<int64_t>& off) {
    const float x = a[off[0]], y = b[off[1]];
    float r = std::fmod(x, y);
    if (!fmod && r != 0.f && ((r < 0.f) != (y < 0.f))) r += y;
    output[i] = r;
  });
}

void Where(const BroadcastParams& params, const float* condition, const float* x, const float* y,
           float* output) {
  ForEach(params, [&](int64_t i, const std::vector<int64_t>& off) {
    output[i] = condition[off[0]] != 0.f ? x[off[1]] : y[off[2]];
  });
}

}  // namespace ref
}  // namespace ops
}  // namespace mace
