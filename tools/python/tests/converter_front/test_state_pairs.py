"""Deployment-file state pairs (`state: {input, output}`): an ONNX
recurrent cell whose hidden state is an explicit input and output, run by
the engine (libmace.so through the Python module) with the state kept
inside, against onnxruntime with the output fed back by hand; and the
deployment file's checks of the key."""
from __future__ import annotations

import copy
import sys
import tempfile
import unittest
from pathlib import Path

import numpy as np
import onnx
import yaml
from onnx import TensorProto, helper, numpy_helper

from mace_converter.api import ConversionError, ConvertOptions, TensorSpec
from mace_converter.config import ConfigError, load_config
from mace_converter.convert import convert
from mace_converter.progress import REPO
from tests.converter_cli.test_config import BASE
from tests.converter_front.helpers import cosine

LIBRARY = REPO / "bazel-bin" / "mace" / "libmace" / "libmace.so"
sys.path.insert(0, str(REPO / "mace" / "python"))
import mace  # noqa: E402  (the path above)

SEED = 7767517
CALLS = 20


def rnn_cell(path: Path) -> Path:
    """h = tanh(x W + h0 U + b), y = 2 h: x [1, 4], h0 and h [1, 3]."""
    generator = np.random.default_rng(SEED)
    weights = {"W": generator.normal(0, 0.5, (4, 3)), "U": generator.normal(0, 0.5, (3, 3)),
               "b": generator.normal(0, 0.1, (1, 3)), "two": np.array(2.0)}
    nodes = [helper.make_node("MatMul", ["x", "W"], ["xw"]),
             helper.make_node("MatMul", ["h0", "U"], ["hu"]),
             helper.make_node("Add", ["xw", "hu"], ["s"]),
             helper.make_node("Add", ["s", "b"], ["pre"]),
             helper.make_node("Tanh", ["pre"], ["h"]),
             helper.make_node("Mul", ["h", "two"], ["y"])]
    graph = helper.make_graph(
        nodes, "cell",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4]),
         helper.make_tensor_value_info("h0", TensorProto.FLOAT, [1, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3]),
         helper.make_tensor_value_info("h", TensorProto.FLOAT, [1, 3])],
        [numpy_helper.from_array(v.astype(np.float32), k) for k, v in weights.items()])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    return path


def options(path: Path, states: list[tuple[str, str]]) -> ConvertOptions:
    return ConvertOptions(
        platform="onnx", model_file=path, weight_file=None,
        inputs=[TensorSpec("x", [1, 4], data_format="NONE"),
                TensorSpec("h0", [1, 3], data_format="NONE")],
        outputs=[TensorSpec("y", [1, 3], data_format="NONE"),
                 TensorSpec("h", [1, 3], data_format="NONE")], states=states)


@unittest.skipUnless(LIBRARY.exists(), f"{LIBRARY} is missing: build //mace/libmace:libmace.so")
class StatePairTest(unittest.TestCase):
    def test_engine_keeps_the_hidden_state(self):
        import onnxruntime
        with tempfile.TemporaryDirectory() as tmp:
            path = rnn_cell(Path(tmp) / "cell.onnx")
            converted = convert(options(path, [("h0", "h")]))
            self.assertEqual([info.name for info in converted.net_def.input_info], ["x"])
            self.assertEqual([s.name for s in converted.net_def.state_tensors], ["h0"])
            graph, weights = Path(tmp) / "cell.pb", Path(tmp) / "cell.data"
            graph.write_bytes(converted.net_def.SerializeToString())
            weights.write_bytes(bytes(converted.weights))
            session = onnxruntime.InferenceSession(str(path),
                                                   providers=["CPUExecutionProvider"])
            generator = np.random.default_rng(SEED + 1)
            xs = [generator.uniform(-1, 1, (1, 4)).astype(np.float32) for _ in range(CALLS)]
            hidden = np.zeros((1, 3), np.float32)
            worst = 1.0
            with mace.Engine(graph, weights) as engine:
                for call, x in enumerate(xs):
                    y, hidden = session.run(["y", "h"], {"x": x, "h0": hidden})
                    got = engine.run({"x": x})
                    self.assertLess(float(np.max(np.abs(got["y"] - y))), 1e-5, f"call {call}")
                    worst = min(worst, cosine(got["h"], hidden))
                engine.reset_state()
                y, _ = session.run(["y", "h"], {"x": xs[0], "h0": np.zeros((1, 3), np.float32)})
                self.assertLess(float(np.max(np.abs(engine.run({"x": xs[0]})["y"] - y))), 1e-5)
            self.assertGreaterEqual(worst, 0.99999)


class StatePairRefusalTest(unittest.TestCase):
    def test_pairs_must_name_model_tensors(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = rnn_cell(Path(tmp) / "cell.onnx")
            for pair, message in (((("x2", "h"),), "'x2' is not an input"),
                                  ((("h0", "s"),), "'s' is not an output"),
                                  ((("x", "h"),), "has shape [1, 4] but is assigned")):
                with self.subTest(pair):
                    with self.assertRaises(ConversionError) as caught:
                        convert(options(path, list(pair)))
                    self.assertIn(message, str(caught.exception))


class StateKeyTest(unittest.TestCase):
    def load(self, state):
        document = copy.deepcopy(BASE)
        model = document["models"]["net"]
        model["subgraphs"][0].update({"input_tensors": ["input", "h0"],
                                      "input_shapes": ["1,3,224,224", "1,8"],
                                      "output_tensors": ["output", "hn"],
                                      "output_shapes": ["1,1000", "1,8"]})
        model["state"] = state
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "deploy.yml"
            path.write_text(yaml.safe_dump(document, sort_keys=False))
            return load_config(path).models["net"]

    def test_pairs(self):
        self.assertEqual(self.load({"input": "h0", "output": "hn"}).states, [("h0", "hn")])
        self.assertEqual(self.load([{"input": "h0", "output": "hn"}]).states, [("h0", "hn")])

    def test_bad_pairs(self):
        for state, message in (({"input": "h1", "output": "hn"}, "'h1' is not one of"),
                               ({"input": "h0"}, "state.output: missing required key"),
                               ({"input": "h0", "output": "hn", "x": 1}, "unknown key"),
                               ([{"input": "h0", "output": "hn"}] * 2, "another state pair")):
            with self.subTest(state):
                with self.assertRaises(ConfigError) as caught:
                    self.load(state)
                self.assertIn(message, str(caught.exception))
