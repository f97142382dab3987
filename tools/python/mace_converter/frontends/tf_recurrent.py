"""TensorFlow converters: BlockLSTM and BlockLSTMV2, each one MACE LSTM op
(docs/reference/ops/recurrent.md) with TensorFlow's weights rearranged into ONNX's
layout, followed by a Reshape from [T, 1, N, H] to TensorFlow's [T, N, H].

TensorFlow's cell (both versions): with z = [x_t, h] w + b split into four
blocks of H, i = sigmoid(z_i + wci * c), f = sigmoid(z_f + forget_bias +
wcf * c), c' = i * tanh(z_ci) + f * c, bounded to +-cell_clip when cell_clip
is positive, o = sigmoid(z_o + wco * c') and h' = o * tanh(c'). BlockLSTM
orders the blocks i, ci, f, o and adds forget_bias (default 1) and clips at
3 by default; BlockLSTMV2 orders them i, f, ci, o, has no forget_bias and
clips only when asked. Steps from seq_len_max on give zeros.

GRUBlockCell, one step of TensorFlow's GRU cell, is one MACE GRU op over a
sequence of one step (ONNX's GRU without linear_before_reset): r and u from
[x, h] w_ru + b_ru, c = tanh([x, r * h] w_c + b_c), h' = u * h + (1 - u) * c.
"""
from __future__ import annotations

import numpy as np

from mace_converter.frontends.tensorflow_frontend import TfNode
from mace_converter.frontends.tf_ops import converter

# Output names of BlockLSTM, by index.
_OUTPUTS = ("i", "cs", "f", "o", "ci", "co", "h")
_CS, _H = 1, 6
# Where each of the engine's gates (i, o, f, c) sits in TensorFlow's w and b.
_BLOCKS = {"BlockLSTM": {"i": 0, "c": 1, "f": 2, "o": 3},
           "BlockLSTMV2": {"i": 0, "f": 1, "c": 2, "o": 3}}
_ENGINE_GATES = "iofc"


def _output_name(node: TfNode, index: int) -> str:
    return node.name if index == 0 else f"{node.name}:{index}"


def _used(node: TfNode, names: tuple[str, ...], supported: tuple[int, ...]) -> list[int]:
    """The indices of the outputs the graph reads; refuses any outside
    `supported`."""
    used = [k for k in range(len(names)) if _output_name(node, k) in node.importer.consumed]
    unsupported = [names[k] for k in used if k not in supported]
    if unsupported:
        supported_names = " and ".join(names[k] for k in supported)
        verb = "is" if len(supported) == 1 else "are"
        raise node.fail(f"output(s) {', '.join(unsupported)} are read by the graph; only "
                        f"{supported_names} {verb} supported")
    return used


def _state(node: TfNode, index: int, what: str, batch: int, hidden: int) -> str:
    """cs_prev or h_prev ([N, H]) as the engine's [1, N, H] state."""
    shape = tuple(node.shape(index))
    if shape != (batch, hidden):
        raise node.fail(f"{what} has shape {list(shape)} but needs [{batch}, {hidden}]")
    if node.is_const(index):
        value = node.const(index, what).astype(np.float32).reshape(1, batch, hidden)
        return node.weight(node.inputs[index], value)
    return node.emit("Reshape", [node.tf(index)], {"shape": [1, batch, hidden]}).outputs[0]


