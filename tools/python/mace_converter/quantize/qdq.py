"""Recognizes ONNX models that are already quantized. The QDQ nodes
themselves are read by frontends/onnx_qdq.py."""
from __future__ import annotations

from pathlib import Path

QDQ_OPS = ("QuantizeLinear", "DequantizeLinear")


def is_qdq_model(path: Path) -> bool:
    try:
        import onnx
        model = onnx.load(str(path), load_external_data=False)
    except Exception:   # the frontend reports unreadable files
        return False
    return any(node.op_type in QDQ_OPS for node in model.graph.node)
