#include "mace/ops/cpu/conv_2d_half_gemm.h"

#include <algorithm>

namespace mace {
namespace ops {

void Fp16GemmHalfPanelsToHalves(const KernelTable& table, int64_t m, int64_t n, int64_t k,
                                const Fp16Panels& a, Fp16HalfPacker packer, const void* context,
                                uint16_t* c, int64_t ldc, const TileEpilogue& epilogue,
                                ThreadPool* pool, float* scratch) {
  const int mr = table.fp16_mr, nr = table.fp16_nr;
  const int64_t per_thread = Fp16GemmHalfScratchFloatsPerThread(table, k);
  const int64_t kc = std::min<int64_t>(table.fp16_kc, k);
  const int64_t row_panels = (m + mr - 1) / mr, col_panels = (n + nr - 1) / nr;
  // Each thread packs a column panel of B once per kc block, into its own
  // scratch, and runs every row panel of A over it.
  ParallelFor(pool, col_panels, [&](int64_t begin, int64_t end, int chunk) {
    uint16_t* panel = reinterpret_cast<uint16_t*>(scratch + chunk * per_thread);
    for (int64_t j = begin; j < end; ++j) {
      const int64_t col0 = j * nr;
      const int cols = static_cast<int>(std::min<int64_t>(nr, n - col0));
      for (int64_t d0 = 0; d0 < k; d0 += kc) {
        const int64_t depth = std::min(kc, k - d0);
        packer(context, col0, cols, d0, depth, nr, panel);
        TileEpilogue tile = epilogue;
        tile.accumulate = d0 > 0;
        tile.last = d0 + depth >= k;
        for (int64_t p = 0; p < row_panels; ++p) {
          const int64_t row0 = p * mr;
          tile.row_bias = epilogue.row_bias != nullptr ? epilogue.row_bias + row0 : nullptr;
          table.fp16_gemm_half(depth, a.Panel(p) + d0 * mr, panel, c + row0 * ldc + col0, ldc,
                               static_cast<int>(std::min<int64_t>(mr, m - row0)), cols, tile);
        }
      }
    }
  });
}

}  // namespace ops
}  // namespace mace
