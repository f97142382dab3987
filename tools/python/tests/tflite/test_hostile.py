"""Malformed and unsupported .tflite files end in one clear ConversionError
(no traceback, no IndexError or struct.error): truncated and corrupted
files, buffers and tensors out of range, and ops the converter lacks."""
from __future__ import annotations

import tempfile
import unittest
from pathlib import Path

import numpy as np
import tflite

from mace_converter.api import ConversionError
from tests.tflite.builder import Op, Spec, T, add_model, build
from tests.tflite.litert import convert_tflite

SEED = 20261128


class TfliteHostileTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self._tmp.cleanup)
        self.dir = Path(self._tmp.name)
        self.constant = np.arange(6, dtype=np.float32).reshape(2, 3)

    def refused(self, data: bytes, *parts: str, inputs=None, outputs=("y",)) -> str:
        path = self.dir / "model.tflite"
        path.write_bytes(data)
        with self.assertRaises(ConversionError) as caught:
            convert_tflite(path, inputs or {"x": [2, 3]}, list(outputs))
        message = str(caught.exception)
        self.assertNotIn("\n", message)
        for part in parts:
            self.assertIn(part, message)
        return message

    def test_the_well_formed_model_converts(self):
        path = self.dir / "model.tflite"
        path.write_bytes(add_model(self.constant))
        self.assertEqual(len(convert_tflite(path, {"x": [2, 3]}, ["y"]).net_def.op), 1)

    def test_not_a_tflite_file(self):
        self.refused(b"", "not a TFLite model")
        self.refused(b"\x00" * 64, "not a TFLite model")

    def test_truncated_files(self):
        data = add_model(self.constant)
        for length in (8, 12, 24, len(data) // 2, len(data) - 4):
            with self.subTest(length=length):
                self.refused(data[:length], "model.tflite")

    def test_corrupted_bytes(self):
        data = add_model(self.constant)
        generator = np.random.default_rng(SEED)
        for trial in range(40):
            corrupt = bytearray(data)
            for position in generator.integers(8, len(data), size=4):
                corrupt[position] = int(generator.integers(0, 256))
            path = self.dir / "model.tflite"
            path.write_bytes(bytes(corrupt))
            with self.subTest(trial=trial):
                try:
                    convert_tflite(path, {"x": [2, 3]}, ["y"])
                except ConversionError as error:
                    self.assertNotIn("\n", str(error))

    def test_buffer_index_out_of_range(self):
        self.refused(add_model(self.constant, buffer_index=7), "buffer 7", "2 buffers")

    def test_buffer_offset_past_the_end(self):
        self.refused(add_model(self.constant, buffers=[(1 << 20, 24)]), "past the end")

    def test_buffer_of_the_wrong_size(self):
        self.refused(add_model(self.constant, buffers=[b"\x00" * 20]), "holds 20 bytes")

    def test_operator_naming_a_missing_tensor(self):
        spec = Spec([T("x", [2, 3]), T("y", [2, 3])],
                    [Op(tflite.BuiltinOperator.RELU, [0], [9])], [0], [1])
        self.refused(build(spec), "tensor 9", "2 tensors")

    def test_a_cycle_of_operators(self):
        relu = tflite.BuiltinOperator.RELU
        spec = Spec([T("x", [2, 3]), T("a", [2, 3]), T("y", [2, 3])],
                    [Op(relu, [1], [2]), Op(relu, [2], [1])], [0], [2])
        self.refused(build(spec), "RELU operator 0", "tensor 'a' is used but never defined")

    def test_a_tensor_of_huge_shape(self):
        spec = Spec([T("x", [2, 3]), T("c", [1 << 30, 1 << 30], 1), T("y", [2, 3])],
                    [Op(tflite.BuiltinOperator.ADD, [0, 1], [2])], [0], [2],
                    [self.constant.astype("<f4").tobytes()])
        self.refused(build(spec), "'c' has shape [1073741824, 1073741824]", "holds 24 bytes")

    def test_unknown_builtin_and_custom_ops(self):
        for code, name in ((tflite.BuiltinOperator.LSH_PROJECTION, "LSH_PROJECTION"),
                           ("MyCustomOp", "MyCustomOp")):
            spec = Spec([T("x", [2, 3]), T("y", [2, 3])], [Op(code, [0], [1])], [0], [1])
            with self.subTest(name):
                self.refused(build(spec), f"op {name} is not supported", "operator 0")

    def test_unknown_input_and_output_names(self):
        data = add_model(self.constant)
        self.refused(data, "input 'z' is not a tensor", inputs={"z": [2, 3]})
        self.refused(data, "output 'q' is not a tensor", outputs=("q",))


if __name__ == "__main__":
    unittest.main()
