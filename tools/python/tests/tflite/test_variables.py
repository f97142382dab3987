"""TFLite resource variables as state tensors: models with VAR_HANDLE,
READ_VARIABLE, ASSIGN_VARIABLE and CALL_ONCE, converted and run by the
engine (libmace.so through the Python module) over consecutive calls
against LiteRT, whose interpreter keeps its variables the same way; the
engine's ResetState against a fresh interpreter; and the refusals.

Models: one built by hand (builder.py), one written by TensorFlow's
TFLiteConverter from tf.Variables, and pymicro-wakeword's streaming int8
wake-word models (tools/requirements-models.txt), which are skipped when
that wheel is not installed.
"""
from __future__ import annotations

import importlib.util
import sys
import tempfile
import unittest
from pathlib import Path
from typing import Callable

import numpy as np
import tflite

from mace_converter.api import ConversionError, ConvertedModel
from mace_converter.frontends import tflite_model
from mace_converter.progress import REPO
from mace_converter.tflite_reference import run_litert_calls
from tests.converter_front.helpers import cosine
from tests.tflite.builder import Op, Spec, T, build
from tests.tflite.litert import TfliteModelCase, convert_tflite, io_names

LIBRARY = REPO / "bazel-bin" / "mace" / "libmace" / "libmace.so"
sys.path.insert(0, str(REPO / "mace" / "python"))
import mace  # noqa: E402  (the path above)

B = tflite.BuiltinOperator
_RESOURCE = 13
CALLS = 20
SEED = 20261128


def var_handle(name: str) -> tuple[int, Callable]:
    def write(b) -> int:
        shared = b.CreateString(name)
        tflite.VarHandleOptionsStart(b)
        tflite.VarHandleOptionsAddSharedName(b, shared)
        return tflite.VarHandleOptionsEnd(b)
    return tflite.BuiltinOptions.VarHandleOptions, write


def call_once(index: int) -> tuple[int, Callable]:
    def write(b) -> int:
        tflite.CallOnceOptionsStart(b)
        tflite.CallOnceOptionsAddInitSubgraphIndex(b, index)
        return tflite.CallOnceOptionsEnd(b)
    return tflite.BuiltinOptions.CallOnceOptions, write


INITIAL = np.array([[0.5, -1.0, 2.0, 0.25]], np.float32)


def accumulator(init_ops=None, call: bool = True) -> bytes:
    """y = acc + x; acc = y; z = acc * x (acc read again after the
    assignment). The init subgraph assigns INITIAL to acc, or runs
    `init_ops` (on its tensors r, c, d)."""
    main = Spec(
        [T("x", [1, 4]), T("acc_handle", [], dtype=_RESOURCE), T("acc_read", [1, 4]),
         T("y", [1, 4]), T("acc_again", [1, 4]), T("z", [1, 4])],
        ([Op(B.CALL_ONCE, [], [], call_once(1))] if call else []) + [
            Op(B.VAR_HANDLE, [], [1], var_handle("acc")),
            Op(B.READ_VARIABLE, [1], [2]),
            Op(B.ADD, [2, 0], [3]),
            Op(B.ASSIGN_VARIABLE, [1, 3], []),
            Op(B.READ_VARIABLE, [1], [4]),
            Op(B.MUL, [4, 0], [5])],
        [0], [3, 5], [INITIAL.tobytes()])
    init = Spec([T("r", [], dtype=_RESOURCE), T("c", [1, 4], buffer=1), T("d", [1, 4])],
                init_ops or [Op(B.VAR_HANDLE, [], [0], var_handle("acc")),
                             Op(B.ASSIGN_VARIABLE, [0, 1], [])], [], [])
    return build(main, [init])


def mace_calls(converted: ConvertedModel, calls: list[dict[str, np.ndarray]],
               outputs: list[str], reset_after: int = -1) -> list[dict[str, np.ndarray]]:
    """The engine's outputs over consecutive runs of one engine; ResetState
    after run `reset_after`."""
    with tempfile.TemporaryDirectory() as tmp:
        graph, weights = Path(tmp) / "m.pb", Path(tmp) / "m.data"
        graph.write_bytes(converted.net_def.SerializeToString())
        weights.write_bytes(bytes(converted.weights))
        results = []
        with mace.Engine(graph, weights) as engine:
            for index, feeds in enumerate(calls):
                got = engine.run(feeds)
                results.append({name: got[name] for name in outputs})
                if index == reset_after:
                    engine.reset_state()
        return results


