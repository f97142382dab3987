"""ONNX NonMaxSuppression and RoiAlign against onnxruntime, on the numpy
runner and through the engine (mace_run): NMS with both box formats,
corners in either order, thresholds as constants or run-time inputs,
batches and classes, ties, nothing selected, and the data-dependent row
count followed by Gathers; RoiAlign in both modes, both coordinate
transformations (opset 10 and 16), adaptive and fixed sampling."""
from __future__ import annotations

import unittest
from typing import Optional

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from mace_converter.api import ConversionError
from mace_converter.numpy_runner import run
from tests.converter_front.helpers import convert_model, ort_run, rng
from tests.test_exported_models_mace_run import run_converted
from tests.test_mace_run_cli import MACE_RUN

SCALARS = ("max_output_boxes_per_class", "iou_threshold", "score_threshold")


def nms_model(n: int, b: int, c: int, values: dict, runtime: tuple = (), center: int = 0,
              tail: bool = False):
    """NMS with each scalar in `values` a constant, or (if named in
    `runtime`) a graph input; None leaves an input empty. With `tail`,
    the selected boxes are gathered: rows = boxes[0][selected[:, 2]]."""
    inputs = [helper.make_tensor_value_info("boxes", TensorProto.FLOAT, [n, b, 4]),
              helper.make_tensor_value_info("scores", TensorProto.FLOAT, [n, c, b])]
    inits, names = [], ["boxes", "scores"]
    present = [k for k in SCALARS if k in values]
    last = max((SCALARS.index(k) for k in present), default=-1)
    for index, key in enumerate(SCALARS[:last + 1]):
        value = values.get(key)
        if value is None:
            names.append("")
            continue
        dtype = np.int64 if index == 0 else np.float32
        array = np.array([value], dtype)
        names.append(key)
        if key in runtime:
            inputs.append(helper.make_tensor_value_info(
                key, TensorProto.INT64 if index == 0 else TensorProto.FLOAT, [1]))
        else:
            inits.append(numpy_helper.from_array(array, key))
    nodes = [helper.make_node("NonMaxSuppression", names, ["selected"],
                              center_point_box=center)]
    outputs = [helper.make_tensor_value_info("selected", TensorProto.INT64, None)]
    if tail:
        inits += [numpy_helper.from_array(np.array(2, np.int64), "two"),
                  numpy_helper.from_array(np.array(0, np.int64), "zero")]
        nodes += [helper.make_node("Gather", ["boxes", "zero"], ["first"], axis=0),
                  helper.make_node("Gather", ["selected", "two"], ["index"], axis=1),
                  helper.make_node("Gather", ["first", "index"], ["rows"], axis=0)]
        outputs.append(helper.make_tensor_value_info("rows", TensorProto.FLOAT, None))
    graph = helper.make_graph(nodes, "nms", inputs, outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)])
    model.ir_version = 8
    return model


def nms_feeds(seed: int, n: int, b: int, c: int, center: int, values: dict,
              runtime: tuple = ()) -> dict[str, np.ndarray]:
    """Boxes on a coarse grid and scores with many ties, so IoUs at the
    threshold and equal scores are common; corners given in either order."""
    g = rng(seed)
    boxes = np.floor(g.uniform(0, 8, (n, b, 4))) / 2
    if center:
        boxes[..., 2:] += 0.5
    scores = np.floor(g.uniform(0, 4, (n, c, b))) / 4
    feeds = {"boxes": boxes.astype(np.float32), "scores": scores.astype(np.float32)}
    for index, key in enumerate(SCALARS):
        if key in runtime:
            feeds[key] = np.array([values[key]], np.int64 if index == 0 else np.float32)
    return feeds


# (name, n, b, c, center, values, run-time scalars)
NMS_CASES = [
    ("corners", 1, 9, 1, 0, {SCALARS[0]: 5, SCALARS[1]: 0.4}, ()),
    ("centers", 1, 9, 1, 1, {SCALARS[0]: 5, SCALARS[1]: 0.4}, ()),
    ("batch_and_classes", 2, 11, 3, 0, {SCALARS[0]: 3, SCALARS[1]: 0.2, SCALARS[2]: 0.3}, ()),
    ("batch_and_classes_centers", 3, 7, 2, 1, {SCALARS[0]: 100, SCALARS[1]: 0.6}, ()),
    ("runtime_scalars", 2, 10, 2, 0, {SCALARS[0]: 4, SCALARS[1]: 0.5, SCALARS[2]: 0.25},
     SCALARS),
    ("runtime_max_only", 1, 12, 2, 1, {SCALARS[0]: 2, SCALARS[1]: 0.3}, (SCALARS[0],)),
    ("none_pass_threshold", 2, 6, 2, 0, {SCALARS[0]: 4, SCALARS[1]: 0.5, SCALARS[2]: 0.9}, ()),
    ("max_output_zero", 1, 6, 2, 0, {SCALARS[0]: 0, SCALARS[1]: 0.5}, ()),
    ("max_output_absent", 1, 6, 1, 0, {SCALARS[1]: 0.5}, ()),
    ("iou_absent", 1, 8, 1, 0, {SCALARS[0]: 8, SCALARS[1]: None, SCALARS[2]: 0.0}, ()),
    ("only_boxes_and_scores", 1, 4, 1, 0, {}, ()),
]


