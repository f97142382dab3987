"""ONNX LSTM, GRU and RNN: one-node models with every attribute, converted,
run by the numpy runner and compared with ONNX Runtime."""
import unittest

import numpy as np
from onnx import helper

from mace_converter.api import ConversionError

from tests.converter_front.helpers import (check_against_ort, convert_model, initializer,
                                           make_model, rng)

_GATES = {"LSTM": 4, "GRU": 3, "RNN": 1}


def _case(test, op_type, seq=3, batch=2, size=4, hidden=5, direction="forward", layout=0,
          bias=True, lengths=None, initial_h=False, initial_c=False, peepholes=False,
          outputs=("y", "y_h", "y_c"), weights_as_inputs=False, opset=14, **attrs):
    r = rng(len(test.id()) + seq * 7 + hidden)
    dirs = 2 if direction == "bidirectional" else 1
    gates = _GATES[op_type]
    x_shape = [seq, batch, size] if layout == 0 else [batch, seq, size]
    state = [dirs, batch, hidden] if layout == 0 else [batch, dirs, hidden]
    values = {
        "w": (r.uniform(-0.6, 0.6, [dirs, gates * hidden, size])),
        "r": (r.uniform(-0.6, 0.6, [dirs, gates * hidden, hidden])),
        "b": (r.uniform(-0.3, 0.3, [dirs, 2 * gates * hidden])),
        "h0": r.uniform(-1, 1, state), "c0": r.uniform(-1, 1, state),
        "p": r.uniform(-0.5, 0.5, [dirs, 3 * hidden]),
    }
    names = ["x", "w", "r", "b" if bias else "", "", "h0" if initial_h else "",
             "c0" if initial_c else "", "p" if peepholes else ""]
    inits = []
    inputs = {"x": x_shape}
    if lengths is not None:
        names[4] = "lengths"
        inits.append(initializer("lengths", np.asarray(lengths, np.int32)))
    for name in ("w", "r", "b", "h0", "c0", "p"):
        if name not in names:
            continue
        value = values[name].astype(np.float32)
        if weights_as_inputs and name in ("w", "r"):
            inputs[name] = list(value.shape)
        else:
            inits.append(initializer(name, value))
    if op_type != "LSTM":
        names = names[:6]
    while not names[-1]:
        names.pop()
    outs = list(outputs[:3 if op_type == "LSTM" else 2])
    node = helper.make_node(op_type, names, outs, hidden_size=hidden, direction=direction,
                            **({"layout": layout} if layout else {}), **attrs)
    model = make_model([node], inputs, {o: None for o in outs if o}, inits, opset)
    feeds = {name: (values[name] if name != "x" else r.uniform(-1, 1, x_shape))
             .astype(np.float32) for name in inputs}
    return check_against_ort(test, model, inputs, rtol=1e-4, atol=1e-5, feeds=feeds)


