#include "mace/ops/cpu/fused_activation.h"

#include <limits>

namespace mace {
namespace ops {

bool FuseActivation(const Activation& activation, TileEpilogue* epilogue) {
  epilogue->activation = kTileActNone;
  switch (activation.type) {
    case ActivationType::NOOP:
      return true;
    case ActivationType::RELU:
      epilogue->activation = kTileActClamp;
      epilogue->lo = 0.f;
      epilogue->hi = std::numeric_limits<float>::infinity();
      return true;
    case ActivationType::RELUX:
      epilogue->activation = kTileActClamp;
      epilogue->lo = 0.f;
      epilogue->hi = activation.max_limit;
      return true;
    case ActivationType::HARDSWISH:
      epilogue->activation = kTileActHardSwish;
      return true;
    default:
      return false;
  }
}

void ApplyActivation(const Activation& activation, float* data, int64_t count, ThreadPool* pool) {
  ParallelFor(pool, count, [&](int64_t begin, int64_t end) {
    activation.ApplyInPlace(data + begin, end - begin);
  });
}

}  // namespace ops
}  // namespace mace