class NonMaxSuppressionTest(unittest.TestCase):
    def _case(self, index: int, case, tail: bool = False):
        name, n, b, c, center, values, runtime = case
        model = nms_model(n, b, c, values, runtime, center, tail)
        feeds = nms_feeds(index, n, b, c, center, values, runtime)
        want = ort_run(model, feeds)
        converted = convert_model(model, {k: v.shape for k, v in feeds.items()},
                                  ["selected", "rows"] if tail else ["selected"])
        return model, feeds, want, converted

    def test_numpy_runner(self):
        for index, case in enumerate(NMS_CASES):
            with self.subTest(case[0]):
                _, feeds, want, converted = self._case(index, case)
                got = run(converted.net_def, converted.weights, feeds)["selected"]
                np.testing.assert_array_equal(got, want[0])

    def test_equal_scores_and_swapped_corners(self):
        """Every score equal: onnxruntime keeps the lower box index first.
        Box 1 is box 0 with x1 > x2 and y1 > y2: the same box, suppressed."""
        model = nms_model(1, 4, 1, {SCALARS[0]: 4, SCALARS[1]: 0.5})
        boxes = np.array([[[0, 0, 1, 1], [1, 1, 0, 0], [0, 2, 1, 3], [1, 3, 0, 2]]], np.float32)
        feeds = {"boxes": boxes, "scores": np.full((1, 1, 4), 0.5, np.float32)}
        want = ort_run(model, feeds)[0]
        np.testing.assert_array_equal(want, [[0, 0, 0], [0, 0, 2]])
        converted = convert_model(model, {k: v.shape for k, v in feeds.items()}, ["selected"])
        np.testing.assert_array_equal(
            run(converted.net_def, converted.weights, feeds)["selected"], want)
        if MACE_RUN.exists():
            got = run_converted(self, converted, feeds, check_shapes=False)["selected"]
            np.testing.assert_array_equal(got, want)

    def test_engine(self):
        self.assertTrue(MACE_RUN.exists(), f"{MACE_RUN} is missing")
        for index, case in enumerate(NMS_CASES):
            with self.subTest(case[0]):
                _, feeds, want, converted = self._case(index, case)
                got = run_converted(self, converted, feeds, check_shapes=False)["selected"]
                self.assertEqual(got.shape, want[0].shape)
                np.testing.assert_array_equal(got, want[0])

    def test_gather_after_nms(self):
        """The selected rows feed Gathers: a row count of 0 gives empty
        outputs, not a crash; on the numpy runner and through mace_run."""
        for index, case in enumerate(NMS_CASES[:8]):
            with self.subTest(case[0]):
                _, feeds, want, converted = self._case(50 + index, case, tail=True)
                runs = [run(converted.net_def, converted.weights, feeds)]
                if MACE_RUN.exists():
                    runs.append(run_converted(self, converted, feeds, check_shapes=False))
                for got in runs:
                    np.testing.assert_array_equal(got["selected"], want[0])
                    self.assertEqual(got["rows"].shape, want[1].shape)
                    np.testing.assert_array_equal(got["rows"], want[1])

    def test_other_readers_of_the_selection(self):
        """GatherND of the scores, a Cast, and a Cast then Unsqueeze (a
        Reshape whose rows move to axis 1), with and without boxes
        selected, against onnxruntime on the numpy runner and mace_run."""
        readers = {
            "gathernd": [helper.make_node("GatherND", ["scores", "selected"], ["out"])],
            "cast": [helper.make_node("Cast", ["selected"], ["out"], to=TensorProto.FLOAT)],
            "unsqueeze": [helper.make_node("Cast", ["selected"], ["cast"], to=TensorProto.FLOAT),
                          helper.make_node("Unsqueeze", ["cast", "axis"], ["out"])]}
        for name, nodes in readers.items():
            for scale in (1.0, 0.0):       # scores of 0 never pass the threshold
                with self.subTest(name, scale=scale):
                    model = nms_model(1, 5, 2, {SCALARS[0]: 3, SCALARS[1]: 0.5,
                                                SCALARS[2]: 0.25})
                    model.opset_import[0].version = 13
                    model.graph.node.extend(nodes)
                    model.graph.initializer.append(
                        numpy_helper.from_array(np.array([0], np.int64), "axis"))
                    model.graph.output.append(
                        helper.make_tensor_value_info("out", TensorProto.FLOAT, None))
                    feeds = nms_feeds(70, 1, 5, 2, 0, {})
                    feeds["scores"] *= np.float32(scale)
                    want = ort_run(model, feeds)[1]
                    converted = convert_model(model, {k: v.shape for k, v in feeds.items()},
                                              ["out"])
                    runs = [run(converted.net_def, converted.weights, feeds)]
                    if MACE_RUN.exists():
                        runs.append(run_converted(self, converted, feeds, check_shapes=False))
                    for got in runs:
                        self.assertEqual(got["out"].shape, want.shape)
                        np.testing.assert_allclose(got["out"], want)

    def test_shape_of_the_selection_is_refused(self):
        model = nms_model(1, 4, 1, {SCALARS[0]: 4})
        graph = model.graph
        graph.node.append(helper.make_node("Shape", ["selected"], ["count"]))
        graph.output.append(helper.make_tensor_value_info("count", TensorProto.INT64, None))
        with self.assertRaisesRegex(ConversionError, "depends on values computed at run time"):
            convert_model(model, {"boxes": [1, 4, 4], "scores": [1, 1, 4]}, ["count"])


