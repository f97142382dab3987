"""ONNX If and Loop with conditions and trip counts computed at run time,
converted into engine subgraphs and run by mace_run, match ONNX Runtime.

The If model branches on a scalar sample-rate input the way voice-activity
models do (one set of weights for 16 kHz, another for 8 kHz); the Loop
model runs a small recurrence for a trip count given as an input, and the
Scan model the same recurrence over the rows of an input. Needs the host
mace_run binary (MACE_RUN).
"""
import tempfile
import unittest
from pathlib import Path

import numpy as np

from tests.test_exported_models_mace_run import run_converted
from tests.test_mace_run_cli import MACE_RUN

from mace_converter.api import ConversionError, ConvertOptions, TensorSpec
from mace_converter.convert import convert

RNG = np.random.default_rng(20261125)


def _onnx():
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    return onnx, TensorProto, helper, numpy_helper


def sample_rate_model(then_shape=(8, 4)):
    """y = sr == 16000 ? tanh(x @ W16 + b) : relu(x @ W8) (W8 is an outer
    initializer the branch reads; W16 and b are the branch's own)."""
    onnx, tp, helper, nh = _onnx()
    w16 = RNG.standard_normal(then_shape).astype(np.float32)
    b = RNG.standard_normal((then_shape[1],)).astype(np.float32)
    w8 = RNG.standard_normal((8, 4)).astype(np.float32)
    then_graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w16"], ["t0"]),
         helper.make_node("Add", ["t0", "b"], ["t1"]),
         helper.make_node("Tanh", ["t1"], ["then_y"])],
        "sr16k", [], [helper.make_tensor_value_info("then_y", tp.FLOAT, [1, 4])],
        [nh.from_array(w16, "w16"), nh.from_array(b, "b")])
    else_graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w8"], ["e0"]),
         helper.make_node("Relu", ["e0"], ["else_y"])],
        "sr8k", [], [helper.make_tensor_value_info("else_y", tp.FLOAT, [1, 4])])
    graph = helper.make_graph(
        [helper.make_node("Equal", ["sr", "rate16k"], ["is16k"]),
         helper.make_node("If", ["is16k"], ["y"], then_branch=then_graph,
                          else_branch=else_graph)],
        "sample_rate_if",
        [helper.make_tensor_value_info("x", tp.FLOAT, [1, 8]),
         helper.make_tensor_value_info("sr", tp.INT64, [])],
        [helper.make_tensor_value_info("y", tp.FLOAT, [1, 4])],
        [nh.from_array(np.array(16000, np.int64), "rate16k"), nh.from_array(w8, "w8")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def recurrence_model(trips: int):
    """h = tanh(h @ W + x) for M iterations while the body's condition
    (the incoming one) holds; every h is stacked as a scan output."""
    onnx, tp, helper, nh = _onnx()
    w = (RNG.standard_normal((4, 4)) * 0.5).astype(np.float32)
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("MatMul", ["h_in", "w"], ["hw"]),
         helper.make_node("Add", ["hw", "x"], ["a"]),
         helper.make_node("Tanh", ["a"], ["h_out"]),
         helper.make_node("Identity", ["h_out"], ["h_scan"])],
        "body",
        [helper.make_tensor_value_info("i", tp.INT64, []),
         helper.make_tensor_value_info("cond_in", tp.BOOL, []),
         helper.make_tensor_value_info("h_in", tp.FLOAT, [1, 4])],
        [helper.make_tensor_value_info("cond_out", tp.BOOL, []),
         helper.make_tensor_value_info("h_out", tp.FLOAT, [1, 4]),
         helper.make_tensor_value_info("h_scan", tp.FLOAT, [1, 4])])
    graph = helper.make_graph(
        [helper.make_node("Loop", ["m", "go", "h0"], ["h", "hs"], body=body)],
        "recurrence",
        [helper.make_tensor_value_info("m", tp.INT64, []),
         helper.make_tensor_value_info("go", tp.BOOL, []),
         helper.make_tensor_value_info("h0", tp.FLOAT, [1, 4]),
         helper.make_tensor_value_info("x", tp.FLOAT, [1, 4])],
        [helper.make_tensor_value_info("h", tp.FLOAT, [1, 4]),
         helper.make_tensor_value_info("hs", tp.FLOAT, [trips, 1, 4])],
        [nh.from_array(w, "w")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def scan_model():
    """s = s0; for each row r of x: s = tanh(s @ W + r); every s stacked."""
    onnx, tp, helper, nh = _onnx()
    w = (RNG.standard_normal((3, 3)) * 0.5).astype(np.float32)
    body = helper.make_graph(
        [helper.make_node("MatMul", ["s_in", "w"], ["sw"]),
         helper.make_node("Add", ["sw", "row"], ["a"]),
         helper.make_node("Tanh", ["a"], ["s_out"]),
         helper.make_node("Identity", ["s_out"], ["o"])],
        "body",
        [helper.make_tensor_value_info("s_in", tp.FLOAT, [1, 3]),
         helper.make_tensor_value_info("row", tp.FLOAT, [3])],
        [helper.make_tensor_value_info("s_out", tp.FLOAT, [1, 3]),
         helper.make_tensor_value_info("o", tp.FLOAT, [1, 3])])
    graph = helper.make_graph(
        [helper.make_node("Scan", ["s0", "x"], ["s", "out"], body=body, num_scan_inputs=1)],
        "scan",
        [helper.make_tensor_value_info("s0", tp.FLOAT, [1, 3]),
         helper.make_tensor_value_info("x", tp.FLOAT, [5, 3])],
        [helper.make_tensor_value_info("s", tp.FLOAT, [1, 3]),
         helper.make_tensor_value_info("out", tp.FLOAT, [5, 1, 3])],
        [nh.from_array(w, "w")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def scan8_model(batch: int, steps: int, sequence_lens: bool = False):
    """Scan of opset 8: a batch axis in front of every input and output,
    the sequence along axis 1. Per entry: s = tanh(s @ W + r) over the rows
    r, with a second scan output s * r."""
    onnx, tp, helper, nh = _onnx()
    w = (RNG.standard_normal((3, 3)) * 0.5).astype(np.float32)
    body = helper.make_graph(
        [helper.make_node("MatMul", ["s_in", "w"], ["sw"]),
         helper.make_node("Add", ["sw", "row"], ["a"]),
         helper.make_node("Tanh", ["a"], ["s_out"]),
         helper.make_node("Identity", ["s_out"], ["o"]),
         helper.make_node("Mul", ["s_out", "row"], ["p"])],
        "body",
        [helper.make_tensor_value_info("s_in", tp.FLOAT, [1, 3]),
         helper.make_tensor_value_info("row", tp.FLOAT, [3])],
        [helper.make_tensor_value_info("s_out", tp.FLOAT, [1, 3]),
         helper.make_tensor_value_info("o", tp.FLOAT, [1, 3]),
         helper.make_tensor_value_info("p", tp.FLOAT, [1, 3])])
    inits = [nh.from_array(w, "w")]
    first = ""
    if sequence_lens:
        inits.append(nh.from_array(np.full([batch], steps, np.int64), "lens"))
        first = "lens"
    graph = helper.make_graph(
        [helper.make_node("Scan", [first, "s0", "x"], ["s", "out", "prod"], body=body,
                          num_scan_inputs=1)],
        "scan8",
        [helper.make_tensor_value_info("s0", tp.FLOAT, [batch, 1, 3]),
         helper.make_tensor_value_info("x", tp.FLOAT, [batch, steps, 3])],
        [helper.make_tensor_value_info("s", tp.FLOAT, [batch, 1, 3]),
         helper.make_tensor_value_info("out", tp.FLOAT, [batch, steps, 1, 3]),
         helper.make_tensor_value_info("prod", tp.FLOAT, [batch, steps, 1, 3])],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 8)])
    model.ir_version = 7
    return model


def sliding_model(trips: int):
    """A Loop whose body adds rows i to i + 2 of an outer input to its
    state: the Slice bounds are computed from the iteration number
    (ends = (i + 3) - 1) and the body declares no shapes."""
    onnx, tp, helper, nh = _onnx()
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("Unsqueeze", ["i"], ["start"], axes=[0]),
         helper.make_node("Add", ["i", "three"], ["i3"]),
         helper.make_node("Sub", ["i3", "one"], ["i2"]),
         helper.make_node("Unsqueeze", ["i2"], ["end"], axes=[0]),
         helper.make_node("Slice", ["table", "start", "end"], ["rows"]),
         helper.make_node("Add", ["y_in", "rows"], ["y_out"]),
         helper.make_node("Identity", ["y_out"], ["y_scan"])],
        "body",
        [helper.make_tensor_value_info("i", tp.INT64, []),
         helper.make_tensor_value_info("cond_in", tp.BOOL, []),
         helper.make_tensor_value_info("y_in", tp.FLOAT, None)],
        [helper.make_tensor_value_info("cond_out", tp.BOOL, None),
         helper.make_tensor_value_info("y_out", tp.FLOAT, None),
         helper.make_tensor_value_info("y_scan", tp.FLOAT, None)],
        [nh.from_array(np.array(3, np.int64), "three"), nh.from_array(np.array(1, np.int64), "one")])
    graph = helper.make_graph(
        [helper.make_node("Loop", ["m", "", "y0"], ["y", "ys"], body=body)],
        "sliding",
        [helper.make_tensor_value_info("m", tp.INT64, []),
         helper.make_tensor_value_info("y0", tp.FLOAT, [2, 3]),
         helper.make_tensor_value_info("table", tp.FLOAT, [6, 3])],
        [helper.make_tensor_value_info("y", tp.FLOAT, [2, 3]),
         helper.make_tensor_value_info("ys", tp.FLOAT, [trips, 2, 3])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)])
    model.ir_version = 7
    return model


