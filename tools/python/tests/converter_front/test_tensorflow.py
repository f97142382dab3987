"""The TensorFlow frontend on the zoo's tiny frozen graph and on small
graphs written with the converter's own schema. These tests need no
TensorFlow: the expected outputs come from a direct NHWC numpy implementation
of the graph, written here from TensorFlow's op definitions, and from the
numpy TensorFlow reference. test_tensorflow_reference.py checks the same
graphs, and more, against TensorFlow itself."""
import tempfile
import unittest
from pathlib import Path

import numpy as np

from mace_converter.api import ConversionError, ConvertOptions, TensorSpec
from mace_converter.convert import convert
from mace_converter.numpy_runner import run, run_tensorflow
from tests.converter_front.helpers import cosine, rng
from zoo import tiny


def _same(size: int, kernel: int, stride: int) -> tuple[int, int]:
    out = -(-size // stride)
    total = max((out - 1) * stride + kernel - size, 0)
    return total // 2, total - total // 2


def _patches(x, kh, kw, stride, padding, fill=0.0):
    """[n, oh, ow, kh, kw, c] windows of an NHWC tensor, plus a validity mask."""
    n, h, w, c = x.shape
    if padding == "SAME":
        rows, cols = _same(h, kh, stride), _same(w, kw, stride)
    else:
        rows = cols = (0, 0)
    xp = np.pad(x, ((0, 0), rows, cols, (0, 0)), constant_values=fill)
    mask = np.pad(np.ones((1, h, w, 1)), ((0, 0), rows, cols, (0, 0)))
    oh, ow = (xp.shape[1] - kh) // stride + 1, (xp.shape[2] - kw) // stride + 1
    win = np.empty((n, oh, ow, kh, kw, c))
    valid = np.empty((1, oh, ow, kh, kw, 1))
    for i in range(kh):
        for j in range(kw):
            win[:, :, :, i, j] = xp[:, i:i + stride * oh:stride, j:j + stride * ow:stride]
            valid[:, :, :, i, j] = mask[:, i:i + stride * oh:stride, j:j + stride * ow:stride]
    return win, valid


def conv_nhwc(x, w, stride, padding):
    win, _ = _patches(x, w.shape[0], w.shape[1], stride, padding)
    return np.einsum("nyxijc,ijco->nyxo", win, w)


def depthwise_nhwc(x, w, stride, padding):
    win, _ = _patches(x, w.shape[0], w.shape[1], stride, padding)
    out = np.einsum("nyxijc,ijcm->nyxcm", win, w)
    return out.reshape(out.shape[:3] + (-1,))


def reference(p: dict, x: np.ndarray) -> dict:
    x = x.astype(np.float64)
    y = conv_nhwc(x, p["conv1/w"], 1, "SAME") + p["conv1/b"]
    y = (y - p["bn/mean"]) / np.sqrt(p["bn/var"] + 1e-3) * p["bn/scale"] + p["bn/offset"]
    y = np.clip(y, 0, 6)
    y = depthwise_nhwc(y, p["dw/w"], 2, "SAME") + p["dw/b"]
    y = np.maximum(y * p["mul/c"], 0)
    win, _ = _patches(y, 2, 2, 2, "VALID")
    pooled = win.max(axis=(3, 4))
    a = np.maximum(conv_nhwc(pooled, p["branch_a/w"], 1, "VALID"), 0)
    b = conv_nhwc(pooled, p["branch_b/w"], 1, "SAME")
    merged = np.concatenate([a, b], axis=3) + pooled
    padded = np.pad(merged, ((0, 0), (1, 1), (1, 1), (0, 0)))
    win, _ = _patches(padded, 3, 3, 1, "VALID")
    avg = win.mean(axis=(3, 4))
    logits = avg.mean(axis=(1, 2)) @ p["fc/w"] + p["fc/b"]
    e = np.exp(logits - logits.max())
    return {"prob": e / e.sum(), "features": avg.reshape(1, -1), "merged": merged}


def write_more_ops_graph(path: Path) -> None:
    """Ops and attributes the tiny zoo graph does not use."""
    r = rng(32)

    def weights(*shape):
        return (r.standard_normal(shape) * 0.3).astype(np.float32)

    w = tiny.TfGraphWriter()
    f, i32 = dict(T="DT_FLOAT"), np.int32
    image = dict(T="DT_FLOAT", data_format="NHWC")
    x = w.node("x", "Placeholder", dtype="DT_FLOAT", shape=[1, 9, 9, 4])
    g = w.node("grouped", "Conv2D", [x, w.const("gw", weights(3, 3, 2, 6))], strides=[1, 2, 2, 1],
               padding="EXPLICIT", explicit_paddings=[0, 0, 1, 2, 1, 1, 0, 0],
               dilations=[1, 1, 1, 1], **image)
    d = w.node("dilated", "Conv2D", [x, w.const("dw", weights(3, 3, 4, 6))], strides=[1, 1, 1, 1],
               padding="SAME", dilations=[1, 2, 2, 1], **image)
    d = w.node("dilated_pool", "MaxPool", [d], ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1],
               padding="SAME", **image)
    y = w.node("sub", "Sub", [g, w.const("c", weights(6))], **f)
    y = w.node("sqd", "SquaredDifference", [y, d], **f)
    y = w.node("div", "RealDiv", [y, w.const("two", np.array(2.0, np.float32))], **f)
    y = w.node("leaky", "LeakyRelu", [y], alpha=0.1, **f)
    y = w.node("maxi", "Maximum", [y, w.const("floor", np.array(-0.5, np.float32))], **f)
    y = w.node("tanh", "Tanh", [y], **f)
    amounts = w.const("p", np.array([[0, 0], [1, 1], [2, 0], [0, 0]], i32))
    y = w.node("mirror", "MirrorPad", [y, amounts], mode="REFLECT", **f)
    y = w.node("avg", "AvgPool", [y], ksize=[1, 2, 2, 1], strides=[1, 1, 1, 1], padding="SAME",
               **image)
    w.node("channel_softmax", "Softmax", [y], **f)
    m = w.node("m", "Max", [y, w.const("axes", np.array([1], i32))], keep_dims=False, **f)
    m = w.node("sig", "Sigmoid", [m], **f)
    flat = w.node("flat", "Reshape", [m, w.const("s", np.array([1, -1], i32))], **f)
    logits = w.node("logits", "MatMul", [flat, w.const("fcw", weights(3, 42))],
                    transpose_b=True, **f)
    w.node("mean", "Mean", [y, w.const("hw", np.array([1, 2], i32))], keep_dims=False, **f)
    w.node("out", "Relu6", [logits], **f)
    path.write_bytes(w.serialize())


