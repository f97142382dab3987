// A library linked with a model-specific registry (mace/ops/op_set.h) has
// only its deployment's ops: a model with any other op type is refused when
// its engine is created, with an error that names the op.
#ifndef MACE_LIBMACE_OP_SET_CHECK_H_
#define MACE_LIBMACE_OP_SET_CHECK_H_

#include "mace/core/op_registry.h"
#include "mace/proto/mace.pb.h"
#include "mace/public/mace.h"

namespace mace {

// OK for a library with every built-in op. Otherwise an error for the first
// op of `net` (or of its subgraphs) whose type `registry` lacks and the core
// does not run itself (control flow).
MaceStatus CheckModelOpSet(const NetDef& net, const OpRegistry& registry);

}  // namespace mace

#endif  // MACE_LIBMACE_OP_SET_CHECK_H_
