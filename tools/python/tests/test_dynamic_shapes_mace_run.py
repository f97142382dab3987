"""An ONNX model with a symbolic time axis, converted with that axis
dynamic (TensorSpec.max_shape, the deployment key input_max_shapes), runs
through mace_run at lengths other than the one it was planned for and
matches ONNX Runtime at each; a length outside the declared range, and a
fixed ONNX dimension made dynamic, are refused. Needs the host mace_run
binary (MACE_RUN).
"""
import subprocess
import tempfile
import unittest
from pathlib import Path

import numpy as np

from tests.test_mace_run_cli import MACE_RUN

from mace_converter.api import ConversionError, ConvertOptions, TensorSpec
from mace_converter.config import ConfigError, load_config
from mace_converter.convert import convert

RNG = np.random.default_rng(20261126)
PLANNED = [1, 4, 1, 16]
MAX = [1, 4, 1, 256]


def conv_chain_model():
    """x[1,4,1,T] -> Conv 1x3 (pad 1) -> Relu -> MaxPool 1x2/2 -> p;
    y = p + Conv1x1(p); T is the symbolic dimension 'time'."""
    from onnx import TensorProto as tp, helper, numpy_helper as nh
    w1 = RNG.standard_normal((6, 4, 1, 3)).astype(np.float32)
    b1 = RNG.standard_normal((6,)).astype(np.float32)
    w2 = RNG.standard_normal((6, 6, 1, 1)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], kernel_shape=[1, 3],
                          pads=[0, 1, 0, 1]),
         helper.make_node("Relu", ["c1"], ["r"]),
         helper.make_node("MaxPool", ["r"], ["p"], kernel_shape=[1, 2], strides=[1, 2]),
         helper.make_node("Conv", ["p", "w2"], ["c2"], kernel_shape=[1, 1]),
         helper.make_node("Add", ["p", "c2"], ["y"])],
        "time_conv",
        [helper.make_tensor_value_info("x", tp.FLOAT, [1, 4, 1, "time"])],
        [helper.make_tensor_value_info("y", tp.FLOAT, [1, 6, 1, "half_time"])],
        [nh.from_array(w1, "w1"), nh.from_array(b1, "b1"), nh.from_array(w2, "w2")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def reference(model, x):
    import onnxruntime
    session = onnxruntime.InferenceSession(model.SerializeToString(),
                                           providers=["CPUExecutionProvider"])
    return session.run(None, {"x": x})[0]


def convert_model(model, directory: Path, max_shape):
    import onnx
    path = directory / "model.onnx"
    onnx.save(model, str(path))
    return convert(ConvertOptions(
        platform="onnx", model_file=path, weight_file=None,
        inputs=[TensorSpec("x", list(PLANNED), max_shape=max_shape)],
        outputs=[TensorSpec("y", [])], model_name="time_conv"))


def shape_text(shape) -> str:
    return ",".join(str(int(d)) for d in shape)


def mace_run(directory: Path, x: np.ndarray, output_shape):
    """Runs the converted model in `directory` on `x` with mace_run."""
    np.save(directory / "in_x.npy", x)
    command = [str(MACE_RUN), f"--model_file={directory / 'model.pb'}",
               f"--model_data_file={directory / 'model.data'}",
               "--input_node=x", "--input_shape=" + shape_text(x.shape),
               "--output_node=y", "--output_shape=" + shape_text(output_shape),
               f"--input_file={directory / 'in'}", f"--output_file={directory / 'out'}"]
    return subprocess.run(command, capture_output=True, text=True, timeout=300)


class DynamicShapesOnEngineTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not MACE_RUN.exists():
            raise AssertionError(f"{MACE_RUN} is missing: build //mace/tools:mace_run first")

    def test_three_lengths_match_onnxruntime(self):
        model = conv_chain_model()
        with tempfile.TemporaryDirectory() as tmp:
            directory = Path(tmp)
            converted = convert_model(model, directory, MAX)
            info = converted.net_def.input_info[0]
            self.assertEqual(list(info.dims), PLANNED)
            self.assertEqual(list(info.max_dims), MAX)
            (directory / "model.pb").write_bytes(converted.net_def.SerializeToString())
            (directory / "model.data").write_bytes(converted.weights)
            # The planned length, a longer odd one, and the longest allowed.
            for length in (16, 75, 256):
                x = RNG.standard_normal((1, 4, 1, length)).astype(np.float32)
                want = reference(model, x)
                self.assertEqual(want.shape, (1, 6, 1, length // 2))
                result = mace_run(directory, x, want.shape)
                self.assertEqual(result.returncode, 0, result.stderr)
                got = np.load(directory / "out_y.npy")
                self.assertEqual(got.shape, want.shape)
                np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4,
                                           err_msg=f"length {length}")

    def test_a_length_beyond_the_maximum_is_refused(self):
        model = conv_chain_model()
        with tempfile.TemporaryDirectory() as tmp:
            directory = Path(tmp)
            converted = convert_model(model, directory, MAX)
            (directory / "model.pb").write_bytes(converted.net_def.SerializeToString())
            (directory / "model.data").write_bytes(converted.weights)
            x = np.zeros((1, 4, 1, 257), np.float32)
            result = mace_run(directory, x, (1, 6, 1, 128))
            self.assertNotEqual(result.returncode, 0)
            self.assertIn("outside the model's range", result.stderr)

    def test_without_max_shape_the_model_keeps_its_shape(self):
        model = conv_chain_model()
        with tempfile.TemporaryDirectory() as tmp:
            converted = convert_model(model, Path(tmp), None)
            self.assertEqual(list(converted.net_def.input_info[0].max_dims), [])

    def test_a_fixed_onnx_dimension_cannot_be_dynamic(self):
        model = conv_chain_model()
        with tempfile.TemporaryDirectory() as tmp:
            with self.assertRaisesRegex(ConversionError, "dimension 1 is fixed at 4"):
                convert_model(model, Path(tmp), [1, 8, 1, 256])
            with self.assertRaisesRegex(ConversionError, "larger than its maximum"):
                convert_model(model, Path(tmp), [1, 4, 1, 8])


DEPLOYMENT = """library_name: demo
target_abis: [host]
build_type: proto
models:
  net:
    platform: onnx
    model_file_path: build/zoo/net.onnx
    model_sha256_checksum: "{sha}"
    runtime: cpu
    input_tensors: a,b
    input_shapes: 1,4,1,16:2,3
    {max_shapes}
    output_tensors: y
    output_shapes: 1,6,1,8
""".replace("{sha}", "ab" * 32)


class DynamicShapeConfigTest(unittest.TestCase):
    def load(self, max_shapes: str):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "deploy.yml"
            path.write_text(DEPLOYMENT.replace("{max_shapes}", max_shapes))
            return load_config(path).models["net"].inputs

    def test_input_max_shapes_reach_the_specs(self):
        inputs = self.load("input_max_shapes: 1,4,1,4000:2,3")
        self.assertEqual([s.shape for s in inputs], [[1, 4, 1, 16], [2, 3]])
        self.assertEqual([s.max_shape for s in inputs], [[1, 4, 1, 4000], [2, 3]])
        self.assertEqual([s.max_shape for s in self.load("")], [None, None])

    def test_bad_input_max_shapes_are_refused(self):
        for text in ("input_max_shapes: 1,4,1,4000", "input_max_shapes: 1,4,4000:2,3",
                     "input_max_shapes: 1,4,1,8:2,3", "input_max_shapes: 1,4,1,-1:2,3"):
            with self.assertRaisesRegex(ConfigError, "input_max_shapes", msg=text):
                self.load(text)


if __name__ == "__main__":
    unittest.main()