def roi_model(opset: int, x_shape, rois: int, **attrs):
    graph = helper.make_graph(
        [helper.make_node("RoiAlign", ["x", "rois", "batch_indices"], ["y"], **attrs)], "roi",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape),
         helper.make_tensor_value_info("rois", TensorProto.FLOAT, [rois, 4]),
         helper.make_tensor_value_info("batch_indices", TensorProto.INT64, [rois])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return model


def roi_cases():
    for opset in (10, 16):
        for mode in ("avg", "max"):
            for ratio in (0, 2):
                attrs = dict(mode=mode, sampling_ratio=ratio, output_height=3, output_width=2,
                             spatial_scale=0.5 if ratio else 1.0)
                if opset == 16:
                    for transform in ("half_pixel", "output_half_pixel"):
                        yield opset, dict(attrs, coordinate_transformation_mode=transform)
                else:
                    yield opset, attrs


def roi_feeds(seed: int, x_shape, rois: int, invert: bool) -> dict[str, np.ndarray]:
    """ROIs reaching past X, one a single point and, with `invert`, one
    with x1 > x2 (onnxruntime refuses that one with half_pixel and adaptive
    sampling, where it has no samples; the engine gives 0)."""
    g = rng(seed)
    corners = g.uniform(-2, 2 * max(x_shape[2:]) + 2, (rois, 2, 2))
    boxes = np.concatenate([corners.min(axis=1), corners.max(axis=1)], 1).astype(np.float32)
    if invert:
        boxes[0, 0], boxes[0, 2] = 6.0, 2.0
    boxes[1, 2:] = boxes[1, :2]
    return {"x": g.standard_normal(x_shape).astype(np.float32), "rois": boxes,
            "batch_indices": (np.arange(rois) % x_shape[0]).astype(np.int64)}


class RoiAlignTest(unittest.TestCase):
    X, ROIS = [2, 3, 6, 5], 6

    def _check(self, engine: bool, select: Optional[int] = None):
        for index, (opset, attrs) in enumerate(roi_cases()):
            if select is not None and index % select:
                continue
            with self.subTest(opset=opset, **attrs):
                adaptive_half = attrs["sampling_ratio"] == 0 and \
                    attrs.get("coordinate_transformation_mode") == "half_pixel"
                model = roi_model(opset, self.X, self.ROIS, **attrs)
                feeds = roi_feeds(index, self.X, self.ROIS, invert=not adaptive_half)
                want = ort_run(model, feeds)[0]
                converted = convert_model(model, {k: v.shape for k, v in feeds.items()}, ["y"])
                if engine:
                    got = run_converted(self, converted, feeds)["y"].reshape(want.shape)
                else:
                    got = run(converted.net_def, converted.weights, feeds)["y"]
                np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)

    def test_numpy_runner(self):
        self._check(engine=False)

    def test_engine(self):
        self.assertTrue(MACE_RUN.exists(), f"{MACE_RUN} is missing")
        self._check(engine=True)


if __name__ == "__main__":
    unittest.main()
