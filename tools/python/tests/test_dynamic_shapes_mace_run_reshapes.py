"""Dynamic dimensions through the Reshapes the converter writes: 1-D Conv
and MaxPool (run as 2-D ops between two Reshapes), shape arithmetic
(Shape -> Gather -> Concat -> Reshape), LSTM and GRU over a symbolic
sequence and a voice-activity-detector-like chain of all three. Each ONNX
model is built here, converted with a max shape (TensorSpec.max_shape), and
run by mace_run at several sizes against ONNX Runtime. Sizes outside the
range, and shape arithmetic the engine cannot recompute, are refused
with clear messages. Needs the host mace_run binary (MACE_RUN).
"""
import tempfile
import unittest
from pathlib import Path

import numpy as np

from tests.test_dynamic_shapes_mace_run import mace_run
from tests.test_mace_run_cli import MACE_RUN

from mace_converter.api import ConversionError, ConvertOptions, TensorSpec
from mace_converter.convert import convert

RNG = np.random.default_rng(20261127)


def _weights(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float32)


def _model(nodes, x_dims, initializers):
    from onnx import TensorProto as tp, helper
    graph = helper.make_graph(nodes, "dynamic", [helper.make_tensor_value_info("x", tp.FLOAT,
                                                                               x_dims)],
                              [helper.make_tensor_value_info("y", tp.FLOAT, None)],
                              initializers)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def _const(name, value):
    from onnx import numpy_helper
    array = np.asarray(value)
    return numpy_helper.from_array(array.astype(np.int64 if array.dtype.kind == "i" else
                                                np.float32), name)


def conv1d_model():
    """x[N, 4, T] -> Conv1d k3 pad 1 -> Relu -> MaxPool1d 2/2 -> Conv1d k1
    (+ bias) -> AveragePool1d k3 stride 1 pad 1 -> y[N, 6, T/2]."""
    from onnx import helper
    return _model(
        [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], kernel_shape=[3], pads=[1, 1]),
         helper.make_node("Relu", ["c1"], ["r"]),
         helper.make_node("MaxPool", ["r"], ["p"], kernel_shape=[2], strides=[2]),
         helper.make_node("Conv", ["p", "w2", "b2"], ["c2"], kernel_shape=[1]),
         helper.make_node("AveragePool", ["c2"], ["y"], kernel_shape=[3], pads=[1, 1],
                          count_include_pad=0)],
        ["batch", 4, "time"],
        [_const("w1", _weights(6, 4, 3)), _const("b1", _weights(6)),
         _const("w2", _weights(6, 6, 1)), _const("b2", _weights(6))])


def shape_reshape_model():
    """x[N, T, 8] -> Reshape to Concat(Shape(x)[0], Shape(x)[1], [2, 4]) ->
    Transpose to [N, 2, T, 4] -> Reshape to [N, 2, 4 T] (Shape(x)[1] * 4)
    -> Sigmoid -> y."""
    from onnx import helper
    return _model(
        [helper.make_node("Shape", ["x"], ["s"]),
         helper.make_node("Gather", ["s", "i0"], ["n"], axis=0),
         helper.make_node("Gather", ["s", "i1"], ["t"], axis=0),
         helper.make_node("Concat", ["n", "t", "two_four"], ["split"], axis=0),
         helper.make_node("Reshape", ["x", "split"], ["r1"]),
         helper.make_node("Transpose", ["r1"], ["tr"], perm=[0, 2, 1, 3]),
         helper.make_node("Mul", ["t", "four"], ["t4"]),
         helper.make_node("Concat", ["n", "two", "t4"], ["merge"], axis=0),
         helper.make_node("Reshape", ["tr", "merge"], ["r2"]),
         helper.make_node("Sigmoid", ["r2"], ["y"])],
        ["batch", "time", 8],
        [_const("i0", [0]), _const("i1", [1]), _const("two_four", [2, 4]),
         _const("four", [4]), _const("two", [2])])


def recurrent_model(op_type="LSTM"):
    """x[T, 1, 8] -> LSTM or GRU (hidden 5) -> Squeeze the direction axis
    -> y[T, 1, 5]."""
    from onnx import helper
    hidden, gates = 5, {"LSTM": 4, "GRU": 3}[op_type]
    return _model(
        [helper.make_node(op_type, ["x", "W", "R", "B"], ["Y", ""], hidden_size=hidden),
         helper.make_node("Squeeze", ["Y", "axis1"], ["y"])],
        ["time", 1, 8],
        [_const("W", _weights(1, gates * hidden, 8, scale=0.5)),
         _const("R", _weights(1, gates * hidden, hidden, scale=0.5)),
         _const("B", _weights(1, 2 * gates * hidden, scale=0.5)), _const("axis1", [1])])


