"""Builds small ONNX models, converts them and compares the numpy runner's
output with ONNX Runtime's."""
from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Optional, Sequence

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from mace_converter.api import ConvertedModel, ConvertOptions, TensorSpec
from mace_converter.convert import convert
from mace_converter.numpy_runner import run

SEED = 20240611


def rng(offset: int = 0) -> np.random.Generator:
    return np.random.default_rng(SEED + offset)


def initializer(name: str, value: np.ndarray) -> onnx.TensorProto:
    return numpy_helper.from_array(np.asarray(value), name)


def make_model(nodes: Sequence, inputs: dict[str, Sequence[int]],
               outputs: dict[str, Optional[Sequence[int]]], inits: Sequence = (),
               opset: int = 13) -> onnx.ModelProto:
    graph = helper.make_graph(
        list(nodes), "test",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, list(s)) for n, s in inputs.items()],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, list(s) if s else None)
         for n, s in outputs.items()],
        list(inits))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8 if opset <= 18 else 9
    return model


def ort_run(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    import onnxruntime
    options = onnxruntime.SessionOptions()
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
    options.intra_op_num_threads = 1
    options.log_severity_level = 3
    session = onnxruntime.InferenceSession(model.SerializeToString(), options,
                                           providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


def convert_model(model: onnx.ModelProto, inputs: dict[str, Sequence[int]],
                  outputs: Sequence[str], **options) -> ConvertedModel:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.onnx"
        onnx.save(model, str(path))
        return convert(ConvertOptions(
            platform="onnx", model_file=path, weight_file=None,
            inputs=[TensorSpec(n, list(s)) for n, s in inputs.items()],
            outputs=[TensorSpec(n, []) for n in outputs], **options))


def random_feeds(inputs: dict[str, Sequence[int]], offset: int = 0) -> dict[str, np.ndarray]:
    generator = rng(offset)
    return {n: generator.uniform(-1, 1, size=list(s)).astype(np.float32)
            for n, s in inputs.items()}


def check_against_ort(test, model: onnx.ModelProto, inputs: dict[str, Sequence[int]],
                      rtol: float = 1e-4, atol: float = 1e-5,
                      feeds: Optional[dict[str, np.ndarray]] = None,
                      **options) -> ConvertedModel:
    """Converts, runs both sides and asserts they agree. Returns the model."""
    outputs = [o.name for o in model.graph.output]
    feeds = feeds if feeds is not None else random_feeds(inputs)
    expected = ort_run(model, feeds)
    converted = convert_model(model, inputs, outputs, **options)
    got = run(converted.net_def, converted.weights, feeds)
    for name, want in zip(outputs, expected):
        test.assertEqual(list(got[name].shape), list(want.shape), name)
        np.testing.assert_allclose(got[name], want, rtol=rtol, atol=atol, err_msg=name)
    return converted


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    a, b = a.astype(np.float64).ravel(), b.astype(np.float64).ravel()
    denominator = np.linalg.norm(a) * np.linalg.norm(b)
    return float(a @ b / denominator) if denominator else float(np.allclose(a, b))


def _host_has_vnni() -> bool:
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:
        return False
    return re.search(r"\b(avx512_vnni|avx_vnni)\b", flags) is not None


# Without VNNI, onnxruntime multiplies uint8 by int8 with vpmaddubsw, whose
# int16 pair sums saturate when the int8 weights use their full range. Tests
# that take onnxruntime's integer output as the reference keep weights to 7
# bits on such hosts (onnxruntime's own reduce_range), where it is exact.
HOST_HAS_VNNI = _host_has_vnni()
INT8_WEIGHT_MAX = 127 if HOST_HAS_VNNI else 63


def mace_run_outputs(mace_run: Path, converted: ConvertedModel, feeds: dict[str, np.ndarray],
                     outputs: Sequence[str]) -> dict[str, np.ndarray]:
    """Runs `converted` with the mace_run binary on `feeds`; the outputs by name."""
    import subprocess
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        (d / "m.pb").write_bytes(converted.net_def.SerializeToString())
        (d / "m.data").write_bytes(converted.weights)
        for name, value in feeds.items():
            np.save(d / f"in_{name}.npy", value)
        result = subprocess.run([str(mace_run), f"--model_file={d / 'm.pb'}",
                                 f"--model_data_file={d / 'm.data'}", f"--input_file={d / 'in'}",
                                 f"--output_file={d / 'out'}"],
                                capture_output=True, text=True, timeout=120)
        if result.returncode != 0:
            raise AssertionError(result.stderr)
        return {name: np.load(d / f"out_{name}.npy") for name in outputs}
