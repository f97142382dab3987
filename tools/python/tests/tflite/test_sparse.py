"""Sparse weights behind DENSIFY in the storage forms TFLite defines: CSR
rows in row-major and column-major traversal, and 1x4 blocks (a block map),
written with the flatbuffers builder, expanded at conversion and checked
against the dense matrix and LiteRT's FULLY_CONNECTED on it (seed 7)."""
from __future__ import annotations

import tempfile
import unittest
from pathlib import Path

import numpy as np
import tflite

from mace_converter.api import ConversionError
from mace_converter.numpy_runner import run
from tests.tflite.builder import Op, Spec, T, build
from tests.tflite.litert import convert_tflite, litert_run

SEED = 7
ROWS, COLS = 4, 8


def dense_weights() -> np.ndarray:
    """A [4, 8] matrix whose 1x4 blocks are zero or not, and with zeros
    inside its non-zero blocks too."""
    generator = np.random.default_rng(SEED)
    weights = generator.standard_normal((ROWS, COLS)).astype(np.float32)
    weights[0, 4:] = 0.0
    weights[2, :4] = 0.0
    weights[3, :] = 0.0
    weights[1, 1] = 0.0
    return weights


def csr(matrix: np.ndarray) -> tuple[list[int], list[int], np.ndarray]:
    segments, indices, values = [0], [], []
    for row in matrix:
        nonzero = np.flatnonzero(row)
        indices.extend(int(i) for i in nonzero)
        values.extend(row[nonzero])
        segments.append(len(indices))
    return segments, indices, np.asarray(values, np.float32)


def storage(form: str, weights: np.ndarray) -> tuple[tuple, np.ndarray]:
    """(sparsity, stored values) of `weights` in one of the forms."""
    if form == "rows":
        segments, indices, values = csr(weights)
        return ([0, 1], [], [ROWS, (segments, indices)]), values
    if form == "columns":
        segments, indices, values = csr(weights.T)
        return ([1, 0], [], [COLS, (segments, indices)]), values
    blocks = weights.reshape(ROWS, COLS // 4, 4)
    present = np.abs(blocks).sum(axis=2) != 0
    segments, indices, values = [0], [], []
    for row in range(ROWS):
        for block in np.flatnonzero(present[row]):
            indices.append(int(block))
            values.extend(blocks[row, block])
        segments.append(len(indices))
    return ([0, 1, 2], [1], [ROWS, (segments, indices), 4]), np.asarray(values, np.float32)


def model(form: str, weights: np.ndarray) -> bytes:
    sparsity, values = storage(form, weights)
    tensors = [T("x", [1, COLS]), T("w_sparse", [ROWS, COLS], 1, sparsity=sparsity),
               T("w", [ROWS, COLS]), T("y", [1, ROWS])]
    ops = [Op(tflite.BuiltinOperator.DENSIFY, [1], [2]),
           Op(tflite.BuiltinOperator.FULLY_CONNECTED, [0, 2, -1], [3])]
    return build(Spec(tensors, ops, [0], [3], [values.astype("<f4").tobytes()]))


class SparseWeightsTest(unittest.TestCase):
    def test_storage_forms(self):
        weights = dense_weights()
        x = np.random.default_rng(SEED + 1).uniform(-1, 1, (1, COLS)).astype(np.float32)
        with tempfile.TemporaryDirectory() as tmp:
            for form in ("rows", "columns", "blocks"):
                with self.subTest(form):
                    path = Path(tmp) / f"{form}.tflite"
                    path.write_bytes(model(form, weights))
                    expected = litert_run(path, {"x": x})["y"]
                    np.testing.assert_allclose(expected, x @ weights.T, rtol=1e-5, atol=1e-6)
                    converted = convert_tflite(path, {"x": [1, COLS]}, ["y"])
                    dense = [t for t in converted.net_def.tensors
                             if list(t.dims) == [ROWS, COLS]]
                    self.assertEqual(len(dense), 1, "the weight is stored dense")
                    got = run(converted.net_def, converted.weights, {"x": x})["y"]
                    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)

    def test_indices_past_the_shape_are_refused(self):
        weights = dense_weights()
        sparsity, values = storage("rows", weights)
        order, block_map, (rows, (segments, indices)) = sparsity
        bad = (order, block_map, [rows, (segments, [i + COLS for i in indices])])
        spec = Spec([T("x", [1, COLS]), T("w_sparse", [ROWS, COLS], 1, sparsity=bad),
                     T("w", [ROWS, COLS]), T("y", [1, ROWS])],
                    [Op(tflite.BuiltinOperator.DENSIFY, [1], [2]),
                     Op(tflite.BuiltinOperator.FULLY_CONNECTED, [0, 2, -1], [3])],
                    [0], [3], [values.astype("<f4").tobytes()])
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "bad.tflite"
            path.write_bytes(build(spec))
            with self.assertRaisesRegex(ConversionError, "an index lies outside shape"):
                convert_tflite(path, {"x": [1, COLS]}, ["y"])


if __name__ == "__main__":
    unittest.main()
