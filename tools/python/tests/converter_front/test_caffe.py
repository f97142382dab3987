"""The Caffe frontend on the zoo's tiny model, against a loop-level numpy
version of Caffe's layer definitions (its pooling arithmetic included)."""
import math
import tempfile
import unittest
from pathlib import Path

import numpy as np

from mace_converter.api import ConversionError, ConvertOptions, TensorSpec
from mace_converter.convert import convert
from mace_converter.numpy_runner import run, run_caffe
from tests.converter_front.helpers import cosine, rng
from zoo import tiny


def conv(x, w, b=None, pad=0, group=1):
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = h + 2 * pad - kh + 1, wd + 2 * pad - kw + 1
    out = np.zeros((n, o, oh, ow))
    og = o // group
    for oc in range(o):
        g = oc // og
        for i in range(kh):
            for j in range(kw):
                window = xp[:, g * cg:(g + 1) * cg, i:i + oh, j:j + ow]
                out[:, oc] += np.einsum("nchw,c->nhw", window, w[oc, :, i, j])
    return out if b is None else out + b.reshape(1, -1, 1, 1)


def caffe_pool(x, kernel, stride, pad, kind):
    """Caffe's PoolingLayer forward, including its output-size rounding."""
    n, c, h, w = x.shape
    out = int(math.ceil((h + 2 * pad - kernel) / stride)) + 1
    if pad and (out - 1) * stride >= h + pad:
        out -= 1
    y = np.zeros((n, c, out, out))
    for oy in range(out):
        for ox in range(out):
            hs, ws = oy * stride - pad, ox * stride - pad
            he, we = min(hs + kernel, h + pad), min(ws + kernel, w + pad)
            size = (he - hs) * (we - ws)
            hs, ws, he, we = max(hs, 0), max(ws, 0), min(he, h), min(we, w)
            window = x[:, :, hs:he, ws:we]
            y[:, :, oy, ox] = window.max(axis=(2, 3)) if kind == "max" \
                else window.sum(axis=(2, 3)) / size
    return y


