"""ONNX converters: the recurrent ops LSTM, GRU and RNN, each one MACE op
of the same name (docs/reference/ops/recurrent.md) that takes ONNX's inputs in
ONNX's order and honours every attribute."""
from __future__ import annotations

import numpy as np

from mace_converter.frontends.node import Node
from mace_converter.frontends.onnx_common import converter
from mace_converter.numpy_ops.recurrent import FUNCTIONS, GATE_FUNCTIONS, GATES

_DIRECTIONS = {"forward": 0, "reverse": 1, "bidirectional": 2}
_DEFAULTS = {"LSTM": ["Sigmoid", "Tanh", "Tanh"], "GRU": ["Sigmoid", "Tanh"], "RNN": ["Tanh"]}
# Per gate function: the defaults of the alpha and beta it reads, in the
# order it takes them from activation_alpha and activation_beta.
_PARAMETERS = {"Affine": (1.0, 0.0), "LeakyRelu": (0.01, None), "ThresholdedRelu": (1.0, None),
               "ScaledTanh": (1.0, 1.0), "HardSigmoid": (0.2, 0.5), "Elu": (1.0, None)}
_CODES = {name.lower(): code for code, name in enumerate(GATE_FUNCTIONS)}


def _gate_functions(node: Node, dirs: int) -> dict:
    count = FUNCTIONS[node.op_type]
    names = list(node.attr("activations", None) or _DEFAULTS[node.op_type] * dirs)
    if len(names) == count and dirs == 2:
        names = names * 2
    if len(names) != count * dirs:
        raise node.fail(f"activations {names} needs {count} function(s) per direction, "
                        f"{count * dirs} in all")
    alphas = [float(v) for v in node.attr("activation_alpha", None) or []]
    betas = [float(v) for v in node.attr("activation_beta", None) or []]
    # The values are consumed in order by the functions that take the
    # parameter, as ONNX says and ONNX Runtime does for LSTM and GRU; for RNN
    # ONNX Runtime reads a list of one value per function by position.
    rnn = node.op_type == "RNN"
    by_position = [rnn and len(alphas) == len(names), rnn and len(betas) == len(names)]
    codes, gate_alpha, gate_beta = [], [], []
    for index, name in enumerate(names):
        code = _CODES.get(str(name).lower())
        if code is None:
            raise node.fail(f"activation '{name}' is not one of ONNX's recurrent gate "
                            f"functions ({', '.join(GATE_FUNCTIONS)})")
        defaults = _PARAMETERS.get(GATE_FUNCTIONS[code], (None, None))
        values = []
        for default, given, positional in zip(defaults, (alphas, betas), by_position):
            if default is None:
                values.append(0.0)
            elif positional:
                values.append(given[index])
            else:
                values.append(given.pop(0) if given else default)
        alpha, beta = values
        codes.append(code)
        gate_alpha.append(alpha)
        gate_beta.append(beta)
    return {"gate_activations": codes, "gate_alpha": gate_alpha, "gate_beta": gate_beta}


def _sequence_lengths(node: Node, seq: int) -> str:
    """The sequence_lens input: "" when absent or every entry is whole, a
    float constant when constant, else the computed tensor (integer model
    inputs reach the engine as floats)."""
    if not node.has_input(4):
        return ""
    if not node.is_const(4):
        return node.tensor(4)
    lengths = np.asarray(node.const(4, "sequence_lens")).reshape(-1)
    if lengths.size and (lengths.min() < 1 or lengths.max() > seq):
        raise node.fail(f"sequence_lens {lengths.tolist()} must lie in 1 to {seq}")
    if np.all(lengths == seq):
        return ""
    return node.weight(node.inputs[4], lengths.astype(np.float32))


@converter("LSTM", "GRU", "RNN")
def recurrent(node: Node) -> None:
    op_type = node.op_type
    direction = node.attr("direction", "forward")
    if direction not in _DIRECTIONS:
        raise node.fail(f"direction '{direction}' is not forward, reverse or bidirectional")
    dirs = 2 if direction == "bidirectional" else 1
    layout = int(node.attr("layout", 0))
    if layout not in (0, 1):
        raise node.fail(f"layout {layout} must be 0 or 1")
    x_shape, r_shape = node.shape(0), node.shape(2)
    if len(x_shape) != 3 or len(r_shape) != 3:
        raise node.fail(f"X {list(x_shape)} and R {list(r_shape)} must have rank 3")
    hidden = int(node.attr("hidden_size", r_shape[2]))
    if r_shape != (dirs, GATES[op_type] * hidden, hidden):
        raise node.fail(f"R has shape {list(r_shape)}, which does not fit hidden_size {hidden} "
                        f"and {dirs} direction(s)")
    args = {"hidden_size": hidden, "direction": _DIRECTIONS[direction], "layout": layout}
    args.update(_gate_functions(node, dirs))
    if node.attr("clip") is not None:
        clip = float(node.attr("clip"))
        if not clip > 0:
            raise node.fail(f"clip {clip} must be positive")
        args["clip"] = clip
    if op_type == "LSTM" and int(node.attr("input_forget", 0)):
        args["input_forget"] = 1
    if op_type == "GRU" and int(node.attr("linear_before_reset", 0)):
        args["linear_before_reset"] = 1
    seq = x_shape[0] if layout == 0 else x_shape[1]
    inputs = [node.tensor(0), node.tensor(1), node.tensor(2)]
    optional = [node.tensor(3) if node.has_input(3) else "", _sequence_lengths(node, seq)]
    optional += [node.tensor(i) if node.has_input(i) else "" for i in
                 ((5, 6, 7) if op_type == "LSTM" else (5,))]
    while optional and not optional[-1]:
        optional.pop()
    outputs = list(node.outputs[:3 if op_type == "LSTM" else 2])
    while outputs and not outputs[-1]:
        outputs.pop()
    if not outputs:
        raise node.fail("has no outputs")
    outputs = [name or node.graph.unique_name(f"{node.name}_unused_{i}")
               for i, name in enumerate(outputs)]
    node.emit(op_type, inputs + optional, args, outputs=outputs)
