"""TFLite's real FFT and the ops that read its complex64 output.

MACE tensors hold no complex numbers, so RFFT2D becomes constant DFT
matrices: a complex tensor is carried as two float tensors, its real and
imaginary parts (TfliteImporter.complex), and its readers combine them:
COMPLEX_ABS as sqrt(re^2 + im^2), REAL and IMAG as the part they name, CAST
to a real type as LiteRT's does (the real part, converted), the
reshapes (which TFLiteConverter writes around RFFT2D) as the same reshape of
each part. A complex tensor read by any other op, or asked for as a graph
output, is refused.

RFFT2D of x [..., H, W] with fft_length [L0, L1] crops or zero-pads the last
two axes to L0 x L1 and gives [..., L0, L1 // 2 + 1]:
  stage 1, over W: one FullyConnected with the columns cos(2 pi j k / L1)
    and -sin(2 pi j k / L1) gives both parts;
  stage 2, over H when L0 > 1: a complex DFT of the parts, one
    FullyConnected of the rows [re | im] with the block matrix
    [[C, -S], [S, C]] (C and S the cos and sin of 2 pi i m / L0).
"""
from __future__ import annotations

import copy
from typing import Callable

import numpy as np

from mace_converter.api import ConversionError
from mace_converter.frontends.tflite_frontend import TfliteNode
from mace_converter.frontends.tflite_model import TYPE_NAMES
from mace_converter.frontends.tflite_ops import CONVERTERS, converter
from mace_converter.frontends.tflite_tensor import CAST_TYPES
from mace_converter.numpy_ops.tensor import POW, PROD, SUM
from mace_converter.shape_rules import TRANSPOSE_PERM

COMPLEX_TYPES = (8, 11)     # complex64, complex128
# Ops that take the parts of a complex input one by one (reshapes).
_PER_PART = ("RESHAPE", "SQUEEZE", "EXPAND_DIMS")
READERS = ("COMPLEX_ABS", "REAL", "IMAG", "CAST") + _PER_PART


def _is_complex(node: TfliteNode, tensor: int) -> bool:
    return tensor >= 0 and node.model.tensors[tensor].dtype in COMPLEX_TYPES


def complex_converter(node: TfliteNode) -> Callable[[TfliteNode], None] | None:
    """The converter of an op that reads a complex tensor; None when it
    reads none. Ops other than READERS are refused."""
    read = sorted({i for i in node.op.inputs if _is_complex(node, i)})
    if not read:
        return None
    names = ", ".join(f"'{node.importer.names[i]}'" for i in read)
    if node.op_type not in READERS:
        raise node.fail(f"reads the complex64 tensor {names}; MACE tensors hold no complex "
                        f"numbers, and only {', '.join(READERS)} may read RFFT2D's output")
    if node.op_type in _PER_PART:
        return _per_part
    if node.op_type == "CAST":
        return _cast
    return None


def check_outputs(importer, wanted: list[int]) -> None:
    """Refuses a requested graph output that is a complex tensor."""
    producer = {out: op for op in importer.model.operators for out in op.outputs}
    for index in wanted:
        tensor = importer.model.tensors[index]
        if tensor.dtype not in COMPLEX_TYPES:
            continue
        op = producer.get(index)
        where = f"TFLite {op.op_type} operator {op.index} " if op else ""
        raise ConversionError(
            f"{where}(output '{importer.names[index]}') in {importer.path.name}: the output is "
            f"{tensor.type_name}; MACE tensors hold no complex numbers: output COMPLEX_ABS, "
            "REAL or IMAG of it")


def parts(node: TfliteNode, index: int) -> tuple[str, str]:
    """The real and imaginary IR tensors of complex input `index`."""
    found = node.importer.complex.get(node.inputs[index])
    if found is None:
        raise node.fail(f"input '{node.inputs[index]}' is complex but no RFFT2D computed it")
    return found


def _name(node: TfliteNode, part: str) -> str:
    return node.graph.unique_name(f"{node.outputs[0]}/{part}")


def _per_part(node: TfliteNode) -> None:
    """A reshape of a complex tensor: the same converter on each part."""
    results = []
    for part, source in zip(("real", "imag"), parts(node, 0)):
        twin = copy.copy(node)
        twin.inputs = [source] + node.inputs[1:]
        twin.outputs = [_name(node, part)]
        CONVERTERS[node.op_type](twin)
        results.append(twin.outputs[0])
    node.importer.complex[node.outputs[0]] = (results[0], results[1])


def _angles(count_in: int, length: int) -> np.ndarray:
    """2 pi j k / length for j < count_in (rows) and k < length (columns),
    reduced modulo length first so large products stay exact."""
    j = np.arange(count_in, dtype=np.int64)[:, None]
    k = np.arange(length, dtype=np.int64)[None, :]
    return 2.0 * np.pi * ((j * k) % length) / length


def _cos_sin(count_in: int, length: int, columns: int) -> tuple[np.ndarray, np.ndarray]:
    angles = _angles(count_in, length)[:, :columns]
    cos, sin = np.cos(angles), np.sin(angles)
    # Exact zeros where the angle is a multiple of pi / 2.
    cos[np.abs(cos) < 1e-9] = 0.0
    sin[np.abs(sin) < 1e-9] = 0.0
    return cos, sin


