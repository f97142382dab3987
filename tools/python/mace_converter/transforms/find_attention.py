"""Fuses scaled dot-product attention: MatMul(Q, K^T), an optional scalar
scale, an optional mask (Add of a tensor, or Where on a boolean), Softmax
over the last axis and MatMul with V, with Reshape or Transpose between
(the Einsum form), becomes the engine's Attention op. The Reshape and
Transpose ops that split Q, K and V into heads and merge the heads of the
result are taken into the op's layouts (transforms/attention_layouts.py).
A QDQ model's fake quantization (a QuantizeLinear with `dequantize`,
transforms/fuse_fake_quantize.py) of the Softmax's input or output, per
tensor to an integer type, becomes the op's `scores_quant` or
`probs_quant`.

A subgraph that has the shape of attention but does not fit the op (a mask
before the scale, quantization elsewhere among the scores or a Transpose
among them, an intermediate read elsewhere, unknown shapes) is counted in
the conversion log and left as it is."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from mace_converter.ir import Graph, Op, Tensor
from mace_converter.numpy_ops.attention import MERGED, PER_HEAD, TRANSPOSED, output_shape
from mace_converter.numpy_ops.nn import QUANTIZED_RANGES
from mace_converter.numpy_ops.tensor import DIV, PROD, SUM
from mace_converter.transforms.attention_layouts import trace_input, trace_output
from mace_converter.transforms.pattern import (Matcher, is_scalar, known_shape, log_counts,
                                               plain_eltwise, replace_ops, scalar_operand)

# Data movement, and the quantize-dequantize pairs of a QDQ model, which
# the engine runs as they are.
MOVES = ("Reshape", "Transpose", "Identity", "ExpandDims", "Squeeze", "QuantizeLinear",
         "DequantizeLinear")
# The moves that keep the scores' element order.
ORDER_KEEPING = ("Reshape", "Identity", "ExpandDims", "Squeeze")


@dataclass
class Found:
    """One attention subgraph: its kind for the log and what fusing needs."""
    kind: str
    scores: Op
    context: Op
    softmax: Op
    ops: list[Op] = field(default_factory=list)  # scores to context, both included
    scale: float = 1.0
    mask: Optional[str] = None
    mask_kind: str = "add"
    fill: float = 0.0
    fits: bool = True  # whether the Attention op can take it
    # (scale, zero point, low, high) of the Softmax's input and output.
    scores_quant: Optional[list[float]] = None
    probs_quant: Optional[list[float]] = None


# The engine's bound on a fake quantization's zero point and range.
_LARGEST_QUANT_BOUND = 65536


def _fake_quant(m: Matcher, op: Optional[Op]) -> Optional[list[float]]:
    """(scale, zero point, low, high) if `op` fake-quantizes its input per
    tensor to an integer type as the Attention op can, else None."""
    if op is None or op.type != "QuantizeLinear" or not int(op.args.get("dequantize", 0)) \
            or op.args.get("to", "UINT8") not in QUANTIZED_RANGES:
        return None
    graph = m.graph
    operands = op.inputs[1:3]
    if not all(graph.is_const(name) and graph.const(name).size == 1 for name in operands if name):
        return None
    scale = float(np.float32(graph.const(operands[0]).reshape(-1)[0]))
    zero_point = float(graph.const(operands[1]).reshape(-1)[0]) \
        if len(operands) > 1 and operands[1] else 0.0
    low, high = QUANTIZED_RANGES[op.args.get("to", "UINT8")]
    if not (np.isfinite(scale) and scale > 0 and zero_point == round(zero_point)
            and low <= zero_point <= high
            and max(-low, high) <= _LARGEST_QUANT_BOUND):
        return None
    return [scale, zero_point, float(low), float(high)]


def _through_moves_back(m: Matcher, name: str, found: Found) -> Optional[Op]:
    op = m.producers.get(name)
    while op is not None and op.type in MOVES:
        found.ops.append(op)
        found.fits &= op.type in ORDER_KEEPING
        op = m.producers.get(op.inputs[0])
    return op


def _past_nan_guard(m: Matcher, name: str, found: Found) -> str:
    """The output of Where(IsNaN(p), 0, p) around `name`, the guard the
    PyTorch exporter writes after a Softmax of a fully masked row."""
    readers = m.readers(name)
    wheres = [op for op in readers if op.type == "Where" and op.inputs[2] == name]
    checks = [op for op in readers if op.type == "Compare" and op.inputs == [name, name]]
    if len(readers) != 2 or len(wheres) != 1 or len(checks) != 1:
        return name
    where, check = wheres[0], checks[0]
    found.ops += [where, check]
    # Equal(p, p) then Not is IsNaN written with comparisons.
    negation = m.readers(check.outputs[0])
    if len(negation) == 1 and negation[0].type == "Compare" \
            and negation[0].args.get("type") in ("not", b"not") \
            and negation[0].outputs[0] == where.inputs[0]:
        found.ops.append(negation[0])
    return where.outputs[0]


def _mask_of_where(m: Matcher, where: Op, found: Found) -> Optional[Op]:
    """The scores' side of the mask's Where; sets the mask, its kind and fill."""
    first, second = (m.producers.get(n) for n in where.inputs[1:])
    scores_index = 1 if second is None or m.graph.is_const(where.inputs[2]) else 2
    fill_name = where.inputs[3 - scores_index]
    found.mask = where.inputs[0]
    found.mask_kind = "keep_nonzero" if scores_index == 1 else "keep_zero"
    if m.graph.is_const(fill_name) and m.graph.const(fill_name).size == 1:
        found.fill = float(m.graph.const(fill_name).reshape(-1)[0])
    else:
        found.fits = False
    return first if scores_index == 1 else second


def _classify(m: Matcher, softmax: Op) -> Optional[Found]:
    """The attention around the Softmax `softmax`, or None if it is none."""
    shape = known_shape(m.graph, softmax.inputs[0])
    if shape is None:
        return None
    rank = len(shape)
    if int(softmax.args.get("axis", -1)) % rank != rank - 1 or softmax.args.get("use_log"):
        return None
    found = Found("", softmax, softmax, softmax, [softmax])
    name = _past_nan_guard(m, softmax.outputs[0], found)
    readers = m.readers(name)
    if len(readers) == 1 and _fake_quant(m, readers[0]) is not None:
        found.probs_quant = _fake_quant(m, readers[0])
        found.ops.append(readers[0])
        name = readers[0].outputs[0]
        readers = m.readers(name)
    while len(readers) == 1 and readers[0].type in MOVES:
        found.ops.append(readers[0])
        found.fits &= readers[0].type in ORDER_KEEPING
        name = readers[0].outputs[0]
        readers = m.readers(name)
    after = readers[0] if len(readers) == 1 else None
    if after is None or after.type != "MatMul":
        return None
    found.fits &= after.inputs[0] == name and after.inputs[1] != name
    found.context = after
    mask = "no mask"
    scores = softmax.inputs[0]
    producer = m.producers.get(scores)
    if _fake_quant(m, producer) is not None:
        found.scores_quant = _fake_quant(m, producer)
        found.ops.append(producer)
        scores = producer.inputs[0]
    op = _through_moves_back(m, scores, found)
    if op is not None and op.type == "Where" and len(op.inputs) == 3:
        mask = "boolean mask"
        found.ops.append(op)
        op = _mask_of_where(m, op, found)
    elif plain_eltwise(op, SUM) and len(op.inputs) == 2:
        mask = "additive mask"
        found.ops.append(op)
        first, second = (m.producers.get(n) for n in op.inputs)
        scores_first = first is not None and first.type in ("MatMul", "Eltwise") + MOVES
        found.mask = op.inputs[1] if scores_first else op.inputs[0]
        op = first if scores_first else second
    scaled = is_scalar(m.graph, op, DIV, None) or is_scalar(m.graph, op, PROD, None)
    if scaled:
        value = scalar_operand(m.graph, op)[1]
        found.scale = 1.0 / value if int(op.args["type"]) == DIV else value
        found.ops.append(op)
        op = m.producers.get(op.inputs[0])
    while op is not None and op.type in MOVES:
        found.ops.append(op)
        found.fits &= op.type in ORDER_KEEPING
        op = m.producers.get(op.inputs[0])
    if op is None or op.type != "MatMul":
        return None
    found.scores = op
    found.ops += [op, after]
    einsum = any(" Einsum node " in o.origin for o in (op, after))
    quantized = found.scores_quant is not None or found.probs_quant is not None
    found.kind = f"attention(s) ({mask}{', Einsum' if einsum else ''}" \
        f"{', fake-quantized softmax' if quantized else ''})"
    return found


def _reads_inside(m: Matcher, found: Found) -> bool:
    """Whether every intermediate of the match is read only by the match."""
    inside = {id(op) for op in found.ops}
    for op in found.ops:
        if op is found.context:
            continue
        for out in op.outputs:
            if out in m.graph.outputs:
                return False
            if any(id(reader) not in inside for reader in m.readers(out)):
                return False
    return True


def _plain_matmul(op: Op) -> bool:
    return not any(op.args.get(flag) for flag in ("transpose_a", "transpose_b"))


def _fuse(m: Matcher, found: Found) -> bool:
    """Replaces the match with an Attention op; False when it does not fit."""
    graph = m.graph
    scores_shape = known_shape(graph, found.softmax.inputs[0])
    q_shape, kt_shape, v_shape = (known_shape(graph, n) for n in
                                  found.scores.inputs + found.context.inputs[1:])
    if not found.fits or len(scores_shape) != 4 or None in (q_shape, kt_shape, v_shape) \
            or not (_plain_matmul(found.scores) and _plain_matmul(found.context)) \
            or not _reads_inside(m, found):
        return False
    batch, heads, q_len, kv_len = scores_shape
    pairs = batch * heads
    for shape in (q_shape, kt_shape, v_shape, known_shape(graph, found.context.outputs[0])):
        if len(shape) < 2 or int(np.prod(shape[:-2])) != pairs:
            return False
    depth, v_depth = q_shape[-1], v_shape[-1]
    if kt_shape[-2:] != (depth, kv_len) or q_shape[-2] != q_len or v_shape[-2] != kv_len:
        return False
    if found.mask is not None:
        mask_shape = known_shape(graph, found.mask)
        masked = [op for op in found.ops if op.type in ("Where", "Eltwise")
                  and found.mask in op.inputs]
        if mask_shape is None or len(mask_shape) > 4 or not masked \
                or known_shape(graph, masked[0].outputs[0]) != scores_shape:
            return False
    q = trace_input(m, found.scores.inputs[0], (batch, heads, q_len, depth), False,
                    (PER_HEAD, MERGED))
    k = trace_input(m, found.scores.inputs[1], (batch, heads, kv_len, depth), True,
                    (PER_HEAD, MERGED, TRANSPOSED))
    v = trace_input(m, found.context.inputs[1], (batch, heads, kv_len, v_depth), False,
                    (PER_HEAD, MERGED), scalars=False)
    out = trace_output(m, found.context.outputs[0], (batch, heads, q_len, v_depth))
    if q is None or k is None or v is None or out is None:
        return False
    layouts = [q[1], k[1], v[1], out[1]]
    scale = found.scale * q[3] * k[3]
    args = {"layouts": layouts, "scale": float(np.float32(scale))}
    if MERGED in layouts:
        args["heads"] = heads
    inputs = [q[0], k[0], v[0]]
    if found.mask is not None:
        inputs.append(found.mask)
        args["mask"] = found.mask_kind
        if found.mask_kind != "add":
            args["fill"] = found.fill
    if found.scores_quant is not None:
        args["scores_quant"] = found.scores_quant
    if found.probs_quant is not None:
        args["probs_quant"] = found.probs_quant
    natural = output_shape((batch, heads, q_len, depth) if layouts[0] == PER_HEAD
                           else (batch, q_len, heads * depth),
                           (batch, heads, kv_len, v_depth), [layouts[0], PER_HEAD, PER_HEAD,
                                                             layouts[3]], heads)
    dest = out[0]
    dest_shape = known_shape(graph, dest)
    result = dest if dest_shape == natural else \
        graph.unique_name(found.context.name + "/attention")
    name = graph.unique_op_name(found.softmax.name + "/attention")
    new = Op("Attention", name, inputs, [result], args, found.softmax.origin)
    matched = found.ops + q[2] + k[2] + v[2] + out[2]
    replace_ops(graph, matched, new)
    if result != dest:
        graph.tensors[result] = Tensor(result, natural)
        graph.tensors[dest] = Tensor(dest, dest_shape)
        reshape = Op("Reshape", graph.unique_op_name(name + "/reshape"), [result], [dest],
                     {"shape": list(dest_shape)}, found.softmax.origin)
        graph.ops.insert(graph.ops.index(new) + 1, reshape)
    return True


def find_attention(graph: Graph) -> int:
    """Fuses the attentions that fit the Attention op; returns how many."""
    m = Matcher(graph)
    found = [f for f in (_classify(m, op) for op in list(graph.ops) if op.type == "Softmax")
             if f is not None]
    fused: dict[str, int] = {}
    left: dict[str, int] = {}
    for match in found:
        counts = fused if _fuse(m, match) else left
        counts[match.kind] = counts.get(match.kind, 0) + 1
    log_counts(graph, "fused", fused)
    log_counts(graph, "found", {f"{k}, left unfused": v for k, v in left.items()})
    return sum(fused.values())
