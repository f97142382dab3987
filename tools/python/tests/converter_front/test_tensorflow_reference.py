"""TensorFlow itself as the oracle of the TensorFlow frontend.

Every TensorFlow graph of the frontend tests, plus graphs written here by
TensorFlow for the supported ops those do not use, runs in TensorFlow (a
tf.compat.v1 Session on the imported GraphDef) on fixed-seed inputs. Two
things must agree with it:

- the numpy implementation of the TensorFlow ops (tf_reference), which
  validates TensorFlow models when TensorFlow is not installed, within a
  max abs error of 1e-5 of the output's scale;
- the converted MACE model run by the numpy runner, within the bounds the
  other frontend tests use.

TensorFlow is pinned in tools/requirements-tf.txt. A run without it fails
rather than skips, so that it cannot pass unnoticed.
"""
from __future__ import annotations

import importlib
import os
import re
import tempfile
import unittest
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable, Optional
from unittest import mock

import numpy as np

from mace_converter import protos, validate
from mace_converter.api import ConvertOptions, TensorSpec
from mace_converter.convert import convert
from mace_converter.frontends.tf_const import CONST_EVALUATORS
from mace_converter.frontends.tf_ops import CONVERTERS
from mace_converter.numpy_runner import run
from mace_converter.progress import REPO
from mace_converter.tf_reference import run_tensorflow
from tests.converter_front.helpers import cosine, rng
from tests.converter_front.test_tensorflow import write_layout_edge_cases, write_more_ops_graph
from zoo import tiny

REQUIREMENTS = "tools/requirements-tf.txt"
REFERENCE_MAX_ERROR = 1e-5      # relative to the largest |value| of the output
REFERENCE_MIN_COSINE = 0.99999
CONVERTED_MIN_COSINE = 0.9999


def _import_tensorflow() -> tuple[Optional[Any], Optional[BaseException]]:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    # TensorFlow's own CPU kernels run Conv2D and pooling in NHWC only; its
    # oneDNN kernels, on by default only on some CPUs, take NCHW too. The
    # NCHW graphs below need them on every host.
    os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "1")
    try:
        import tensorflow
    except ImportError as error:
        return None, error
    return tensorflow, None


tf, TF_IMPORT_ERROR = _import_tensorflow()


def _pinned_version() -> str:
    text = (REPO / REQUIREMENTS).read_text()
    return re.search(r"^tensorflow-cpu==(\S+)", text, re.M).group(1)


def _weights(generator: np.random.Generator, *shape: int, scale: float = 0.3) -> np.ndarray:
    return (generator.standard_normal(shape) * scale).astype(np.float32)


def _positive(generator: np.random.Generator, *shape: int) -> np.ndarray:
    return generator.uniform(0.5, 1.5, shape).astype(np.float32)


def _write_graph(path: Path, build: Callable[[], None]) -> None:
    with tf.Graph().as_default() as graph:
        build()
    path.write_bytes(graph.as_graph_def().SerializeToString(deterministic=True))


def write_nchw_graph(path: Path) -> None:
    """Images in NCHW: every op that takes a data_format, with EXPLICIT and
    SAME padding, dilation, and the first FusedBatchNorm version.

    TensorFlow 2.15's oneDNN pooling caches its kernels by shape, window and
    padding but not by data format: a MaxPool or AvgPool that follows one of
    the other format with the same [N, C, H, W], window, strides and padding
    in the same process gets that one's kernel and wrong results. So no pool
    here repeats the shape and window of an NHWC pool in this module."""
    r, ops = rng(40), tf.raw_ops
    nchw = dict(data_format="NCHW")

    def build() -> None:
        x = tf.compat.v1.placeholder(tf.float32, [1, 4, 9, 9], name="x")
        y = ops.Conv2D(input=x, filter=_weights(r, 3, 3, 4, 6), strides=[1, 1, 2, 2],
                       padding="EXPLICIT", explicit_paddings=[0, 0, 0, 0, 1, 2, 1, 1],
                       name="conv", **nchw)
        y = ops.BiasAdd(value=y, bias=_weights(r, 6), name="bias", **nchw)
        y = ops.FusedBatchNorm(x=y, scale=_positive(r, 6), offset=_weights(r, 6),
                               mean=_weights(r, 6), variance=_positive(r, 6), epsilon=1e-3,
                               is_training=False, name="bn", **nchw)[0]
        y = ops.Relu(features=y, name="relu")
        y = ops.DepthwiseConv2dNative(input=y, filter=_weights(r, 3, 3, 6, 2),
                                      strides=[1, 1, 1, 1], padding="SAME",
                                      dilations=[1, 1, 2, 2], name="dw", **nchw)
        ops.MaxPool(input=y, ksize=[1, 1, 3, 3], strides=[1, 1, 2, 2], padding="SAME",
                    name="max", **nchw)
        ops.AvgPool(value=y, ksize=[1, 1, 2, 2], strides=[1, 1, 2, 2], padding="VALID",
                    name="avg", **nchw)
    _write_graph(path, build)


