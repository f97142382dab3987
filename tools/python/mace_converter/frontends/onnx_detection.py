"""ONNX converters of detection ops: NonMaxSuppression (opsets 10 and 11)
and RoiAlign (opsets 10 and 16).

Integer inputs (max_output_boxes_per_class, batch_indices) reach the engine
as float32 values, like every integer the engine carries."""
from __future__ import annotations

import numpy as np

from mace_converter.frontends.node import Node
from mace_converter.frontends.onnx_common import converter
from mace_converter.frontends.onnx_more import _value


@converter("NonMaxSuppression")
def non_max_suppression(node: Node) -> None:
    """Boxes [N, B, 4] and scores [N, C, B] with up to three scalars, each
    a constant or computed; absent ones between present ones stay empty."""
    if node.rank(0) != 3 or node.rank(1) != 3:
        raise node.fail(f"boxes {list(node.shape(0))} and scores {list(node.shape(1))} must "
                        "be [N, B, 4] and [N, C, B]")
    center = int(node.attr("center_point_box", 0))
    if center not in (0, 1):
        raise node.fail(f"center_point_box must be 0 or 1, got {center}")
    if node.is_const(2):
        count = np.asarray(node.const(2)).reshape(-1)
        if count.size != 1:
            raise node.fail("max_output_boxes_per_class must hold one value")
    inputs = [node.tensor(0), node.tensor(1)]
    last = max([i for i in (2, 3, 4) if node.has_input(i)], default=1)
    for index in range(2, last + 1):
        inputs.append(_value(node, index) if node.has_input(index) else "")
    node.emit_out("NonMaxSuppression", inputs, {"center_point_box": center})


@converter("RoiAlign")
def roi_align(node: Node) -> None:
    """X [N, C, H, W], rois [R, 4], batch_indices [R]. Opset 10 has no
    coordinate_transformation_mode and behaves as output_half_pixel."""
    if node.rank(0) != 4:
        raise node.fail(f"X has shape {list(node.shape(0))}; RoiAlign takes [N, C, H, W]")
    mode = str(node.attr("mode", "avg"))
    if mode not in ("avg", "max"):
        raise node.fail(f"mode '{mode}' is not avg or max")
    default = "half_pixel" if node.opset >= 16 else "output_half_pixel"
    transform = str(node.attr("coordinate_transformation_mode", default))
    if transform not in ("half_pixel", "output_half_pixel"):
        raise node.fail(f"coordinate_transformation_mode '{transform}' is not half_pixel or "
                        "output_half_pixel")
    node.emit_out("RoiAlign", [node.tensor(0), node.tensor(1), _value(node, 2)],
                  {"mode": mode, "coordinate_transformation_mode": transform,
                   "output_height": int(node.attr("output_height", 1)),
                   "output_width": int(node.attr("output_width", 1)),
                   "sampling_ratio": int(node.attr("sampling_ratio", 0)),
                   "spatial_scale": float(node.attr("spatial_scale", 1.0))})
