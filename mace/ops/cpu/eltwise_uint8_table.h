// uint8 Eltwise (add, subtract, multiply) by a table: the output depends
// only on the two input bytes, so Prepare fills a 256 x 256 table with
// ref::quantized::Eltwise itself (64 KiB per op) and Run looks each pair up,
// with threads splitting the elements. The results are the reference's by
// construction.
#ifndef MACE_OPS_CPU_ELTWISE_UINT8_TABLE_H_
#define MACE_OPS_CPU_ELTWISE_UINT8_TABLE_H_

#include <cstdint>
#include <vector>

#include "mace/ops/cpu/quantized_micro_kernels.h"
#include "mace/ops/ref/quantized/eltwise.h"
#include "mace/runtimes/cpu/thread_pool.h"

namespace mace {
namespace ops {

constexpr int64_t kEltwiseUint8TableSize = 256 * 256;

// table[x * 256 + y] = the reference's output for input0 = x, input1 = y.
void MakeEltwiseUint8Table(const ref::quantized::EltwiseQuantization& quant,
                           std::vector<uint8_t>* table);

// As ref::quantized::Eltwise: input1 holds `count` values, or one for all
// when input1_count is 1. `pool` may be null (one thread). `pairs`, where
// not null, does the lookups of two full inputs (a kernel table's
// eltwise_uint8_table).
void EltwiseUint8ByTable(const uint8_t* table, const uint8_t* input0, const uint8_t* input1,
                         int64_t count, int64_t input1_count, uint8_t* output, ThreadPool* pool,
                         EltwiseUint8TableKernel pairs = nullptr);

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_ELTWISE_UINT8_TABLE_H_
