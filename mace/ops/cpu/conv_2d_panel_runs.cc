#include "mace/ops/cpu/conv_2d_panel_runs.h"

namespace mace {
namespace ops {

bool PackFloatPanel8(const PanelSegment<float>* /*segments*/, int /*count*/, int /*valid*/,
                     const int64_t* /*offsets*/, int64_t /*depth*/, float* /*dst*/) {
  return false;
}

}  // namespace ops
}  // namespace mace
