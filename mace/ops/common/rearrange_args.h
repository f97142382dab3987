// Arguments of the block rearrangements on NCHW: DepthToSpace and
// SpaceToDepth (block_size, mode), BatchToSpaceND and SpaceToBatchND
// (block_shape and the crops or paddings). Each takes one input and one
// output.
#ifndef MACE_OPS_COMMON_REARRANGE_ARGS_H_
#define MACE_OPS_COMMON_REARRANGE_ARGS_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "mace/core/operation.h"
#include "mace/ops/common/element_count.h"

namespace mace {
namespace ops {
namespace rearrange_internal {

inline MaceStatus Fail(const Operation& op, const std::string& message) {
  return MaceStatus(MaceStatus::MACE_INVALID_ARGS, StrCat(op.Describe(), ": ", message));
}

inline MaceStatus CheckOneInOneOut(const Operation& op) {
  if (op.InputSize() != 1 || op.OutputSize() != 1) {
    return Fail(op, StrCat("needs one input and one output, got ", op.InputSize(), " inputs and ",
                           op.OutputSize(), " outputs"));
  }
  if (op.Input(0) == nullptr) return Fail(op, "input is missing");
  return MaceStatus();
}

}  // namespace rearrange_internal

// DepthToSpace and SpaceToDepth: a required positive block_size and the
// channel order `mode`, DCR (default) or CRD.
inline MaceStatus ParseBlockSizeArgs(const Operation& op, int64_t* block, bool* crd) {
  using rearrange_internal::Fail;
  MACE_RETURN_IF_ERROR(rearrange_internal::CheckOneInOneOut(op));
  if (!op.HasArg("block_size")) return Fail(op, "block_size is required");
  *block = op.GetInt("block_size", 0);
  if (*block < 1) return Fail(op, StrCat("block_size must be positive, got ", *block));
  const std::string mode = op.GetString("mode", "DCR");
  if (mode != "DCR" && mode != "CRD") {
    return Fail(op, StrCat("mode must be DCR or CRD, got '", mode, "'"));
  }
  *crd = mode == "CRD";
  return MaceStatus();
}

// BatchToSpaceND and SpaceToBatchND: block_shape [block_h, block_w] and the
// argument `margins_arg` ("crops" or "paddings"), [top, bottom, left, right],
// all zero when absent. Every value is at most 2^31, so sums of a few stay
// far from overflow.
inline MaceStatus ParseBlockShapeArgs(const Operation& op, const char* margins_arg,
                                      int64_t* block_h, int64_t* block_w,
                                      std::vector<int64_t>* margins) {
  using rearrange_internal::Fail;
  MACE_RETURN_IF_ERROR(rearrange_internal::CheckOneInOneOut(op));
  const std::vector<int64_t> block = op.GetInts("block_shape");
  if (!(block.size() == 2 && std::min(block[0], block[1]) >= 1 &&
        std::max(block[0], block[1]) <= kMaxElements)) {
    return Fail(op, StrCat("block_shape must be two positive integers [block_h, block_w] of at "
                           "most 2^31, got ",
                           ShapeToString(block)));
  }
  *block_h = block[0];
  *block_w = block[1];
  *margins = op.GetInts(margins_arg);
  if (margins->empty()) margins->assign(4, 0);
  if (!(margins->size() == 4 && *std::min_element(margins->begin(), margins->end()) >= 0 &&
        *std::max_element(margins->begin(), margins->end()) <= kMaxElements)) {
    return Fail(op,
                StrCat(margins_arg, " must be [top, bottom, left, right], each in [0, 2^31], got ",
                       ShapeToString(*margins)));
  }
  return MaceStatus();
}

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_COMMON_REARRANGE_ARGS_H_
