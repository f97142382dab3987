"""LSTM, GRU and RNN (docs/reference/ops/recurrent.md), step by step in float64."""
from __future__ import annotations

from typing import Optional

import numpy as np

from mace_converter.numpy_ops import kernel

# Gate function codes (the ops' gate_activations argument).
GATE_FUNCTIONS = ("Sigmoid", "Tanh", "Relu", "Affine", "LeakyRelu", "ThresholdedRelu",
                  "ScaledTanh", "HardSigmoid", "Elu", "Softsign", "Softplus")
GATES = {"LSTM": 4, "GRU": 3, "RNN": 1}
FUNCTIONS = {"LSTM": 3, "GRU": 2, "RNN": 1}


def gate_function(code: int, alpha: float, beta: float, x: np.ndarray) -> np.ndarray:
    name = GATE_FUNCTIONS[code]
    if name == "Sigmoid":
        return 0.5 * (1.0 + np.tanh(0.5 * x))  # no overflow for large |x|
    if name == "Tanh":
        return np.tanh(x)
    if name == "Relu":
        return np.maximum(x, 0)
    if name == "Affine":
        return alpha * x + beta
    if name == "LeakyRelu":
        return np.where(x >= 0, x, alpha * x)
    if name == "ThresholdedRelu":
        return np.where(x > alpha, x, 0)
    if name == "ScaledTanh":
        return alpha * np.tanh(beta * x)
    if name == "HardSigmoid":
        return np.clip(alpha * x + beta, 0, 1)
    if name == "Elu":
        return np.where(x >= 0, x, alpha * (np.exp(np.minimum(x, 0)) - 1))
    if name == "Softsign":
        return x / (1 + np.abs(x))
    return np.logaddexp(0, x)


def _recurrent(op_type: str, inputs: list[Optional[np.ndarray]], args: dict,
               outputs: int) -> list[np.ndarray]:
    inputs = list(inputs) + [None] * (8 - len(inputs))
    x, w, r, bias, lengths, h0, c0, peep = (
        None if a is None else np.asarray(a, np.float64) for a in inputs)
    hidden = int(args["hidden_size"])
    direction = int(args.get("direction", 0))
    layout = int(args.get("layout", 0))
    clip = float(args.get("clip", 0.0))
    cell_clip = float(args.get("cell_clip", 0.0))
    dirs = 2 if direction == 2 else 1
    gates, count = GATES[op_type], FUNCTIONS[op_type]
    codes = args.get("gate_activations") or \
        ([1] if op_type == "RNN" else [0] + [1] * (count - 1)) * dirs
    alphas = args.get("gate_alpha") or [0.0] * len(codes)
    betas = args.get("gate_beta") or [0.0] * len(codes)
    if layout == 1:
        x = x.transpose(1, 0, 2)
        h0 = None if h0 is None else h0.transpose(1, 0, 2)
        c0 = None if c0 is None else c0.transpose(1, 0, 2)
    seq, batch, _ = x.shape
    y = np.zeros((seq, dirs, batch, hidden))
    y_h = np.zeros((dirs, batch, hidden))
    y_c = np.zeros((dirs, batch, hidden))
    steps = np.full(batch, seq) if lengths is None else lengths.astype(np.int64)
    for d in range(dirs):
        def f(k, v, d=d):
            if clip > 0:
                v = np.clip(v, -clip, clip)
            i = d * count + k
            return gate_function(int(codes[i]), float(alphas[i]), float(betas[i]), v)
        wd, rd = w[d], r[d]
        wb, rb = ((bias[d][:gates * hidden], bias[d][gates * hidden:]) if bias is not None
                  else (np.zeros(gates * hidden), np.zeros(gates * hidden)))
        reverse = direction == 1 or d == 1
        for b in range(batch):
            length = int(steps[b])
            h = np.zeros(hidden) if h0 is None else h0[d, b].copy()
            c = np.zeros(hidden) if c0 is None else c0[d, b].copy()
            for s in range(length):
                t = length - 1 - s if reverse else s
                xw = wd @ x[t, b] + wb
                if op_type == "RNN":
                    h = f(0, xw + rd @ h + rb)
                elif op_type == "GRU":
                    hr = rd @ h + rb
                    n = hidden
                    z = f(0, xw[:n] + hr[:n])
                    reset = f(0, xw[n:2 * n] + hr[n:2 * n])
                    if int(args.get("linear_before_reset", 0)):
                        cand = f(1, xw[2 * n:] + reset * hr[2 * n:])
                    else:
                        cand = f(1, xw[2 * n:] + rd[2 * n:] @ (reset * h) + rb[2 * n:])
                    h = (1 - z) * cand + z * h
                else:
                    g = xw + rd @ h + rb
                    n = hidden
                    p = np.zeros(3 * n) if peep is None else peep[d]
                    i_gate = f(0, g[:n] + p[:n] * c)
                    f_gate = 1 - i_gate if int(args.get("input_forget", 0)) else \
                        f(0, g[2 * n:3 * n] + p[2 * n:] * c)
                    c = f_gate * c + i_gate * f(1, g[3 * n:])
                    if cell_clip > 0:
                        c = np.clip(c, -cell_clip, cell_clip)
                    o_gate = f(0, g[n:2 * n] + p[n:2 * n] * c)
                    code = d * count + 2
                    h = o_gate * gate_function(int(codes[code]), float(alphas[code]),
                                               float(betas[code]), c)
                y[t, d, b] = h
            y_h[d, b], y_c[d, b] = h, c
    if layout == 1:
        y = y.transpose(2, 0, 1, 3)
        y_h, y_c = y_h.transpose(1, 0, 2), y_c.transpose(1, 0, 2)
    return [y, y_h, y_c][:outputs]


@kernel("LSTM")
def lstm(inputs, args, outputs):
    return _recurrent("LSTM", inputs, args, outputs)


@kernel("GRU")
def gru(inputs, args, outputs):
    return _recurrent("GRU", inputs, args, outputs)


@kernel("RNN")
def rnn(inputs, args, outputs):
    return _recurrent("RNN", inputs, args, outputs)
