#include "mace/ops/cpu/quantized_output.h"

namespace mace {
namespace ops {

bool VectorRequantizeApplies(int64_t bias, int64_t max_products, const QuantizedMultiplier& m) {
  const bool fits = (bias < 0 ? -bias : bias) + max_products < (int64_t{1} << 31);
  const bool below_one = int64_t{m.multiplier} < (int64_t{1} << m.right_shift);
  return fits && below_one;
}

RequantizeRow MakeRequantizeRow(const int32_t* sums, const int32_t* column_terms, int64_t row_term,
                                const QuantizedMultiplier& m, const OutputClamp& clamp,
                                int64_t count, uint8_t* out) {
  RequantizeRow row;
  row.sums = sums;
  row.column_terms = column_terms;
  row.row_term = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(row_term)));
  row.multiplier = m.multiplier;
  row.right_shift = m.right_shift;
  row.zero_point = clamp.zero_point;
  row.lo = clamp.min;
  row.hi = clamp.max;
  row.count = count;
  row.out = out;
  return row;
}

}  // namespace ops
}  // namespace mace