def write_nhwc_ops_graph(path: Path) -> None:
    """NHWC ops and operand kinds the other graphs do not have: a squeeze-
    and-excite gate, scalars on the left, reductions that keep or drop the
    channel axis, padding with a value and by symmetry, MatMul of two
    tensors and with transpose_a, a rank-3 BiasAdd."""
    r, ops = rng(41), tf.raw_ops

    def build() -> None:
        x = tf.compat.v1.placeholder(tf.float32, [1, 6, 6, 4], name="x")
        y = ops.FusedBatchNormV2(x=x, scale=_positive(r, 4), offset=_weights(r, 4),
                                 mean=_weights(r, 4), variance=_positive(r, 4),
                                 is_training=False, name="bn")[0]
        y = ops.StopGradient(input=y, name="stop")
        y = ops.Snapshot(input=y, name="snapshot")
        gate = ops.Sigmoid(x=ops.Mean(input=y, axis=[1, 2], keep_dims=True, name="se_mean"),
                           name="se_gate")
        y = ops.Mul(x=y, y=gate, name="se")
        y = ops.Add(x=y, y=_weights(r, 1, 1, 4), name="add")
        ops.Sub(x=np.float32(1.0), y=y, name="one_minus")
        ops.RealDiv(x=np.float32(2.0), y=ops.AddV2(x=gate, y=np.float32(1.0)),
                    name="two_over")
        low = ops.Minimum(x=y, y=_weights(r, 4), name="low")
        ops.Min(input=low, axis=[3], keep_dims=False, name="channel_min")
        ops.Sum(input=y, axis=[-1, 1], keep_dims=True, name="sum")
        ops.Prod(input=ops.Sigmoid(x=y), axis=[2], keep_dims=False, name="prod")
        ops.PadV2(input=y, paddings=[[0, 0], [1, 2], [0, 1], [0, 0]],
                  constant_values=np.float32(0.5), name="pad_value")
        ops.MirrorPad(input=y, paddings=[[0, 0], [2, 1], [1, 2], [0, 0]], mode="SYMMETRIC",
                      name="symmetric")
        flat = ops.Reshape(tensor=y, shape=[6, 24], name="rows")
        ops.MatMul(a=flat, b=flat, transpose_b=True, name="gram")
        ops.MatMul(a=flat, b=_weights(r, 6, 5), transpose_a=True, name="columns")
        ops.BiasAdd(value=ops.Reshape(tensor=y, shape=[1, 36, 4]), bias=_weights(r, 4),
                    name="sequence_bias")
        ops.ConcatV2(values=[y, _weights(r, 1, 6, 6, 2)], axis=-1, name="concat_const")
        pooled = ops.Squeeze(input=gate, axis=[-3, -2], name="squeeze")
        ops.Softmax(logits=pooled, name="softmax")
    _write_graph(path, build)


UNARY_OPS = ("Exp", "Log", "Floor", "Ceil", "Round", "Sign", "Erf", "Softplus", "Softsign",
             "Elu", "Selu", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh",
             "Asinh", "Acosh", "Atanh")


