"""Self-attention with a symbolic sequence axis, converted with that axis
dynamic (TensorSpec.max_shape), becomes one Attention op and runs through
mace_run at lengths other than the planned one, matching ONNX Runtime at
each. Needs the host mace_run binary (MACE_RUN)."""
import tempfile
import unittest
from pathlib import Path

import numpy as np

from mace_converter.api import ConvertOptions, TensorSpec
from mace_converter.convert import convert
from tests.test_dynamic_shapes_mace_run import mace_run, reference
from tests.test_mace_run_cli import MACE_RUN

RNG = np.random.default_rng(20261128)
HEADS, DEPTH = 4, 8
WIDTH = HEADS * DEPTH
PLANNED = [1, 16, WIDTH]
MAX = [1, 64, WIDTH]


def attention_model():
    """x [1, T, 32] projected to Q, K, V, split into 4 heads by Reshape
    (0 copies a dimension) and Transpose, scaled dot-product attention,
    the heads merged back: y [1, T, 32]."""
    from onnx import TensorProto as tp, helper, numpy_helper as nh
    inits = [nh.from_array(np.array([0, 0, HEADS, DEPTH], np.int64), "split"),
             nh.from_array(np.array([0, 0, WIDTH], np.int64), "merge"),
             nh.from_array(np.array(DEPTH ** 0.5, np.float32), "root")]
    nodes = []
    for name, perm in (("q", [0, 2, 1, 3]), ("k", [0, 2, 3, 1]), ("v", [0, 2, 1, 3])):
        weight = (RNG.standard_normal((WIDTH, WIDTH)) / WIDTH ** 0.5).astype(np.float32)
        inits.append(nh.from_array(weight, f"w_{name}"))
        nodes += [helper.make_node("MatMul", ["x", f"w_{name}"], [f"{name}0"]),
                  helper.make_node("Reshape", [f"{name}0", "split"], [f"{name}1"]),
                  helper.make_node("Transpose", [f"{name}1"], [name], perm=perm)]
    nodes += [helper.make_node("MatMul", ["q", "k"], ["s0"]),
              helper.make_node("Div", ["s0", "root"], ["s1"]),
              helper.make_node("Softmax", ["s1"], ["p"], axis=-1),
              helper.make_node("MatMul", ["p", "v"], ["c0"]),
              helper.make_node("Transpose", ["c0"], ["c1"], perm=[0, 2, 1, 3]),
              helper.make_node("Reshape", ["c1", "merge"], ["y"])]
    graph = helper.make_graph(
        nodes, "dynamic_attention",
        [helper.make_tensor_value_info("x", tp.FLOAT, [1, "time", WIDTH])],
        [helper.make_tensor_value_info("y", tp.FLOAT, [1, "time", WIDTH])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


class DynamicAttentionOnEngineTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not MACE_RUN.exists():
            raise AssertionError(f"{MACE_RUN} is missing: build //mace/tools:mace_run first")

    def test_lengths_match_onnxruntime(self):
        import onnx
        model = attention_model()
        with tempfile.TemporaryDirectory() as tmp:
            directory = Path(tmp)
            onnx.save(model, str(directory / "model.onnx"))
            converted = convert(ConvertOptions(
                platform="onnx", model_file=directory / "model.onnx", weight_file=None,
                inputs=[TensorSpec("x", list(PLANNED), max_shape=MAX)],
                outputs=[TensorSpec("y", [])], model_name="dynamic_attention"))
            types = [op.type for op in converted.net_def.op]
            self.assertIn("Attention", types)
            self.assertNotIn("Transpose", types)
            (directory / "model.pb").write_bytes(converted.net_def.SerializeToString())
            (directory / "model.data").write_bytes(converted.weights)
            # The planned length, shorter and longer odd ones, the longest.
            for length in (16, 1, 7, 45, 64):
                x = RNG.standard_normal((1, length, WIDTH)).astype(np.float32)
                want = reference(model, x)
                result = mace_run(directory, x, want.shape)
                self.assertEqual(result.returncode, 0, result.stderr)
                got = np.load(directory / "out_y.npy")
                self.assertEqual(got.shape, want.shape)
                np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5,
                                           err_msg=f"length {length}")


if __name__ == "__main__":
    unittest.main()
