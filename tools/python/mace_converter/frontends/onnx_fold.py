"""Evaluates one ONNX node on constant inputs with ONNX's reference
implementation (onnx.reference), keeping ONNX's own element types so that
int64 shape arithmetic stays exact."""
from __future__ import annotations

from typing import Any

import numpy as np

from mace_converter.api import ConversionError


def evaluate(node: Any, values: dict[str, np.ndarray], opset: int) -> list[np.ndarray]:
    from onnx import TypeProto, helper
    from onnx.reference import ReferenceEvaluator

    inputs, feeds = [], {}
    for name in node.input:
        if not name or name in feeds:
            continue
        value = np.asarray(values[name])
        element = helper.np_dtype_to_tensor_dtype(value.dtype)
        inputs.append(helper.make_tensor_value_info(name, element, list(value.shape)))
        feeds[name] = value
    outputs = [helper.make_value_info(name, TypeProto()) for name in node.output if name]
    graph = helper.make_graph([node], "fold", inputs, outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    try:
        results = ReferenceEvaluator(model).run(None, feeds)
    except Exception as error:
        raise ConversionError(f"cannot evaluate it on its constant inputs: {error}") from error
    return [np.asarray(r) for r in results]