class RecurrentTest(unittest.TestCase):
    def test_lstm(self):
        cases = [
            dict(),
            dict(seq=1, batch=1, bias=False, outputs=("y",)),
            dict(seq=4, batch=3, hidden=9, direction="bidirectional", initial_h=True,
                 initial_c=True, peepholes=True, lengths=[4, 2, 1]),
            dict(direction="reverse", clip=0.7, input_forget=1, initial_h=True, hidden=17,
                 activations=["HardSigmoid", "ScaledTanh", "Softsign"],
                 activation_alpha=[0.3, 1.5], activation_beta=[0.4, 0.8]),
            dict(outputs=("", "y_h", "y_c"), weights_as_inputs=True, hidden=8, size=10),
            dict(opset=7),
        ]
        for case in cases:
            with self.subTest(**{k: str(v) for k, v in case.items()}):
                _case(self, "LSTM", **case)

    def test_gru(self):
        cases = [
            dict(),
            dict(direction="bidirectional", linear_before_reset=1, initial_h=True,
                 lengths=[3, 1], hidden=7),
            dict(direction="bidirectional", initial_h=True, lengths=[2, 3], batch=2),
            dict(direction="reverse", clip=0.5, activations=["Sigmoid", "Elu"],
                 activation_alpha=[0.9], seq=6, batch=1, hidden=12, weights_as_inputs=True),
            dict(outputs=("", "y_h"), bias=False),
        ]
        for case in cases:
            with self.subTest(**{k: str(v) for k, v in case.items()}):
                _case(self, "GRU", **case)

    def test_alpha_consumed_by_the_functions_that_take_it(self):
        _case(self, "GRU", activations=["Sigmoid", "Elu"], activation_alpha=[0.4, 0.9])
        _case(self, "LSTM", activations=["HardSigmoid", "Elu", "ScaledTanh"],
              activation_alpha=[0.3, 0.8, 1.2], activation_beta=[0.45, 0.7])

    def test_rnn(self):
        cases = [
            dict(),
            dict(direction="bidirectional", activations=["LeakyRelu", "Softplus"],
                 activation_alpha=[0.1, 0.0], initial_h=True, seq=1, batch=3, hidden=10),
            dict(direction="reverse", activations=["ThresholdedRelu"], activation_alpha=[0.2],
                 lengths=[2, 3]),
            dict(activations=["Affine"], activation_alpha=[0.5], activation_beta=[0.25],
                 bias=False),
            dict(activations=["Relu"], outputs=("y",)),
        ]
        for case in cases:
            with self.subTest(**{k: str(v) for k, v in case.items()}):
                _case(self, "RNN", **case)

    def test_layout_1(self):
        """ONNX Runtime has no layout 1 on the CPU: compared with layout 0 and
        transposes, which it runs."""
        for op_type in ("LSTM", "GRU", "RNN"):
            with self.subTest(op_type=op_type):
                self._check_layout_1(op_type)

    def _check_layout_1(self, op_type):
        from mace_converter.numpy_runner import run
        r = rng(3)
        seq, batch, size, hidden, gates = 3, 2, 4, 6, _GATES[op_type]
        w = r.uniform(-0.6, 0.6, [2, gates * hidden, size]).astype(np.float32)
        rr = r.uniform(-0.6, 0.6, [2, gates * hidden, hidden]).astype(np.float32)
        h0 = r.uniform(-1, 1, [batch, 2, hidden]).astype(np.float32)
        x = r.uniform(-1, 1, [batch, seq, size]).astype(np.float32)
        node = helper.make_node(op_type, ["x", "w", "r", "", "", "h0"], ["y", "y_h"],
                                hidden_size=hidden, direction="bidirectional", layout=1)
        model = make_model([node], {"x": [batch, seq, size]}, {"y": None, "y_h": None},
                           [initializer("w", w), initializer("r", rr), initializer("h0", h0)],
                           14)
        converted = convert_model(model, {"x": [batch, seq, size]}, ["y", "y_h"])
        got = run(converted.net_def, converted.weights, {"x": x})
        node0 = helper.make_node(op_type, ["x", "w", "r", "", "", "h0"], ["y", "y_h"],
                                 hidden_size=hidden, direction="bidirectional")
        model0 = make_model([node0], {"x": [seq, batch, size]}, {"y": None, "y_h": None},
                            [initializer("w", w), initializer("r", rr),
                             initializer("h0", h0.transpose(1, 0, 2).copy())], 14)
        from tests.converter_front.helpers import ort_run
        want_y, want_h = ort_run(model0, {"x": x.transpose(1, 0, 2).copy()})
        np.testing.assert_allclose(got["y"], want_y.transpose(2, 0, 1, 3), rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(got["y_h"], want_h.transpose(1, 0, 2), rtol=1e-4, atol=1e-5)

    def test_refusals_name_the_node(self):
        node = helper.make_node("LSTM", ["x", "w", "r"], ["y"], hidden_size=5,
                                activations=["Sigmoid", "Cube", "Tanh"])
        model = make_model([node], {"x": [2, 1, 3]}, {"y": None},
                           [initializer("w", np.zeros([1, 20, 3], np.float32)),
                            initializer("r", np.zeros([1, 20, 5], np.float32))])
        with self.assertRaisesRegex(ConversionError, "LSTM node .*activation 'Cube'"):
            convert_model(model, {"x": [2, 1, 3]}, ["y"])
        node = helper.make_node("GRU", ["x", "w", "r", "", "lengths"], ["y"], hidden_size=5)
        model = make_model([node], {"x": [2, 1, 3]}, {"y": None},
                           [initializer("w", np.zeros([1, 15, 3], np.float32)),
                            initializer("r", np.zeros([1, 15, 5], np.float32)),
                            initializer("lengths", np.array([3], np.int32))])
        with self.assertRaisesRegex(ConversionError, r"GRU node .*sequence_lens \[3\]"):
            convert_model(model, {"x": [2, 1, 3]}, ["y"])
        node = helper.make_node("RNN", ["x", "w", "r"], ["y"], hidden_size=4)
        model = make_model([node], {"x": [2, 1, 3]}, {"y": None},
                           [initializer("w", np.zeros([1, 5, 3], np.float32)),
                            initializer("r", np.zeros([1, 5, 5], np.float32))])
        with self.assertRaisesRegex(ConversionError, "RNN node .*does not fit hidden_size 4"):
            convert_model(model, {"x": [2, 1, 3]}, ["y"])


if __name__ == "__main__":
    unittest.main()