def reference(model, feeds):
    import onnxruntime
    session = onnxruntime.InferenceSession(model.SerializeToString(),
                                           providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(None, feeds)))


def convert_model(model, shapes: dict, directory: Path):
    onnx = _onnx()[0]
    path = directory / "model.onnx"
    onnx.save(model, str(path))
    options = ConvertOptions(
        platform="onnx", model_file=path, weight_file=None,
        inputs=[TensorSpec(name, list(shape), data_format="NONE")
                for name, shape in shapes.items()],
        outputs=[TensorSpec(o.name, [], data_format="NONE") for o in model.graph.output],
        model_name="control_flow")
    return convert(options)


class ControlFlowOnEngineTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not MACE_RUN.exists():
            raise AssertionError(f"{MACE_RUN} is missing: build //mace/tools:mace_run first")

    def test_if_on_a_computed_sample_rate_matches_onnxruntime(self):
        model = sample_rate_model()
        x = RNG.standard_normal((1, 8)).astype(np.float32)
        with tempfile.TemporaryDirectory() as tmp:
            converted = convert_model(model, {"x": (1, 8), "sr": ()}, Path(tmp))
            # Both branches are kept: the condition is not known at conversion.
            self.assertEqual([op.type for op in converted.net_def.op][-1], "If")
            self.assertEqual(len(converted.net_def.subgraphs), 2)
            for rate in (16000, 8000):
                want = reference(model, {"x": x, "sr": np.array(rate, np.int64)})["y"]
                got = run_converted(self, converted, {"x": x, "sr": np.array(rate, np.float32)})
                np.testing.assert_allclose(got["y"], want, rtol=1e-5, atol=1e-6,
                                           err_msg=f"sr={rate}")
            # The two branches really differ, so the engine chose each.
            y16 = reference(model, {"x": x, "sr": np.array(16000, np.int64)})["y"]
            y8 = reference(model, {"x": x, "sr": np.array(8000, np.int64)})["y"]
            self.assertGreater(np.abs(y16 - y8).max(), 1e-3)

    def test_loop_with_an_input_trip_count_matches_onnxruntime(self):
        model = recurrence_model(3)
        h0 = RNG.standard_normal((1, 4)).astype(np.float32)
        x = RNG.standard_normal((1, 4)).astype(np.float32)
        feeds = {"m": np.array(3, np.int64), "go": np.array(True), "h0": h0, "x": x}
        want = reference(model, feeds)
        with tempfile.TemporaryDirectory() as tmp:
            converted = convert_model(model, {"m": (), "go": (), "h0": (1, 4), "x": (1, 4)},
                                      Path(tmp))
            self.assertEqual(len(converted.net_def.subgraphs), 1)
            got = run_converted(self, converted, {
                "m": np.array(3, np.float32), "go": np.array(1, np.float32), "h0": h0, "x": x})
        for name in ("h", "hs"):
            np.testing.assert_allclose(got[name], want[name], rtol=1e-5, atol=1e-6,
                                       err_msg=name)

    def test_scan_matches_onnxruntime(self):
        model = scan_model()
        feeds = {"s0": RNG.standard_normal((1, 3)).astype(np.float32),
                 "x": RNG.standard_normal((5, 3)).astype(np.float32)}
        want = reference(model, feeds)
        with tempfile.TemporaryDirectory() as tmp:
            converted = convert_model(model, {"s0": (1, 3), "x": (5, 3)}, Path(tmp))
            got = run_converted(self, converted, feeds)
        for name in ("s", "out"):
            np.testing.assert_allclose(got[name], want[name], rtol=1e-5, atol=1e-6,
                                       err_msg=name)

    def test_scan_of_opset_8_matches_onnxruntime(self):
        for batch, steps, lens in ((1, 4, False), (3, 5, True), (2, 1, False)):
            with self.subTest(batch=batch, steps=steps, sequence_lens=lens):
                model = scan8_model(batch, steps, lens)
                feeds = {"s0": RNG.standard_normal((batch, 1, 3)).astype(np.float32),
                         "x": RNG.standard_normal((batch, steps, 3)).astype(np.float32)}
                want = reference(model, feeds)
                # The recurrence by hand, for the first entry.
                state = feeds["s0"][0]
                w = next(t for t in model.graph.initializer if t.name == "w")
                for r in feeds["x"][0]:
                    state = np.tanh(state @ _onnx()[3].to_array(w) + r)
                np.testing.assert_allclose(want["s"][0], state, rtol=1e-5, atol=1e-6)
                with tempfile.TemporaryDirectory() as tmp:
                    converted = convert_model(model, {"s0": (batch, 1, 3),
                                                      "x": (batch, steps, 3)}, Path(tmp))
                    # One body for every batch entry's Scan.
                    self.assertEqual(len(converted.net_def.subgraphs), 1)
                    self.assertEqual([op.type for op in converted.net_def.op].count("Scan"),
                                     batch)
                    got = run_converted(self, converted, feeds)
                for name in ("s", "out", "prod"):
                    np.testing.assert_allclose(got[name], want[name], rtol=1e-5, atol=1e-6,
                                               err_msg=name)

    def test_scan_of_opset_8_with_partial_sequences_is_refused(self):
        model = scan8_model(2, 4, sequence_lens=True)
        lens = model.graph.initializer[1]
        lens.int64_data[:] = []
        lens.raw_data = np.array([4, 2], np.int64).tobytes()
        with tempfile.TemporaryDirectory() as tmp:
            with self.assertRaises(ConversionError) as caught:
                convert_model(model, {"s0": (2, 1, 3), "x": (2, 4, 3)}, Path(tmp))
        self.assertIn("only whole sequences", str(caught.exception))

    def test_loop_slicing_at_the_iteration_number_matches_onnxruntime(self):
        model = sliding_model(4)
        feeds = {"m": np.array(4, np.int64),
                 "y0": RNG.standard_normal((2, 3)).astype(np.float32),
                 "table": RNG.standard_normal((6, 3)).astype(np.float32)}
        want = reference(model, feeds)
        with tempfile.TemporaryDirectory() as tmp:
            converted = convert_model(model, {"m": (), "y0": (2, 3), "table": (6, 3)}, Path(tmp))
            got = run_converted(self, converted, dict(feeds, m=np.array(4, np.float32)))
        for name in ("y", "ys"):
            np.testing.assert_allclose(got[name], want[name], rtol=1e-5, atol=1e-6,
                                       err_msg=name)

    def test_loop_slicing_past_the_data_is_refused_by_the_engine(self):
        # Iteration 5 would slice rows 5 to 7 of 6: one row, not the two
        # planned for, so the engine stops with an error.
        model = sliding_model(6)
        feeds = {"m": np.array(6, np.float32), "y0": np.zeros((2, 3), np.float32),
                 "table": np.ones((6, 3), np.float32)}
        with tempfile.TemporaryDirectory() as tmp:
            converted = convert_model(model, {"m": (), "y0": (2, 3), "table": (6, 3)}, Path(tmp))
            with self.assertRaises(AssertionError) as caught:
                run_converted(self, converted, feeds)
        self.assertIn("Slice", str(caught.exception))
        self.assertIn("INVALID_ARGS", str(caught.exception))

    def test_branches_of_different_shapes_are_refused_at_conversion(self):
        model = sample_rate_model(then_shape=(8, 5))
        # Make the then branch's declared output agree with its computation.
        then_branch = next(a.g for a in model.graph.node[1].attribute if a.name == "then_branch")
        then_branch.output[0].type.tensor_type.shape.dim[1].dim_value = 5
        with tempfile.TemporaryDirectory() as tmp:
            with self.assertRaises(ConversionError) as caught:
                convert_model(model, {"x": (1, 8), "sr": ()}, Path(tmp))
        self.assertIn("both branches", str(caught.exception))


if __name__ == "__main__":
    unittest.main()