def write_unary_graph(path: Path) -> None:
    """Every element-wise math op that becomes a Unary, each on its domain:
    log and acosh see values above 1, asin, acos and atanh values in
    (-0.9, 0.9), the rest both signs."""
    ops = tf.raw_ops

    def build() -> None:
        x = tf.compat.v1.placeholder(tf.float32, [1, 4, 5, 3], name="x")
        wide = ops.Mul(x=x, y=np.float32(2.5), name="wide")
        above_one = ops.AddV2(x=ops.Exp(x=x, name="exp"), y=np.float32(1.01), name="above_one")
        inside = ops.Mul(x=ops.Tanh(x=x), y=np.float32(0.9), name="inside")
        for name in UNARY_OPS:
            source = above_one if name in ("Log", "Acosh") else \
                inside if name in ("Asin", "Acos", "Atanh") else wide
            operand = "features" if name in ("Softplus", "Softsign", "Elu", "Selu") else "x"
            getattr(ops, name)(**{operand: source}, name=name.lower())
    _write_graph(path, build)


def write_frozen_function(path: Path) -> None:
    """A tf.function over variables, frozen by TensorFlow's own freezer: the
    shape arithmetic (Shape, StridedSlice, Prod, Pack, ...) and constant
    subgraphs that the converter must evaluate."""
    from tensorflow.python.framework.convert_to_constants import \
        convert_variables_to_constants_v2
    r = rng(42)
    conv_w = tf.Variable(_weights(r, 3, 3, 3, 8))
    mean, var = tf.Variable(_weights(r, 8)), tf.Variable(_positive(r, 8))
    gamma, beta = tf.Variable(_positive(r, 8)), tf.Variable(_weights(r, 8))
    fc_w = tf.Variable(_weights(r, 10, 128, scale=0.1))
    fc_b = tf.Variable(_weights(r, 1, 10))
    shift = tf.Variable(_weights(r, 2, 4))

    @tf.function(input_signature=[tf.TensorSpec([1, 8, 8, 3], tf.float32, name="x")])
    def model(x):
        y = tf.nn.conv2d(x, conv_w, 1, "SAME")
        scale = tf.raw_ops.Add(x=tf.maximum(gamma, 0.75), y=tf.minimum(beta, 0.1) / 4.0)
        y = tf.nn.batch_normalization(y, mean, var, beta, scale, 1e-3)
        y = tf.nn.relu6(y + tf.reshape(shift, [8]))
        y = tf.nn.max_pool2d(y, 2, 2, "VALID")
        size = tf.shape(y)
        flat = tf.reshape(y, tf.stack([size[0], tf.reduce_prod(size[1:])]))
        logits = tf.matmul(flat, tf.transpose(fc_w)) + tf.squeeze(fc_b, 0)
        logits = logits / tf.cast(size[1] // 2, tf.float32)
        logits = tf.maximum(logits, tf.fill([10], -1.5))
        logits = tf.minimum(logits, tf.expand_dims(tf.fill([10], 1.5), 0) - 0.25)
        features = tf.reshape(y, tf.concat([size[:1], [-1]], 0), name="features")
        return tf.nn.softmax(logits, name="prob"), features

    frozen = convert_variables_to_constants_v2(model.get_concrete_function())
    path.write_bytes(frozen.graph.as_graph_def().SerializeToString(deterministic=True))


def write_keras_model(path: Path) -> None:
    """A Keras model frozen from a tf.function, as TensorFlow's guides
    freeze them: Flatten, Dropout and control inputs included."""
    from tensorflow.python.framework.convert_to_constants import \
        convert_variables_to_constants_v2
    layers = tf.keras.layers
    image = tf.keras.Input([12, 12, 3], batch_size=1)
    y = layers.Conv2D(8, 3, strides=2, padding="same", use_bias=False)(image)
    y = layers.ReLU(6.0)(layers.BatchNormalization()(y))
    y = layers.DepthwiseConv2D(3, padding="same")(y)
    y = layers.LeakyReLU(0.1)(layers.BatchNormalization()(y))
    y = layers.MaxPooling2D(2)(y)
    features = layers.Concatenate()([layers.Flatten()(y), layers.GlobalAveragePooling2D()(y)])
    logits = layers.Dense(10)(layers.Dropout(0.5)(features))
    model = tf.keras.Model(image, [layers.Softmax()(logits), logits])
    r = rng(43)
    for weight in model.weights:
        positive = weight.name.endswith(("gamma:0", "moving_variance:0"))
        weight.assign(_positive(r, *weight.shape) if positive else _weights(r, *weight.shape))
    function = tf.function(lambda x: model(x, training=False))
    frozen = convert_variables_to_constants_v2(function.get_concrete_function(
        tf.TensorSpec([1, 12, 12, 3], tf.float32, name="image")))
    path.write_bytes(frozen.graph.as_graph_def().SerializeToString(deterministic=True))


# The BlockLSTM nodes of write_block_lstm_graph: (name, op, steps, batch,
# peepholes, forget_bias, cell_clip, seq_len_max, reads cs). None leaves the
# attribute at TensorFlow's default (forget_bias 1, cell_clip 3 for BlockLSTM
# and 0 for BlockLSTMV2).
BLOCK_LSTMS = (
    ("lstm_peep", "BlockLSTM", 7, 3, True, 0.6, 1.0, 7, False),
    ("lstm_v2_short", "BlockLSTMV2", 7, 1, False, None, 0.5, 5, False),
    ("lstm_v2_peep", "BlockLSTMV2", 7, 3, True, None, None, 7, False),
    ("lstm_one_step", "BlockLSTM", 1, 3, False, 1.5, 0.0, 1, True),
    ("lstm_default", "BlockLSTM", 7, 1, False, None, None, 7, False),
    ("lstm_v2_one_step", "BlockLSTMV2", 1, 1, True, None, 0.3, 1, True),
)
BLOCK_LSTM_INPUT, BLOCK_LSTM_HIDDEN = 4, 5


def block_lstm_inputs() -> dict[str, list[int]]:
    inputs = {}
    for name, _, steps, batch, *_ in BLOCK_LSTMS:
        inputs[f"{name}_x"] = [steps, batch, BLOCK_LSTM_INPUT]
        inputs[f"{name}_h0"] = [batch, BLOCK_LSTM_HIDDEN]
    return inputs


def block_lstm_outputs() -> tuple[str, ...]:
    outputs = []
    for name, *_, reads_cs in BLOCK_LSTMS:
        outputs += [f"{name}_h"] + ([f"{name}_cs"] if reads_cs else [])
    return tuple(outputs)


def write_block_lstm_graph(path: Path) -> None:
    """TensorFlow's fused LSTMs over whole sequences, with and without
    peepholes, forget_bias other than 1, cell clips that bind (inputs are
    scaled by 3), a seq_len_max short of the sequence, one step and seven,
    batch 1 and 3; h_prev is a graph input and cs_prev a constant."""
    r, ops = rng(44), tf.raw_ops
    hidden, size = BLOCK_LSTM_HIDDEN, BLOCK_LSTM_INPUT

    def build() -> None:
        for name, op, steps, batch, peep, forget_bias, clip, limit, reads_cs in BLOCK_LSTMS:
            x = tf.compat.v1.placeholder(tf.float32, [steps, batch, size], name=f"{name}_x")
            h0 = tf.compat.v1.placeholder(tf.float32, [batch, hidden], name=f"{name}_h0")
            attrs = {"use_peephole": peep}
            if forget_bias is not None:
                attrs["forget_bias"] = forget_bias
            if clip is not None:
                attrs["cell_clip"] = clip
            outputs = getattr(ops, op)(
                seq_len_max=np.int64(limit), x=ops.Mul(x=x, y=np.float32(3.0)),
                cs_prev=_weights(r, batch, hidden, scale=1.0), h_prev=h0,
                w=_weights(r, size + hidden, 4 * hidden, scale=0.6),
                wci=_weights(r, hidden), wcf=_weights(r, hidden), wco=_weights(r, hidden),
                b=_weights(r, 4 * hidden), name=name, **attrs)
            ops.Identity(input=outputs[6], name=f"{name}_h")
            if reads_cs:
                ops.Identity(input=outputs[1], name=f"{name}_cs")
    _write_graph(path, build)


# GRUBlockCell nodes: (name, batch, h_prev a graph input).
GRU_CELLS = (("gru_one", 1, True), ("gru_three", 3, False))
GRU_INPUT, GRU_HIDDEN = 6, 4


def gru_cell_inputs() -> dict[str, list[int]]:
    inputs = {}
    for name, batch, h_input in GRU_CELLS:
        inputs[f"{name}_x"] = [batch, GRU_INPUT]
        if h_input:
            inputs[f"{name}_h0"] = [batch, GRU_HIDDEN]
    return inputs


def write_gru_cell_graph(path: Path) -> None:
    """TensorFlow's fused GRU cell, one step: batch 1 with h_prev a graph
    input and batch 3 with a constant h_prev, x scaled by 3."""
    r, ops = rng(45), tf.raw_ops
    hidden, size = GRU_HIDDEN, GRU_INPUT

    def build() -> None:
        for name, batch, h_input in GRU_CELLS:
            x = tf.compat.v1.placeholder(tf.float32, [batch, size], name=f"{name}_x")
            h0 = tf.compat.v1.placeholder(tf.float32, [batch, hidden], name=f"{name}_h0") \
                if h_input else _weights(r, batch, hidden, scale=1.0)
            outputs = ops.GRUBlockCell(
                x=ops.Mul(x=x, y=np.float32(3.0)), h_prev=h0,
                w_ru=_weights(r, size + hidden, 2 * hidden, scale=0.6),
                w_c=_weights(r, size + hidden, hidden, scale=0.6),
                b_ru=_weights(r, 2 * hidden), b_c=_weights(r, hidden), name=name)
            ops.Identity(input=outputs[3], name=f"{name}_h")
    _write_graph(path, build)


@dataclass(frozen=True)
class Graph:
    name: str
    write: Callable[[Path], Any]        # writes the graph to the path it is given
    inputs: dict[str, list[int]]
    outputs: tuple[str, ...]
    data_format: str = "NHWC"


GRAPHS = (
    Graph("tiny_tf", lambda path: tiny.write_tensorflow(path.parent),   # writes tiny_tf.pb
          {"input": tiny.TF_INPUT}, tuple(tiny.TF_OUTPUTS)),
    Graph("more_ops", write_more_ops_graph, {"x": [1, 9, 9, 4]},
          ("out", "mean", "channel_softmax")),
    Graph("layout_edge_cases", write_layout_edge_cases, {"x": [1, 3, 6, 5]},
          ("nchw_bias", "row_bias"), "NCHW"),
    Graph("nchw", write_nchw_graph, {"x": [1, 4, 9, 9]}, ("max", "avg"), "NCHW"),
    Graph("nhwc_ops", write_nhwc_ops_graph, {"x": [1, 6, 6, 4]},
          ("one_minus", "two_over", "channel_min", "sum", "prod", "pad_value", "symmetric",
           "gram", "columns", "sequence_bias", "concat_const", "softmax")),
    Graph("unary", write_unary_graph, {"x": [1, 4, 5, 3]},
          tuple(name.lower() for name in UNARY_OPS)),
    Graph("frozen_function", write_frozen_function, {"x": [1, 8, 8, 3]}, ("prob", "features")),
    Graph("keras", write_keras_model, {"image": [1, 12, 12, 3]}, ("Identity", "Identity_1")),
    Graph("block_lstm", write_block_lstm_graph, block_lstm_inputs(), block_lstm_outputs()),
    Graph("gru_cell", write_gru_cell_graph, gru_cell_inputs(),
          tuple(f"{name}_h" for name, *_ in GRU_CELLS)),
)


@dataclass
class Case:
    graph: Graph
    path: Path
    outputs: list[str]
    feeds: dict[str, np.ndarray]
    expected: dict[str, np.ndarray]


def run_in_tensorflow(path: Path, feeds: dict[str, np.ndarray],
                      outputs: list[str]) -> dict[str, np.ndarray]:
    graph_def = tf.compat.v1.GraphDef()
    graph_def.ParseFromString(path.read_bytes())
    with tf.Graph().as_default() as graph:
        tf.compat.v1.import_graph_def(graph_def, name="")
        with tf.compat.v1.Session(graph=graph) as session:
            results = session.run([name + ":0" for name in outputs],
                                  {name + ":0": value for name, value in feeds.items()})
    return dict(zip(outputs, results))


class TensorFlowReferenceTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.cases: list[Case] = []
        if tf is None:
            return
        for offset, graph in enumerate(GRAPHS):
            path = Path(cls.tmp.name) / f"{graph.name}.pb"
            graph.write(path)
            outputs = list(graph.outputs)
            feeds = {name: rng(50 + offset).uniform(-1, 1, shape).astype(np.float32)
                     for name, shape in graph.inputs.items()}
            cls.cases.append(Case(graph, path, outputs, feeds,
                                  run_in_tensorflow(path, feeds, outputs)))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def setUp(self):
        if tf is None:
            self.fail(f"TensorFlow cannot be imported ({TF_IMPORT_ERROR}); install it with "
                      f".venv/bin/pip install -r {REQUIREMENTS}")

    def test_tensorflow_is_the_pinned_version(self):
        self.assertEqual(tf.__version__, _pinned_version())

    def test_numpy_reference_matches_tensorflow(self):
        for case in self.cases:
            got = run_tensorflow(case.path, case.feeds, case.outputs)
            for name in case.outputs:
                with self.subTest(graph=case.graph.name, output=name):
                    want = case.expected[name]
                    self.assertEqual(got[name].shape, want.shape)
                    scale = float(np.abs(want).max()) or 1.0
                    error = float(np.abs(got[name].astype(np.float64) - want).max())
                    self.assertLessEqual(error, REFERENCE_MAX_ERROR * scale)
                    self.assertGreater(cosine(got[name], want), REFERENCE_MIN_COSINE)

    def test_converted_model_matches_tensorflow(self):
        for case in self.cases:
            with self.subTest(graph=case.graph.name):
                model = convert(ConvertOptions(
                    "tensorflow", case.path, None,
                    [TensorSpec(name, shape, data_format=case.graph.data_format)
                     for name, shape in case.graph.inputs.items()],
                    [TensorSpec(name, []) for name in case.outputs]))
                got = run(model.net_def, model.weights, case.feeds)
            for name in case.outputs:
                with self.subTest(graph=case.graph.name, output=name):
                    want = case.expected[name]
                    self.assertEqual(list(got[name].shape), list(want.shape))
                    np.testing.assert_allclose(got[name], want, rtol=1e-4, atol=1e-5)
                    self.assertGreater(cosine(got[name], want), CONVERTED_MIN_COSINE)

    def test_graphs_cover_every_supported_op(self):
        """Every op with a converter runs on tensors, and every op the
        frontend evaluates as a constant appears with constant inputs."""
        on_tensors, on_constants = set(), set()
        for case in self.cases:
            graph_def = protos.load("tf_graph").GraphDef()
            graph_def.ParseFromString(case.path.read_bytes())
            sources = {node.name: {s.split(":")[0] for s in node.input if s[0] != "^"}
                       for node in graph_def.node}
            constant = {node.name for node in graph_def.node if node.op in ("Const", "Shape")}
            while True:
                found = {name for name, inputs in sources.items()
                         if inputs and inputs <= constant} - constant
                if not found:
                    break
                constant |= found
            for node in graph_def.node:
                if node.name in constant:
                    on_constants.add(node.op)
                elif node.op != "Placeholder":
                    on_tensors.add(node.op)
        self.assertEqual(sorted(set(CONVERTERS) - on_tensors - {"Placeholder"}), [])
        self.assertEqual(sorted(set(CONST_EVALUATORS) - on_constants), [])

    def test_validation_uses_tensorflow(self):
        case = self.cases[0]
        model = SimpleNamespace(platform="tensorflow",
                                outputs=[TensorSpec(name, []) for name in case.outputs])
        description, outputs = validate.reference_outputs(
            model, SimpleNamespace(model_file=case.path), case.feeds)
        self.assertEqual(description, f"TensorFlow {_pinned_version()}")
        for name in case.outputs:
            np.testing.assert_array_equal(outputs[name], case.expected[name])

    def test_validation_falls_back_to_numpy_without_tensorflow(self):
        import_module = importlib.import_module

        def without_tensorflow(name: str):
            if name == "tensorflow":
                raise ImportError("No module named 'tensorflow'")
            return import_module(name)

        case = self.cases[0]
        model = SimpleNamespace(platform="tensorflow",
                                outputs=[TensorSpec(name, []) for name in case.outputs])
        with mock.patch.object(validate.importlib, "import_module",
                               side_effect=without_tensorflow):
            description, outputs = validate.reference_outputs(
                model, SimpleNamespace(model_file=case.path), case.feeds)
        self.assertIn("numpy implementation of the TensorFlow ops", description)
        for name in case.outputs:
            want = case.expected[name]
            self.assertLessEqual(float(np.abs(outputs[name] - want).max()),
                                 REFERENCE_MAX_ERROR * float(np.abs(want).max()))


if __name__ == "__main__":
    unittest.main()
