// The CPU kernels of LSTM, GRU and RNN (mace/ops/recurrent.h).
#ifndef MACE_OPS_CPU_RECURRENT_CPU_H_
#define MACE_OPS_CPU_RECURRENT_CPU_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewLstmCpu();
std::unique_ptr<Operation> NewGruCpu();
std::unique_ptr<Operation> NewRnnCpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_RECURRENT_CPU_H_