def streams_agree(case: unittest.TestCase, expected: list[dict], got: list[dict],
                  quantum: dict[str, float]) -> dict[str, tuple[float, float]]:
    """Every call's outputs within one quantum (quantized outputs) or at
    cosine >= 0.999; returns the worst cosine and error by output."""
    worst: dict[str, tuple[float, float]] = {}
    for call, (want, have) in enumerate(zip(expected, got)):
        for name, value in want.items():
            have_value = np.asarray(have[name], np.float32).reshape(value.shape)
            error = float(np.max(np.abs(have_value - value))) if value.size else 0.0
            similar = cosine(have_value, value) if np.any(value) or np.any(have_value) else 1.0
            step = quantum.get(name, 0.0)
            if step:
                case.assertLessEqual(error, step * 1.0001, f"call {call} output {name}")
            else:
                case.assertGreaterEqual(similar, 0.999, f"call {call} output {name}")
            old = worst.get(name, (1.0, 0.0))
            worst[name] = (min(old[0], similar), max(old[1], error))
    return worst


@unittest.skipUnless(LIBRARY.exists(), f"{LIBRARY} is missing: build //mace/libmace:libmace.so")
class VariablesTest(TfliteModelCase):
    def write(self, name: str, data: bytes) -> Path:
        path = self.dir / name
        path.write_bytes(data)
        return path

    def compare(self, path: Path, calls: list[dict], quantum=None):
        inputs, outputs = io_names(path)
        converted = convert_tflite(path, inputs, outputs)
        expected = run_litert_calls(path, calls, outputs)
        worst = streams_agree(self, expected, mace_calls(converted, calls, outputs),
                              quantum or {})
        # ResetState half-way: the rest matches a fresh interpreter.
        half = len(calls) // 2
        again = mace_calls(converted, calls, outputs, reset_after=half - 1)
        fresh = run_litert_calls(path, calls[half:], outputs)
        streams_agree(self, fresh, again[half:], quantum or {})
        return converted, worst

    def test_hand_built_accumulator(self):
        path = self.write("acc.tflite", accumulator())
        generator = np.random.default_rng(SEED)
        calls = [{"x": generator.uniform(-1, 1, (1, 4)).astype(np.float32)}
                 for _ in range(CALLS)]
        converted, worst = self.compare(path, calls)
        self.assertEqual([s.name for s in converted.net_def.state_tensors], ["acc"])
        self.assertEqual([op.type for op in converted.net_def.op].count("Assign"), 1)
        # The state changes from call to call (the test would see a stale one).
        expected = run_litert_calls(path, calls[:3], ["y"])
        self.assertFalse(np.allclose(expected[1]["y"], expected[2]["y"]))
        for name, (similar, error) in worst.items():
            self.assertLess(error, 1e-5, name)

    def test_tensorflow_variables(self):
        tf = self.tf

        class Window(tf.Module):
            def __init__(self):
                self.buf = tf.Variable(np.arange(6, dtype=np.float32).reshape(1, 2, 3) * 0.1)
                self.acc = tf.Variable(tf.zeros([1, 3]))

            @tf.function(input_signature=[tf.TensorSpec([1, 1, 3], tf.float32, name="x")])
            def __call__(self, x):
                window = tf.concat([self.buf, x], axis=1)
                self.buf.assign(window[:, 1:, :])
                self.acc.assign(self.acc + tf.reduce_sum(window, axis=1))
                return tf.nn.relu(self.acc * 0.5 - 1.0), window

        module = Window()
        converter = tf.lite.TFLiteConverter.from_concrete_functions(
            [module.__call__.get_concrete_function()], module)
        path = self.write("window.tflite", converter.convert())
        inputs, _ = io_names(path)
        generator = np.random.default_rng(SEED + 1)
        calls = [{name: generator.uniform(-1, 1, shape).astype(np.float32)
                  for name, shape in inputs.items()} for _ in range(CALLS)]
        converted, worst = self.compare(path, calls)
        self.assertEqual(len(converted.net_def.state_tensors), 2)
        for name, (similar, error) in worst.items():
            self.assertLess(error, 1e-5, name)


