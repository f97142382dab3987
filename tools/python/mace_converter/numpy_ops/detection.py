"""NonMaxSuppression and RoiAlign kernels, written from the ONNX operator
definitions and computed in float32 as the engine does, so that IoU
thresholds and sampling positions fall the same way."""
from __future__ import annotations

import math

import numpy as np

from mace_converter.numpy_ops import kernel

F32 = np.float32


def _extent(box: np.ndarray, center: bool) -> tuple:
    """(x_min, x_max, y_min, y_max) of one box, in float32."""
    if center:
        hw, hh = box[2] / F32(2), box[3] / F32(2)
        return box[0] - hw, box[0] + hw, box[1] - hh, box[1] + hh
    return (min(box[1], box[3]), max(box[1], box[3]), min(box[0], box[2]),
            max(box[0], box[2]))


def _suppresses(a: np.ndarray, b: np.ndarray, center: bool, threshold: F32) -> bool:
    p, q = _extent(a, center), _extent(b, center)
    x_low, x_high = max(p[0], q[0]), min(p[1], q[1])
    if not x_high > x_low:
        return False
    y_low, y_high = max(p[2], q[2]), min(p[3], q[3])
    if not y_high > y_low:
        return False
    inter = F32((x_high - x_low) * (y_high - y_low))
    area_p, area_q = F32((p[1] - p[0]) * (p[3] - p[2])), F32((q[1] - q[0]) * (q[3] - q[2]))
    union = F32(area_p + area_q - inter)
    if not (inter > 0 and area_p > 0 and area_q > 0 and union > 0):
        return False
    return bool(F32(inter / union) > threshold)


def _scalar(inputs, index: int):
    if index < len(inputs) and inputs[index] is not None:
        return F32(np.asarray(inputs[index]).reshape(-1)[0])
    return None


@kernel("NonMaxSuppression")
def _non_max_suppression(inputs, args, _):
    """Greedy per batch and class: descending score (ties by box index), a
    box kept unless a kept box of its class overlaps it by IoU above the
    threshold; only scores above score_threshold (when given) compete."""
    boxes, scores = inputs[0].astype(F32), inputs[1].astype(F32)
    center = bool(args.get("center_point_box", 0))
    count, iou, least = _scalar(inputs, 2), _scalar(inputs, 3), _scalar(inputs, 4)
    limit = 0 if count is None or count <= 0 else int(min(count, boxes.shape[1]))
    iou = F32(0) if iou is None else iou
    if not 0 <= iou <= 1:
        raise ValueError(f"iou_threshold {iou} is not in [0, 1]")
    selected = []
    for n in range(boxes.shape[0]):
        for c in range(scores.shape[1]):
            row = scores[n, c]
            order = [b for b in range(row.size) if not math.isnan(row[b]) and
                     (least is None or row[b] > least)]
            order.sort(key=lambda b: -row[b])      # stable: ties keep index order
            kept: list[int] = []
            for b in order:
                if len(kept) >= limit:
                    break
                if any(_suppresses(boxes[n, k], boxes[n, b], center, iou) for k in kept):
                    continue
                kept.append(b)
                selected.append((n, c, b))
    return [np.array(selected, dtype=np.int32).reshape(-1, 3)]


def _bilinear(plane: np.ndarray, y: F32, x: F32) -> list:
    """The four weighted taps of one sample (all 0 outside the image)."""
    h, w = plane.shape
    if y < -1 or y > h or x < -1 or x > w:
        return [F32(0)] * 4
    y, x = max(y, F32(0)), max(x, F32(0))
    y0, x0 = int(y), int(x)
    y1, x1 = y0 + 1, x0 + 1
    if y0 >= h - 1:
        y0 = y1 = h - 1
        y = F32(y0)
    if x0 >= w - 1:
        x0 = x1 = w - 1
        x = F32(x0)
    ly, lx = F32(y - y0), F32(x - x0)
    hy, hx = F32(1) - ly, F32(1) - lx
    return [hy * hx * plane[y0, x0], hy * lx * plane[y0, x1], ly * hx * plane[y1, x0],
            ly * lx * plane[y1, x1]]


@kernel("RoiAlign")
def _roi_align(inputs, args, _):
    """Each ROI cut into output_height x output_width bins; a bin is the
    mean of its bilinear samples (avg) or the largest weighted tap of any of
    them (max, as onnxruntime defines it)."""
    x, rois = inputs[0].astype(F32), inputs[1].astype(F32)
    indices = np.asarray(inputs[2]).reshape(-1)
    out_h, out_w = int(args.get("output_height", 1)), int(args.get("output_width", 1))
    ratio = int(args.get("sampling_ratio", 0))
    scale = F32(args.get("spatial_scale", 1.0))
    half = args.get("coordinate_transformation_mode", "half_pixel") == "half_pixel"
    offset = F32(0.5 if half else 0.0)
    out = np.zeros((rois.shape[0], x.shape[1], out_h, out_w), F32)
    for r, roi in enumerate(rois):
        x0, y0 = roi[0] * scale - offset, roi[1] * scale - offset
        rw, rh = F32(roi[2] * scale - offset - x0), F32(roi[3] * scale - offset - y0)
        if not half:
            rw, rh = max(rw, F32(1)), max(rh, F32(1))
        bh, bw = F32(rh / F32(out_h)), F32(rw / F32(out_w))
        gh = ratio if ratio > 0 else max(0, int(math.ceil(rh / F32(out_h))))
        gw = ratio if ratio > 0 else max(0, int(math.ceil(rw / F32(out_w))))
        count = F32(max(gh * gw, 1))
        for c in range(x.shape[1]):
            plane = x[int(indices[r]), c]
            for ph in range(out_h):
                for pw in range(out_w):
                    taps = []
                    for iy in range(gh):
                        sy = F32(y0 + F32(ph) * bh + F32(iy + 0.5) * bh / F32(gh))
                        for ix in range(gw):
                            sx = F32(x0 + F32(pw) * bw + F32(ix + 0.5) * bw / F32(gw))
                            taps.append(_bilinear(plane, sy, sx))
                    if not taps:
                        continue
                    if args.get("mode", "avg") == "avg":
                        out[r, c, ph, pw] = F32(sum(F32(sum(t)) for t in taps)) / count
                    else:
                        out[r, c, ph, pw] = max(max(t) for t in taps)
    return [out]
