"""`run --validate` for uint8 models, beyond the cosine of each output:
top-1 agreement with the reference over the calibration inputs, and for an
imported QDQ model the share of outputs within one quantum of what
onnxruntime computes for the same model."""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Optional

import numpy as np

from mace_converter.config import DeploymentConfig, ModelConfig
from mace_converter.quantize import calibration

MAX_SAMPLES = 16


def agreement_samples(config: DeploymentConfig, model: ModelConfig) -> tuple[list, str]:
    settings = model.quantize
    assert settings is not None
    if settings.calibration_inputs:
        key = f"{config.path}: models.{model.name}.calibration_inputs"
        samples = calibration.load_samples(settings.calibration_inputs, model.inputs, key,
                                           config.path.parent)
        origin = "calibration inputs"
    else:
        samples, origin = calibration.random_samples(model.inputs), "random calibration inputs"
    return samples[:MAX_SAMPLES], origin


def is_classifier(array: np.ndarray) -> bool:
    return array.size >= 2 and array.size == array.shape[-1]


def top1_agreement(pairs: list[tuple[np.ndarray, np.ndarray]]) -> Optional[float]:
    """The share of (actual, expected) pairs whose argmax agrees, or None when
    the output is not a vector of scores."""
    if not pairs or not all(is_classifier(e) for _, e in pairs):
        return None
    same = sum(int(np.argmax(a.reshape(-1)) == np.argmax(e.reshape(-1))) for a, e in pairs)
    return same / len(pairs)


def output_scale(model_file: Path, output: str) -> Optional[float]:
    """The scale of the DequantizeLinear that produces `output` in a QDQ
    model, or None."""
    import onnx
    from onnx import numpy_helper
    graph = onnx.load(str(model_file)).graph
    values = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    for node in graph.node:
        if node.op_type == "DequantizeLinear" and output in node.output:
            scale = values.get(node.input[1])
            if scale is not None and scale.size == 1:
                return float(scale.reshape(-1)[0])
    return None


def within_one_quantum(actual: np.ndarray, expected: np.ndarray, scale: float) -> float:
    error = np.abs(actual.astype(np.float64).reshape(-1) - expected.astype(np.float64).reshape(-1))
    return float(np.mean(error <= scale * (1 + 1e-4)))


def check(config: DeploymentConfig, model: ModelConfig, run_one: Callable, reference: Callable,
          say: Callable[[str], None]) -> None:
    """Runs MACE (`run_one(inputs) -> outputs`) and the reference
    (`reference(inputs) -> outputs`) over the agreement samples and prints
    top-1 agreement per classifier output (and one-quantum agreement for a
    QDQ model). Reports; the pass/fail bound is the cosine."""
    from mace_converter.quantize.qdq import is_qdq_model
    samples, origin = agreement_samples(config, model)
    got, want = [], []
    for sample in samples:
        got.append(run_one(sample))
        want.append(reference(sample))
    for spec in model.outputs:
        pairs = [(g[spec.name], w[spec.name]) for g, w in zip(got, want)]
        top1 = top1_agreement(pairs)
        if top1 is not None:
            say(f"    {spec.name}: top-1 agreement with the reference {top1:.1%} over "
                f"{len(pairs)} {origin}")
        if model.platform == "onnx" and is_qdq_model(model_path(config, model)):
            scale = output_scale(model_path(config, model), spec.name)
            if scale is not None:
                share = np.mean([within_one_quantum(a, e, scale) for a, e in pairs])
                say(f"    {spec.name}: {share:.2%} of values within one quantum ({scale:.4g}) "
                    "of onnxruntime on the QDQ model")


def model_path(config: DeploymentConfig, model: ModelConfig) -> Path:
    from mace_converter import fetch
    return fetch.model_files(config, model)[0]