class VariableRefusalTest(TfliteModelCase):
    def write(self, name: str, data: bytes) -> Path:
        path = self.dir / name
        path.write_bytes(data)
        return path

    def test_refusals(self):
        cases = {
            "computed init": (accumulator([Op(B.VAR_HANDLE, [], [0], var_handle("acc")),
                                           Op(B.ADD, [1, 1], [2]),
                                           Op(B.ASSIGN_VARIABLE, [0, 2], [])]),
                              "runs ADD (operator 1)"),
            "no init": (accumulator(call=False), "reads variable '/acc' before anything "
                                                 "assigns it"),
            "missing subgraph": (build(Spec(
                [T("x", [1, 4]), T("y", [1, 4])],
                [Op(B.CALL_ONCE, [], [], call_once(5)), Op(B.ADD, [0, 0], [1])],
                [0], [1])), "init subgraph 5 does not exist"),
        }
        for name, (data, message) in cases.items():
            with self.subTest(name):
                path = self.write(f"{name.replace(' ', '_')}.tflite", data)
                with self.assertRaises(ConversionError) as caught:
                    convert_tflite(path, {"x": [1, 4]}, ["y"])
                self.assertIn(message, str(caught.exception))


WAKE_WORD = importlib.util.find_spec("pymicro_wakeword")
WAKE_WORD_MODELS = ("okay_nabu", "alexa", "hey_jarvis", "hey_mycroft")


@unittest.skipUnless(LIBRARY.exists(), f"{LIBRARY} is missing: build //mace/libmace:libmace.so")
@unittest.skipUnless(WAKE_WORD, "pymicro-wakeword is not installed "
                                "(tools/requirements-models.txt)")
class WakeWordTest(TfliteModelCase):
    """microWakeWord's streaming int8 models: int8 features in (three
    10 ms steps of 40 channels per call), six ring-buffer variables of
    streaming convolutions, a uint8 probability out."""

    def test_streaming_models_match_litert(self):
        from ai_edge_litert.interpreter import Interpreter
        models = Path(WAKE_WORD.submodule_search_locations[0]) / "models"
        for name in WAKE_WORD_MODELS:
            with self.subTest(name):
                path = models / f"{name}.tflite"
                detail = Interpreter(model_path=str(path)).get_input_details()[0]
                scale, zero_point = detail["quantization"]
                inputs, outputs = io_names(path)
                generator = np.random.default_rng(SEED)
                # Features on the input's grid, as the int8 front end gives them.
                calls = [{key: ((generator.integers(-128, 128, shape) - zero_point) * scale)
                          .astype(np.float32) for key, shape in inputs.items()}
                         for _ in range(CALLS)]
                output = Interpreter(model_path=str(path)).get_output_details()[0]
                quantum = {outputs[0]: float(output["quantization"][0])}
                # Random features leave the probability at 0: the logit before
                # the sigmoid is compared too, which every state feeds.
                model = tflite_model.read(path)
                logit = next(model.tensors[op.outputs[0]] for op in model.operators
                             if op.op_type == "FULLY_CONNECTED")
                outputs = outputs + [logit.name]
                quantum[logit.name] = float(logit.quant.scale[0])
                converted = convert_tflite(path, inputs, outputs)
                self.assertEqual(len(converted.net_def.state_tensors), 6)
                expected = run_litert_calls(path, calls, outputs)
                got = mace_calls(converted, calls, outputs)
                values = [float(call[logit.name].ravel()[0]) for call in expected]
                self.assertGreaterEqual(len(set(values)), CALLS // 4, "the logit hardly changes")
                worst = streams_agree(self, expected, got, quantum)
                for out, (similar, error) in worst.items():
                    print(f"{name}: {CALLS} calls, {out}: cosine {similar:.6f}, largest error "
                          f"{error:.6f} ({error / quantum[out]:.2f} quanta)")