def caffe_lrn(x, size, alpha, beta, k):
    squares = np.pad(x * x, ((0, 0), (size // 2, size // 2), (0, 0), (0, 0)))
    total = sum(squares[:, i:i + x.shape[1]] for i in range(size))
    return x / (k + alpha / size * total) ** beta


def reference(p, x):
    x = x.astype(np.float64)
    y = conv(x, p["conv1/w"], p["conv1/b"], pad=1)
    factor = 1.0 / p["bn/factor"][0]
    y = (y - (p["bn/mean"] * factor).reshape(1, -1, 1, 1)) / \
        np.sqrt(p["bn/var"] * factor + 1e-3).reshape(1, -1, 1, 1)
    y = y * p["scale/gamma"].reshape(1, -1, 1, 1) + p["scale/beta"].reshape(1, -1, 1, 1)
    y = np.maximum(y, 0)
    dw = conv(y, p["dw/w"], pad=1, group=8)
    slope = p["prelu/slope"].reshape(1, -1, 1, 1)
    dw = np.where(dw > 0, dw, dw * slope)
    gate = 1 / (1 + np.exp(-conv(y, p["expand/w"], p["expand/b"])))
    total = np.tanh(dw * gate + 0.5 * y)
    lrn = caffe_lrn(total, 3, 1e-4, 0.75, 1.0)
    pooled = caffe_pool(lrn, 3, 2, 0, "max")
    avg = caffe_pool(pooled, 3, 2, 1, "ave")
    logits = avg.reshape(1, -1) @ p["fc/w"].T + p["fc/b"]
    e = np.exp(logits - logits.max())
    return e / e.sum()


MORE_LAYERS = """name: "more"
input: "data"
input_shape { dim: 2 dim: 4 dim: 5 dim: 5 }
layer { name: "up" type: "Deconvolution" bottom: "data" top: "up"
  convolution_param { num_output: 6 group: 2 kernel_size: 3 stride: 2 pad: 1 } }
layer { name: "leaky" type: "ReLU" bottom: "up" top: "up" relu_param { negative_slope: 0.1 } }
layer { name: "side" type: "Convolution" bottom: "up" top: "side"
  convolution_param { num_output: 6 kernel_h: 3 kernel_w: 1 pad_h: 1 pad_w: 0 dilation: 1 } }
layer { name: "clip" type: "ReLU6" bottom: "side" top: "side" }
layer { name: "max" type: "Eltwise" bottom: "up" bottom: "side" top: "max"
  eltwise_param { operation: MAX } }
layer { name: "gap" type: "Pooling" bottom: "max" top: "gap"
  pooling_param { pool: AVE global_pooling: true } }
layer { name: "cat" type: "Concat" bottom: "gap" bottom: "gap" top: "cat" concat_param { axis: 1 } }
layer { name: "flat" type: "Flatten" bottom: "cat" top: "flat" }
layer { name: "fc" type: "InnerProduct" bottom: "flat" top: "fc"
  inner_product_param { num_output: 3 transpose: true } }
layer { name: "shape" type: "Reshape" bottom: "fc" top: "shaped"
  reshape_param { shape { dim: 0 dim: 3 dim: 1 } } }
layer { name: "prob" type: "Softmax" bottom: "shaped" top: "prob" }
"""


def _write_more(directory: Path) -> tuple[Path, Path]:
    from mace_converter import protos
    r = rng(42)
    blobs = {"up": [r.standard_normal((4, 3, 3, 3)), r.standard_normal(6)],
             "side": [r.standard_normal((6, 6, 3, 1)) * 0.3, r.standard_normal(6)],
             "fc": [r.standard_normal((12, 3)), r.standard_normal(3)]}
    net = protos.load("caffe").NetParameter()
    for name, arrays in blobs.items():
        layer = net.layer.add()
        layer.name = name
        for array in arrays:
            blob = layer.blobs.add()
            blob.shape.dim.extend(array.shape)
            blob.data.extend(array.astype(np.float32).reshape(-1).tolist())
    prototxt, weights = directory / "more.prototxt", directory / "more.caffemodel"
    prototxt.write_text(MORE_LAYERS)
    weights.write_bytes(net.SerializeToString())
    return prototxt, weights


class CaffeFrontendTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.prototxt, cls.weights = tiny.write_caffe(Path(cls.tmp.name))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def _convert(self, prototxt=None, outputs=("prob",)):
        return convert(ConvertOptions(
            "caffe", prototxt or self.prototxt, self.weights,
            [TensorSpec("data", tiny.CAFFE_INPUT)], [TensorSpec(n, []) for n in outputs]))

    def test_matches_numpy_reference(self):
        model = self._convert()
        x = rng(40).uniform(-1, 1, tiny.CAFFE_INPUT).astype(np.float32)
        got = run(model.net_def, model.weights, {"data": x})["prob"]
        want = reference(tiny.caffe_params(), x)
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)
        self.assertGreater(cosine(got, want), 0.9999)

    def test_caffe_reference_runner_agrees(self):
        x = rng(41).uniform(-1, 1, tiny.CAFFE_INPUT).astype(np.float32)
        got = run_caffe(self.prototxt, self.weights, {"data": x}, ["prob"])["prob"]
        np.testing.assert_allclose(got, reference(tiny.caffe_params(), x), rtol=1e-5,
                                   atol=1e-7)

    def test_more_layers_against_the_caffe_reference_runner(self):
        prototxt, weights = _write_more(Path(self.tmp.name))
        model = convert(ConvertOptions("caffe", prototxt, weights, [], []))
        self.assertEqual([o.name for o in model.outputs], ["prob"])
        x = rng(43).uniform(-1, 1, (2, 4, 5, 5)).astype(np.float32)
        got = run(model.net_def, model.weights, {"data": x})["prob"]
        want = run_caffe(prototxt, weights, {"data": x}, ["prob"])["prob"]
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)

    def test_batch_norm_and_scale_fold_into_the_convolution(self):
        model = self._convert()
        types = [op.type for op in model.net_def.op]
        self.assertNotIn("BatchNorm", types)
        self.assertTrue(any("folded 2 BatchNorm" in line for line in model.log))
        self.assertEqual(model.net_def.op[0].type, "Conv2D")

    def test_unsupported_layer_names_layer_and_file(self):
        text = self.prototxt.read_text().replace('type: "TanH"', 'type: "Crop"')
        broken = Path(self.tmp.name) / "broken.prototxt"
        broken.write_text(text)
        with self.assertRaises(ConversionError) as caught:
            self._convert(broken)
        message = str(caught.exception)
        for part in ("Crop", "'tanh'", "broken.prototxt", "not supported"):
            self.assertIn(part, message)

    def test_missing_weights_are_reported(self):
        text = self.prototxt.read_text().replace('name: "conv1" type', 'name: "c1" type')
        renamed = Path(self.tmp.name) / "renamed.prototxt"
        renamed.write_text(text)
        with self.assertRaisesRegex(ConversionError, "'c1'.*no weights"):
            self._convert(renamed)


if __name__ == "__main__":
    unittest.main()