def detector_model():
    """A small voice activity detector: features x[1, 8, T] -> Conv1d k3
    -> Relu -> MaxPool1d 2 -> Transpose to [T/2, 1, 16] -> LSTM (hidden 6)
    -> Squeeze -> MatMul [6, 1] -> Sigmoid -> y[T/2, 1, 1]."""
    from onnx import helper
    hidden = 6
    return _model(
        [helper.make_node("Conv", ["x", "w", "b"], ["c"], kernel_shape=[3], pads=[1, 1]),
         helper.make_node("Relu", ["c"], ["r"]),
         helper.make_node("MaxPool", ["r"], ["p"], kernel_shape=[2], strides=[2]),
         helper.make_node("Transpose", ["p"], ["seq"], perm=[2, 0, 1]),
         helper.make_node("LSTM", ["seq", "W", "R", "B"], ["Y", ""], hidden_size=hidden),
         helper.make_node("Squeeze", ["Y", "axis1"], ["h"]),
         helper.make_node("MatMul", ["h", "head"], ["logit"]),
         helper.make_node("Sigmoid", ["logit"], ["y"])],
        [1, 8, "frames"],
        [_const("w", _weights(16, 8, 3, scale=0.3)), _const("b", _weights(16, scale=0.1)),
         _const("W", _weights(1, 4 * hidden, 16, scale=0.3)),
         _const("R", _weights(1, 4 * hidden, hidden, scale=0.3)),
         _const("B", _weights(1, 8 * hidden, scale=0.1)), _const("axis1", [1]),
         _const("head", _weights(hidden, 1))])


def slice_model():
    """y = x[:, :T-1] with the end computed from Shape(x): the Slice's
    arguments follow T, which the engine cannot recompute."""
    from onnx import helper
    return _model(
        [helper.make_node("Shape", ["x"], ["s"]),
         helper.make_node("Gather", ["s", "i1"], ["t"], axis=0),
         helper.make_node("Sub", ["t", "one"], ["end"]),
         helper.make_node("Slice", ["x", "zero", "end", "i1"], ["y"])],
        [1, "time", 8],
        [_const("i1", [1]), _const("one", [1]), _const("zero", [0])])


def reference(model, x):
    import onnxruntime
    session = onnxruntime.InferenceSession(model.SerializeToString(),
                                           providers=["CPUExecutionProvider"])
    return session.run(None, {"x": x})[0]


def convert_to(directory: Path, model, planned, largest):
    """Converts `model` with x planned at `planned`, dynamic up to `largest`,
    and writes model.pb and model.data into `directory`."""
    import onnx
    path = directory / "model.onnx"
    onnx.save(model, str(path))
    converted = convert(ConvertOptions(
        platform="onnx", model_file=path, weight_file=None,
        inputs=[TensorSpec("x", list(planned), max_shape=list(largest))],
        outputs=[TensorSpec("y", [])], model_name="dynamic"))
    (directory / "model.pb").write_bytes(converted.net_def.SerializeToString())
    (directory / "model.data").write_bytes(converted.weights)
    return converted


def reshape_targets(converted):
    return [list(arg.ints) for op in converted.net_def.op if op.type == "Reshape"
            for arg in op.arg if arg.name == "shape"]


class DynamicReshapesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not MACE_RUN.exists():
            raise AssertionError(f"{MACE_RUN} is missing: build //mace/tools:mace_run first")

    def check_sizes(self, model, planned, largest, shapes):
        """Converts once, then runs every shape in `shapes` in turn against
        ONNX Runtime."""
        with tempfile.TemporaryDirectory() as tmp:
            directory = Path(tmp)
            converted = convert_to(directory, model, planned, largest)
            for shape in shapes:
                x = RNG.standard_normal(shape).astype(np.float32)
                want = reference(model, x)
                result = mace_run(directory, x, want.shape)
                self.assertEqual(result.returncode, 0, f"{shape}: {result.stderr}")
                got = np.load(directory / "out_y.npy")
                self.assertEqual(got.shape, want.shape, shape)
                np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5,
                                           err_msg=f"input shape {shape}")
            return converted

    def test_conv1d_pool_chain_at_several_lengths(self):
        converted = self.check_sizes(conv1d_model(), [1, 4, 16], [1, 4, 256],
                                     [(1, 4, 16), (1, 4, 75), (1, 4, 256), (1, 4, 2)])
        # The 1-D ops are viewed as 2-D and back (the converter merges the
        # Reshapes between two of them): the length is inferred.
        self.assertEqual(reshape_targets(converted),
                         [[1, 4, 1, -1], [1, 6, -1], [1, 6, 1, -1], [1, 6, -1]])

    def test_conv1d_with_dynamic_batch_and_length(self):
        converted = self.check_sizes(conv1d_model(), [1, 4, 16], [3, 4, 256],
                                     [(3, 4, 75), (1, 4, 256), (2, 4, 16), (3, 4, 3)])
        # The batch is copied from the input (0), the length inferred (-1).
        self.assertEqual(reshape_targets(converted)[:2], [[0, 4, 1, -1], [0, 6, -1]])

    def test_shape_arithmetic_is_recomputed(self):
        converted = self.check_sizes(shape_reshape_model(), [1, 16, 8], [3, 256, 8],
                                     [(1, 16, 8), (3, 75, 8), (2, 256, 8), (1, 1, 8)])
        self.assertEqual(reshape_targets(converted), [[0, 0, 2, 4], [0, 2, -1]])

    def test_recurrent_ops_over_a_symbolic_sequence(self):
        for op_type in ("LSTM", "GRU"):
            with self.subTest(op_type):
                self.check_sizes(recurrent_model(op_type), [16, 1, 8], [256, 1, 8],
                                 [(16, 1, 8), (75, 1, 8), (256, 1, 8), (1, 1, 8), (40, 1, 8)])

    def test_detector_chain(self):
        self.check_sizes(detector_model(), [1, 8, 32], [1, 8, 400],
                         [(1, 8, 32), (1, 8, 75), (1, 8, 400), (1, 8, 2), (1, 8, 33)])

    def test_sizes_outside_the_range_are_refused(self):
        model = conv1d_model()
        with tempfile.TemporaryDirectory() as tmp:
            directory = Path(tmp)
            convert_to(directory, model, [1, 4, 16], [1, 4, 256])
            for shape, message in (((1, 4, 257), "outside the model's range"),
                                   ((2, 4, 16), "outside the model's range"),
                                   ((1, 4, 0), "outside the model's range"),
                                   ((1, 5, 16), "outside the model's range"),
                                   # Inside the range, but too short for the pool.
                                   ((1, 4, 1), "does not fit")):
                result = mace_run(directory, np.zeros(shape, np.float32), (1, 6, 8))
                self.assertNotEqual(result.returncode, 0, shape)
                self.assertIn(message, result.stderr, shape)

    def test_arithmetic_the_engine_cannot_follow_is_refused(self):
        with tempfile.TemporaryDirectory() as tmp:
            with self.assertRaisesRegex(ConversionError, r"Slice op .*argument 'ends' is "
                                        r"computed from the input shapes \(\[15\] at the "
                                        r"planned ones, \[255\] at the largest\)"):
                convert_to(Path(tmp), slice_model(), [1, 16, 8], [1, 256, 8])
            # Without a max shape the same model converts (fixed at 16).
            import onnx
            path = Path(tmp) / "fixed.onnx"
            onnx.save(slice_model(), str(path))
            convert(ConvertOptions(platform="onnx", model_file=path, weight_file=None,
                                   inputs=[TensorSpec("x", [1, 16, 8])],
                                   outputs=[TensorSpec("y", [])], model_name="fixed"))


class ReshapeTargetRuleTest(unittest.TestCase):
    """The rule on its own: (planned target, largest target, input shape at
    each) -> the target written, or a refusal."""

    def target(self, planned, largest, input_planned, input_largest):
        from types import SimpleNamespace
        from mace_converter.dynamic_shapes import _reshape_target
        op = SimpleNamespace(type="Reshape", name="r")
        return _reshape_target(op, planned, largest, input_planned, input_largest)

    def test_rules(self):
        # An entry equal to the input's dimension at both sizes is copied.
        self.assertEqual(self.target([2, 16, 4], [5, 256, 4], [2, 16, 8], [5, 256, 8]),
                         [0, 0, 4])
        # One other changing entry is inferred; unchanged entries stay.
        self.assertEqual(self.target([2, 64], [5, 1024], [2, 16, 4], [5, 256, 4]), [0, -1])
        self.assertEqual(self.target([1, 6, 8], [1, 6, 128], None, None), [1, 6, -1])
        self.assertEqual(self.target([3, 4], [3, 4], [12], [12]), [3, 4])

    def test_refusals(self):
        with self.assertRaisesRegex(ConversionError, "more than one of its dimensions"):
            self.target([2, 8], [4, 16], [16], [64])
        with self.assertRaisesRegex(ConversionError, "more than one of its dimensions"):
            self.target([-1, 8], [-1, 16], [1, 16, 8], [1, 32, 8])
        with self.assertRaisesRegex(ConversionError, "rank 2 at the planned input shapes "
                                    "but 3"):
            self.target([2, 8], [2, 4, 4], [16], [32])


if __name__ == "__main__":
    unittest.main()
