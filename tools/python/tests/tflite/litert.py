"""Helpers of the TFLite frontend tests: LiteRT as the oracle, TensorFlow's
TFLiteConverter to write test models, and conversion plus the numpy runner
for the MACE side."""
from __future__ import annotations

import os
import tempfile
import unittest
from pathlib import Path
from typing import Callable, Optional, Sequence

import numpy as np

from mace_converter.api import ConvertedModel, ConvertOptions, TensorSpec
from mace_converter.convert import convert
from mace_converter.tflite_reference import run_litert


def litert_run(path: Path, feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Runs the model in LiteRT (as `run --validate` does); its outputs by
    name, int8 and uint8 ones as the real values they stand for."""
    _, outputs = io_names(path)
    return run_litert(path, feeds, outputs)[1]


def io_names(path: Path) -> tuple[dict[str, list[int]], list[str]]:
    from ai_edge_litert.interpreter import Interpreter
    interpreter = Interpreter(model_path=str(path))
    inputs = {canonical(d["name"]): [int(v) for v in d["shape"]]
              for d in interpreter.get_input_details()}
    return inputs, [canonical(d["name"]) for d in interpreter.get_output_details()]


def canonical(name: str) -> str:
    return name[:-2] if name.endswith(":0") else name


def convert_tflite(path: Path, inputs: dict[str, Sequence[int]],
                   outputs: Sequence[str]) -> ConvertedModel:
    return convert(ConvertOptions(
        platform="tflite", model_file=path, weight_file=None,
        inputs=[TensorSpec(n, list(s), data_format="NHWC") for n, s in inputs.items()],
        outputs=[TensorSpec(n, [], data_format="NHWC") for n in outputs]))


def tensorflow():
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf
    tf.get_logger().setLevel("ERROR")
    return tf


def write_tflite(path: Path, fn: Callable, specs: Sequence[Sequence[int]],
                 optimize: Optional[str] = None,
                 representative: Optional[Callable] = None, dynamic: bool = False) -> Path:
    """Writes `fn` (a function of float32 tensors of shapes `specs`) as a
    .tflite file. optimize: None, "fp16", "sparse",
    "dynamic" (int8 weights, float activations), "int8" (int8 throughout,
    float edges; needs `representative`) or "int8_io" (int8 edges too)."""
    tf = tensorflow()
    signature = [tf.TensorSpec([None] * len(s) if dynamic else list(s), tf.float32,
                               name=f"x{i}")
                 for i, s in enumerate(specs)]
    concrete = tf.function(fn, input_signature=signature).get_concrete_function()
    converter = tf.lite.TFLiteConverter.from_concrete_functions([concrete])
    if optimize == "fp16":
        converter.optimizations = [tf.lite.Optimize.DEFAULT]
        converter.target_spec.supported_types = [tf.float16]
    elif optimize == "sparse":
        converter.optimizations = [tf.lite.Optimize.EXPERIMENTAL_SPARSITY]
    elif optimize == "dynamic":
        converter.optimizations = [tf.lite.Optimize.DEFAULT]
    elif optimize in ("int8", "int8_io"):
        converter.optimizations = [tf.lite.Optimize.DEFAULT]
        converter.representative_dataset = representative
    if optimize == "int8_io":
        converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
        converter.inference_input_type = tf.int8
        converter.inference_output_type = tf.int8
    path.write_bytes(converter.convert())
    return path


class TfliteModelCase(unittest.TestCase):
    """A test class that writes its models with TensorFlow into a temporary
    directory of its own (self.dir)."""

    @classmethod
    def setUpClass(cls):
        cls.tf = tensorflow()
        cls._tmp = tempfile.TemporaryDirectory()
        cls.dir = Path(cls._tmp.name)

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()
