#include "mace/ops/common/conv_geometry.h"

#include <algorithm>
#include <string>
#include <vector>

namespace mace {
namespace ops {
namespace {

MaceStatus Fail(const Operation& op, const std::string& message) {
  return MaceStatus(MaceStatus::MACE_INVALID_ARGS, StrCat(op.Describe(), ": ", message));
}

}  // namespace

MaceStatus ReadWindowInts(const Operation& op, const std::string& name, size_t count,
                          int64_t fallback, int64_t low, int64_t* values) {
  std::vector<int64_t> given = op.GetInts(name);
  if (given.empty()) given.assign(count, fallback);
  if (given.size() != count) {
    return Fail(op, StrCat(name, " must have ", count, " values, got ", given.size()));
  }
  for (size_t i = 0; i < count; ++i) {
    if (given[i] < low || given[i] > kMaxWindowArg) {
      return Fail(op, StrCat(name, " value ", given[i], " is out of range [", low, ", ",
                             kMaxWindowArg, "]"));
    }
    values[i] = given[i];
  }
  return MaceStatus();
}

MaceStatus ParseWindowArgs(const Operation& op, WindowArgs* args) {
  const std::vector<int64_t> strides = op.GetInts("strides");
  const std::vector<int64_t> dilations = op.GetInts("dilations");
  const std::vector<int64_t> pads = op.GetInts("pads");
  if (!strides.empty()) {
    if (strides.size() != 2 || strides[0] < 1 || strides[1] < 1) {
      return Fail(op, "strides must be two positive integers");
    }
    args->stride_h = strides[0];
    args->stride_w = strides[1];
  }
  if (!dilations.empty()) {
    if (dilations.size() != 2 || dilations[0] < 1 || dilations[1] < 1) {
      return Fail(op, "dilations must be two positive integers");
    }
    args->dilation_h = dilations[0];
    args->dilation_w = dilations[1];
  }
  args->padding = static_cast<int>(op.GetInt("padding", 0));
  if (args->padding < 0 || args->padding > 2) {
    return Fail(op, StrCat("padding must be 0 (VALID), 1 (SAME) or 2 (SAME_LOWER), got ",
                           args->padding));
  }
  if (!pads.empty()) {
    if (pads.size() != 4 || *std::min_element(pads.begin(), pads.end()) < 0) {
      return Fail(op, "pads must be four non-negative integers [top, left, bottom, right]");
    }
    args->explicit_pads = true;
    args->pad_top = pads[0];
    args->pad_left = pads[1];
    args->pad_bottom = pads[2];
    args->pad_right = pads[3];
  }
  return MaceStatus();
}

MaceStatus ComputeWindow(const Operation& op, const WindowArgs& args, int64_t in_h,
                         int64_t in_w, int64_t k_h, int64_t k_w, WindowGeometry* geometry) {
  const int64_t eff_h = (k_h - 1) * args.dilation_h + 1;
  const int64_t eff_w = (k_w - 1) * args.dilation_w + 1;
  if (args.explicit_pads) {
    geometry->pad_top = args.pad_top;
    geometry->pad_left = args.pad_left;
    geometry->out_h = (in_h + args.pad_top + args.pad_bottom - eff_h) / args.stride_h + 1;
    geometry->out_w = (in_w + args.pad_left + args.pad_right - eff_w) / args.stride_w + 1;
    if (in_h + args.pad_top + args.pad_bottom < eff_h ||
        in_w + args.pad_left + args.pad_right < eff_w) {
      geometry->out_h = geometry->out_w = 0;
    }
  } else if (args.padding == 0) {
    geometry->pad_top = geometry->pad_left = 0;
    geometry->out_h = in_h >= eff_h ? (in_h - eff_h) / args.stride_h + 1 : 0;
    geometry->out_w = in_w >= eff_w ? (in_w - eff_w) / args.stride_w + 1 : 0;
  } else {
    geometry->out_h = (in_h + args.stride_h - 1) / args.stride_h;
    geometry->out_w = (in_w + args.stride_w - 1) / args.stride_w;
    const int64_t total_h =
        std::max<int64_t>((geometry->out_h - 1) * args.stride_h + eff_h - in_h, 0);
    const int64_t total_w =
        std::max<int64_t>((geometry->out_w - 1) * args.stride_w + eff_w - in_w, 0);
    // SAME puts the odd pixel at the end, SAME_LOWER at the start.
    geometry->pad_top = args.padding == 1 ? total_h / 2 : (total_h + 1) / 2;
    geometry->pad_left = args.padding == 1 ? total_w / 2 : (total_w + 1) / 2;
  }
  if (geometry->out_h <= 0 || geometry->out_w <= 0) {
    return Fail(op, StrCat("a ", k_h, "x", k_w, " window does not fit the ", in_h, "x", in_w,
                           " input"));
  }
  return MaceStatus();
}

int64_t CeilModeSize(int64_t in, int64_t pad_begin, int64_t pad_end, int64_t extent,
                     int64_t stride) {
  int64_t out = (in + pad_begin + pad_end - extent + stride - 1) / stride + 1;
  if ((out - 1) * stride >= in + pad_begin) --out;
  return out;
}

}  // namespace ops
}  // namespace mace