def _crop(node: TfliteNode, source: str, axis: int, size: int) -> str:
    if node.graph.shape(source)[axis] <= size:
        return source
    return node.emit("Slice", [source], {"starts": [0], "ends": [size], "axes": [axis],
                                         "steps": [1]}).outputs[0]


def _product(node: TfliteNode, rows: str, matrix: np.ndarray, tag: str) -> list[str]:
    """rows [R, n] times `matrix` [n, 2m], split into two [R, m] halves."""
    weight = node.weight(f"{node.name}/{tag}", matrix.T.astype(np.float32))
    product = node.emit("FullyConnected", [rows, weight]).outputs[0]
    half = matrix.shape[1] // 2
    return node.emit("Split", [product], {"axis": 1, "split": [half, half]}, count=2).outputs


def _reshape(node: TfliteNode, source: str, shape: list[int]) -> str:
    return node.emit("Reshape", [source], {"shape": shape}).outputs[0]


@converter("RFFT2D")
def rfft2d(node: TfliteNode) -> None:
    shape = list(node.tf_shape(0))
    lengths = [int(v) for v in node.const(1, "fft_length").reshape(-1)]
    if len(shape) < 2 or len(lengths) != 2 or min(lengths) < 1:
        raise node.fail(f"fft_length {lengths} for an input of shape {shape}: it needs two "
                        "positive lengths and an input of rank 2 or more")
    if node.model.tensors[node.op.inputs[0]].dtype != 0:
        raise node.fail("the input must be float32")
    rows_len, width = lengths
    bins = width // 2 + 1
    lead = shape[:-2]
    batch = int(np.prod(lead)) if lead else 1
    x = _crop(node, _crop(node, node.tf(0), len(shape) - 2, rows_len), len(shape) - 1, width)
    height, used = node.graph.shape(x)[-2:]
    # Stage 1, the last axis: [B*H, W] x [W, 2 * bins].
    cos, sin = _cos_sin(used, width, bins)
    flat = _reshape(node, x, [batch * height, used])
    re, im = _product(node, flat, np.concatenate([cos, -sin], axis=1), "rdft")
    if rows_len > 1:
        re, im = _columns(node, re, im, batch, height, rows_len, bins)
    out = lead + [rows_len, bins]
    node.importer.complex[node.outputs[0]] = (
        node.emit("Reshape", [re], {"shape": out}, outputs=[_name(node, "real")]).outputs[0],
        node.emit("Reshape", [im], {"shape": out}, outputs=[_name(node, "imag")]).outputs[0])


def _columns(node: TfliteNode, re: str, im: str, batch: int, height: int, length: int,
             bins: int) -> tuple[str, str]:
    """Stage 2: the complex DFT of length `length` over the H axis of the
    parts [B*H, bins]; the parts [B*length, bins]."""
    stacked = node.emit("Concat", [_reshape(node, re, [batch, height, bins]),
                                   _reshape(node, im, [batch, height, bins])],
                        {"axis": 1}).outputs[0]                       # [B, 2H, bins]
    moved = node.emit("Transpose", [stacked], {TRANSPOSE_PERM: [0, 2, 1]}).outputs[0]
    flat = _reshape(node, moved, [batch * bins, 2 * height])
    cos, sin = _cos_sin(height, length, length)
    # [re | im] x [[C, -S], [S, C]]: re' = re C + im S, im' = im C - re S.
    matrix = np.block([[cos, -sin], [sin, cos]])
    re2, im2 = _product(node, flat, matrix, "dft")                   # [B*bins, length]
    halves = []
    for part in (re2, im2):
        back = node.emit("Transpose", [_reshape(node, part, [batch, bins, length])],
                         {TRANSPOSE_PERM: [0, 2, 1]}).outputs[0]
        halves.append(_reshape(node, back, [batch * length, bins]))
    return halves[0], halves[1]


@converter("COMPLEX_ABS")
def complex_abs(node: TfliteNode) -> None:
    re, im = parts(node, 0)
    squares = [node.emit("Eltwise", [p, p], {"type": PROD}).outputs[0] for p in (re, im)]
    total = node.emit("Eltwise", squares, {"type": SUM}).outputs[0]
    node.produce("Eltwise", [total], {"type": POW, "scalar_input": 0.5})


@converter("REAL", "IMAG")
def real_imag(node: TfliteNode) -> None:
    re, im = parts(node, 0)
    node.produce("Identity", [re if node.op_type == "REAL" else im])


def _cast(node: TfliteNode) -> None:
    """LiteRT casts a complex tensor to a real type by its real part."""
    out = node.model.tensors[node.op.outputs[0]].dtype
    if out not in CAST_TYPES:
        raise node.fail(f"CAST of a complex tensor to {TYPE_NAMES.get(out, out)} is not "
                        "supported")
    real = parts(node, 0)[0]
    if out == 0:
        node.produce("Identity", [real])
        return
    node.produce("Cast", [real], {"to": CAST_TYPES[out]})
