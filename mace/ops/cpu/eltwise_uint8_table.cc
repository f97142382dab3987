#include "mace/ops/cpu/eltwise_uint8_table.h"

#include <algorithm>

#include "mace/ops/common/quantize.h"

namespace mace {
namespace ops {

void MakeEltwiseUint8Table(const ref::quantized::EltwiseQuantization& quant,
                           std::vector<uint8_t>* table) {
  table->resize(kEltwiseUint8TableSize);
  if (quant.kind != ref::quantized::EltwiseKind::kMul) {
    // Add and subtract scale each input on its own: 2 x 256 scalings, then
    // one output step per entry (the reference's arithmetic, value for
    // value).
    int64_t scaled0[256], scaled1[256];
    for (int v = 0; v < 256; ++v) {
      const int32_t shifted = int32_t{1} << ref::quantized::kEltwiseLeftShift;
      scaled0[v] = Requantize((v - quant.zero_point0) * shifted, quant.multiplier0);
      scaled1[v] = Requantize((v - quant.zero_point1) * shifted, quant.multiplier1);
    }
    const bool add = quant.kind == ref::quantized::EltwiseKind::kAdd;
    for (int x = 0; x < 256; ++x) {
      uint8_t* row = table->data() + x * 256;
      for (int y = 0; y < 256; ++y) {
        const int32_t combined =
            static_cast<int32_t>(add ? scaled0[x] + scaled1[y] : scaled0[x] - scaled1[y]);
        row[y] = RequantizeToUint8(combined, quant.output_multiplier, quant.output);
      }
    }
    return;
  }
  uint8_t bytes[256], row[256];
  for (int v = 0; v < 256; ++v) bytes[v] = static_cast<uint8_t>(v);
  for (int x = 0; x < 256; ++x) {
    std::fill(row, row + 256, static_cast<uint8_t>(x));
    ref::quantized::Eltwise(quant, row, bytes, 256, 256, table->data() + x * 256);
  }
}

void EltwiseUint8ByTable(const uint8_t* table, const uint8_t* input0, const uint8_t* input1,
                         int64_t count, int64_t input1_count, uint8_t* output, ThreadPool* pool,
                         EltwiseUint8TableKernel pairs) {
  // Tensors below 16 KiB stay on one thread. Larger ones split into
  // pieces of about 16 KiB (at least 8 KiB), as many as a multiple of the
  // threads, so that every thread gets the same share: fixed 16 KiB pieces
  // gave two threads 16,384 and 8,704 values of a 28 x 28 x 32 add.
  constexpr int64_t kPiece = 16384;
  constexpr int64_t kMinPiece = kPiece / 2;
  const int64_t threads = NumThreads(pool);
  int64_t pieces = (count + kPiece - 1) / kPiece;
  if (count >= kPiece) {
    pieces = std::min((pieces + threads - 1) / threads * threads,
                      std::max<int64_t>(1, count / kMinPiece));
  }
  // Whole multiples of 64 values (cache lines), the last piece shorter.
  const int64_t piece = ((count + pieces - 1) / pieces + 63) / 64 * 64;
  ParallelFor(pool, (count + piece - 1) / piece, [&](int64_t begin, int64_t end) {
    const int64_t first = begin * piece, last = std::min(count, end * piece);
    if (input1_count == 1) {
      const uint8_t* column = table + input1[0];
      for (int64_t i = first; i < last; ++i) output[i] = column[int64_t{input0[i]} << 8];
      return;
    }
    if (pairs != nullptr) {
      pairs(table, input0 + first, input1 + first, last - first, output + first);
      return;
    }
    for (int64_t i = first; i < last; ++i) {
      output[i] = table[(int64_t{input0[i]} << 8) | input1[i]];
    }
  });
}

}  // namespace ops
}  // namespace mace
