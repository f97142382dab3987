"""Shape rule of the recurrent ops LSTM, GRU and RNN (registered into
shape_inference on import)."""
from __future__ import annotations

from mace_converter.shape_inference import _rank, fail, rule

_GATES = {"LSTM": 4, "GRU": 3, "RNN": 1}


@rule("LSTM", "GRU", "RNN")
def _recurrent(op, shapes, graph):
    x, w, r = shapes[0], shapes[1], shapes[2]
    _rank(op, x, 3, "X")
    hidden = int(op.args["hidden_size"])
    dirs = 2 if int(op.args.get("direction", 0)) == 2 else 1
    layout = int(op.args.get("layout", 0))
    seq, batch = (x[0], x[1]) if layout == 0 else (x[1], x[0])
    gates = _GATES[op.type]
    if tuple(w) != (dirs, gates * hidden, x[2]) or tuple(r) != (dirs, gates * hidden, hidden):
        raise fail(op, f"W {list(w)} and R {list(r)} do not fit X {list(x)}, hidden_size "
                       f"{hidden} and {dirs} direction(s)")
    state = (dirs, batch, hidden) if layout == 0 else (batch, dirs, hidden)
    y = (seq, dirs, batch, hidden) if layout == 0 else (batch, seq, dirs, hidden)
    return [y] + [state] * (len(op.outputs) - 1)