def write_layout_edge_cases(path: Path) -> None:
    """An NCHW convolution and bias, a BiasAdd on a rank-3 NHWC tensor, and
    an output with a control input from an op the converter does not know."""
    r = rng(34)
    w = tiny.TfGraphWriter()
    f = dict(T="DT_FLOAT")
    x = w.node("x", "Placeholder", dtype="DT_FLOAT", shape=[1, 3, 6, 5])
    y = w.node("conv", "Conv2D", [x, w.const("w", r.standard_normal((3, 3, 3, 4), np.float32))],
               strides=[1, 1, 2, 1], padding="SAME", dilations=[1, 1, 1, 1], data_format="NCHW",
               **f)
    w.node("nchw_bias", "BiasAdd", [y, w.const("b", r.standard_normal(4, np.float32))],
           data_format="NCHW", **f)
    rows = w.node("rows", "Reshape", [y, w.const("s", np.array([1, 15, 4], np.int32))], **f)
    w.node("side_effect", "NoOp")
    w.node("row_bias", "BiasAdd", [rows, w.const("c", r.standard_normal(4, np.float32)),
                                   "^side_effect"], data_format="NHWC", **f)
    path.write_bytes(w.serialize())


class TensorFlowFrontendTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.path = tiny.write_tensorflow(Path(cls.tmp.name))[0]

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def _convert(self, **kwargs):
        outputs = kwargs.pop("outputs", list(tiny.TF_OUTPUTS))
        return convert(ConvertOptions(
            "tensorflow", self.path, None,
            [TensorSpec("input", tiny.TF_INPUT, data_format="NHWC")],
            [TensorSpec(name, []) for name in outputs], **kwargs))

    def test_matches_numpy_reference(self):
        model = self._convert()
        x = rng(30).uniform(-1, 1, tiny.TF_INPUT).astype(np.float32)
        got = run(model.net_def, model.weights, {"input": x})
        want = reference(tiny.tf_params(), x)
        for name, shape in tiny.TF_OUTPUTS.items():
            self.assertEqual(list(got[name].shape), shape, name)
            np.testing.assert_allclose(got[name], want[name], rtol=1e-4, atol=1e-5, err_msg=name)
            self.assertGreater(cosine(got[name], want[name]), 0.9999)

    def test_numpy_tensorflow_runner_agrees(self):
        x = rng(31).uniform(-1, 1, tiny.TF_INPUT).astype(np.float32)
        got = run_tensorflow(self.path, {"input": x}, list(tiny.TF_OUTPUTS))
        want = reference(tiny.tf_params(), x)
        for name in tiny.TF_OUTPUTS:
            np.testing.assert_allclose(got[name], want[name], rtol=1e-5, atol=1e-6,
                                       err_msg=name)

    def test_more_ops_against_the_numpy_tensorflow_runner(self):
        path = Path(self.tmp.name) / "more.pb"
        write_more_ops_graph(path)
        outputs = ["out", "mean", "channel_softmax"]
        model = convert(ConvertOptions("tensorflow", path, None,
                                       [TensorSpec("x", [1, 9, 9, 4], data_format="NHWC")],
                                       [TensorSpec(n, []) for n in outputs]))
        x = rng(33).uniform(-1, 1, (1, 9, 9, 4)).astype(np.float32)
        got = run(model.net_def, model.weights, {"x": x})
        want = run_tensorflow(path, {"x": x}, outputs)
        for name in outputs:
            np.testing.assert_allclose(got[name], want[name], rtol=1e-4, atol=1e-5,
                                       err_msg=name)

    def test_layout_edge_cases_against_the_numpy_tensorflow_runner(self):
        path = Path(self.tmp.name) / "edges.pb"
        write_layout_edge_cases(path)
        outputs = ["nchw_bias", "row_bias"]
        model = convert(ConvertOptions("tensorflow", path, None,
                                       [TensorSpec("x", [1, 3, 6, 5], data_format="NCHW")],
                                       [TensorSpec(n, []) for n in outputs]))
        x = rng(35).uniform(-1, 1, (1, 3, 6, 5)).astype(np.float32)
        got = run(model.net_def, model.weights, {"x": x})
        want = run_tensorflow(path, {"x": x}, outputs)
        for name in outputs:
            self.assertEqual(got[name].shape, want[name].shape, name)
            np.testing.assert_allclose(got[name], want[name], rtol=1e-4, atol=1e-5,
                                       err_msg=name)

    def test_layout_conversion_keeps_transposes_at_the_edges(self):
        types = [op.type for op in self._convert(outputs=["prob"]).net_def.op]
        self.assertEqual(types.count("Transpose"), 1)   # the NHWC input only
        self.assertNotIn("BiasAdd", types)
        self.assertNotIn("BatchNorm", types)

    def test_output_with_colon_zero_and_unknown_node(self):
        model = self._convert(outputs=["prob:0"])
        self.assertEqual([o.name for o in model.outputs], ["prob"])
        with self.assertRaisesRegex(ConversionError, "no node 'nothing'"):
            self._convert(outputs=["nothing"])


if __name__ == "__main__":
    unittest.main()
