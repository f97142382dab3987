"""Integer shape arithmetic evaluated at conversion.

Models exported with open dimensions compute sizes from SHAPE with
reshapes to scalars, PACK, SPLIT_V, CONCATENATION and integer arithmetic.
An op whose inputs are all known and whose outputs are int32 or int64 is
evaluated here with numpy, as LiteRT computes it (scalars stay scalars,
which the engine's tensors cannot be), and its outputs become constants.
"""
from __future__ import annotations

from typing import Callable, Optional

import numpy as np

from mace_converter.frontends.tflite_frontend import TfliteNode
from mace_converter.frontends.tflite_model import DTYPES

_INTEGERS = (2, 4)     # int32, int64


def _axis(node: TfliteNode) -> int:
    return int(node.option("Axis", 0))


def _reshape(node: TfliteNode, values: list) -> list:
    if len(values) > 1:
        target = [int(v) for v in values[1].reshape(-1)]
    elif node.option("NewShapeLength", 0):
        target = [int(v) for v in node.option("NewShapeAsNumpy")]
    else:
        target = list(node.out_shape())
    return [values[0].reshape(target)]


def _squeeze(node: TfliteNode, values: list) -> list:
    dims = node.option("SqueezeDimsAsNumpy") if node.option("SqueezeDimsLength", 0) else None
    return [np.squeeze(values[0], None if dims is None else tuple(int(d) for d in dims))]


def _split_v(node: TfliteNode, values: list) -> list:
    x, sizes, axis = values[0], [int(v) for v in values[1].reshape(-1)], int(values[2])
    if sizes.count(-1) == 1:
        sizes[sizes.index(-1)] = x.shape[axis] - (sum(sizes) + 1)
    return np.split(x, np.cumsum(sizes)[:-1], axis=axis)


def _strided_slice(node: TfliteNode, values: list) -> Optional[list]:
    if int(node.option("EllipsisMask", 0)) or int(node.option("NewAxisMask", 0)) or \
            bool(node.option("Offset", False)):
        return None     # the op's own converter refuses these
    x = values[0]
    begin, end = values[1].reshape(-1), values[2].reshape(-1)
    strides = values[3].reshape(-1) if len(values) > 3 else np.ones_like(begin)
    masks = [int(node.option(name, 0)) for name in ("BeginMask", "EndMask", "ShrinkAxisMask")]
    index: list = []
    for axis in range(len(begin)):
        start = None if masks[0] >> axis & 1 else int(begin[axis])
        stop = None if masks[1] >> axis & 1 else int(end[axis])
        if masks[2] >> axis & 1:
            index.append(int(begin[axis]))
        else:
            index.append(slice(start, stop, int(strides[axis])))
    return [x[tuple(index)]]


def _reduce(fn: Callable) -> Callable:
    def evaluate(node: TfliteNode, values: list) -> list:
        axes = tuple(int(a) for a in np.atleast_1d(values[1]))
        return [fn(values[0], axis=axes, keepdims=bool(node.option("KeepDims", False)))]
    return evaluate


def _binary(fn: Callable) -> Callable:
    return lambda node, values: [fn(values[0], values[1])]


# Each gives the op's outputs, or None where its own converter should see it.
_EVALUATORS: dict[str, Callable[[TfliteNode, list], Optional[list]]] = {
    "RESHAPE": _reshape,
    "SQUEEZE": _squeeze,
    "EXPAND_DIMS": lambda node, v: [np.expand_dims(v[0], int(v[1].reshape(-1)[0]))],
    "PACK": lambda node, v: [np.stack(v, axis=_axis(node))],
    "CONCATENATION": lambda node, v: [np.concatenate([np.atleast_1d(a) for a in v],
                                                     axis=_axis(node))],
    "SPLIT_V": _split_v,
    "SPLIT": lambda node, v: np.split(v[1], int(node.option("NumSplits", 1)),
                                      axis=int(v[0])),
    "STRIDED_SLICE": _strided_slice,
    "GATHER": lambda node, v: [np.take(v[0], v[1], axis=_axis(node))],
    "ADD": _binary(np.add), "SUB": _binary(np.subtract), "MUL": _binary(np.multiply),
    "FLOOR_DIV": _binary(np.floor_divide), "MAXIMUM": _binary(np.maximum),
    "MINIMUM": _binary(np.minimum),
    "REDUCE_PROD": _reduce(np.prod), "SUM": _reduce(np.sum),
    "REDUCE_MAX": _reduce(np.max), "REDUCE_MIN": _reduce(np.min),
    "CAST": lambda node, v: [v[0]],
}


def evaluate(node: TfliteNode) -> Optional[list[np.ndarray]]:
    """The outputs of `node` when it is integer arithmetic on known values;
    None otherwise."""
    fn = _EVALUATORS.get(node.op_type)
    if fn is None or not node.op.outputs or int(node.option("FusedActivationFunction", 0)):
        return None
    present = [i for i in range(len(node.inputs)) if node.has_input(i)]
    if not present or not all(node.known(i) for i in present):
        return None
    kinds = [node.model.tensors[i].dtype for i in node.op.outputs]
    if any(kind not in _INTEGERS for kind in kinds):
        return None
    results = fn(node, [np.asarray(node.const(i)) for i in present])
    if results is None:
        return None
    if len(results) != len(kinds):
        raise node.fail(f"gives {len(results)} values for {len(kinds)} outputs")
    return [np.asarray(r).astype(DTYPES[k]) for r, k in zip(results, kinds)]
