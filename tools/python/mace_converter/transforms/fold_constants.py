"""Evaluates ops whose inputs are all constants with the numpy kernels and
replaces them by the constants they produce."""
from __future__ import annotations

import numpy as np

from mace_converter.api import ConversionError
from mace_converter.ir import Graph
from mace_converter.numpy_ops import KERNELS


def fold_constants(graph: Graph) -> int:
    folded = 0
    for op in list(graph.ops):
        if not op.inputs or not all(name and graph.is_const(name) for name in op.inputs):
            continue
        if any(out in graph.outputs for out in op.outputs) or op.type not in KERNELS:
            continue
        operands = [graph.const(name) for name in op.inputs]
        try:
            results = KERNELS[op.type](operands, op.args, len(op.outputs))
        except Exception as error:  # a malformed op: report it, do not crash
            raise ConversionError(f"{op.describe()}: cannot evaluate constant op: "
                                  f"{error}") from error
        graph.remove_op(op)
        for name, value in zip(op.outputs, results):
            value = np.asarray(value)
            if value.dtype.kind == "f":
                value = value.astype(np.float32)
            graph.add_const(name, value, exact_name=True)
        folded += 1
    if folded:
        graph.log.append(f"folded {folded} constant op(s)")
    return folded
