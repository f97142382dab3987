#include "mace/ops/cpu/pooling_half_rows.h"

namespace mace {
namespace ops {

int64_t HalfKeyRowVectors(const int16_t*, int64_t, int64_t, int16_t*) { return 0; }

int64_t HalfKeyColumnVectors(const int16_t*, int64_t, int64_t, int64_t, int16_t*) { return 0; }

int64_t HoldRow3x3S2Vectors(const int16_t*, int64_t, HeldRow) { return 0; }

int64_t MaxRow3x3S2Vectors(HeldRow, const int16_t*, const int16_t*, int64_t, HeldRow,
                           int16_t*) {
  return 0;
}

bool HasHalfMaxRows3x3S2() { return false; }

void HalfMaxRows3x3S2(const PlaneRows&, int64_t, int64_t, int64_t, int16_t*, int16_t*,
                      int16_t*) {}

}  // namespace ops
}  // namespace mace