@converter("BlockLSTM", "BlockLSTMV2")
def block_lstm(node: TfNode) -> None:
    used = _used(node, _OUTPUTS, (_H, _CS))
    x_shape = tuple(node.shape(1))
    if len(x_shape) != 3:
        raise node.fail(f"x has shape {list(x_shape)} but needs rank 3 [time, batch, input]")
    steps, batch, size = x_shape
    if _CS in used and steps != 1:
        raise node.fail(f"output cs (the cell state of every step) is read by the graph and x "
                        f"has {steps} steps; the engine's LSTM gives the cell state of the last "
                        "step only, so cs is supported for one step only")
    w = node.const(4, "w").astype(np.float64)
    hidden = w.shape[1] // 4 if w.ndim == 2 else 0
    if w.ndim != 2 or w.shape != (size + hidden, 4 * hidden) or hidden == 0:
        raise node.fail(f"w has shape {list(w.shape)}, which does not fit input size {size} "
                        "as [input + H, 4 H]")
    b = node.const(8, "b").astype(np.float64).reshape(-1)
    if b.shape != (4 * hidden,):
        raise node.fail(f"b has {b.size} values but needs {4 * hidden}")
    blocks = _BLOCKS[node.op_type]
    columns = np.concatenate([np.arange(blocks[g] * hidden, (blocks[g] + 1) * hidden)
                              for g in _ENGINE_GATES])
    forget_bias = float(node.attr("forget_bias", 1.0)) if node.op_type == "BlockLSTM" else 0.0
    bias = b[columns]
    bias[2 * hidden:3 * hidden] += forget_bias       # the engine's f block
    wx, wh = w[:size, columns], w[size:, columns]
    inputs = [node.tf(1),
              node.weight(node.inputs[4] + "/W", wx.T[None].astype(np.float32)),
              node.weight(node.inputs[4] + "/R", wh.T[None].astype(np.float32)),
              node.weight(node.inputs[8] + "/B", np.concatenate(
                  [bias, np.zeros(4 * hidden)])[None].astype(np.float32))]
    limit = int(np.asarray(node.const(0, "seq_len_max")).reshape(-1)[0])
    if not 1 <= limit <= steps:
        raise node.fail(f"seq_len_max {limit} must lie in 1 to the {steps} steps of x")
    inputs.append("" if limit == steps else
                  node.weight(node.inputs[0] + "/lengths", np.full(batch, limit, np.float32)))
    inputs.append(_state(node, 3, "h_prev", batch, hidden))
    inputs.append(_state(node, 2, "cs_prev", batch, hidden))
    args = {"hidden_size": hidden}
    default_clip = 3.0 if node.op_type == "BlockLSTM" else 0.0
    cell_clip = float(node.attr("cell_clip", default_clip))
    if cell_clip > 0:
        args["cell_clip"] = cell_clip
    if node.attr("use_peephole", False):
        peepholes = []
        for index, what in ((5, "wci"), (7, "wco"), (6, "wcf")):   # the engine's i, o, f
            value = node.const(index, what).astype(np.float32).reshape(-1)
            if value.shape != (hidden,):
                raise node.fail(f"{what} has {value.size} values but needs {hidden}")
            peepholes.append(value)
        inputs.append(node.weight(node.name + "/P", np.concatenate(peepholes)[None]))
    sequence = node.graph.unique_name(f"{node.name}/sequence")
    outputs = [sequence]
    if _CS in used:
        outputs += [node.graph.unique_name(f"{node.name}/last_h"), _output_name(node, _CS)]
    node.emit("LSTM", inputs, args, outputs=outputs)
    if _H in used or not used:
        node.emit("Reshape", [sequence], {"shape": [steps, batch, hidden]},
                  outputs=[_output_name(node, _H)])


_GRU_OUTPUTS = ("r", "u", "c", "h")


def _gru_weight(node: TfNode, index: int, what: str, rows: int, columns: int) -> np.ndarray:
    value = node.const(index, what).astype(np.float64)
    if value.shape != ((rows, columns) if rows else (columns,)):
        wanted = f"[{rows}, {columns}]" if rows else f"[{columns}]"
        raise node.fail(f"{what} has shape {list(value.shape)} but needs {wanted}")
    return value


@converter("GRUBlockCell")
def gru_block_cell(node: TfNode) -> None:
    _used(node, _GRU_OUTPUTS, (3,))
    x_shape = tuple(node.shape(0))
    if len(x_shape) != 2:
        raise node.fail(f"x has shape {list(x_shape)} but needs rank 2 [batch, input]")
    batch, size = x_shape
    b_c = node.const(5, "b_c").reshape(-1)
    hidden = b_c.size
    w_ru = _gru_weight(node, 2, "w_ru", size + hidden, 2 * hidden)
    w_c = _gru_weight(node, 3, "w_c", size + hidden, hidden)
    b_ru = _gru_weight(node, 4, "b_ru", 0, 2 * hidden)
    # The engine's gates z (TensorFlow's u), r and the candidate h.
    weights = np.concatenate([w_ru[:, hidden:], w_ru[:, :hidden], w_c], axis=1)
    bias = np.concatenate([b_ru[hidden:], b_ru[:hidden], b_c, np.zeros(3 * hidden)])
    x = node.emit("Reshape", [node.tf(0)], {"shape": [1, batch, size]}).outputs[0]
    inputs = [x, node.weight(node.inputs[2] + "/W", weights[:size].T[None].astype(np.float32)),
              node.weight(node.inputs[3] + "/R", weights[size:].T[None].astype(np.float32)),
              node.weight(node.inputs[4] + "/B", bias[None].astype(np.float32)), "",
              _state(node, 1, "h_prev", batch, hidden)]
    sequence = node.graph.unique_name(f"{node.name}/sequence")
    node.emit("GRU", inputs, {"hidden_size": hidden}, outputs=[sequence])
    node.emit("Reshape", [sequence], {"shape": [batch, hidden]},
              outputs=[_output_name(node, 3)])
